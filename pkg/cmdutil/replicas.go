package cmdutil

import (
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/remote"
)

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

// ReplicaClients resolves, from the factory, the clients of a command that
// acts in a job's replica pods (exec, attach, port-forward, download,
// upload, open).
func ReplicaClients(f *Factory) (*remote.Clients, error) {
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
	return &remote.Clients{Namespace: ns, Jobs: client, Config: config, Kube: kube}, nil
}
