package submit

import (
	"context"
	"io"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/render"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// ValueFlags are the flags that give a submission its chart and values
// beside the common flags: --chart, -f, --set and --dry-run.
type ValueFlags struct {
	// JobFilePaths are -f as given (ReadJobFiles reads them).
	JobFilePaths []string
	// DryRunArg is --dry-run as given (ParseDryRun reads it).
	DryRunArg string
}

// Declare declares --chart, -f, --set and --dry-run on fs, the chart and
// --set going into s.
func (v *ValueFlags) Declare(fs *pflag.FlagSet, s *JobRequest) {
	fs.StringVar(&s.ChartDir, "chart", "", "render this chart directory instead of the kind's built-in chart")
	fs.StringArrayVarP(&v.JobFilePaths, "values", "f", nil, `values file, "-" for standard input (repeatable; later files win)`)
	fs.StringArrayVar(&s.Set, "set", nil, "set a chart value: key=value, as in Helm (repeatable; wins over everything)")
	fs.StringVar(&v.DryRunArg, "dry-run", string(DryRunNone), `print the job without creating it: "client", or "server" (validated by the API server)`)
	fs.Lookup("dry-run").NoOptDefVal = "client"
}

// ReadJobFiles reads the -f files once ("-" is standard input, which can be
// read only once), bounded, under ctx: Ctrl-C ends a read that waits.
func (v *ValueFlags) ReadJobFiles(ctx context.Context, in io.Reader) ([]render.ValueFile, error) {
	stdins := 0
	for _, path := range v.JobFilePaths {
		if path == userfile.Stdin {
			stdins++
		}
	}
	if stdins > 1 {
		return nil, exit.UsageErrorf("-f -: standard input can be read only once")
	}
	return render.ReadValueFiles(ctx, in, v.JobFilePaths)
}
