package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
)

// PortSpec is one "[LOCAL:]REMOTE" argument of port-forward; Local 0 picks
// a free port.
type PortSpec struct {
	Local, Remote uint16
}

// String is the spec as client-go's port-forwarder takes it.
func (p PortSpec) String() string { return fmt.Sprintf("%d:%d", p.Local, p.Remote) }

// ParsePortSpec parses "REMOTE" (the same port locally), ":REMOTE" or
// "0:REMOTE" (a free local port) and "LOCAL:REMOTE"; a bad spec is a usage
// error naming it.
func ParsePortSpec(arg string) (PortSpec, error) {
	local, remote, hasColon := strings.Cut(arg, ":")
	if !hasColon {
		local, remote = arg, arg
	}
	r, err := parsePort(remote, false)
	if err != nil {
		return PortSpec{}, exit.UsageErrorf("bad port %q: the remote port %v", arg, err)
	}
	l := uint64(0)
	if local != "" {
		if l, err = parsePort(local, true); err != nil {
			return PortSpec{}, exit.UsageErrorf("bad port %q: the local port %v", arg, err)
		}
	}
	return PortSpec{Local: uint16(l), Remote: uint16(r)}, nil
}

func parsePort(s string, zeroOK bool) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 16)
	if err != nil {
		return 0, fmt.Errorf("%q is not a number from 1 to 65535", s)
	}
	if n == 0 && !zeroOK {
		return 0, fmt.Errorf("cannot be 0")
	}
	return n, nil
}

// ParsePortSpecs parses every port argument, failing on the first bad one.
func ParsePortSpecs(args []string) ([]PortSpec, error) {
	if len(args) == 0 {
		return nil, exit.UsageErrorf("name at least one port to forward ([LOCAL:]REMOTE)")
	}
	out := make([]PortSpec, 0, len(args))
	for _, a := range args {
		p, err := ParsePortSpec(a)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// ParseAddresses splits --address values (repeated or comma lists) and checks
// each is an IP address or "localhost".
func ParseAddresses(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, a := range strings.Split(v, ",") {
			a = strings.TrimSpace(a)
			if a == "" {
				continue
			}
			if a != "localhost" && net.ParseIP(a) == nil {
				return nil, exit.UsageErrorf("bad --address %q: want an IP address or localhost", a)
			}
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		out = []string{"127.0.0.1"}
	}
	return out, nil
}

// Forwarder forwards local ports to a replica of a job, following the
// replica to its new pod when its pod goes away.
type Forwarder struct {
	Config *rest.Config
	Kube   kubernetes.Interface
	// Resolve finds the replica's current state (same task every time).
	Resolve   func(ctx context.Context) (jobmodel.Replica, error)
	Namespace string
	Addresses []string
	Ports     []PortSpec
	// Out gets the "Forwarding ..." lines once ready; ErrOut the rest.
	Out, ErrOut io.Writer
	// Ready, when set, is called instead of printing the "Forwarding" lines
	// once the ports are first ready, with the local ports chosen (in the
	// order of Ports); it is not called again on reconnects.
	Ready func(r jobmodel.Replica, ports []PortSpec)
	// Backoff is the wait between tries to reach a replica with no running
	// pod (default 2s); Poll how often the pod is checked (default 2s).
	Backoff, Poll time.Duration
}

// Run forwards until ctx ends, and returns ctx's error then. Until the ports
// are first ready, a replica that cannot be reached (no running pod) or a
// forward that fails is returned at once; after that, Run waits for the
// replica to run again and forwards to its new pod.
func (f *Forwarder) Run(ctx context.Context) error {
	if f.Backoff == 0 {
		f.Backoff = 2 * time.Second
	}
	if f.Poll == 0 {
		f.Poll = 2 * time.Second
	}
	st := &forwarding{f: f, ports: append([]PortSpec(nil), f.Ports...)}
	waiting := false
	for {
		r, err := f.Resolve(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err == nil {
			err = Runnable(r)
		}
		if err != nil {
			if !st.announced {
				// Before the first forward, a replica that cannot be reached is the answer.
				return err
			}
			if !waiting {
				fmt.Fprintf(f.ErrOut, "Waiting for %s to run again: %v\n", taskOf(r), err)
				waiting = true
			}
			if !sleep(ctx, f.Backoff) {
				return ctx.Err()
			}
			continue
		}
		if st.announced {
			fmt.Fprintf(f.ErrOut, "Reconnecting to %s (pod %s)\n", r.Task, r.Pod)
		}
		waiting = false
		err = f.forwardOnce(ctx, r, st.ports, func(got []portforward.ForwardedPort) { st.ready(r, got) })
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !st.announced {
			return err
		}
		if err != nil {
			fmt.Fprintf(f.ErrOut, "Lost the connection to %s (pod %s): %v\n", r.Task, r.Pod, err)
		} else {
			fmt.Fprintf(f.ErrOut, "Pod %s of %s went away\n", r.Pod, r.Task)
		}
		if !sleep(ctx, f.Backoff/4) {
			return ctx.Err()
		}
	}
}

// forwarding is one Run's ports, whose local ports are kept across
// reconnects, and whether they were announced.
type forwarding struct {
	f         *Forwarder
	ports     []PortSpec
	announced bool
}

// ready takes the ports forwarded to replica r (got): the first time it
// announces them (Ready, else a line per address and port on Out), after
// that it says the forward is back.
func (st *forwarding) ready(r jobmodel.Replica, got []portforward.ForwardedPort) {
	f := st.f
	for i := range st.ports {
		if i < len(got) {
			st.ports[i].Local = got[i].Local
		}
	}
	if st.announced {
		fmt.Fprintf(f.ErrOut, "Forwarding again to %s (pod %s)\n", r.Task, r.Pod)
		return
	}
	if f.Ready != nil {
		f.Ready(r, append([]PortSpec(nil), st.ports...))
		st.announced = true
		return
	}
	for i, p := range st.ports {
		for _, a := range f.Addresses {
			fmt.Fprintf(f.Out, "Forwarding http://%s -> %s:%d\n", net.JoinHostPort(a, strconv.Itoa(int(p.Local))), r.Task, f.Ports[i].Remote)
		}
	}
	st.announced = true
}

func taskOf(r jobmodel.Replica) string {
	if r.Task == "" {
		return "the replica"
	}
	return r.Task
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// forwardOnce forwards to one pod until ctx ends, the connection is lost or
// the pod stops running (then it returns nil).
func (f *Forwarder) forwardOnce(ctx context.Context, r jobmodel.Replica, ports []PortSpec, ready func([]portforward.ForwardedPort)) error {
	pod, err := f.Kube.CoreV1().Pods(f.Namespace).Get(ctx, r.Pod, metav1.GetOptions{})
	if err != nil {
		return err
	}
	uid := pod.UID
	req := f.Kube.CoreV1().RESTClient().Post().
		Resource("pods").Namespace(f.Namespace).Name(r.Pod).SubResource("portforward")
	transport, upgrader, err := spdy.RoundTripperFor(f.Config)
	if err != nil {
		return err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, "POST", req.URL())
	specs := make([]string, len(ports))
	for i, p := range ports {
		specs[i] = p.String()
	}
	stop, readyCh := make(chan struct{}), make(chan struct{})
	pf, err := portforward.NewOnAddresses(dialer, f.Addresses, specs, stop, readyCh, io.Discard, f.ErrOut)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- pf.ForwardPorts() }()

	ticker := time.NewTicker(f.Poll)
	defer ticker.Stop()
	for {
		select {
		case err := <-done:
			if errors.Is(err, portforward.ErrLostConnectionToPod) && !f.podRuns(ctx, r.Pod, uid) {
				return nil
			}
			return err
		case <-readyCh:
			readyCh = nil
			got, err := pf.GetPorts()
			if err == nil {
				ready(got)
			}
		case <-ctx.Done():
			close(stop)
			<-done
			return ctx.Err()
		case <-ticker.C:
			if !f.podRuns(ctx, r.Pod, uid) {
				close(stop)
				<-done
				return nil
			}
		}
	}
}

// podRuns says whether the pod is still the same one and running; an error
// other than not-found counts as running (the next tick asks again).
func (f *Forwarder) podRuns(ctx context.Context, name string, uid types.UID) bool {
	p, err := f.Kube.CoreV1().Pods(f.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false
	}
	if err != nil {
		return true
	}
	return p.UID == uid && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning
}
