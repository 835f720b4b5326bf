// Package registry lists the kinds easyai supports: registering a kind is one
// line here, one step of adding it (docs/architecture.md, "Adding a kind").
package registry

import (
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/colossalai"
	"github.com/easyai-dev/easyai/pkg/kinds/jaxjob"
	"github.com/easyai-dev/easyai/pkg/kinds/mpijob"
	"github.com/easyai-dev/easyai/pkg/kinds/paddlejob"
	"github.com/easyai-dev/easyai/pkg/kinds/pytorchjob"
	"github.com/easyai-dev/easyai/pkg/kinds/tfjob"
	"github.com/easyai-dev/easyai/pkg/kinds/trainjob"
	"github.com/easyai-dev/easyai/pkg/kinds/volcano"
	"github.com/easyai-dev/easyai/pkg/kinds/xgboostjob"
)

// Default returns the registry of every supported kind.
func Default() *kinds.Registry {
	return kinds.NewRegistry(
		tfjob.New(),
		pytorchjob.New(),
		mpijob.New(),
		xgboostjob.New(),
		paddlejob.New(),
		jaxjob.New(),
		volcano.New(),
		colossalai.New(),
		trainjob.New(),
	).WithSubmitOnly(
		trainjob.DeepSpeed(),
		trainjob.MLX(),
	)
}
