package pipelineargs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/pipeline"
	"github.com/easyai-dev/easyai/pkg/platform"
	"github.com/easyai-dev/easyai/pkg/printers"
)

// LogDrainTimeout bounds how long run --wait --logs lets the steps' log
// streams print their last lines after the pipeline has ended.
var LogDrainTimeout = 30 * time.Second

// stepLogs follows the logs of a pipeline's steps (run --wait --logs), each
// from when Volcano creates its job until that job ends, every line
// prefixed with its step ("[train/task-0] ").
type stepLogs struct {
	platform    platform.Platform
	reg         *kinds.Registry
	out, errOut io.Writer
	colour      bool
	terminal    bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// followSteps is a stepLogs writing where -o leaves room: stdout, or
// stderr when stdout is one document.
func (l *Launch) followSteps(ctx context.Context) (*stepLogs, error) {
	p, err := l.Factory.Platform()
	if err != nil {
		return nil, err
	}
	io := l.Factory.IOStreams
	s := &stepLogs{platform: p, reg: l.Factory.Kinds, out: io.Out, errOut: io.ErrOut,
		colour: io.ColorEnabled(), terminal: io.IsStdoutTTY()}
	if l.Print.Format() != printers.FormatDefault {
		s.out, s.colour, s.terminal = io.ErrOut, false, io.IsStderrTTY()
	}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	return s, nil
}

// follow starts following the logs of a step whose job Volcano created.
func (s *stepLogs) follow(step pipeline.StepStatus) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := s.followStep(step)
		if err != nil && !errors.Is(err, context.Canceled) && exit.Code(err) != exit.JobFailed && exit.Code(err) != exit.NotFound {
			fmt.Fprintf(s.errOut, "Warning: following the logs of step %s: %v\n", step.Name, err)
		}
	}()
}

func (s *stepLogs) followStep(step pipeline.StepStatus) error {
	ref, err := kinds.ParseRef(s.reg, step.Job, "")
	if err != nil {
		return err
	}
	job, err := s.platform.Find(s.ctx, ref)
	if err != nil {
		return err
	}
	return s.platform.Logs(s.ctx, job, platform.LogRequest{Out: s.out, ErrOut: s.errOut,
		Colour: s.colour, Terminal: s.terminal, Prefix: step.Name + "/"})
}

// end stops following once the wait is over: after the pipeline ended the
// streams get LogDrainTimeout to print their last lines; after a timeout or
// an interrupt they are cut at once.
func (s *stepLogs) end(waitErr error) {
	defer s.cancel()
	code := exit.Code(waitErr)
	if waitErr != nil && code != exit.JobFailed {
		s.cancel()
		s.wg.Wait()
		return
	}
	done := make(chan struct{})
	go func() { s.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(LogDrainTimeout):
		s.cancel()
		<-done
		fmt.Fprintf(s.errOut, "Warning: the steps' logs did not end within %s of the pipeline's end; stopped following them\n", LogDrainTimeout)
	}
}
