// Package remote reaches into the replicas of a training job through the API
// server, as kubectl does. It finds a job's replicas and picks one (--task,
// else the default replica); runs commands through the exec subresource, in
// one replica with its streams passed through (exec, attach with a
// terminal) or in every running replica at once with each output line
// prefixed by its task (exec --all); forwards local ports to a replica
// through the portforward subresource, following it to its new pod; and
// finds a job's web endpoints (the endpoints annotation, named container
// ports). It is the engine of "easyai exec", "attach", "port-forward" and
// "open"; download copies its tar stream through its Executor.
package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/utils/exec"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// Streams are what one remote command reads and writes. With TTY, the
// remote terminal merges stderr into stdout and Stderr is unused.
type Streams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	TTY            bool
	// Sizes reports the local terminal's size as it changes (TTY only).
	Sizes remotecommand.TerminalSizeQueue
}

// Executor runs a command in a container of a pod.
type Executor interface {
	Exec(ctx context.Context, namespace, pod, container string, command []string, s Streams) error
}

// APIExecutor runs commands through the API server's exec subresource over
// SPDY, as kubectl exec does.
type APIExecutor struct {
	Config *rest.Config
	Kube   kubernetes.Interface
}

// Exec implements Executor.
func (e *APIExecutor) Exec(ctx context.Context, namespace, pod, container string, command []string, s Streams) error {
	req := e.Kube.CoreV1().RESTClient().Post().
		Resource("pods").Namespace(namespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{
			Container: container,
			Command:   command,
			Stdin:     s.Stdin != nil,
			Stdout:    s.Stdout != nil,
			Stderr:    s.Stderr != nil && !s.TTY,
			TTY:       s.TTY,
		}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(e.Config, "POST", req.URL())
	if err != nil {
		return err
	}
	opts := remotecommand.StreamOptions{Stdin: s.Stdin, Stdout: s.Stdout, Tty: s.TTY, TerminalSizeQueue: s.Sizes}
	if !s.TTY {
		opts.Stderr = s.Stderr
	}
	return executor.StreamWithContext(ctx, opts)
}

// ExitCode is the remote command's exit code when err says it exited
// non-zero (the kubelet's typed status); ok is false for any other error.
func ExitCode(err error) (code int, ok bool) {
	var exitErr utilexec.ExitError
	if errors.As(err, &exitErr) && exitErr.Exited() {
		return exitErr.ExitStatus(), true
	}
	return 0, false
}

// ExitError makes a remote command's error easyai's: a non-zero exit becomes
// easyai's exit code, silently (the command's output said why); any other
// error is returned as is.
func ExitError(err error) error {
	if err == nil {
		return nil
	}
	if code, ok := ExitCode(err); ok {
		return &exit.CodedError{Code: code, Err: fmt.Errorf("%w: the command exited with code %d", exit.ErrSilent, code)}
	}
	return err
}

// DefaultTasks are the replicas a command goes to without --task
// (jobmodel.DefaultTasks).
var DefaultTasks = jobmodel.DefaultTasks

// DefaultReplica picks the replica of DefaultTasks that comes first.
func DefaultReplica(replicas []jobmodel.Replica) (jobmodel.Replica, error) {
	for _, want := range DefaultTasks {
		for _, r := range replicas {
			if r.Task == want || r.Task == want+"-0" {
				return r, nil
			}
		}
	}
	if len(replicas) == 0 {
		return jobmodel.Replica{}, exit.NotFoundErrorf("the job has no replicas")
	}
	return replicas[0], nil
}

// FindReplica finds the replica named task ("worker-1"); a task that does not
// exist is a not-found error listing those there are.
func FindReplica(replicas []jobmodel.Replica, task string) (jobmodel.Replica, error) {
	for _, r := range replicas {
		if r.Task == task {
			return r, nil
		}
	}
	tasks := make([]string, len(replicas))
	for i, r := range replicas {
		tasks[i] = r.Task
	}
	if len(tasks) == 0 {
		return jobmodel.Replica{}, exit.NotFoundErrorf("no replica %s: the job has no replicas", task)
	}
	return jobmodel.Replica{}, exit.NotFoundErrorf("no replica %s: the job has %s", task, strings.Join(tasks, ", "))
}

// Runnable says why a command cannot run in a replica, or nil when it can.
func Runnable(r jobmodel.Replica) error {
	if r.Pod == "" || r.Phase != string(corev1.PodRunning) {
		phase := r.Phase
		if phase == "" {
			phase = "not running"
		}
		return fmt.Errorf("replica %s is %s: a command runs only in a running replica", r.Task, phase)
	}
	return nil
}

// Running keeps the replicas whose pod runs.
func Running(replicas []jobmodel.Replica) []jobmodel.Replica {
	var out []jobmodel.Replica
	for _, r := range replicas {
		if Runnable(r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// Failure is one replica where a command of RunAll failed.
type Failure struct {
	Task string
	Err  error
}

func (f Failure) String() string {
	if code, ok := ExitCode(f.Err); ok {
		return fmt.Sprintf("%s (exit code %d)", f.Task, code)
	}
	return fmt.Sprintf("%s (%v)", f.Task, f.Err)
}

// RunAll runs command in every replica, at most parallel at once (<1: all
// at once), with whole output lines prefixed "[task] " on stdout and stderr.
// It returns the replicas where the command failed, in the order given.
func RunAll(ctx context.Context, e Executor, namespace, container string, replicas []jobmodel.Replica, command []string, parallel int, stdout, stderr io.Writer) []Failure {
	out, errOut := &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	errs := make([]error, len(replicas))
	if parallel < 1 || parallel > len(replicas) {
		parallel = len(replicas)
	}
	slots := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			select {
			case slots <- struct{}{}:
				defer func() { <-slots }()
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				errs[i] = ctx.Err()
				return
			}
			prefix := "[" + r.Task + "] "
			o, eo := NewPrefixWriter(out, prefix), NewPrefixWriter(errOut, prefix)
			errs[i] = e.Exec(ctx, namespace, r.Pod, container, command, Streams{Stdout: o, Stderr: eo})
			_ = o.Flush()
			_ = eo.Flush()
		}()
	}
	wg.Wait()
	var failures []Failure
	for i, err := range errs {
		if err != nil {
			failures = append(failures, Failure{Task: replicas[i].Task, Err: err})
		}
	}
	return failures
}

// lockedWriter lets many replicas write whole lines to one stream.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// PrefixWriter writes whole lines, each with a prefix, to a writer shared
// with other replicas: a line is only written once its end has arrived.
type PrefixWriter struct {
	w       io.Writer
	prefix  string
	partial []byte
}

// NewPrefixWriter returns a writer that prefixes each line of its output.
func NewPrefixWriter(w io.Writer, prefix string) *PrefixWriter {
	return &PrefixWriter{w: w, prefix: prefix}
}

// Write implements io.Writer.
func (p *PrefixWriter) Write(b []byte) (int, error) {
	n := len(b)
	p.partial = append(p.partial, b...)
	end := strings.LastIndexByte(string(p.partial), '\n')
	if end < 0 {
		return n, nil
	}
	var out []byte
	for _, line := range strings.SplitAfter(string(p.partial[:end+1]), "\n") {
		if line != "" {
			out = append(out, p.prefix...)
			out = append(out, line...)
		}
	}
	p.partial = append(p.partial[:0], p.partial[end+1:]...)
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes a last line that had no end, ending it.
func (p *PrefixWriter) Flush() error {
	if len(p.partial) == 0 {
		return nil
	}
	line := p.prefix + string(p.partial) + "\n"
	p.partial = p.partial[:0]
	_, err := io.WriteString(p.w, line)
	return err
}
