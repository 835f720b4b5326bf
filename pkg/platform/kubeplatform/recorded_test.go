package kubeplatform

import (
	"context"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	kubeflowv1 "github.com/kubeflow/training-operator/pkg/apis/kubeflow.org/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

func platformOf(objs ...runtime.Object) *Platform {
	client := &jobclient.Client{Dynamic: jobclienttest.Dynamic(objs...), Kinds: jobclienttest.Registry(), GPUResource: "nvidia.com/gpu"}
	return &Platform{
		Kinds:     client.Kinds,
		Namespace: func() (string, bool, error) { return "team-a", false, nil },
		Jobs:      func() (*jobclient.Client, error) { return client, nil },
		Notes:     io.Discard,
		Now:       func() time.Time { return jobclienttest.Now },
	}
}

// TestRecorded: the request annotation without the name, the kind of the
// kind label (a submit-only kind too) and the experiment; a job easyai did
// not submit is exit 3, one whose annotation is not JSON exit 2 naming it.
func TestRecorded(t *testing.T) {
	worker := []jobclienttest.Role{{Type: kubeflowv1.TFJobReplicaTypeWorker, Replicas: 1}}
	deepspeed := jobclienttest.Job{Name: "ds", Created: jobclienttest.T0, Roles: worker, Request: `{"name":"ds","image":"ds:1"}`}.Object()
	deepspeed.SetLabels(map[string]string{jobmodel.KindLabel: "deepspeed"})
	p := platformOf(
		jobclienttest.Job{Name: "mnist", Created: jobclienttest.T0, Experiment: "lr-sweep", Roles: worker,
			Request: `{"name":"mnist","image":"tf:2","labels":{"team":"vision","easyai.io/job-name":"mnist"}}`}.Object(),
		jobclienttest.Job{Name: "foreign", Created: jobclienttest.T0, External: true, Roles: worker}.Object(),
		jobclienttest.Job{Name: "edited", Created: jobclienttest.T0, Roles: worker, Request: `{"image":`}.Object(),
		deepspeed,
	)
	ctx := context.Background()
	recorded := func(name string) error {
		t.Helper()
		job, err := p.Find(ctx, kinds.Ref{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		r, err := p.Recorded(ctx, job)
		if err != nil {
			return err
		}
		if name == "mnist" {
			want := map[string]any{"image": "tf:2", "labels": map[string]any{"team": "vision"}}
			if r.Kind.Name() != "tf" || r.Experiment != "lr-sweep" || !reflect.DeepEqual(r.Values, want) {
				t.Errorf("mnist: kind %s, experiment %q, values %v", r.Kind.Name(), r.Experiment, r.Values)
			}
		}
		if name == "ds" && (r.Kind.Name() != "deepspeed" || r.Values["image"] != "ds:1" || r.Values["name"] != nil) {
			t.Errorf("ds: kind %s, values %v", r.Kind.Name(), r.Values)
		}
		return nil
	}
	for _, name := range []string{"mnist", "ds"} {
		if err := recorded(name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	err := recorded("foreign")
	if exit.Code(err) != exit.NotFound || err.Error() != "tf/foreign was not submitted by easyai: it has no easyai.io/request annotation, the values to submit it from" {
		t.Errorf("foreign: %v (exit %d)", err, exit.Code(err))
	}
	err = recorded("edited")
	if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), "tf/edited: annotation easyai.io/request: ") {
		t.Errorf("edited: %v (exit %d)", err, exit.Code(err))
	}
}
