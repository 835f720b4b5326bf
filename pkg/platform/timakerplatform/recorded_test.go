package timakerplatform

import (
	"context"
	"testing"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/platform"
)

// TestRecordedIsNotAvailable: one line, exit 2, saying where it works.
func TestRecordedIsNotAvailable(t *testing.T) {
	p := &Platform{Cluster: config.Cluster{Name: "prod"}}
	_, err := p.Recorded(context.Background(), &platform.Job{})
	want := "timaker cluster prod keeps no values of the jobs submitted to it: get -o values and rerun work on Kubernetes clusters only"
	if exit.Code(err) != exit.Usage || err.Error() != want || exit.Hint(err) != "" {
		t.Errorf("%v (exit %d), want exit 2: %s", err, exit.Code(err), want)
	}
}
