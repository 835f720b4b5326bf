package kubeplatform

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// TestSubmitRefusesTimakerFlags: --rdma, --gpu-type, --elastic and --fs are
// exit 2 naming the flag, before the platform asks anything of the cluster.
func TestSubmitRefusesTimakerFlags(t *testing.T) {
	for _, flag := range []string{"rdma", "gpu-type", "elastic", "fs"} {
		asked := []string{}
		p := &Platform{
			Kinds: registry.Default(),
			Namespace: func() (string, bool, error) {
				asked = append(asked, "namespace")
				return "team-a", false, nil
			},
			Kube: func() (kubernetes.Interface, error) {
				asked = append(asked, "kube")
				return nil, errors.New("no cluster in this test")
			},
			Dynamic: func() (dynamic.Interface, error) {
				asked = append(asked, "dynamic")
				return nil, errors.New("no cluster in this test")
			},
			User: func(context.Context) (string, error) {
				asked = append(asked, "user")
				return "", errors.New("no cluster in this test")
			},
			Notes: io.Discard,
		}
		tf, _ := p.Kinds.Lookup("tf")
		s := &submit.JobRequest{Kinds: p.Kinds, Kind: tf, Notes: io.Discard, Flags: submit.Flags{
			Image: "train:1", Command: []string{"python", "train.py"}, RDMA: true, GPUType: "V100", Elastic: true, FS: "cfs:10.0.0.4:/code",
			Changed: func(f string) bool { return f == flag || f == "image" || f == "command" },
		}}
		_, err := p.Submit(context.Background(), s)
		if exit.Code(err) != exit.Usage || !strings.HasPrefix(err.Error(), "--"+flag+" is a flag of timaker clusters (--cluster NAME)") {
			t.Errorf("--%s: %v (exit %d), want exit 2 naming it", flag, err, exit.Code(err))
		}
		if len(asked) != 0 {
			t.Errorf("--%s: asked for %v before refusing", flag, asked)
		}
	}
}
