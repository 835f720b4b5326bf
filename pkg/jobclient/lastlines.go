package jobclient

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/kube"
)

// How much of failed containers' logs get reads: the last few lines of a
// few replicas, enough to show the error without flooding the page.
const (
	MaxLastLinesReplicas = 3
	LastLinesTail        = 5
	MaxLastLineRunes     = 240
	lastLinesLimitBytes  = 16 << 10
)

// failedContainer is a container of a pod that failed: the one in a crash
// loop (its previous run failed) or one that ended with a non-zero code.
type failedContainer struct {
	name     string
	previous bool
	exitCode int32
}

// failedContainerOf is the first failed container of p, init containers
// first (a clone that fails keeps the others from starting).
func failedContainerOf(p *corev1.Pod) (failedContainer, bool) {
	for _, statuses := range [][]corev1.ContainerStatus{p.Status.InitContainerStatuses, p.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && w.Reason == "CrashLoopBackOff" && cs.LastTerminationState.Terminated != nil {
				return failedContainer{name: cs.Name, previous: true, exitCode: cs.LastTerminationState.Terminated.ExitCode}, true
			}
			if t := cs.State.Terminated; t != nil && t.ExitCode != 0 {
				return failedContainer{name: cs.Name, exitCode: t.ExitCode}, true
			}
		}
	}
	return failedContainer{}, false
}

// lastLines reads the last lines of the failed containers of at most
// MaxLastLinesReplicas replicas, in replica order. A log that cannot be read
// is said in its Error, and the others are still read.
func (c *Client) lastLines(ctx context.Context, namespace string, replicas []jobmodel.Replica, pods []corev1.Pod) []jobmodel.LastLines {
	byName := make(map[string]*corev1.Pod, len(pods))
	for i := range pods {
		byName[pods[i].Name] = &pods[i]
	}
	var out []jobmodel.LastLines
	for _, r := range replicas {
		if len(out) == MaxLastLinesReplicas {
			break
		}
		p := byName[r.Pod]
		if p == nil {
			continue
		}
		fc, ok := failedContainerOf(p)
		if !ok {
			continue
		}
		ll := jobmodel.LastLines{Task: r.Task, Container: fc.name, Previous: fc.previous, ExitCode: fc.exitCode, Lines: []string{}}
		tail, limit := int64(LastLinesTail), int64(lastLinesLimitBytes)
		stream, err := c.Kube.CoreV1().Pods(namespace).GetLogs(p.Name, &corev1.PodLogOptions{
			Container: fc.name, Previous: fc.previous, TailLines: &tail, LimitBytes: &limit,
		}).Stream(ctx)
		if err == nil {
			ll.Lines, err = readLastLines(stream, LastLinesTail)
			_ = stream.Close()
		}
		switch {
		case kube.Refused(err):
			ll.Error = "not allowed to read the logs of pod " + jobmodel.OneLine(p.Name) + " (pods/log)"
		case err != nil:
			ll.Error = jobmodel.OneLine(err.Error())
		}
		out = append(out, ll)
	}
	return out
}

// readLastLines reads up to n last lines of r, each made safe for one line
// of a terminal and cut at MaxLastLineRunes; invalid UTF-8 is replaced.
func readLastLines(r io.Reader, n int) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), lastLinesLimitBytes+1)
	lines := []string{}
	for sc.Scan() {
		lines = append(lines, oneLogLine(sc.Text()))
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	if err := sc.Err(); err != nil {
		return lines, fmt.Errorf("reading the log: %w", err)
	}
	return lines, nil
}

func oneLogLine(s string) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // invalid bytes become U+FFFD
	}
	s = jobmodel.OneLine(s)
	if utf8.RuneCountInString(s) > MaxLastLineRunes {
		s = string([]rune(s)[:MaxLastLineRunes]) + "…"
	}
	return s
}

// startingReasons are what a pod's container says while the kubelet still
// prepares it: when a Warning event on the pod says why it does not get
// further (FailedMount of a missing Secret), that is the replica's reason.
var startingReasons = map[string]bool{"": true, "ContainerCreating": true, "PodInitializing": true}

// reasonsFromEvents gives each pending replica placed on a node, whose pod
// says only that it is starting, the reason and message of the latest
// Warning event on its pod (events oldest first).
func reasonsFromEvents(replicas []jobmodel.Replica, events []jobmodel.Event) {
	latest := map[string]jobmodel.Event{}
	for _, e := range events {
		if e.Reason != "FailedScheduling" {
			latest[e.Object] = e
		}
	}
	for i := range replicas {
		r := &replicas[i]
		e, ok := latest[r.Task]
		if !ok || r.Node == "" || r.Phase != string(corev1.PodPending) || !startingReasons[r.Reason] {
			continue
		}
		r.Reason, r.Message = e.Reason, e.Message
	}
}
