//go:build tools

// Package tools pins the Kueue controller manager the local cluster runs
// when EASYAI_CLUSTER_COMPONENTS names kueue (hack/cluster/build.sh builds
// the upstream command from this module; the version is in go.mod).
package tools

import (
	_ "sigs.k8s.io/kueue/cmd/kueue"
)
