//go:build tools

// Package tools pins the KServe controller manager the local cluster runs
// when EASYAI_CLUSTER_COMPONENTS names kserve (hack/cluster/build.sh builds
// the upstream command from this module; the version is in go.mod).
package tools

import (
	_ "github.com/kserve/kserve/cmd/manager"
)
