package kube

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Refused reports whether the API server refused the request for lack of
// a permission (403 Forbidden).
func Refused(err error) bool { return apierrors.IsForbidden(err) }

// DoctorHint points a user refused a permission at "easyai doctor", for the
// namespace ("" for the cluster scope).
func DoctorHint(namespace string) string {
	if namespace == "" {
		return `"easyai doctor" shows what you may do, and what you may not`
	}
	return fmt.Sprintf(`"easyai doctor -n %s" shows what you may do there, and what you may not`, namespace)
}

// RefusedError is a request the API server refused for every resource it
// was made for: its message names the verb, where and what is missing, and
// it unwraps to the first refusal (apierrors.IsForbidden holds).
type RefusedError struct {
	Message string
	Err     error
}

func (e *RefusedError) Error() string { return e.Message }
func (e *RefusedError) Unwrap() error { return e.Err }

// RefusedEverywhere is the one error of a verb (RBAC's: "list", "get")
// refused for every resource it was asked for, in namespace ("" for all
// namespaces): exit 1, with a hint at "easyai doctor" (and at -n for all
// namespaces). action and what are the user's words ("read", "jobs").
func RefusedEverywhere(action, what, verb, namespace string, resources []schema.GroupResource, first error) error {
	where := "in namespace " + namespace
	hint := DoctorHint(namespace)
	if namespace == "" {
		where = "across namespaces"
		hint = "name a namespace you may read with -n NAMESPACE; " + DoctorHint("")
	}
	return exit.WithHint(&RefusedError{
		Message: fmt.Sprintf("you may not %s %s %s: %s is forbidden on %s", action, what, where, verb, GroupResources(resources)),
		Err:     first,
	}, hint)
}

// GroupResources names resources as RBAC does ("tfjobs.kubeflow.org"),
// sorted, comma-separated.
func GroupResources(resources []schema.GroupResource) string {
	names := make([]string, len(resources))
	for i, r := range resources {
		names[i] = r.String()
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// NotAPIServerError says the server answered, but not as a Kubernetes API
// server does.
type NotAPIServerError struct {
	Server string
	Err    error
}

func (e *NotAPIServerError) Error() string {
	server := "the server"
	if e.Server != "" {
		server = "the server at " + e.Server
	}
	return fmt.Sprintf("%s is not a Kubernetes API server (GET /version: %v)", server, e.Err)
}

func (e *NotAPIServerError) Unwrap() error { return e.Err }

// CheckAPIServer asks the server its version, as every Kubernetes API
// server answers any user: it returns a NotAPIServerError (exit 1, with a
// hint) when the answer is not one, e.g. a plain web server's 404 page or
// HTML. A server that cannot be reached, or refuses, is not judged (nil):
// the request that failed before says why.
func CheckAPIServer(d discovery.ServerVersionInterface, server string) error {
	v, err := d.ServerVersion()
	switch {
	case err == nil && v != nil && v.GitVersion != "":
		return nil
	case err == nil:
		err = errors.New("the answer names no Kubernetes version")
	case apierrors.IsNotFound(err), Garbled(err):
	default:
		return nil
	}
	return exit.WithHint(&NotAPIServerError{Server: server, Err: err},
		"check the kubeconfig's cluster server (or --server, --context): easyai talks to a Kubernetes API server, as kubectl does")
}

// Garbled reports whether err is an answer that was not the JSON asked
// for: the server answered, with something else (HTML, text).
func Garbled(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "unable to parse the server version") || strings.Contains(msg, "serializer for") ||
		strings.Contains(msg, "invalid character") || strings.Contains(msg, "looking for beginning of value") || strings.Contains(msg, "cannot unmarshal") || strings.Contains(msg, "unexpected end of JSON")
}
