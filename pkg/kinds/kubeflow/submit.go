package kubeflow

import (
	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
)

// Elastic are the flags --elastic-min and --elastic-max: the bounds of the
// replicas the operator keeps an elastic job between (its elasticPolicy).
type Elastic struct{ min, max int }

// AddElasticFlags adds the flags; what names what they count ("nodes",
// "workers").
func AddElasticFlags(fs *pflag.FlagSet, what string) *Elastic {
	e := &Elastic{}
	fs.IntVar(&e.min, "elastic-min", 0, "elastic training: fewest "+what+" the job runs with (sets an elasticPolicy)")
	fs.IntVar(&e.max, "elastic-max", 0, "elastic training: most "+what+" the job scales to")
	return e
}

// Set reports whether the user gave a bound.
func (e *Elastic) Set() bool { return e.min != 0 || e.max != 0 }

// CheckBounds is a usage error unless 1 <= min <= max.
func (e *Elastic) CheckBounds() error {
	if e.min < 1 || e.max < e.min || e.max > kinds.MaxCount {
		return exit.UsageErrorf("--elastic-min %d --elastic-max %d: need 1 <= min <= max", e.min, e.max)
	}
	return nil
}

// Value is the chart's elastic value of the bounds, once they are checked
// and --workers, when set, lies between them.
func (e *Elastic) Value(common kinds.SubmitCommon) (map[string]any, error) {
	if err := e.CheckBounds(); err != nil {
		return nil, err
	}
	if common.Changed("workers") && (common.Workers < e.min || common.Workers > e.max) {
		return nil, exit.UsageErrorf("--workers %d: must lie between --elastic-min %d and --elastic-max %d", common.Workers, e.min, e.max)
	}
	return map[string]any{"minReplicas": e.min, "maxReplicas": e.max}, nil
}

// Start is the replicas an elastic job starts with: --workers, else the
// fewest it runs with.
func (e *Elastic) Start(common kinds.SubmitCommon) int {
	if common.Changed("workers") {
		return common.Workers
	}
	return e.min
}
