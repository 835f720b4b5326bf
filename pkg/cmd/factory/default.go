// Package factory builds the Factory of a real easyai run.
package factory

import (
	"context"
	"fmt"
	"sync"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/platform/kubeplatform"
	"github.com/easyai-dev/easyai/pkg/platform/timakerplatform"
	"github.com/easyai-dev/easyai/pkg/prompter"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/submit"
	"github.com/easyai-dev/easyai/pkg/timaker"
)

// New returns the factory of a run on the process's own streams.
func New() *cmdutil.Factory {
	io := iostreams.System()
	f := &cmdutil.Factory{
		IOStreams:      io,
		Prompter:       prompter.New(io),
		Kinds:          registry.Default(),
		Now:            time.Now,
		ExecutableName: "easyai",
		ConfigFlags:    genericclioptions.NewConfigFlags(true),
	}
	// --request-timeout bounds each request that is not a stream
	// (kube.LimitRequests), by default too: a server that never answers
	// must not hang easyai.
	defaultTimeout := kube.DefaultRequestTimeout.String()
	f.ConfigFlags.Timeout = &defaultTimeout
	f.Config = configOnce(f)
	timakerCluster := timakerClusterOnce(f)
	setKubeClients(f, timakerCluster)
	f.Platform = platformOnce(f, timakerCluster)
	f.Contexts = func() ([]string, error) { return kubeContexts(f) }
	f.PlatformFor = platformsOf(f)
	f.User = func(ctx context.Context) (string, error) {
		kc, err := f.KubeClient()
		if err != nil {
			return "", err
		}
		return kube.WhoAmI(ctx, kc, f.ConfigFlags.ToRawKubeConfigLoader(), contextName(f))
	}
	f.KubeconfigUser = func() (string, error) {
		return kube.KubeconfigUser(f.ConfigFlags.ToRawKubeConfigLoader(), contextName(f))
	}
	return f
}

// configOnce is the factory's Config: the configuration, loaded once per
// run, so that its warnings (unknown keys) show once, on stderr.
func configOnce(f *cmdutil.Factory) func() (*config.Config, error) {
	return sync.OnceValues(func() (*config.Config, error) {
		c, err := config.Load(f.ConfigPath)
		if err != nil {
			return nil, err
		}
		for _, w := range c.Warnings {
			fmt.Fprintf(f.IOStreams.ErrOut, "Warning: %s\n", w)
		}
		return c, nil
	})
}

// timakerClusterOnce is the timaker cluster --cluster (or else the
// configuration) names, resolved once; nil: the kubeconfig's cluster. A
// --cluster the configuration does not have but the kubeconfig does is
// kubectl's --cluster, set on the connection flags.
func timakerClusterOnce(f *cmdutil.Factory) func() (*config.Cluster, error) {
	return sync.OnceValues(func() (*config.Cluster, error) {
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		name := f.Cluster
		if name == "" {
			name = cfg.Cluster
		}
		if name == "" {
			return nil, nil
		}
		cl, err := cfg.LookupCluster(name)
		if err != nil && f.Cluster != "" && kubeconfigHasCluster(f.ConfigFlags, name) {
			// kubectl's --cluster: a cluster of the kubeconfig.
			f.ConfigFlags.ClusterName = &name
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return &cl, nil
	})
}

// setKubeClients sets the factory's Kubernetes clients, each built once
// when first asked for: the REST config (an error on a timaker cluster),
// the typed and dynamic clients, the namespace and the jobs engine.
func setKubeClients(f *cmdutil.Factory, timakerCluster func() (*config.Cluster, error)) {
	f.RESTConfig = sync.OnceValues(func() (*rest.Config, error) {
		cl, err := timakerCluster()
		if err != nil {
			return nil, err
		}
		if cl != nil {
			return nil, noKubernetes(f, cl)
		}
		return restConfigOf(f.ConfigFlags)
	})
	f.KubeClient = sync.OnceValues(func() (kubernetes.Interface, error) {
		cfg, err := f.RESTConfig()
		if err != nil {
			return nil, err
		}
		return kubernetes.NewForConfig(cfg)
	})
	f.DynamicClient = sync.OnceValues(func() (dynamic.Interface, error) {
		cfg, err := f.RESTConfig()
		if err != nil {
			return nil, err
		}
		return dynamic.NewForConfig(cfg)
	})
	f.Namespace = func() (string, bool, error) {
		return ResolveNamespace(f.ConfigFlags)
	}
	f.JobsClient = sync.OnceValues(func() (*jobclient.Client, error) {
		return jobsClientOf(f, f.RESTConfig, f.KubeClient, f.DynamicClient)
	})
}

// platformOnce is the factory's Platform, built once: the timaker cluster
// timakerCluster gives, else the Kubernetes cluster of the kubeconfig on
// the factory's clients.
func platformOnce(f *cmdutil.Factory, timakerCluster func() (*config.Cluster, error)) func() (platform.Platform, error) {
	return sync.OnceValues(func() (platform.Platform, error) {
		cl, err := timakerCluster()
		if err != nil {
			return nil, err
		}
		if cl != nil {
			newPlatform, ok := platformOfType[cl.Type]
			if !ok {
				return nil, fmt.Errorf("cluster %s: easyai has no platform of type %q", cl.Name, cl.Type)
			}
			return newPlatform(f, *cl)
		}
		cfg, err := f.Config()
		if err != nil {
			return nil, err
		}
		return &kubeplatform.Platform{
			Kinds: f.Kinds, Namespace: f.Namespace, Jobs: f.JobsClient, Kube: f.KubeClient, Dynamic: f.DynamicClient,
			User: f.User, KubeconfigUser: f.KubeconfigUser, GPUResources: cfg.GPUResourceNames(),
			Code:  codeUploader(f, cfg.FetcherImage),
			Notes: f.IOStreams.ErrOut, Now: f.Now,
		}, nil
	})
}

// contextName is --context, or "" for the kubeconfig's current context.
func contextName(f *cmdutil.Factory) string {
	if f.ConfigFlags.Context != nil {
		return *f.ConfigFlags.Context
	}
	return ""
}

// platformOfType makes the platform of a cluster of the configuration, by
// its type (config.ClusterTypes); a kubeconfig context is the Kubernetes
// platform and needs no entry.
var platformOfType = map[string]func(*cmdutil.Factory, config.Cluster) (platform.Platform, error){
	config.ClusterTypeTimaker: newTimaker,
}

// newTimaker is the platform of a timaker cluster of the configuration,
// signing with the credentials of the environment or the credentials file.
func newTimaker(f *cmdutil.Factory, cl config.Cluster) (platform.Platform, error) {
	creds, err := config.LoadTimakerCredentials(cl)
	if err != nil {
		return nil, err
	}
	if ns := f.ConfigFlags.Namespace; ns != nil && *ns != "" {
		fmt.Fprintf(f.IOStreams.ErrOut, "Warning: -n %s is ignored: timaker cluster %q has no namespaces\n", *ns, cl.Name)
	}
	client := &timaker.Client{
		Addr: cl.Addr, Host: cl.Host, Now: f.Now,
		Credentials: timaker.Credentials{SecretID: creds.SecretID, SecretKey: creds.SecretKey},
	}
	if f.ConfigFlags.Timeout != nil {
		if d, err := time.ParseDuration(*f.ConfigFlags.Timeout); err == nil && d > 0 {
			client.Timeout = d
		}
	}
	return &timakerplatform.Platform{
		Cluster: cl, Client: client, Index: &timakerplatform.Index{Path: timakerplatform.DefaultIndexPath(cl.Name)},
		Kinds: f.Kinds, Notes: f.IOStreams.ErrOut, Now: f.Now,
	}, nil
}

// noKubernetes is the error of a command that needs the Kubernetes API run
// on a timaker cluster.
func noKubernetes(f *cmdutil.Factory, cl *config.Cluster) error {
	what := "this command"
	if f.CommandPath != "" {
		what = f.CommandPath
	}
	return exit.WithHint(exit.UsageErrorf("%s needs a Kubernetes cluster, and timaker cluster %q has no Kubernetes API", what, cl.Name),
		"on timaker clusters easyai submits, gets, lists, waits for, deletes jobs and shows top node; timaker has no logs, exec or file API (docs/timaker.md). Without --cluster (or with the configuration's cluster unset) easyai uses the kubeconfig's context")
}

// kubeconfigHasCluster reports whether the kubeconfig (--kubeconfig, else
// $KUBECONFIG or ~/.kube/config) names a cluster name.
func kubeconfigHasCluster(flags *genericclioptions.ConfigFlags, name string) bool {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if flags.KubeConfig != nil && *flags.KubeConfig != "" {
		rules.ExplicitPath = *flags.KubeConfig
	}
	raw, err := rules.Load()
	if err != nil {
		return false
	}
	_, ok := raw.Clusters[name]
	return ok
}

// codeUploader uploads --code dir:PATH through the replicas' clients, the
// uploader pod running image (the fetcher-image setting).
func codeUploader(f *cmdutil.Factory, image string) submit.CodeUploader {
	return submit.CodeUploader{
		Clients: func() (*remote.Clients, error) { return cmdutil.ReplicaClients(f) },
		Image:   image, Now: f.Now, Notes: f.IOStreams.ErrOut,
	}
}
