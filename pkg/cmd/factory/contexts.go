package factory

import (
	"context"
	"io"
	"maps"
	"os"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/platform/kubeplatform"
)

// restConfigOf is the REST config of the kubeconfig's context the flags
// name, tuned for easyai: list's concurrent LISTs unthrottled and on one
// connection, its user agent, each request bounded by --request-timeout.
func restConfigOf(flags *genericclioptions.ConfigFlags) (*rest.Config, error) {
	if err := CheckKubeconfig(flags); err != nil {
		return nil, err
	}
	cfg := inClusterConfig(flags)
	if cfg == nil {
		var err error
		if cfg, err = flags.ToRESTConfig(); err != nil {
			return nil, exit.WithHint(err, "point --kubeconfig or $KUBECONFIG at a cluster")
		}
	}
	// list runs one LIST per kind at once; the defaults (5 QPS) would queue them.
	cfg.QPS, cfg.Burst = 50, 100
	cfg.UserAgent = "easyai/" + build.Version
	// Before LimitRequests: a request's wait for the first connection
	// counts in its timeout.
	kube.DialOnce(cfg)
	kube.LimitRequests(cfg)
	return cfg, nil
}

// inClusterConfig is the configuration of the pod easyai runs in (its
// ServiceAccount's token, its cluster's API server: a schedule's launcher,
// docs/cron.md) when no kubeconfig names another; nil elsewhere. The
// kubeconfig loader would fall back to it only for a configuration of
// nothing but defaults, which --request-timeout's default is not.
func inClusterConfig(flags *genericclioptions.ConfigFlags) *rest.Config {
	if os.Getenv("KUBERNETES_SERVICE_HOST") == "" || os.Getenv(clientcmd.RecommendedConfigPathEnvVar) != "" ||
		(flags != nil && flags.KubeConfig != nil && *flags.KubeConfig != "") {
		return nil
	}
	if _, err := os.Stat(clientcmd.RecommendedHomeFile); err == nil {
		return nil
	}
	cfg, err := rest.InClusterConfig()
	if err != nil {
		return nil
	}
	if flags != nil && flags.Timeout != nil {
		if d, err := time.ParseDuration(*flags.Timeout); err == nil {
			cfg.Timeout = d
		}
	}
	return cfg
}

// jobsClientOf is the jobs engine on a context's clients and the
// configuration's GPU resource.
func jobsClientOf(f *cmdutil.Factory, restConfig func() (*rest.Config, error), kc func() (kubernetes.Interface, error), dynamicClient func() (dynamic.Interface, error)) (*jobclient.Client, error) {
	dyn, err := dynamicClient()
	if err != nil {
		return nil, err
	}
	kubeClient, err := kc()
	if err != nil {
		return nil, err
	}
	cfg, err := f.Config()
	if err != nil {
		return nil, err
	}
	rc, err := restConfig()
	if err != nil {
		return nil, err
	}
	rawConfig := rest.CopyConfig(rc)
	rawConfig.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	raw, err := rest.UnversionedRESTClientFor(rawConfig)
	if err != nil {
		return nil, err
	}
	return &jobclient.Client{Dynamic: dyn, Kube: kubeClient, Raw: raw, Kinds: f.Kinds, GPUResource: corev1.ResourceName(cfg.GPUResource), Server: rc.Host}, nil
}

// kubeContexts are the names of the kubeconfig's contexts, sorted.
func kubeContexts(f *cmdutil.Factory) ([]string, error) {
	if err := CheckKubeconfig(f.ConfigFlags); err != nil {
		return nil, err
	}
	raw, err := f.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	if err != nil {
		return nil, err
	}
	return slices.Sorted(maps.Keys(raw.Contexts)), nil
}

// platformsOf is the factory's PlatformFor.
func platformsOf(f *cmdutil.Factory) func(name string, notes io.Writer) (platform.Platform, error) {
	return func(name string, notes io.Writer) (platform.Platform, error) { return platformFor(f, name, notes) }
}

// platformFor is the Kubernetes platform of the kubeconfig's context name,
// on clients of its own: the run's connection flags (-n, --as,
// --request-timeout, ...) with --context name.
func platformFor(f *cmdutil.Factory, name string, notes io.Writer) (platform.Platform, error) {
	flags := flagsOfContext(f.ConfigFlags, name)
	restConfig := sync.OnceValues(func() (*rest.Config, error) { return restConfigOf(flags) })
	kc := sync.OnceValues(func() (kubernetes.Interface, error) {
		cfg, err := restConfig()
		if err != nil {
			return nil, err
		}
		return kubernetes.NewForConfig(cfg)
	})
	dyn := sync.OnceValues(func() (dynamic.Interface, error) {
		cfg, err := restConfig()
		if err != nil {
			return nil, err
		}
		return dynamic.NewForConfig(cfg)
	})
	jobs := sync.OnceValues(func() (*jobclient.Client, error) { return jobsClientOf(f, restConfig, kc, dyn) })
	var gpus []string
	if cfg, err := f.Config(); err == nil {
		gpus = cfg.GPUResourceNames()
	}
	return &kubeplatform.Platform{
		GPUResources: gpus,
		Kinds:        f.Kinds, Jobs: jobs, Kube: kc, Dynamic: dyn,
		Namespace: func() (string, bool, error) { return ResolveNamespace(flags) },
		User: func(ctx context.Context) (string, error) {
			client, err := kc()
			if err != nil {
				return "", err
			}
			return kube.WhoAmI(ctx, client, flags.ToRawKubeConfigLoader(), name)
		},
		KubeconfigUser: func() (string, error) { return kube.KubeconfigUser(flags.ToRawKubeConfigLoader(), name) },
		Notes:          notes, Now: f.Now,
	}, nil
}

// flagsOfContext are the connection flags with --context name, loading the
// kubeconfig anew (the run's own flags keep the loader of their context).
// Only the flags that hold for every cluster carry over: the namespace,
// impersonation, the timeout. What speaks for one cluster (its server,
// credentials, CA, a kubeconfig user or cluster) does not: each context
// uses its own, and list refuses those flags with several contexts.
func flagsOfContext(from *genericclioptions.ConfigFlags, name string) *genericclioptions.ConfigFlags {
	to := genericclioptions.NewConfigFlags(false)
	to.CacheDir, to.KubeConfig, to.Namespace = from.CacheDir, from.KubeConfig, from.Namespace
	to.Impersonate, to.ImpersonateUID, to.ImpersonateGroup = from.Impersonate, from.ImpersonateUID, from.ImpersonateGroup
	to.Timeout, to.DisableCompression, to.WrapConfigFn = from.Timeout, from.DisableCompression, from.WrapConfigFn
	to.Context = &name
	return to
}
