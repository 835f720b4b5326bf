// Package kube holds what easyai asks of any cluster, whatever the kind of
// job: who the user is, what to say when a kind's operator is not installed
// or a request is refused, the per-request timeout, doctor's checks, and how
// to read pods and events (why a pod does not run, when an event last
// happened).
package kube

import (
	"context"
	"errors"
	"fmt"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// WhoAmI returns the user the API server authenticates the request as (its
// SelfSubjectReview answer). When the server cannot say (an old server, or
// the review API forbidden), it falls back to the kubeconfig context's user
// name (contextName, or the current context when empty).
func WhoAmI(ctx context.Context, client kubernetes.Interface, loader clientcmd.ClientConfig, contextName string) (string, error) {
	review, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err == nil && review.Status.UserInfo.Username != "" {
		return review.Status.UserInfo.Username, nil
	}
	if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsForbidden(err) && !apierrors.IsMethodNotSupported(err) {
		return "", fmt.Errorf("asking the API server who you are: %w", err)
	}
	return KubeconfigUser(loader, contextName)
}

// KubeconfigUser is the user name the kubeconfig context (contextName, or
// the current one when empty) names, without asking the API server.
func KubeconfigUser(loader clientcmd.ClientConfig, contextName string) (string, error) {
	raw, err := loader.RawConfig()
	if err != nil {
		return "", err
	}
	if contextName == "" {
		contextName = raw.CurrentContext
	}
	if c, ok := raw.Contexts[contextName]; ok && c.AuthInfo != "" {
		return c.AuthInfo, nil
	}
	return "", errors.New("cannot tell who you are: the API server did not say and the kubeconfig context names no user")
}

// NotInstalled reports whether err says the kind's API is not served by the
// cluster (its CRD is not installed).
func NotInstalled(err error) bool {
	if meta.IsNoMatchError(err) {
		return true
	}
	var status apierrors.APIStatus
	if errors.As(err, &status) && apierrors.IsNotFound(err) {
		// A 404 for the whole resource (no object name) means no such API.
		details := status.Status().Details
		return details == nil || details.Name == ""
	}
	return false
}

// NotInstalledError is the one-line error, with a hint naming the operator to
// install, for a kind the cluster does not serve.
func NotInstalledError(k kinds.Kind) error {
	gvk := k.GroupVersionKind()
	return exit.WithHint(
		fmt.Errorf("%s (%s) is not installed on this cluster", gvk.Kind, gvk.GroupVersion()),
		"install "+k.Operator()+", which serves it",
	)
}
