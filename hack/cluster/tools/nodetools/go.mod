// Small programs for the local cluster's real node: the pod sandbox's pause
// process, an nslookup for the training-operator's init container, the
// packer that turns a root file system into images containerd imports, and
// the proxy that lets the node's pods reach the API server.
module github.com/easyai-dev/easyai/hack/cluster/tools/nodetools

go 1.26.0

require github.com/google/go-containerregistry v0.22.1

require (
	github.com/klauspost/compress v1.19.2 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	github.com/opencontainers/image-spec v1.1.1 // indirect
)
