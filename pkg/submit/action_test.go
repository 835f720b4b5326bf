package submit

import (
	"context"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/render"
)

// submission is a submission of kind with no flags set, noting nowhere.
func submission(t *testing.T, kind string) *Submission {
	t.Helper()
	reg := registry.Default()
	k, ok := reg.Lookup(kind)
	if !ok {
		t.Fatalf("no kind %s", kind)
	}
	return &Submission{JobRequest: JobRequest{Kinds: reg, Kind: k, Notes: io.Discard}}
}

// TestJobFilesNameTheirKind: a job file names the kind of a submission
// without one; one naming another kind than the submission's is refused,
// one naming none is of the submission's kind.
func TestJobFilesNameTheirKind(t *testing.T) {
	noKind := render.ValueFile{Name: "a.yaml", Data: []byte("name: x\n")}
	pytorch := render.ValueFile{Name: "b.yaml", Data: []byte("kind: pytorchjob\n")}
	s := &Submission{JobRequest: JobRequest{Kinds: registry.Default(), JobFiles: []render.ValueFile{pytorch, noKind}}}
	if err := s.Validate(); err != nil || s.Kind.Name() != "pytorch" {
		t.Fatalf("kind %v, error %v", s.Kind, err)
	}
	s = submission(t, "tf")
	s.JobFiles = []render.ValueFile{noKind, pytorch}
	if err := s.Validate(); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "-f b.yaml is a pytorch job file, not tf") {
		t.Errorf("error %v", err)
	}
	s = &Submission{JobRequest: JobRequest{Kinds: registry.Default(), JobFiles: []render.ValueFile{noKind}}}
	if err := s.Validate(); !errors.Is(err, ErrJobFileNamesNoKind) || exit.Code(err) != exit.Usage {
		t.Errorf("a job file naming no kind: %v", err)
	}
}

func TestMissing(t *testing.T) {
	cases := []struct {
		values map[string]any
		want   bool
	}{
		{map[string]any{"image": "x"}, false},
		{map[string]any{"image": ""}, true},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 2.0, "image": "a"}, "ps": map[string]any{"replicas": 0}}}, false},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 2, "image": "a"}, "ps": map[string]any{"replicas": 1}}}, true},
		{map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 0}}}, true},
	}
	for _, c := range cases {
		if got := missing(c.values, "image"); got != c.want {
			t.Errorf("missing(%v) = %v, want %v", c.values, got, c.want)
		}
	}
}

type answers struct {
	inputs map[string]string
	asked  []string
}

func (a *answers) Input(message, _, _ string) (string, error) {
	a.asked = append(a.asked, message)
	return a.inputs[message], nil
}

func (a *answers) Confirm(string, bool) (bool, error) { return true, nil }

func TestMissingImageAndCommandAreAskedOnATerminalOnly(t *testing.T) {
	for _, tty := range []bool{true, false} {
		prompts := &answers{inputs: map[string]string{"Image": "tf:2", "Command": `python train.py --note "two words"`}}
		s := submission(t, "tf")
		if tty {
			s.Prompter = prompts
		}
		req := &Request{Kind: s.Kind, Values: map[string]any{"roles": map[string]any{"worker": map[string]any{"replicas": 2}}}}
		err := s.fillDefaults(req)
		if !tty {
			if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--image") || len(prompts.asked) > 0 {
				t.Errorf("without a terminal: error %v, asked %v; want exit 2 naming --image and no prompt", err, prompts.asked)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if req.Values["image"] != "tf:2" {
			t.Errorf("image %v", req.Values["image"])
		}
		if got := req.Values["command"]; !reflect.DeepEqual(got, []any{"python", "train.py", "--note", "two words"}) {
			t.Errorf("command %#v", got)
		}
		if name, _ := req.Values["name"].(string); !strings.HasPrefix(name, "tf-") {
			t.Errorf("no generated name: %v", req.Values["name"])
		}
	}
}

func TestConfiguredDefaultsFillTheGaps(t *testing.T) {
	s := submission(t, "tf")
	s.Settings = Settings{Image: "cfg:1", Queue: "research", PriorityClass: "high"}
	req := &Request{Kind: s.Kind, Values: map[string]any{"command": []any{"run"}}}
	if err := s.fillDefaults(req); err != nil {
		t.Fatal(err)
	}
	rp, _ := req.Values["runPolicy"].(map[string]any)
	if req.Values["image"] != "cfg:1" || rp["queue"] != "research" || req.Values["priorityClassName"] != "high" {
		t.Errorf("values %v", req.Values)
	}
}

// TestConfiguredDefaultsAreChecked: an image or priority class from the
// configuration is checked as the flags are, and named as such.
func TestConfiguredDefaultsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		image, priority, want string
	}{
		{"bad image", "", `image "bad image"`},
		{"tf:1", "Bad Prio", `the configuration's priority-class "Bad Prio"`},
	} {
		s := submission(t, "tf")
		s.Settings = Settings{Image: tc.image, PriorityClass: tc.priority}
		req := &Request{Kind: s.Kind, Values: map[string]any{"command": []any{"run"}}}
		err := s.fillDefaults(req)
		if exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("image %q priority %q: error %v, want exit 2 with %q", tc.image, tc.priority, err, tc.want)
		}
	}
}

// TestTheGeneratedNameIsSaidOnceTheJobIsMade: a submission whose check
// fails (offline, on the cluster) or whose job the API server refuses says
// no generated name, for nothing was made; one made, or that would be (a
// dry run), returns it for the platform to say once.
func TestTheGeneratedNameIsSaidOnceTheJobIsMade(t *testing.T) {
	refusing := func() (dynamic.Interface, error) {
		client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{PVCs: "PersistentVolumeClaimList"}, claim("team"))
		client.PrependReactor("create", "tfjobs", func(k8stesting.Action) (bool, runtime.Object, error) {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "kubeflow.org", Resource: "tfjobs"}, "", nil)
		})
		return client, nil
	}
	for _, tc := range []struct {
		name    string
		flags   map[string]string
		dryRun  DryRun
		dynamic func() (dynamic.Interface, error)
	}{
		{"a flag that needs a storage", map[string]string{"data-dir": "data/x"}, DryRunClient, nil},
		{"a missing claim", map[string]string{"storage": "pvc:missing"}, DryRunServer, fakeCluster(t, false, claim("team"))},
		{"the job refused", map[string]string{"storage": "pvc:team"}, DryRunNone, refusing},
	} {
		s, notes := storageSubmission(t, tc.flags)
		s.DryRun, s.Namespace, s.Dynamic = tc.dryRun, "team-a", tc.dynamic
		s.User = func(context.Context) (string, error) { return "alice", nil }
		if _, err := s.Run(context.Background()); err == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if strings.Contains(notes.String(), "Job name") {
			t.Errorf("%s: notes %q say a name, and nothing was made", tc.name, notes.String())
		}
	}
	s, notes := storageSubmission(t, nil)
	res, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The platform says the name (kubeplatform, timakerplatform), once.
	if name := res.Object.GetName(); !strings.HasPrefix(name, "tf-") || res.GeneratedName != name || strings.Contains(notes.String(), "Job name") {
		t.Errorf("job %s: generated name %q, notes %q; want the name in the result, not said twice", name, res.GeneratedName, notes.String())
	}
}
