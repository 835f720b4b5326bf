package kube

import (
	"context"
	"fmt"
	"sort"
	"sync"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Need is one permission easyai's commands use: a verb on a resource (or a
// subresource: "pods" "exec") in the namespace, and which commands need it.
type Need struct {
	Verb        string
	Group       string
	Resource    string
	Subresource string
	NeededBy    []string
}

// Name is the resource as RBAC rules name it ("tfjobs.kubeflow.org",
// "pods/exec").
func (n Need) Name() string {
	name := schema.GroupResource{Group: n.Group, Resource: n.Resource}.String()
	if n.Subresource != "" {
		name += "/" + n.Subresource
	}
	return name
}

// VolcanoCommands are the Volcano Commands suspend and resume create for a
// Volcano Job.
var VolcanoCommands = schema.GroupVersionResource{Group: "bus.volcano.sh", Version: "v1alpha1", Resource: "commands"}

// Needs lists every permission easyai's commands use in a namespace: the
// verbs on each job kind, and on pods, their logs, exec, attach and
// port-forward, the fetcher and uploader pods, Jupyter token Secrets and
// events. docs/permissions.md explains each.
func Needs(reg *kinds.Registry) []Need {
	var needs []Need
	for _, k := range reg.All() {
		r := k.Resource()
		for _, v := range []struct {
			verb string
			by   []string
		}{
			{"create", []string{"submit"}},
			{"get", []string{"get", "logs", "exec", "attach", "port-forward", "open", "download", "wait", "delete", "suspend", "resume"}},
			{"list", []string{"list"}},
			{"watch", []string{"wait", "logs -f"}},
			{"patch", []string{"suspend", "resume"}},
			{"delete", []string{"delete"}},
		} {
			needs = append(needs, Need{Verb: v.verb, Group: r.Group, Resource: r.Resource, NeededBy: v.by})
		}
	}
	for _, verb := range []string{"get", "list"} {
		// The runtimes of the namespace (a ClusterTrainingRuntime is not
		// the namespace's: without it, runtimes and submit say so).
		needs = append(needs, Need{Verb: verb, Group: "trainer.kubeflow.org", Resource: "trainingruntimes", NeededBy: []string{"runtimes", "submit (checking a TrainingRuntime)"}})
	}
	return append(append(needs,
		Need{Verb: "create", Group: VolcanoCommands.Group, Resource: VolcanoCommands.Resource, NeededBy: []string{"suspend", "resume"}},
		Need{Verb: "get", Resource: "pods", NeededBy: []string{"port-forward", "open", "download"}},
		Need{Verb: "list", Resource: "pods", NeededBy: []string{"get", "logs", "exec", "attach", "port-forward", "open", "download"}},
		Need{Verb: "watch", Resource: "pods", NeededBy: []string{"logs -f", "download"}},
		Need{Verb: "create", Resource: "pods", NeededBy: []string{"download and logs (the fetcher pod)", "upload (the uploader pod)"}},
		Need{Verb: "delete", Resource: "pods", NeededBy: []string{"download and logs (the fetcher pod)", "upload (the uploader pod)"}},
		Need{Verb: "get", Resource: "pods", Subresource: "log", NeededBy: []string{"logs"}},
		Need{Verb: "create", Resource: "pods", Subresource: "exec", NeededBy: []string{"exec", "download", "upload"}},
		Need{Verb: "create", Resource: "pods", Subresource: "attach", NeededBy: []string{"attach"}},
		Need{Verb: "create", Resource: "pods", Subresource: "portforward", NeededBy: []string{"port-forward", "open", "serve invoke"}},
		Need{Verb: "get", Resource: "secrets", NeededBy: []string{"open (Jupyter tokens)"}},
		Need{Verb: "list", Resource: "events", NeededBy: []string{"get", "logs"}},
		Need{Verb: "watch", Resource: "events", NeededBy: []string{"logs -f"}},
		Need{Verb: "create", Group: "apps", Resource: "deployments", NeededBy: []string{"serve create", "serve update --canary"}},
		Need{Verb: "list", Group: "apps", Resource: "deployments", NeededBy: []string{"serve list", "serve get"}},
		Need{Verb: "update", Group: "apps", Resource: "deployments", NeededBy: []string{"serve update", "serve promote", "serve rollback", "serve scale"}},
		Need{Verb: "delete", Group: "apps", Resource: "deployments", NeededBy: []string{"serve delete", "serve promote", "serve rollback"}},
		Need{Verb: "create", Resource: "services", NeededBy: []string{"serve create"}},
		Need{Verb: "create", Group: "serving.kserve.io", Resource: "inferenceservices", NeededBy: []string{"serve create on KServe", "serve update --canary on KServe"}},
		Need{Verb: "update", Group: "serving.kserve.io", Resource: "inferenceservices", NeededBy: []string{"serve update, promote, rollback, scale on KServe"}},
		Need{Verb: "delete", Group: "serving.kserve.io", Resource: "inferenceservices", NeededBy: []string{"serve delete, promote, rollback on KServe"}},
	), scheduleNeeds()...)
}

// scheduleNeeds are what schedules, pipelines and Kueue's queues need.
func scheduleNeeds() []Need {
	return []Need{
		{Verb: "create", Group: "batch", Resource: "cronjobs", NeededBy: []string{"cron create"}},
		{Verb: "patch", Group: "batch", Resource: "cronjobs", NeededBy: []string{"cron suspend", "cron resume"}},
		{Verb: "create", Group: "batch", Resource: "jobs", NeededBy: []string{"cron trigger"}},
		{Verb: "create", Resource: "configmaps", NeededBy: []string{"cron create"}},
		{Verb: "create", Group: "batch.volcano.sh", Resource: "cronjobs", NeededBy: []string{"cron create --backend volcano"}},
		{Verb: "list", Group: "kueue.x-k8s.io", Resource: "localqueues", NeededBy: []string{"submit --queue (Kueue)", "queue list", "queue get"}},
		{Verb: "list", Group: "kueue.x-k8s.io", Resource: "workloads", NeededBy: []string{"list, get (Kueue admission)", "wait --for admitted", "queue get"}},
		{Verb: "patch", Group: "kueue.x-k8s.io", Resource: "workloads", NeededBy: []string{"suspend, resume (a job Kueue manages)"}},
		{Verb: "list", Group: "batch.volcano.sh", Resource: "cronjobs", NeededBy: []string{"cron list (Volcano's CronJobs)"}},
		{Verb: "create", Group: "flow.volcano.sh", Resource: "jobflows", NeededBy: []string{"pipeline run"}},
		{Verb: "list", Group: "flow.volcano.sh", Resource: "jobflows", NeededBy: []string{"pipeline list", "pipeline get", "pipeline wait"}},
		{Verb: "delete", Group: "flow.volcano.sh", Resource: "jobflows", NeededBy: []string{"pipeline delete"}},
		{Verb: "create", Group: "flow.volcano.sh", Resource: "jobtemplates", NeededBy: []string{"pipeline run"}},
		{Verb: "update", Group: "flow.volcano.sh", Resource: "jobtemplates", NeededBy: []string{"pipeline run"}},
	}
}

// API is one job kind's API and whether the cluster serves it.
type API struct {
	APIKind     string `json:"kind"`
	APIVersion  string `json:"apiVersion"`
	Resource    string `json:"resource"`
	Installed   bool   `json:"installed"`
	InstalledBy string `json:"installedBy"`
	KindName    string `json:"jobKind,omitempty"`
}

// Access is one permission checked: a SelfSubjectAccessReview's answer.
type Access struct {
	Verb        string   `json:"verb"`
	Group       string   `json:"group,omitempty"`
	Resource    string   `json:"resource"`
	Subresource string   `json:"subresource,omitempty"`
	Allowed     bool     `json:"allowed"`
	Reason      string   `json:"reason,omitempty"`
	NeededBy    []string `json:"neededBy"`
}

// Name is the resource as RBAC rules name it.
func (a Access) Name() string {
	return Need{Group: a.Group, Resource: a.Resource, Subresource: a.Subresource}.Name()
}

// Report is what "easyai doctor" found.
type Report struct {
	Context       string   `json:"context,omitempty"`
	Server        string   `json:"server"`
	ServerVersion string   `json:"serverVersion"`
	User          string   `json:"user,omitempty"`
	Namespace     string   `json:"namespace"`
	APIs          []API    `json:"apis"`
	Access        []Access `json:"access"`
	// QueueSystems are Volcano's and Kueue's queues; QueueMeans which one
	// --queue names in the namespace.
	QueueSystems []QueueSystem `json:"queueSystems,omitempty"`
	QueueMeans   string        `json:"queueMeans,omitempty"`
}

// Diagnose fills report (its Context, Server, User and Namespace already
// set) with the API server's version, which job kinds it serves
// (discovery), and, for each permission easyai needs, whether the user has
// it in the namespace (one SelfSubjectAccessReview each, a few at once).
// Missing permissions are reported, not errors: only a server that cannot
// be asked is.
func Diagnose(ctx context.Context, kc kubernetes.Interface, reg *kinds.Registry, report *Report) error {
	v, err := kc.Discovery().ServerVersion()
	if err != nil {
		return fmt.Errorf("asking the API server its version: %w", err)
	}
	report.ServerVersion = v.GitVersion

	served := map[schema.GroupVersion]map[string]bool{}
	for _, k := range reg.All() {
		gv := k.Resource().GroupVersion()
		if _, asked := served[gv]; !asked {
			served[gv] = map[string]bool{}
			list, err := kc.Discovery().ServerResourcesForGroupVersion(gv.String())
			if err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("asking the API server whether it serves %s: %w", gv, err)
			}
			if list != nil {
				for _, r := range list.APIResources {
					served[gv][r.Name] = true
				}
			}
		}
		report.APIs = append(report.APIs, API{
			APIKind: k.GroupVersionKind().Kind, APIVersion: gv.String(), Resource: k.Resource().Resource,
			Installed: served[gv][k.Resource().Resource], InstalledBy: k.Operator(), KindName: k.Name(),
		})
	}

	needs := Needs(reg)
	report.Access = make([]Access, len(needs))
	errs := make([]error, len(needs))
	limit := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, n := range needs {
		wg.Go(func() {
			limit <- struct{}{}
			defer func() { <-limit }()
			review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
				ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: report.Namespace, Verb: n.Verb, Group: n.Group, Resource: n.Resource, Subresource: n.Subresource,
				}}}
			answer, err := kc.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
			if err != nil {
				errs[i] = fmt.Errorf("asking whether you may %s %s: %w", n.Verb, n.Name(), err)
				return
			}
			report.Access[i] = Access{Verb: n.Verb, Group: n.Group, Resource: n.Resource, Subresource: n.Subresource,
				Allowed: answer.Status.Allowed, Reason: answer.Status.Reason, NeededBy: n.NeededBy}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Missing returns the commands the report's denied permissions hold back,
// sorted.
func (r *Report) Missing() []string {
	seen := map[string]bool{}
	for _, a := range r.Access {
		if !a.Allowed {
			for _, c := range a.NeededBy {
				seen[c] = true
			}
		}
	}
	out := make([]string, 0, len(seen))
	for c := range seen {
		out = append(out, c)
	}
	sort.Strings(out)
	return out
}
