package serving

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
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

// versions are the Deployments of the serving, oldest version first; a
// serving with none is a not-found error (exit 3).
func (c *Client) versions(ctx context.Context, namespace, name string) ([]appsv1.Deployment, error) {
	list, err := c.Kube.AppsV1().Deployments(namespace).List(ctx, metav1.ListOptions{LabelSelector: Label + "=" + name})
	if err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, exit.NotFoundErrorf("serving %s not found in namespace %s (easyai serve list)", name, namespace)
	}
	vs := list.Items
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
		err := c.modify(ctx, namespace, stable.Name, func(d *appsv1.Deployment) {
			apply(d, ch)
			if ch.Replicas != nil {
				d.Spec.Replicas = ch.Replicas
			}
		})
		return fmt.Sprintf("serving %s updated: a rolling update of %s", name, stable.Labels[VersionLabel]), err
	}
	total := replicasOf(stable)
	if ch.Replicas != nil {
		total = *ch.Replicas
	}
	canaryN := max(1, (total*int32(ch.Canary)+50)/100)
	stableN := max(1, total-canaryN)
	version := fmt.Sprintf("v%d", versionNumber(stable.Labels[VersionLabel])+1)
	canary := newVersion(stable, version, canaryN, ch)
	if _, err := c.Kube.AppsV1().Deployments(namespace).Create(ctx, canary, createOptions(false)); err != nil {
		return "", fmt.Errorf("creating version %s of serving %s: %w", version, name, err)
	}
	err = c.modify(ctx, namespace, stable.Name, func(d *appsv1.Deployment) {
		d.Spec.Replicas = &stableN
		setAnnotation(d, ReplicasBeforeAnnotation, strconv.Itoa(int(total)))
	})
	if err != nil {
		// Nothing half-made: the canary goes again.
		_ = c.deleteDeployment(context.WithoutCancel(ctx), namespace, canary.Name)
		return "", err
	}
	return fmt.Sprintf("serving %s: version %s (%d of %d replicas, about %d%% of the traffic) beside %s (%d)",
		name, version, canaryN, canaryN+stableN, canaryN*100/(canaryN+stableN), stable.Labels[VersionLabel], stableN), nil
}

// newVersion is the Deployment of a new version of the serving of stable:
// stable's, changed.
func newVersion(stable *appsv1.Deployment, version string, replicas int32, ch Change) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{
			Name: DeploymentName(stable.Labels[Label], version), Namespace: stable.Namespace,
			Labels: copyMap(stable.Labels), Annotations: copyMap(stable.Annotations),
		},
		Spec: *stable.Spec.DeepCopy(),
	}
	d.Labels[VersionLabel] = version
	delete(d.Annotations, ReplicasBeforeAnnotation)
	delete(d.Annotations, "deployment.kubernetes.io/revision")
	d.Annotations[CanaryAnnotation] = strconv.Itoa(ch.Canary)
	d.Spec.Replicas = &replicas
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{Label: stable.Labels[Label], VersionLabel: version}}
	d.Spec.Template.Labels = copyMap(d.Spec.Template.Labels)
	d.Spec.Template.Labels[VersionLabel] = version
	apply(d, Change{Image: ch.Image, Env: ch.Env})
	return d
}

func copyMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func setAnnotation(d *appsv1.Deployment, key, value string) {
	if d.Annotations == nil {
		d.Annotations = map[string]string{}
	}
	d.Annotations[key] = value
}

// apply changes the server's container of d: its image and variables.
func apply(d *appsv1.Deployment, ch Change) {
	cs := d.Spec.Template.Spec.Containers
	for i := range cs {
		if cs[i].Name != Container {
			continue
		}
		if ch.Image != "" {
			cs[i].Image = ch.Image
		}
		for _, e := range ch.Env {
			name, value, _ := strings.Cut(e, "=")
			set := false
			for j := range cs[i].Env {
				if cs[i].Env[j].Name == name {
					cs[i].Env[j] = corev1.EnvVar{Name: name, Value: value}
					set = true
				}
			}
			if !set {
				cs[i].Env = append(cs[i].Env, corev1.EnvVar{Name: name, Value: value})
			}
		}
	}
}

// modify reads the Deployment, changes it and writes it back, again when
// someone else changed it in between.
func (c *Client) modify(ctx context.Context, namespace, name string, change func(*appsv1.Deployment)) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := c.Kube.AppsV1().Deployments(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		change(d)
		_, err = c.Kube.AppsV1().Deployments(namespace).Update(ctx, d, metav1.UpdateOptions{FieldManager: "easyai"})
		return err
	})
}

func (c *Client) deleteDeployment(ctx context.Context, namespace, name string) error {
	return c.Kube.AppsV1().Deployments(namespace).Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr(metav1.DeletePropagationBackground)})
}

// canaryOf is the serving's stable version and its canary; a serving with
// one version is a usage error (verb: "promote", "roll back").
func (c *Client) canaryOf(ctx context.Context, namespace, name, verb string) (stable, canary *appsv1.Deployment, err error) {
	vs, err := c.versions(ctx, namespace, name)
	if err != nil {
		return nil, nil, err
	}
	if len(vs) < 2 {
		return nil, nil, exit.UsageErrorf("serving %s has no canary to %s: it runs one version (%s)", name, verb, vs[0].Labels[VersionLabel])
	}
	return &vs[0], &vs[len(vs)-1], nil
}

// total is the serving's replicas before its canary, as the annotation
// recorded it. The canary took some of them, at least one each, so there
// were never more than both have now: a larger value (anyone who may edit
// the Deployment may have written it) is not believed.
func total(stable, canary *appsv1.Deployment) int32 {
	both := replicasOf(stable) + replicasOf(canary)
	if n, err := strconv.Atoi(stable.Annotations[ReplicasBeforeAnnotation]); err == nil && n > 0 && n <= int(both) {
		return int32(n)
	}
	return both
}

// Promote makes the canary the serving's only version, with all its
// replicas: the canary scales up, the Service is handed to it, the old
// version goes.
func (c *Client) Promote(ctx context.Context, namespace, name string) (string, error) {
	stable, canary, err := c.canaryOf(ctx, namespace, name, "promote")
	if err != nil {
		return "", err
	}
	n := total(stable, canary)
	err = c.modify(ctx, namespace, canary.Name, func(d *appsv1.Deployment) {
		d.Spec.Replicas = &n
		delete(d.Annotations, CanaryAnnotation)
	})
	if err != nil {
		return "", err
	}
	if err := c.handService(ctx, namespace, name, canary); err != nil {
		return "", err
	}
	if err := c.deleteDeployment(ctx, namespace, stable.Name); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving %s: %s promoted (%d replicas), %s removed", name, canary.Labels[VersionLabel], n, stable.Labels[VersionLabel]), nil
}

// Rollback removes the canary and gives the stable version its replicas
// back.
func (c *Client) Rollback(ctx context.Context, namespace, name string) (string, error) {
	stable, canary, err := c.canaryOf(ctx, namespace, name, "roll back")
	if err != nil {
		return "", err
	}
	n := total(stable, canary)
	err = c.modify(ctx, namespace, stable.Name, func(d *appsv1.Deployment) {
		d.Spec.Replicas = &n
		delete(d.Annotations, ReplicasBeforeAnnotation)
	})
	if err != nil {
		return "", err
	}
	if err := c.deleteDeployment(ctx, namespace, canary.Name); err != nil {
		return "", err
	}
	return fmt.Sprintf("serving %s: %s removed, %s has its %d replicas back", name, canary.Labels[VersionLabel], stable.Labels[VersionLabel], n), nil
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
	return c.modify(ctx, namespace, vs[0].Name, func(d *appsv1.Deployment) { d.Spec.Replicas = &replicas })
}

// handService makes the Service owned by d, so that it lives as long as
// the version that now serves.
func (c *Client) handService(ctx context.Context, namespace, name string, d *appsv1.Deployment) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		svc, err := c.Kube.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("the Service of serving %s: %w", name, err)
		}
		if svc.Labels[Label] != name {
			return fmt.Errorf("the Service %s is not serving %s's (label %s)", name, name, Label)
		}
		svc.OwnerReferences = []metav1.OwnerReference{*metav1.NewControllerRef(d, appsv1.SchemeGroupVersion.WithKind("Deployment"))}
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
