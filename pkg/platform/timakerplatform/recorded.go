package timakerplatform

import (
	"context"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// Recorded is not available: a timaker job keeps no values of easyai's
// (its index records what list shows, not the values to submit it from).
func (p *Platform) Recorded(ctx context.Context, job *platform.Job) (*platform.Recorded, error) {
	return nil, exit.UsageErrorf("%s keeps no values of the jobs submitted to it: get -o values and rerun work on Kubernetes clusters only", p.Where())
}
