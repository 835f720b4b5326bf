package cmdutil

import (
	"context"
	"io"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/prompter"
)

// Factory gives commands what they need, built once per run and only when
// asked for: nothing here touches the network until a command calls it.
type Factory struct {
	IOStreams *iostreams.IOStreams
	Prompter  prompter.Prompter
	Kinds     *kinds.Registry
	// Now is the clock (frozen in tests).
	Now func() time.Time
	// ExecutableName is how help and hints name the binary ("easyai").
	ExecutableName string
	// DeferFlags lets a command whose flags cost something to declare (a
	// submit kind's) declare them only when it is the command that runs or
	// whose help or completions are asked for (DeferFlags, DeclareFlags).
	// Main sets it; a tree built without it declares every flag at once.
	DeferFlags bool
	// CommandPath is the command running ("easyai logs"), for messages
	// (set by the root command before it runs).
	CommandPath string

	// ConfigFlags are kubectl's connection flags (--kubeconfig, --context,
	// -n, --as, --request-timeout, ...), bound on the root command.
	ConfigFlags *genericclioptions.ConfigFlags

	// ConfigPath is --config (empty: the default path).
	ConfigPath string
	// Cluster is --cluster: a cluster of the configuration (empty: its
	// default cluster, else the kubeconfig's context).
	Cluster string

	Config        func() (*config.Config, error)
	RESTConfig    func() (*rest.Config, error)
	KubeClient    func() (kubernetes.Interface, error)
	DynamicClient func() (dynamic.Interface, error)
	// Namespace is -n, else the kubeconfig context's namespace, else
	// "default"; explicit reports whether -n was given.
	Namespace func() (ns string, explicit bool, err error)
	// JobsClient is the jobs engine on this run's clients and GPU resource.
	JobsClient func() (*jobclient.Client, error)
	// Platform is where jobs run: the kubeconfig's cluster, or the
	// timaker cluster --cluster (or the configuration) names. submit, get,
	// list, wait, delete and top work through it on either.
	Platform func() (platform.Platform, error)
	// Contexts are the names of the kubeconfig's contexts, sorted.
	Contexts func() ([]string, error)
	// PlatformFor is the Kubernetes platform of one context of the
	// kubeconfig, on clients of its own (list lists several contexts at
	// once); its warnings go to notes. -n and the other connection flags
	// apply to it; --cluster and the configuration's cluster do not.
	PlatformFor func(context string, notes io.Writer) (platform.Platform, error)
	// User is who the API server says the user is (one SelfSubjectReview),
	// else the kubeconfig context's user; KubeconfigUser asks nobody.
	User           func(ctx context.Context) (string, error)
	KubeconfigUser func() (string, error)
}
