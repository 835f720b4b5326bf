package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/portforward"
	"k8s.io/client-go/transport/spdy"
)

// ForwardStdio carries one connection to port of the pod over in and out
// (an ssh ProxyCommand's standard input and output), through the pod's
// portforward subresource as "kubectl port-forward" uses it: an error
// stream and a data stream for the port. It returns when the pod's side
// has closed the connection (after in ended, or by itself), with the error
// the kubelet reported if any, or when ctx ends.
func ForwardStdio(ctx context.Context, config *rest.Config, kube kubernetes.Interface, namespace, pod string, port uint16, in io.Reader, out io.Writer) error {
	req := kube.CoreV1().RESTClient().Post().Resource("pods").Namespace(namespace).Name(pod).SubResource("portforward")
	transport, upgrader, err := spdy.RoundTripperFor(config)
	if err != nil {
		return err
	}
	dialer := spdy.NewDialer(upgrader, &http.Client{Transport: transport}, http.MethodPost, req.URL())
	conn, _, err := dialer.Dial(portforward.PortForwardProtocolV1Name)
	if err != nil {
		return fmt.Errorf("connecting to pod %s: %w", pod, err)
	}
	defer conn.Close()

	headers := http.Header{}
	headers.Set(corev1.StreamType, corev1.StreamTypeError)
	headers.Set(corev1.PortHeader, strconv.Itoa(int(port)))
	headers.Set(corev1.PortForwardRequestIDHeader, "0")
	remoteErr, err := readErrorStream(conn, headers, pod, port)
	if err != nil {
		return err
	}

	headers.Set(corev1.StreamType, corev1.StreamTypeData)
	dataStream, err := conn.CreateStream(headers)
	if err != nil {
		return fmt.Errorf("opening the data stream to pod %s: %w", pod, err)
	}
	go func() {
		// At the end of in, the write half is closed: the pod's side sees
		// the end of the connection's input and may still answer.
		_, _ = io.Copy(dataStream, in)
		_ = dataStream.Close()
	}()
	copied := make(chan error, 1)
	go func() {
		_, err := io.Copy(out, dataStream)
		copied <- err
	}()

	return forwardEnd(ctx, conn, copied, remoteErr, pod, port)
}

// forwardEnd waits for the end of a forward: the pod's side closing the
// data (copied), with the kubelet's word on the error stream if any, the
// connection lost, or ctx ending.
func forwardEnd(ctx context.Context, conn httpstream.Connection, copied <-chan error, remoteErr <-chan error, pod string, port uint16) error {
	select {
	case err := <-copied:
		// The pod's side closed; a message on the error stream says why
		// when something failed (it comes at most a moment later).
		select {
		case rerr := <-remoteErr:
			if rerr != nil {
				return rerr
			}
		default:
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("reading from port %d of pod %s: %w", port, pod, err)
		}
		return nil
	case err := <-remoteErr:
		if err != nil {
			return err
		}
		// The error stream closed without a word: the data ends by itself.
		return <-copied
	case <-conn.CloseChan():
		return fmt.Errorf("the connection to pod %s was lost", pod)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// readErrorStream opens the error stream of the forward (headers) and
// reads it in the background: the channel gets what the kubelet said went
// wrong on its side, or nil when it closed the stream without a word.
func readErrorStream(conn httpstream.Connection, headers http.Header, pod string, port uint16) (<-chan error, error) {
	errorStream, err := conn.CreateStream(headers)
	if err != nil {
		return nil, fmt.Errorf("opening the error stream to pod %s: %w", pod, err)
	}
	// Only read from: the kubelet writes what went wrong on its side.
	_ = errorStream.Close()
	remoteErr := make(chan error, 1)
	go func() {
		msg, err := io.ReadAll(io.LimitReader(errorStream, 64<<10))
		switch {
		case err != nil:
			remoteErr <- fmt.Errorf("reading the error stream of pod %s: %w", pod, err)
		case len(msg) > 0:
			remoteErr <- fmt.Errorf("port %d of pod %s: %s", port, pod, msg)
		default:
			remoteErr <- nil
		}
	}()
	return remoteErr, nil
}
