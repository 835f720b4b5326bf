//go:build tools

// Package tools pins the Kubeflow Trainer v2 controller manager and the
// JobSet controller the local cluster runs (hack/cluster/build.sh builds
// both commands from this module; the versions are in go.mod).
package tools

import (
	_ "github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager"
	_ "sigs.k8s.io/jobset"
)
