package remote

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/jobclient"
)

// Clients are what acting in a job's replica pods (exec, attach,
// port-forward, download, upload, open) needs: the namespace, the jobs
// client to find the replica, and the clients to reach its pod.
type Clients struct {
	Namespace string
	Jobs      *jobclient.Client
	Config    *rest.Config
	Kube      kubernetes.Interface
}

// Executor runs commands in the replicas' pods through the API server.
func (c *Clients) Executor() Executor {
	return &APIExecutor{Config: c.Config, Kube: c.Kube}
}
