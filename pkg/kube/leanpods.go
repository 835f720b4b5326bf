package kube

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// MaxLeanPodBytes is the largest pod ReadLeanPods reads: a pod the answer
// announces as larger is refused (the API server stores objects of at most
// a few MiB).
const MaxLeanPodBytes = 64 << 20

// protobufMagic starts every protobuf answer of the API server; a
// runtime.Unknown follows it, whose raw field holds the object.
var protobufMagic = []byte("k8s\x00")

// LeanPods lists the pods of namespace that selector selects, keeping of
// each only its metadata (without managedFields), spec.nodeName and status:
// what get reads of a job's pods. Every pod of a distributed job carries
// the addresses of all its replicas (TF_CONFIG), so the pods of a job of
// 1,000 replicas weigh some 50 MB; their specs are skipped as they stream
// in, never decoded. The request asks for protobuf and reads JSON if the
// server answers JSON; a refusal or any other failure is the API error the
// typed clientset returns. A clientset without a REST client (the fake of
// unit tests) lists through the typed client, trimmed the same way.
func LeanPods(ctx context.Context, client kubernetes.Interface, namespace, selector string) ([]corev1.Pod, error) {
	opts := metav1.ListOptions{LabelSelector: selector}
	rc, ok := client.CoreV1().RESTClient().(*rest.RESTClient)
	if !ok || rc == nil {
		list, err := client.CoreV1().Pods(namespace).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		out := make([]corev1.Pod, len(list.Items))
		for i := range list.Items {
			out[i] = leanPod(&list.Items[i])
		}
		return out, nil
	}
	body, err := rc.Get().Namespace(namespace).Resource("pods").
		VersionedParams(&opts, scheme.ParameterCodec).
		SetHeader("Accept", "application/vnd.kubernetes.protobuf, application/json").
		Stream(ctx)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	return ReadLeanPods(body)
}

// leanPod is p with only what LeanPods keeps.
func leanPod(p *corev1.Pod) corev1.Pod {
	out := corev1.Pod{ObjectMeta: p.ObjectMeta, Status: p.Status}
	out.ManagedFields = nil
	out.Spec.NodeName = p.Spec.NodeName
	return out
}

// ReadLeanPods reads a PodList as the API server writes it, in protobuf or
// in JSON, keeping what LeanPods keeps of each pod. The protobuf answer is
// read one pod at a time into one buffer, and of the spec only nodeName is
// kept; no length the answer announces is allocated before its bytes have
// come in.
func ReadLeanPods(r io.Reader) ([]corev1.Pod, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(protobufMagic))
	if err == nil && bytes.Equal(head, protobufMagic) {
		_, _ = br.Discard(len(protobufMagic))
		pr := &pbReader{r: br}
		pods, err := pr.unknown()
		if err != nil {
			return nil, fmt.Errorf("reading the pods' protobuf answer at byte %d: %w", pr.n+int64(len(protobufMagic)), err)
		}
		return pods, nil
	}
	return readLeanPodsJSON(br)
}

// readLeanPodsJSON reads a PodList in JSON: encoding/json scans past the
// fields of a spec but nodeName without building them.
func readLeanPodsJSON(r io.Reader) ([]corev1.Pod, error) {
	var list struct {
		Kind  string `json:"kind"`
		Items []struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
			Spec     struct {
				NodeName string `json:"nodeName"`
			} `json:"spec"`
			Status corev1.PodStatus `json:"status"`
		} `json:"items"`
	}
	if err := json.NewDecoder(r).Decode(&list); err != nil {
		return nil, fmt.Errorf("reading the pods' JSON answer: %w", err)
	}
	if list.Kind != "" && list.Kind != "PodList" {
		return nil, fmt.Errorf("reading the pods' JSON answer: a %s, not a PodList", list.Kind)
	}
	out := make([]corev1.Pod, len(list.Items))
	for i, p := range list.Items {
		out[i] = corev1.Pod{ObjectMeta: p.Metadata, Status: p.Status}
		out[i].ManagedFields = nil
		out[i].Spec.NodeName = p.Spec.NodeName
	}
	return out, nil
}

// Protobuf wire types.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireFixed32 = 5
)

// Field numbers of the messages ReadLeanPods walks (k8s.io/api's
// generated.proto).
const (
	unknownTypeMeta        = 1 // runtime.Unknown
	unknownRaw             = 2
	unknownContentEncoding = 3
	typeMetaKind           = 2 // runtime.TypeMeta
	podListItems           = 2 // PodList; 1 is its ListMeta
	podMetadata            = 1 // Pod
	podSpec                = 2
	podStatus              = 3
	podSpecNodeName        = 10 // PodSpec
	objectMetaManaged      = 17 // ObjectMeta.managedFields
)

var (
	errTruncated = errors.New("the answer ends inside a field")
	errOverrun   = errors.New("a field runs past the message that holds it")
)

// pbReader reads protobuf from a stream, counting the bytes it consumed.
type pbReader struct {
	r *bufio.Reader
	n int64
	// buf holds one field of one pod at a time; meta holds a pod's
	// metadata without its managedFields.
	buf, meta []byte
}

// unknown reads the runtime.Unknown that follows the magic to the end of
// the stream: its TypeMeta must be a PodList's, its raw field is read as
// one.
func (p *pbReader) unknown() ([]corev1.Pod, error) {
	var pods []corev1.Pod
	seenRaw := false
	for {
		if _, err := p.r.Peek(1); errors.Is(err, io.EOF) {
			break
		}
		field, wire, err := p.tag()
		if err != nil {
			return nil, err
		}
		switch {
		case field == unknownTypeMeta && wire == wireBytes:
			n, err := p.length(-1, 1<<10)
			if err != nil {
				return nil, err
			}
			if p.buf, err = p.read(p.buf, n); err != nil {
				return nil, err
			}
			if kind := stringField(p.buf, typeMetaKind); kind != "" && kind != "PodList" {
				return nil, fmt.Errorf("a %s, not a PodList", kind)
			}
		case field == unknownRaw && wire == wireBytes:
			n, err := p.length(-1, -1)
			if err != nil {
				return nil, err
			}
			if pods, err = p.podList(p.n + n); err != nil {
				return nil, err
			}
			seenRaw = true
		case field == unknownContentEncoding && wire == wireBytes:
			n, err := p.length(-1, 1<<10)
			if err != nil {
				return nil, err
			}
			if n > 0 {
				return nil, errors.New("an encoded PodList (contentEncoding)")
			}
		default:
			if err := p.skip(wire, -1); err != nil {
				return nil, err
			}
		}
	}
	if !seenRaw {
		return nil, errors.New("no PodList in the answer")
	}
	if pods == nil {
		pods = []corev1.Pod{}
	}
	return pods, nil
}

// podList reads a PodList's fields up to byte end of the stream.
func (p *pbReader) podList(end int64) ([]corev1.Pod, error) {
	var pods []corev1.Pod
	for p.n < end {
		field, wire, err := p.tag()
		if err != nil {
			return nil, err
		}
		if field != podListItems || wire != wireBytes {
			if err := p.skip(wire, end); err != nil {
				return nil, err
			}
			continue
		}
		n, err := p.length(end, MaxLeanPodBytes)
		if err != nil {
			return nil, fmt.Errorf("pod %d: %w", len(pods)+1, err)
		}
		pods = append(pods, corev1.Pod{})
		if err := p.pod(&pods[len(pods)-1], p.n+n); err != nil {
			return nil, fmt.Errorf("pod %d: %w", len(pods), err)
		}
		// The server names every pod; nameless ones would only be many
		// empty pods made of a few bytes each.
		if pods[len(pods)-1].Name == "" {
			return nil, fmt.Errorf("pod %d has no name", len(pods))
		}
	}
	return pods, p.ended(end)
}

// pod reads a Pod's metadata, spec.nodeName and status up to byte end.
func (p *pbReader) pod(pod *corev1.Pod, end int64) error {
	for p.n < end {
		field, wire, err := p.tag()
		if err != nil {
			return err
		}
		if wire != wireBytes || (field != podMetadata && field != podSpec && field != podStatus) {
			if err := p.skip(wire, end); err != nil {
				return err
			}
			continue
		}
		n, err := p.length(end, -1)
		if err != nil {
			return err
		}
		if field == podSpec {
			if err := p.podSpec(pod, p.n+n); err != nil {
				return fmt.Errorf("spec: %w", err)
			}
			continue
		}
		if p.buf, err = p.read(p.buf, n); err != nil {
			return err
		}
		if field == podStatus {
			pod.Status = corev1.PodStatus{}
			if err := pod.Status.Unmarshal(p.buf); err != nil {
				return fmt.Errorf("status: %w", err)
			}
			continue
		}
		if p.meta, err = withoutField(p.meta[:0], p.buf, objectMetaManaged); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
		pod.ObjectMeta = metav1.ObjectMeta{}
		if err := pod.ObjectMeta.Unmarshal(p.meta); err != nil {
			return fmt.Errorf("metadata: %w", err)
		}
	}
	return p.ended(end)
}

// podSpec reads nodeName of a PodSpec up to byte end and skips the rest
// (containers, their environment, volumes...) without keeping it.
func (p *pbReader) podSpec(pod *corev1.Pod, end int64) error {
	for p.n < end {
		field, wire, err := p.tag()
		if err != nil {
			return err
		}
		if field != podSpecNodeName || wire != wireBytes {
			if err := p.skip(wire, end); err != nil {
				return err
			}
			continue
		}
		n, err := p.length(end, 1<<10)
		if err != nil {
			return fmt.Errorf("nodeName: %w", err)
		}
		if p.buf, err = p.read(p.buf, n); err != nil {
			return err
		}
		pod.Spec.NodeName = string(p.buf)
	}
	return p.ended(end)
}

// ended checks that the message that ends at byte end (-1: the stream's
// end) ended there, not inside a field.
func (p *pbReader) ended(end int64) error {
	if end >= 0 && p.n != end {
		return errOverrun
	}
	return nil
}

// ioError is a failure to read the answer: its end where a field was
// due is errTruncated, any other (a timeout, a broken connection) itself.
func ioError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errTruncated
	}
	return err
}

func (p *pbReader) uvarint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		b, err := p.r.ReadByte()
		if err != nil {
			return 0, ioError(err)
		}
		p.n++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("a varint longer than 64 bits")
}

func (p *pbReader) tag() (field uint64, wire int, err error) {
	v, err := p.uvarint()
	if err != nil {
		return 0, 0, err
	}
	if v>>3 == 0 {
		return 0, 0, errors.New("a field numbered 0")
	}
	return v >> 3, int(v & 7), nil
}

// length reads a field's length, which must fit in the message that ends
// at byte end (-1: the stream) and be at most limit bytes (-1: any).
func (p *pbReader) length(end, limit int64) (int64, error) {
	v, err := p.uvarint()
	if err != nil {
		return 0, err
	}
	switch {
	case v > 1<<62:
		return 0, fmt.Errorf("a field of %d bytes", v)
	case limit >= 0 && int64(v) > limit:
		return 0, fmt.Errorf("a field of %d bytes, over the %d this reader takes", v, limit)
	case end >= 0 && p.n+int64(v) > end:
		return 0, errOverrun
	}
	return int64(v), nil
}

// skip reads past the value of a field of wire type wire, in the message
// that ends at byte end (-1: the stream).
func (p *pbReader) skip(wire int, end int64) error {
	var n int64
	switch wire {
	case wireVarint:
		_, err := p.uvarint()
		return err
	case wireFixed64:
		n = 8
	case wireFixed32:
		n = 4
	case wireBytes:
		var err error
		if n, err = p.length(end, -1); err != nil {
			return err
		}
	default:
		return fmt.Errorf("a field of wire type %d", wire)
	}
	if end >= 0 && p.n+n > end {
		return errOverrun
	}
	for n > 0 {
		chunk := int(min(n, 1<<30))
		d, err := p.r.Discard(chunk)
		p.n += int64(d)
		n -= int64(d)
		if err != nil {
			return ioError(err)
		}
	}
	return nil
}

// read reads n bytes into buf, growing it only as the bytes come in: a
// length the answer announces is no reason to allocate it.
func (p *pbReader) read(buf []byte, n int64) ([]byte, error) {
	buf = buf[:0]
	for int64(len(buf)) < n {
		want := int(n - int64(len(buf)))
		if cap(buf) == len(buf) {
			buf = slices.Grow(buf, min(want, max(cap(buf), 32<<10)))
		}
		want = min(want, cap(buf)-len(buf))
		got, err := io.ReadFull(p.r, buf[len(buf):len(buf)+want])
		buf = buf[:len(buf)+got]
		p.n += int64(got)
		if err != nil {
			return buf, ioError(err)
		}
	}
	return buf, nil
}

// withoutField appends to dst the fields of the message msg but those
// numbered drop.
func withoutField(dst, msg []byte, drop uint64) ([]byte, error) {
	for len(msg) > 0 {
		field, _, size, err := fieldAt(msg)
		if err != nil {
			return dst, err
		}
		if field != drop {
			dst = append(dst, msg[:size]...)
		}
		msg = msg[size:]
	}
	return dst, nil
}

// stringField is the last value of field number field of the message msg
// as a string, "" if it has none or cannot be read.
func stringField(msg []byte, field uint64) string {
	var out string
	for len(msg) > 0 {
		f, value, size, err := fieldAt(msg)
		if err != nil {
			return ""
		}
		if f == field && msg[0]&7 == wireBytes {
			out = string(msg[value:size])
		}
		msg = msg[size:]
	}
	return out
}

// fieldAt is the number of the field msg starts with, where its value
// starts (a length-delimited one's bytes) and its size, tag included.
func fieldAt(msg []byte) (field uint64, value, size int, err error) {
	tag, n := binary.Uvarint(msg)
	if n <= 0 || tag>>3 == 0 {
		return 0, 0, 0, errors.New("a malformed field tag")
	}
	value = n
	switch tag & 7 {
	case wireVarint:
		_, m := binary.Uvarint(msg[value:])
		if m <= 0 {
			return 0, 0, 0, errTruncated
		}
		size = value + m
	case wireFixed64:
		size = value + 8
	case wireFixed32:
		size = value + 4
	case wireBytes:
		l, m := binary.Uvarint(msg[value:])
		if m <= 0 || l > uint64(len(msg)) {
			return 0, 0, 0, errTruncated
		}
		value += m
		size = value + int(l)
	default:
		return 0, 0, 0, fmt.Errorf("a field of wire type %d", tag&7)
	}
	if size > len(msg) {
		return 0, 0, 0, errTruncated
	}
	return tag >> 3, value, size, nil
}
