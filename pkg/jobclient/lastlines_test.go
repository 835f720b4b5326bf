package jobclient

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

func TestFailedContainerOf(t *testing.T) {
	crashLoop := corev1.ContainerStatus{Name: "pytorch",
		State:                corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}},
		LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 3}}}
	exited := func(name string, code int32) corev1.ContainerStatus {
		return corev1.ContainerStatus{Name: name, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code}}}
	}
	running := corev1.ContainerStatus{Name: "sidecar", State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}
	tests := []struct {
		name       string
		init, main []corev1.ContainerStatus
		want       failedContainer
		ok         bool
	}{
		{"crash loop: the previous run", nil, []corev1.ContainerStatus{running, crashLoop}, failedContainer{"pytorch", true, 3}, true},
		{"ended with a code", nil, []corev1.ContainerStatus{exited("pytorch", 137)}, failedContainer{"pytorch", false, 137}, true},
		{"an init container first", []corev1.ContainerStatus{exited("git-clone", 128)}, []corev1.ContainerStatus{exited("pytorch", 1)}, failedContainer{"git-clone", false, 128}, true},
		{"succeeded", []corev1.ContainerStatus{exited("git-clone", 0)}, []corev1.ContainerStatus{exited("pytorch", 0)}, failedContainer{}, false},
		{"running", nil, []corev1.ContainerStatus{running}, failedContainer{}, false},
		{"back-off before any run ended", nil, []corev1.ContainerStatus{{Name: "x", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}, failedContainer{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &corev1.Pod{Status: corev1.PodStatus{InitContainerStatuses: tt.init, ContainerStatuses: tt.main}}
			got, ok := failedContainerOf(p)
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %+v %v, want %+v %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestReadLastLines(t *testing.T) {
	long := strings.Repeat("é", MaxLastLineRunes+10)
	got, err := readLastLines(strings.NewReader("one\ntwo\nthree\x1b[2J\rfour\n\xff\xfebad\n"+long+"\nlast"), 4)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"three [2J four", "\ufffd\ufffdbad", strings.Repeat("é", MaxLastLineRunes) + "…", "last"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// FuzzReadLastLines: whatever a container wrote, get shows at most n lines,
// each one line of printable text of bounded length.
func FuzzReadLastLines(f *testing.F) {
	f.Add([]byte("a\nb\r\nc\x1b]0;title\x07\n"), 2)
	f.Add([]byte("\xff\n\n\n"), 1)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		n = n%8 + 1
		if n < 1 {
			n += 8
		}
		lines, _ := readLastLines(strings.NewReader(string(data)), n)
		if len(lines) > n {
			t.Fatalf("%d lines, asked %d", len(lines), n)
		}
		for _, l := range lines {
			if !utf8.ValidString(l) || utf8.RuneCountInString(l) > MaxLastLineRunes+1 {
				t.Fatalf("line %q", l)
			}
			for _, r := range l {
				if unicode.IsControl(r) {
					t.Fatalf("control character in %q", l)
				}
			}
		}
	})
}

func TestReasonsFromEvents(t *testing.T) {
	replicas := []jobmodel.Replica{
		{Task: "master-0", Phase: "Pending", Node: "n", Reason: "PodInitializing"},
		{Task: "worker-0", Phase: "Pending", Node: "n", Reason: "ErrImageNeverPull"},
		{Task: "worker-1", Phase: "Pending", Reason: "Unschedulable"},
		{Task: "worker-2", Phase: "Running", Node: "n"},
		{Task: "worker-3", Phase: "Pending", Node: "n", Reason: "ContainerCreating"},
	}
	events := []jobmodel.Event{
		{Object: "master-0", Reason: "FailedMount", Message: "old"},
		{Object: "master-0", Reason: "FailedMount", Message: `secret "s" not found`},
		{Object: "worker-0", Reason: "Failed", Message: "not present"},
		{Object: "worker-1", Reason: "FailedScheduling", Message: "0/5"},
		{Object: "worker-2", Reason: "BackOff", Message: "earlier"},
		{Object: "worker-3", Reason: "FailedScheduling", Message: "before it was placed"},
	}
	reasonsFromEvents(replicas, events)
	var got []string
	for _, r := range replicas {
		got = append(got, r.Task+":"+r.Reason+":"+r.Message)
	}
	want := []string{`master-0:FailedMount:secret "s" not found`, "worker-0:ErrImageNeverPull:", "worker-1:Unschedulable:", "worker-2::", "worker-3:ContainerCreating:"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
