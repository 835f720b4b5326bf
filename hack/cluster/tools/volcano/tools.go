//go:build tools

// Package tools pins the Volcano commands built from this module.
package tools

import (
	_ "volcano.sh/volcano/cmd/controller-manager"
	_ "volcano.sh/volcano/cmd/scheduler"
	_ "volcano.sh/volcano/cmd/webhook-manager"
)
