//go:build tools

// Package tools pins the kubelet command built from this module.
package tools

import (
	_ "k8s.io/kubernetes/cmd/kubelet"
)
