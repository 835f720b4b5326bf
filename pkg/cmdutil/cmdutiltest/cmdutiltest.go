// Package cmdutiltest builds the Factory of the commands' unit tests: fake
// clients, test streams, the frozen clock and the Kubernetes platform on
// them.
package cmdutiltest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	kubefake "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
	kubepkg "github.com/easyai-dev/easyai/pkg/kube"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/platform/kubeplatform"
	"github.com/easyai-dev/easyai/pkg/prompter"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// Confirm is a prompter that answers every question with Answer and records it.
type Confirm struct {
	Answer    bool
	Questions []string
}

func (c *Confirm) Input(message, help, defaultValue string) (string, error) {
	c.Questions = append(c.Questions, message)
	return defaultValue, nil
}

func (c *Confirm) Confirm(message string, defaultValue bool) (bool, error) {
	c.Questions = append(c.Questions, message)
	return c.Answer, nil
}

var _ prompter.Prompter = (*Confirm)(nil)

// Factory is a factory on test streams (terminals or not) with the fake
// clients, namespace "team-a" and the frozen clock.
func Factory(t testing.TB, tty bool, dyn dynamic.Interface, kube kubernetes.Interface) (f *cmdutil.Factory, stdout, stderr *bytes.Buffer) {
	t.Helper()
	io, _, stdout, stderr := iostreams.Test()
	io.SetTTY(tty)
	if kube == nil {
		kube = kubefake.NewClientset()
	}
	f = &cmdutil.Factory{
		IOStreams:      io,
		Prompter:       &Confirm{},
		Kinds:          jobclienttest.Registry(),
		Now:            func() time.Time { return jobclienttest.Now },
		ExecutableName: "easyai",
		Config: func() (*config.Config, error) {
			return &config.Config{GPUResource: config.DefaultGPUResource}, nil
		},
		KubeClient:    func() (kubernetes.Interface, error) { return kube, nil },
		DynamicClient: func() (dynamic.Interface, error) { return dyn, nil },
		Namespace:     func() (string, bool, error) { return "team-a", false, nil },
		JobsClient: func() (*jobclient.Client, error) {
			return &jobclient.Client{Dynamic: dyn, Kube: kube, Kinds: jobclienttest.Registry(), GPUResource: config.DefaultGPUResource}, nil
		},
		KubeconfigUser: func() (string, error) { return "", errors.New("no kubeconfig in tests") },
	}
	f.User = func(ctx context.Context) (string, error) {
		return kubepkg.WhoAmI(ctx, kube, clientcmd.NewDefaultClientConfig(clientcmdapi.Config{}, nil), "")
	}
	// The platform reads the factory's fields when called, so that a test
	// may replace them (f.JobsClient, f.Kinds) after this.
	f.Platform = func() (platform.Platform, error) {
		return &kubeplatform.Platform{
			Kinds: f.Kinds, Namespace: f.Namespace, Jobs: f.JobsClient, Kube: f.KubeClient, Dynamic: f.DynamicClient,
			User: f.User, KubeconfigUser: f.KubeconfigUser, GPUResources: []string{config.DefaultGPUResource},
			Code: submit.CodeUploader{Clients: func() (*remote.Clients, error) { return cmdutil.ReplicaClients(f) },
				Now: f.Now, Notes: f.IOStreams.ErrOut},
			Notes: f.IOStreams.ErrOut, Now: f.Now,
		}, nil
	}
	return f, stdout, stderr
}
