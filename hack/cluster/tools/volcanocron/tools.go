//go:build tools

// Package tools pins controller-gen and the Volcano API types it reads.
package tools

import (
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
	_ "volcano.sh/apis/pkg/apis/batch/v1alpha1"
)
