package factory

import (
	"os"
	"path/filepath"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// ResolveNamespace is the namespace of a run: -n, else the kubeconfig
// context's, else "default"; explicit reports whether -n gave it. A name
// that is no namespace's ("../x", "Bad_NS") is a usage error naming where
// it came from, before it goes into a request's path.
func ResolveNamespace(flags *genericclioptions.ConfigFlags) (ns string, explicit bool, err error) {
	if err := CheckKubeconfig(flags); err != nil {
		return "", false, err
	}
	ns, explicit, err = flags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return "", false, err
	}
	if err := ValidNamespace(ns, explicit); err != nil {
		return "", false, err
	}
	return ns, explicit, nil
}

// ValidNamespace fails when ns is not a namespace name (a DNS-1123 label);
// explicit says it came from -n rather than the kubeconfig's context.
func ValidNamespace(ns string, explicit bool) error {
	errs := validation.IsDNS1123Label(ns)
	if len(errs) == 0 {
		return nil
	}
	if explicit {
		return exit.UsageErrorf("-n %q: not a namespace name: %s", ns, strings.Join(errs, "; "))
	}
	return exit.UsageErrorf("the kubeconfig context's namespace %q: not a namespace name: %s (give one with -n)", ns, strings.Join(errs, "; "))
}

// CheckKubeconfig fails when a kubeconfig the run would load (--kubeconfig,
// else each file of $KUBECONFIG, else ~/.kube/config) is not a regular file
// or is larger than userfile.KubeconfigLimit: client-go reads it whole,
// without a bound (--kubeconfig /dev/zero would fill memory). Missing files
// are left to client-go, which knows which of them it needs.
func CheckKubeconfig(flags *genericclioptions.ConfigFlags) error {
	if flags != nil && flags.KubeConfig != nil && *flags.KubeConfig != "" {
		return userfile.CheckRegular("--kubeconfig", *flags.KubeConfig, userfile.KubeconfigLimit)
	}
	if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		for _, path := range filepath.SplitList(env) {
			if path == "" {
				continue
			}
			if err := userfile.CheckRegular("$KUBECONFIG", path, userfile.KubeconfigLimit); err != nil {
				return err
			}
		}
		return nil
	}
	return userfile.CheckRegular("kubeconfig", clientcmd.RecommendedHomeFile, userfile.KubeconfigLimit)
}
