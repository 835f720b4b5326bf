package submit

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// The cluster-wide objects a job's placement names.
var (
	Queues          = schema.GroupVersionResource{Group: "scheduling.volcano.sh", Version: "v1beta1", Resource: "queues"}
	PriorityClasses = schema.GroupVersionResource{Group: "scheduling.k8s.io", Version: "v1", Resource: "priorityclasses"}
)

// checkPlacement checks, before the job is created, that the cluster has
// the Volcano queue and the PriorityClass the job names: a name it does not
// have is a usage error listing the ones it has. A user who may not read
// them (both are cluster-wide) is told in one line that they were not
// checked, and the job is submitted.
func (s *Submission) checkPlacement(ctx context.Context, resolved map[string]any) error {
	if s.DryRun == DryRunClient || s.Dynamic == nil {
		return nil
	}
	run, _ := resolved["runPolicy"].(map[string]any)
	queue, _ := run["queue"].(string)
	priority, _ := resolved["priorityClassName"].(string)
	for _, c := range []struct {
		gvr        schema.GroupVersionResource
		name, what string
		flag       string
	}{
		{Queues, queue, "Volcano queue", "--queue"},
		{PriorityClasses, priority, "PriorityClass", "--priority"},
	} {
		if c.name == "" {
			continue
		}
		if err := s.checkObject(ctx, c.gvr, "", c.name, c.what, c.flag); err != nil {
			return err
		}
	}
	return nil
}

// checkObject checks, before the job is created, that the object name of
// gvr exists: in namespace, or cluster-wide for "". One that does not is a
// usage error listing those there are; a user who may not read them gets
// one line saying it was not checked; a resource the cluster does not
// serve, one warning.
func (s *Submission) checkObject(ctx context.Context, gvr schema.GroupVersionResource, namespace, name, what, flag string) error {
	if s.Served != nil {
		if ok, err := s.Served(ctx, gvr); err == nil && !ok {
			s.notef("Warning: %s %s: this cluster serves no %ss (%s); not checked\n", flag, name, what, gvr.GroupResource())
			return nil
		}
	}
	where, whose := "the cluster", "which are cluster-wide"
	if namespace != "" {
		where, whose = "namespace "+namespace, "in namespace "+namespace
	}
	_, err := s.get(ctx, gvr, namespace, name)
	switch {
	case err == nil:
		return nil
	case apierrors.IsForbidden(err):
		s.notef("%s %s not checked (you may not read %s, %s)\n", what, name, gvr.GroupResource(), whose)
		return nil
	case !apierrors.IsNotFound(err):
		return fmt.Errorf("checking %s %s: %w", what, name, err)
	}
	valid := "none"
	if client, cerr := s.Dynamic(); cerr == nil {
		if l, lerr := client.Resource(gvr).Namespace(namespace).List(ctx, metav1.ListOptions{}); lerr == nil {
			var names []string
			for _, it := range l.Items {
				names = append(names, it.GetName())
			}
			sort.Strings(names)
			if len(names) > 0 {
				valid = strings.Join(names, ", ")
			}
		}
	}
	return exit.UsageErrorf("%s %s: %s has no %s %q (it has: %s)", flag, name, where, what, name, valid)
}

// CheckPlacementOf checks the Volcano queue and the PriorityClass that
// something other than a job names (a serving), as a job's are checked:
// served tells whether the cluster serves a resource, notes gets the
// "not checked" lines.
func CheckPlacementOf(ctx context.Context, dyn func() (dynamic.Interface, error), served func(context.Context, schema.GroupVersionResource) (bool, error), notes io.Writer, queue, priority string) error {
	s := &Submission{Served: served, Dynamic: dyn}
	s.Notes = notes
	return s.checkPlacement(ctx, map[string]any{"runPolicy": map[string]any{"queue": queue}, "priorityClassName": priority})
}
