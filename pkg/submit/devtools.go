package submit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/render"
)

// DevtoolsFlags are the submit flags that develop and debug a job inside
// the cluster (docs/debug.md), the chart's "devtools" values.
type DevtoolsFlags struct {
	// Debug starts the replicas (DebugTasks only, when given) with a wait
	// in place of their command, for DebugTimeout at most.
	Debug        bool
	DebugTasks   []string
	DebugTimeout time.Duration
	// TensorBoard, Jupyter and CodeServer start those web tools with the job.
	TensorBoard bool
	Jupyter     bool
	CodeServer  bool
	// SSH runs an sshd beside the command; SSHKey is the public key file
	// let in ("": ~/.ssh/id_ed25519.pub, else ~/.ssh/id_rsa.pub).
	SSH    bool
	SSHKey string
}

// devtoolsValues are the flags' part of the "devtools" value.
func (f *Flags) devtoolsValues() (map[string]any, error) {
	v := map[string]any{}
	for _, part := range []func() (map[string]any, error){f.debugValues, f.webToolValues, f.sshValues} {
		m, err := part()
		if err != nil {
			return nil, err
		}
		v = render.MergeMaps(v, m)
	}
	return v, nil
}

// fillDevtools completes the "devtools" value once the job's name, user and
// storage are known: the names of the Secrets submit makes beside the job,
// and the checks that need the resolved values.
func (s *Submission) fillDevtools(ctx context.Context, req *Request) error {
	for _, fill := range []func(context.Context, *Request) error{s.fillDebug, s.fillWebTools, s.fillSSH} {
		if err := fill(ctx, req); err != nil {
			return err
		}
	}
	return nil
}

// attachments are the objects made beside the job obj (as rendered from
// req), owned by it once it exists.
func (s *Submission) attachments(req *Request, obj *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	resolved, err := req.Resolved()
	if err != nil {
		return nil, err
	}
	builders := []func(*Request, map[string]any, *unstructured.Unstructured) ([]*unstructured.Unstructured, error){s.webToolObjects, s.sshObjects}
	if s.ExtraObjects != nil {
		builders = append(builders, func(_ *Request, values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
			return s.ExtraObjects(values, job)
		})
	}
	var all []*unstructured.Unstructured
	for _, build := range builders {
		objs, err := build(req, resolved, obj)
		if err != nil {
			return nil, err
		}
		for _, o := range objs {
			o.SetNamespace(obj.GetNamespace())
		}
		all = append(all, objs...)
	}
	return all, nil
}

// attachmentResources are the API resources of the kinds of attachments.
var attachmentResources = map[schema.GroupVersionKind]schema.GroupVersionResource{
	{Version: "v1", Kind: "Secret"}:                    {Version: "v1", Resource: "secrets"},
	{Version: "v1", Kind: "Service"}:                   {Version: "v1", Resource: "services"},
	{Version: "v1", Kind: "ConfigMap"}:                 {Version: "v1", Resource: "configmaps"},
	{Group: "apps", Version: "v1", Kind: "Deployment"}: {Group: "apps", Version: "v1", Resource: "deployments"},
}

// OwnedBy makes obj owned by job: the garbage collector deletes it with the
// job. (Not blockOwnerDeletion: setting it needs the right to update the
// job's finalizers, which a namespace's user may not have.)
func OwnedBy(obj, job *unstructured.Unstructured) {
	obj.SetOwnerReferences([]metav1.OwnerReference{{
		APIVersion: job.GetAPIVersion(), Kind: job.GetKind(), Name: job.GetName(), UID: job.GetUID(),
	}})
}

// createAttachments creates the attachments of the job just created, owned
// by it. When one cannot be created, the job (and with it what was created)
// is deleted again: nothing is left half-made.
func (s *Submission) createAttachments(ctx context.Context, client dynamic.Interface, k kinds.Kind, job *unstructured.Unstructured, attachments []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	var created []*unstructured.Unstructured
	opts := createOptions(s.DryRun == DryRunServer)
	for _, a := range attachments {
		gvr, ok := attachmentResources[a.GroupVersionKind()]
		if !ok {
			return nil, fmt.Errorf("internal error: no resource for an attachment of kind %s", a.GroupVersionKind())
		}
		a = a.DeepCopy()
		a.SetNamespace(job.GetNamespace())
		OwnedBy(a, job)
		out, err := client.Resource(gvr).Namespace(job.GetNamespace()).Create(ctx, a, opts)
		if err != nil {
			err = fmt.Errorf("creating %s %s beside %s/%s: %w", a.GetKind(), a.GetName(), k.Name(), job.GetName(), err)
			if s.DryRun == DryRunNone {
				s.undoJob(client, k, job, created, gvrOf)
			}
			return nil, err
		}
		created = append(created, out)
	}
	return created, nil
}

func gvrOf(o *unstructured.Unstructured) schema.GroupVersionResource {
	return attachmentResources[o.GroupVersionKind()]
}

// undoJob deletes the job and the attachments created beside it, on a
// context of its own: the submission's may be what ended.
func (s *Submission) undoJob(client dynamic.Interface, k kinds.Kind, job *unstructured.Unstructured, created []*unstructured.Unstructured, gvr func(*unstructured.Unstructured) schema.GroupVersionResource) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	background := metav1.DeletePropagationBackground
	uid := job.GetUID()
	for _, o := range created {
		err := client.Resource(gvr(o)).Namespace(o.GetNamespace()).Delete(ctx, o.GetName(), metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) && s.Notes != nil {
			fmt.Fprintf(s.Notes, "warning: %s %s was not deleted: %v\n", o.GetKind(), o.GetName(), err)
		}
	}
	err := client.Resource(k.Resource()).Namespace(job.GetNamespace()).Delete(ctx, job.GetName(), metav1.DeleteOptions{
		PropagationPolicy: &background, Preconditions: &metav1.Preconditions{UID: &uid},
	})
	if err != nil && !apierrors.IsNotFound(err) && s.Notes != nil {
		fmt.Fprintf(s.Notes, "warning: %s/%s was created but not deleted again: %v\n", k.Name(), job.GetName(), err)
	}
}

// NewToken is a new login token: 32 random bytes, hex.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making a login token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// TokenSecret is an Opaque Secret named name holding data (its "token" key
// for a login token, jobmodel.TokenSecretKey), labelled as the job's: made
// beside the job, owned by it.
func TokenSecret(name string, job *unstructured.Unstructured, data map[string]string) *unstructured.Unstructured {
	sd := map[string]any{}
	for k, v := range data {
		sd[k] = v
	}
	s := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "Opaque",
		"metadata":   map[string]any{"name": name},
		"stringData": sd,
	}}
	s.SetNamespace(job.GetNamespace())
	s.SetLabels(ownLabels(job))
	return s
}

// ownLabels are the labels of the job that name it (easyai.io/job-name,
// managed-by, user), for the objects made beside it.
func ownLabels(job *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	for _, k := range []string{"app.kubernetes.io/managed-by", "easyai.io/job-name", "easyai.io/user", "easyai.io/kind"} {
		if v, ok := job.GetLabels()[k]; ok {
			out[k] = v
		}
	}
	return out
}
