package cmdutil

import (
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/easyai-dev/easyai/pkg/iostreams"
)

// ProgressBar draws the progress of a copy (download, upload) on a
// terminal: bytes, rate and time left when the size is known, bytes and
// rate otherwise. It implements transfer.Progress.
type ProgressBar struct {
	w     io.Writer
	label string

	mu    sync.Mutex
	bar   *progressbar.ProgressBar
	total int64
}

// NewProgressBar is a bar labelled label ("results:/mnt/results"), drawn
// on w, a terminal.
func NewProgressBar(w io.Writer, label string) *ProgressBar {
	return &ProgressBar{w: w, label: label}
}

// TerminalProgress is the bar of a copy labelled label on stderr when it
// is a terminal, else nil (whose Stop does nothing).
func TerminalProgress(io *iostreams.IOStreams, label string) *ProgressBar {
	if !io.IsStderrTTY() {
		return nil
	}
	return NewProgressBar(io.ErrOut, label)
}

// Start implements transfer.Progress.
func (p *ProgressBar) Start(total int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total = total
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(p.label),
		progressbar.OptionShowBytes(true),
		progressbar.OptionShowTotalBytes(true),
		progressbar.OptionShowCount(),
		progressbar.OptionUseIECUnits(true),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
	)
}

// Set implements transfer.Progress.
func (p *ProgressBar) Set(written int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		return
	}
	// A size may be an estimate (du's): the bar stops short of full until
	// the end.
	if p.total > 0 && written >= p.total {
		written = p.total - 1
	}
	_ = p.bar.Set64(written)
}

// Finish implements transfer.Progress.
func (p *ProgressBar) Finish() {}

// Stop removes the bar from the terminal, for the summary or the error; on
// a nil bar it does nothing.
func (p *ProgressBar) Stop() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
		_ = p.bar.Exit()
		p.bar = nil
	}
}
