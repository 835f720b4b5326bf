package serving

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Annotations of a version's Deployment during a canary.
const (
	// CanaryAnnotation is the share of the traffic, in percent, asked for
	// the canary (on the canary's Deployment).
	CanaryAnnotation = "easyai.io/canary-percent"
	// ReplicasBeforeAnnotation is the stable version's replicas before the
	// canary took some (on the stable version's Deployment).
	ReplicasBeforeAnnotation = "easyai.io/replicas-before-canary"
)

// Change is what "serve update" changes.
type Change struct {
	// Image replaces the server's image ("": kept).
	Image string
	// Env sets variables of the server, NAME=VALUE (added or replaced).
	Env []string
	// Replicas is the serving's replicas in all (nil: kept).
	Replicas *int32
	// Canary, 1 to 99, makes the change a new version beside the current
	// one, given that share of the replicas; 0 changes the current version
	// in a rolling update.
	Canary int
}

// Validate checks the change without the cluster.
func (ch Change) Validate() error {
	if ch.Image == "" && len(ch.Env) == 0 && ch.Replicas == nil {
		return exit.UsageErrorf("nothing to change: give --image, --env or --replicas")
	}
	if ch.Canary < 0 || ch.Canary > 99 {
		return exit.UsageErrorf("--canary %d: a share of the traffic from 1 to 99 (percent)", ch.Canary)
	}
	if ch.Replicas != nil && *ch.Replicas < 1 {
		return exit.UsageErrorf("--replicas %d: a serving has at least 1 replica", *ch.Replicas)
	}
	return checkEnv(ch.Env)
}

// versions are the Deployments of the serving, oldest version first (with
// stand-ins for InferenceServices KServe has not made one of yet:
// withPending); a serving with none is a not-found error (exit 3).
func (c *Client) versions(ctx context.Context, namespace, name string) ([]appsv1.Deployment, error) {
	list, err := c.Kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label + "=" + name})
	if err != nil {
		return nil, err
	}
	vs, err := c.withPending(ctx, namespace, Label+"="+name, list.Items)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, exit.NotFoundErrorf("serving %s not found in namespace %s (easyai serve list)", name, namespace)
	}
	sort.Slice(vs, func(i, j int) bool {
		return versionNumber(vs[i].Labels[VersionLabel]) < versionNumber(vs[j].Labels[VersionLabel])
	})
	return vs, nil
}

// versionNumber is N of vN (0 when it is not one).
func versionNumber(v string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(v, "v"))
	if err != nil || !strings.HasPrefix(v, "v") {
		return 0
	}
	return n
}

func replicasOf(d *appsv1.Deployment) int32 {
	if d.Spec.Replicas == nil {
		return 1
	}
	return *d.Spec.Replicas
}

// noCanary refuses a change of a serving that has one.
func noCanary(name string, vs []appsv1.Deployment) error {
	if len(vs) > 1 {
		return exit.UsageErrorf("serving %s has a canary (%s): promote or rollback it first (easyai serve promote|rollback %s)", name, vs[len(vs)-1].Labels[VersionLabel], name)
	}
	return nil
}

// Update changes the serving: in a rolling update of its version, or, with
// a canary, as a new version beside it. It returns what it did, for people.
func (c *Client) Update(ctx context.Context, namespace, name string, ch Change) (string, error) {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	if err := noCanary(name, vs); err != nil {
		return "", err
	}
	stable := &vs[0]
	if ch.Canary == 0 {
		err := c.modify(ctx, stable, func(w workload) {
			w.apply(ch)
			if ch.Replicas != nil {
				w.setReplicas(*ch.Replicas)
			}
		})
		return fmt.Sprintf("serving %s updated: a rolling update of %s", name, stable.Labels[VersionLabel]), err
	}
	b, sw, err := c.load(ctx, stable)
	if err != nil {
		return "", err
	}
	total := sw.replicas()
	if ch.Replicas != nil {
		total = *ch.Replicas
	}
	canaryN := max(1, (total*int32(ch.Canary)+50)/100)
	stableN := max(1, total-canaryN)
	version := fmt.Sprintf("v%d", versionNumber(stable.Labels[VersionLabel])+1)
	canary := sw.newVersion(version, canaryN)
	canary.setAnnotation(CanaryAnnotation, strconv.Itoa(ch.Canary))
	canary.apply(Change{Image: ch.Image, Env: ch.Env})
	if _, err := b.create(ctx, canary, false); err != nil {
		return "", fmt.Errorf("creating version %s of serving %s: %w", version, name, err)
	}
	err = c.modify(ctx, stable, func(w workload) {
		w.setReplicas(stableN)
		w.setAnnotation(ReplicasBeforeAnnotation, strconv.Itoa(int(total)))
	})
	if err != nil {
		// Nothing half-made: the canary goes again.
		_ = b.delete(context.WithoutCancel(ctx), namespace, canary.name())
		return "", err
	}
	return fmt.Sprintf("serving %s: version %s (%d of %d replicas, about %d%% of the traffic) beside %s (%d)",
		name, version, canaryN, canaryN+stableN, canaryN*100/(canaryN+stableN), stable.Labels[VersionLabel], stableN), nil
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// canary is a serving's two versions during a canary: their Deployments,
// their workloads and the workloads' backends.
type canary struct {
	stable, canary   *appsv1.Deployment
	stableW, canaryW workload
	stableB, canaryB backend
}

// canaryOf is the serving's stable version and its canary; a serving with
// one version is a usage error (verb: "promote", "roll back").
func (c *Client) canaryOf(ctx context.Context, namespace, name, verb string) (*canary, error) {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return nil, err
	}
	if len(vs) < 2 {
		return nil, exit.UsageErrorf("serving %s has no canary to %s: it runs one version (%s)", name, verb, vs[0].Labels[VersionLabel])
	}
	out := &canary{stable: &vs[0], canary: &vs[len(vs)-1]}
	if out.stableB, out.stableW, err = c.load(ctx, out.stable); err != nil {
		return nil, err
	}
	if out.canaryB, out.canaryW, err = c.load(ctx, out.canary); err != nil {
		return nil, err
	}
	return out, nil
}

// total is the serving's replicas before its canary, as the annotation
// recorded it. The canary took some of them, at least one each, so there
// were never more than both have now: a larger value (anyone who may edit
// the serving may have written it) is not believed.
func (cn *canary) total() int32 {
	both := cn.stableW.replicas() + cn.canaryW.replicas()
	if n, err := strconv.Atoi(cn.stableW.annotations()[ReplicasBeforeAnnotation]); err == nil && n > 0 && n <= int(both) {
		return int32(n)
	}
	return both
}

// Promote makes the canary the serving's only version, with all its
// replicas: the canary scales up, the Service is handed to it, the old
// version goes.
func (c *Client) Promote(ctx context.Context, namespace, name string) (string, error) {
	cn, err := c.canaryOf(ctx, namespace, name, "promote")
	if err != nil {
		return "", err
	}
	n := cn.total()
	err = c.modify(ctx, cn.canary, func(w workload) {
		w.setReplicas(n)
		w.setAnnotation(CanaryAnnotation, "")
	})
	if err != nil {
		return "", err
	}
	if err := c.handService(ctx, namespace, name, cn.canaryW.controllerRef()); err != nil {
		return "", err
	}
	if err := cn.stableB.delete(ctx, namespace, cn.stableW.name()); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving %s: %s promoted (%d replicas), %s removed", name, cn.canary.Labels[VersionLabel], n, cn.stable.Labels[VersionLabel]), nil
}

// Rollback removes the canary and gives the stable version its replicas
// back.
func (c *Client) Rollback(ctx context.Context, namespace, name string) (string, error) {
	cn, err := c.canaryOf(ctx, namespace, name, "roll back")
	if err != nil {
		return "", err
	}
	n := cn.total()
	err = c.modify(ctx, cn.stable, func(w workload) {
		w.setReplicas(n)
		w.setAnnotation(ReplicasBeforeAnnotation, "")
	})
	if err != nil {
		return "", err
	}
	if err := cn.canaryB.delete(ctx, namespace, cn.canaryW.name()); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving %s: %s removed, %s has its %d replicas back", name, cn.canary.Labels[VersionLabel], cn.stable.Labels[VersionLabel], n), nil
}

// Scale sets the replicas of a serving of one version.
func (c *Client) Scale(ctx context.Context, namespace, name string, replicas int32) error {
	if replicas < 1 {
		return exit.UsageErrorf("%d replicas: a serving has at least 1 (delete it to stop it)", replicas)
	}
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return err
	}
	if err := noCanary(name, vs); err != nil {
		return err
	}
	return c.modify(ctx, &vs[0], func(w workload) { w.setReplicas(replicas) })
}

// handService makes the Service owned by owner, so that it lives as long
// as the version that now serves.
func (c *Client) handService(ctx context.Context, namespace, name string, owner metav1.OwnerReference) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := c.Kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the Service of serving %s: %w", name, err)
		}
		if svc.Labels[Label] != name {
			return fmt.Errorf("the Service %s is not serving %s's (label %s)", name, name, Label)
		}
		svc.OwnerReferences = []metav1.OwnerReference{owner}
		_, err = c.Kube.CoreV1().Services(namespace).Update(ctx, svc, metav1.UpdateOptions{FieldManager: "easyai"})
		return err
	})
}

// Owner is who created the serving, as its annotation says ("": not
// recorded); the serving must exist.
func (c *Client) Owner(ctx context.Context, namespace, name string) (string, error) {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return "", err
	}
	return vs[0].Annotations[jobmodel.UserAnnotation], nil
}
