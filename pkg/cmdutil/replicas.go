package cmdutil

import (
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/remote"
)

// Replicas is what a command that acts in a job's replica pods (exec,
// attach, port-forward) needs: the namespace, the jobs client to find the
// replica, and the clients to reach its pod.
type Replicas struct {
	Namespace string
	Jobs      *jobclient.Client
	Config    *rest.Config
	Kube      kubernetes.Interface
}

// NamespacedJobs resolves what a command that acts on jobs needs: the
// namespace (-n, else the kubeconfig context's) and the jobs client.
func NamespacedJobs(f *Factory) (string, *jobclient.Client, error) {
	ns, _, err := f.Namespace()
	if err != nil {
		return "", nil, err
	}
	client, err := f.JobsClient()
	if err != nil {
		return "", nil, err
	}
	return ns, client, nil
}

// ReplicaClients resolves Replicas from the factory.
func ReplicaClients(f *Factory) (*Replicas, error) {
	ns, client, err := NamespacedJobs(f)
	if err != nil {
		return nil, err
	}
	config, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	kube, err := f.KubeClient()
	if err != nil {
		return nil, err
	}
	return &Replicas{Namespace: ns, Jobs: client, Config: config, Kube: kube}, nil
}

// Executor runs commands in the replicas' pods through the API server.
func (r *Replicas) Executor() remote.Executor {
	return &remote.APIExecutor{Config: r.Config, Kube: r.Kube}
}
