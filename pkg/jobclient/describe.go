package jobclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Details is everything get shows of one job.
type Details struct {
	Kind    kinds.Kind
	Object  *unstructured.Unstructured
	Summary jobmodel.Summary
	// Replicas by role and index, from the job's pods.
	Replicas []jobmodel.Replica
	// Events are the Warning events of the job, its pods and its PodGroup,
	// oldest first.
	Events []jobmodel.Event
	// Image and Command are what the job runs: from the request easyai
	// recorded, else the first container of the first role.
	Image   string
	Command []string
	// Request is the decoded easyai.io/request annotation; nil without one,
	// or when RequestErr says why it could not be read (Image and Command
	// then come from the pod templates).
	Request    map[string]any
	RequestErr error
	// LastLines are the last lines of the failed containers of the first
	// few replicas that have one (a crash loop's previous run).
	LastLines []jobmodel.LastLines
	// Details are what the kind has to say beyond the common fields
	// (kinds.Detailer), then where the job's --storage directories are.
	Details []jobmodel.Detail
	// Storage is the job's --storage; nil without one.
	Storage *jobmodel.StorageDoc
}

// Describe reads a job's details with one LIST of the namespace's Warning
// events and one LIST of the job's pods (c.jobPods: their table when they
// all plainly run, else their metadata, node and status), and the last
// lines of a few failed containers (one request each).
func (c *Client) Describe(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured) (*Details, error) {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	d := &Details{Kind: k, Object: obj, Summary: c.summarize(k, data)}
	ns, name := obj.GetNamespace(), obj.GetName()
	// The Warning events first: whether the job's gang waited decides how
	// its pods are read.
	warnings, err := c.listWarnings(ctx, k, obj)
	if err != nil {
		return nil, err
	}
	objects := jobObjects(k, obj)
	pods, err := c.jobPods(ctx, k, obj, d.Summary.Status.State, gangWaited(objects, warnings))
	if err != nil {
		return nil, fmt.Errorf("listing the pods of %s/%s: %w", k.Name(), name, err)
	}
	if d.Replicas, err = k.Replicas(obj, pods); err != nil {
		return nil, err
	}
	d.Events = eventsOf(objects, d.Replicas, pods, warnings)
	d.Events = dropPassedGangWaits(d.Events, gangScheduledAt(d.Summary.Status.State, d.Replicas, pods))
	reasonsFromEvents(d.Replicas, d.Events)
	d.LastLines = c.lastLines(ctx, ns, d.Replicas, pods)
	if _, err := jobmodel.ReadRequest(obj.GetAnnotations(), &d.Request); err != nil {
		d.Request, d.RequestErr = nil, err
	}
	d.Image, d.Command = whatItRuns(k, d.Request, obj, d.Replicas)
	if dk, ok := k.(kinds.Detailer); ok {
		if d.Details, err = dk.Details(obj); err != nil {
			return nil, err
		}
	}
	d.Storage, d.Details = storageOf(obj, d.Details)
	return d, nil
}

// storageOf reads the job's storage and adds its lines to details: one
// that cannot be read is a line saying why.
func storageOf(obj *unstructured.Unstructured, details []jobmodel.Detail) (*jobmodel.StorageDoc, []jobmodel.Detail) {
	v, err := storage.Of(obj)
	switch {
	case errors.Is(err, storage.ErrNoStorage):
		return nil, details
	case err != nil:
		return nil, append(details, jobmodel.Detail{Name: "Storage", Value: "not readable: " + jobmodel.OneLine(err.Error())})
	}
	doc := &jobmodel.StorageDoc{Location: v.Location(""), JobDir: v.JobDir, PersistLogs: v.PersistLogs}
	details = append(details, jobmodel.Detail{Name: "Storage", Value: doc.Location})
	for _, dir := range v.Dirs() {
		doc.Dirs = append(doc.Dirs, jobmodel.Dir{Name: dir.Env, MountPath: dir.MountPath, Location: v.Location(dir.SubPath), ReadOnly: dir.ReadOnly})
		value := dir.MountPath + " = " + v.Location(dir.SubPath)
		if dir.Env == storage.LogDir && v.PersistLogs {
			value += " (each replica's output in TASK.log)"
		}
		details = append(details, jobmodel.Detail{Name: dir.Env, Value: value})
	}
	return doc, details
}

// jobPods reads the pods of a job in state. Those of a running job whose
// gang did not wait are read as the API server's table of pods, when every
// one of them plainly runs (kube.RunningPods: a few hundred bytes a pod,
// where each pod of a TFJob carries every replica's address); otherwise,
// or when a pod turns out not to (pending, crashing, ended: what only its
// whole status details), they are read whole but for their specs
// (kube.LeanPods), with one more request. A gang that waited needs its
// pods' PodScheduled times (gangScheduledAt), which no table holds.
func (c *Client) jobPods(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured, state jobmodel.State, gangWaited bool) ([]corev1.Pod, error) {
	ns, selector := obj.GetNamespace(), k.PodSelector(obj.GetName())
	if state == jobmodel.Running && !gangWaited {
		pods, ok, err := kube.RunningPods(ctx, c.Kube, ns, selector)
		if err != nil || ok {
			return pods, err
		}
	}
	return kube.LeanPods(ctx, c.Kube, ns, selector)
}

// warning is what get keeps of a Warning event.
type warning struct {
	// involved is the object's KIND/NAME.
	involved, reason, message string
	count                     int32
	lastSeen                  time.Time
}

// listWarnings lists the Warning events of the job's namespace.
func (c *Client) listWarnings(ctx context.Context, k kinds.Kind, obj *unstructured.Unstructured) ([]warning, error) {
	var out []warning
	opts := metav1.ListOptions{FieldSelector: "type=" + corev1.EventTypeWarning, Limit: PageSize}
	for {
		page, err := c.Kube.CoreV1().Events(obj.GetNamespace()).List(ctx, opts)
		if err != nil {
			return nil, fmt.Errorf("listing the events of %s/%s: %w", k.Name(), obj.GetName(), err)
		}
		for i := range page.Items {
			ev := &page.Items[i]
			if ev.Type != corev1.EventTypeWarning {
				continue
			}
			out = append(out, warning{
				involved: ev.InvolvedObject.Kind + "/" + ev.InvolvedObject.Name, reason: ev.Reason,
				message: strings.TrimSpace(ev.Message), count: kube.EventCount(ev), lastSeen: kube.EventLastSeen(ev),
			})
		}
		if opts.Continue = page.Continue; opts.Continue == "" {
			return out, nil
		}
	}
}

// jobObjects are the objects whose events are the job's own, by KIND/NAME:
// the job, its PodGroup and the objects its operator makes between the job
// and its pods (kinds.Intermediary); each with the name get shows it by.
func jobObjects(k kinds.Kind, obj *unstructured.Unstructured) map[string]string {
	objectOf := map[string]string{
		k.GroupVersionKind().Kind + "/" + obj.GetName(): "job",
		"PodGroup/" + obj.GetName():                     "podgroup",
	}
	if ik, ok := k.(kinds.Intermediary); ok {
		for involved, object := range ik.Intermediates(obj) {
			objectOf[involved] = object
		}
	}
	return objectOf
}

// gangWaited says whether the job or its PodGroup has a warning that its
// gang waited to be scheduled.
func gangWaited(objectOf map[string]string, warnings []warning) bool {
	for _, w := range warnings {
		if object := objectOf[w.involved]; (object == "job" || object == "podgroup") && gangWaitReasons[w.reason] {
			return true
		}
	}
	return false
}

// eventsOf keeps of the namespace's warnings those of the job's own
// objects (jobObjects) and of its pods, oldest first.
func eventsOf(objects map[string]string, replicas []jobmodel.Replica, pods []corev1.Pod, warnings []warning) []jobmodel.Event {
	objectOf := map[string]string{}
	for i := range pods {
		objectOf["Pod/"+pods[i].Name] = "pod/" + pods[i].Name
	}
	for _, r := range replicas {
		if r.Pod != "" {
			objectOf["Pod/"+r.Pod] = r.Task
		}
	}
	for involved, object := range objects {
		objectOf[involved] = object
	}
	var out []jobmodel.Event
	for _, w := range warnings {
		if object, ok := objectOf[w.involved]; ok {
			out = append(out, jobmodel.Event{Object: object, Reason: w.reason, Message: w.message, Count: w.count, LastSeen: w.lastSeen})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.Before(out[j].LastSeen) })
	return out
}

// whatItRuns is the job's image and command: as requested when easyai
// submitted it, else what the kind says it runs (kinds.Runner), else those
// of the first container of the first role.
func whatItRuns(k kinds.Kind, req map[string]any, obj *unstructured.Unstructured, replicas []jobmodel.Replica) (string, []string) {
	image, _ := req["image"].(string)
	command := stringsOf(req["command"])
	if image != "" && command != nil {
		return image, command
	}
	if r, ok := k.(kinds.Runner); ok {
		runsImage, runsCommand := r.Runs(obj)
		if image == "" {
			image = runsImage
		}
		if command == nil {
			command = runsCommand
		}
		return image, command
	}
	templates := podTemplates(obj)
	if len(templates) == 0 {
		return image, command
	}
	pick := templates[0]
	if len(replicas) > 0 {
		for _, t := range templates {
			if strings.EqualFold(t.role, replicas[0].Role) {
				pick = t
				break
			}
		}
	}
	if image == "" {
		image = pick.image
	}
	if command == nil {
		command = pick.command
	}
	return image, command
}

// stringsOf reads a command given as a list of strings or as one string.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// roleTemplate is the first container of one role's pod template.
type roleTemplate struct {
	role    string
	image   string
	command []string
	// container is the container as the object holds it.
	container map[string]any
}

// RoleContainer is the first container of one role's pod template, as
// the job object holds it.
type RoleContainer struct {
	// Role is the key above the template (tfReplicaSpecs.Worker: "Worker")
	// or its sibling "name" (a Volcano task).
	Role      string
	Container map[string]any
}

// RoleContainers finds the first container of every role of a job,
// whatever its kind's shape, in the order of the spec's keys.
func RoleContainers(obj *unstructured.Unstructured) []RoleContainer {
	var out []RoleContainer
	for _, t := range podTemplates(obj) {
		out = append(out, RoleContainer{Role: t.role, Container: t.container})
	}
	return out
}

// podTemplates finds the pod templates in a job's spec without knowing its
// kind's shape: any "template" with containers, named by the key above it
// (tfReplicaSpecs.Worker) or its sibling "name" (a Volcano task).
func podTemplates(obj *unstructured.Unstructured) []roleTemplate {
	var out []roleTemplate
	var walk func(role string, v any, depth int)
	walk = func(role string, v any, depth int) {
		if depth > 6 {
			return
		}
		switch v := v.(type) {
		case map[string]any:
			if name, ok := v["name"].(string); ok {
				role = name
			}
			if containers, found, _ := unstructured.NestedSlice(v, "template", "spec", "containers"); found && len(containers) > 0 {
				if c, ok := containers[0].(map[string]any); ok {
					image, _ := c["image"].(string)
					out = append(out, roleTemplate{role: role, image: image, command: append(stringsOf(c["command"]), stringsOf(c["args"])...), container: c})
				}
				return
			}
			keys := make([]string, 0, len(v))
			for key := range v {
				keys = append(keys, key)
			}
			sort.Strings(keys)
			for _, key := range keys {
				walk(key, v[key], depth+1)
			}
		case []any:
			for _, e := range v {
				walk(role, e, depth+1)
			}
		}
	}
	walk("", obj.Object["spec"], 0)
	return out
}

// gangWaitReasons are the reasons of the warnings Volcano gives a gang's
// PodGroup, or its Volcano Job, while the gang waits to be scheduled.
var gangWaitReasons = map[string]bool{"Unschedulable": true, "PodGroupPending": true}

// gangScheduledAt is when the job's gang of pods was last scheduled: the
// latest PodScheduled time of its current replicas' pods, when every one is
// scheduled. A finished job's waits are all over (its pods may be gone):
// the far future. nil: the gang still waits, or the job has no pods yet.
func gangScheduledAt(state jobmodel.State, replicas []jobmodel.Replica, pods []corev1.Pod) *time.Time {
	if state.Final() {
		end := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
		return &end
	}
	byName := map[string]*corev1.Pod{}
	for i := range pods {
		byName[pods[i].Name] = &pods[i]
	}
	var latest *time.Time
	for _, r := range replicas {
		p := byName[r.Pod]
		if p == nil {
			return nil
		}
		scheduled := false
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionTrue {
				t := c.LastTransitionTime.Time
				if latest == nil || t.After(*latest) {
					latest = &t
				}
				scheduled = true
			}
		}
		if !scheduled {
			return nil
		}
	}
	return latest
}

// dropPassedGangWaits leaves out the gang-scheduling waits last seen before
// the job's gang was scheduled: every gang job gets some ("0/0 tasks in gang
// unschedulable") while its pods are being made, and once they run they only
// say that it once waited. A gang still waiting keeps them all: they say
// why; so does a wait seen after the gang was scheduled (a restarted job
// waiting again).
func dropPassedGangWaits(events []jobmodel.Event, scheduled *time.Time) []jobmodel.Event {
	if scheduled == nil {
		return events
	}
	// Events and conditions are stamped to the second, by different
	// components, and a controller may report the wait once more as the
	// gang is being scheduled; a wait that goes on is reported again.
	end := scheduled.Add(10 * time.Second)
	out := events[:0:0]
	for _, ev := range events {
		if (ev.Object == "podgroup" || ev.Object == "job") && gangWaitReasons[ev.Reason] && !ev.LastSeen.After(end) {
			continue
		}
		out = append(out, ev)
	}
	return out
}
