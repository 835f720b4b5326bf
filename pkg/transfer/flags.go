package transfer

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
)

// Flags are the flags download and upload share: the resumption of a
// broken stream and the helper pod (fetcher or uploader) they may run.
type Flags struct {
	Retries         int
	IdleTimeout     time.Duration
	FetcherImage    string
	FetcherTimeout  time.Duration
	FetcherDeadline time.Duration

	image *pflag.Flag
}

// DefaultFlags are the flags as they are when not given.
func DefaultFlags() Flags {
	return Flags{
		Retries: DefaultRetries, IdleTimeout: DefaultIdleTimeout, FetcherImage: DefaultFetcherImage,
		FetcherTimeout: DefaultFetcherTimeout, FetcherDeadline: DefaultFetcherDeadline,
	}
}

// Declare declares the flags on fl; pod names the helper pod in their help
// ("fetcher", "uploader"), needs what its image must have.
func (t *Flags) Declare(fl *pflag.FlagSet, pod, needs string) {
	fl.IntVar(&t.Retries, "retries", DefaultRetries, "how often a broken stream is resumed")
	fl.DurationVar(&t.IdleTimeout, "idle-timeout", DefaultIdleTimeout, "how long the stream may send nothing before it is resumed")
	fl.StringVar(&t.FetcherImage, "fetcher-image", DefaultFetcherImage, "image of the "+pod+" pod, it needs "+needs+" (the fetcher-image setting replaces this default)")
	fl.DurationVar(&t.FetcherTimeout, "fetcher-timeout", DefaultFetcherTimeout, "how long to wait for the "+pod+" pod to run")
	fl.DurationVar(&t.FetcherDeadline, "fetcher-deadline", DefaultFetcherDeadline, "the "+pod+" pod's longest life (its activeDeadlineSeconds)")
	t.image = fl.Lookup("fetcher-image")
}

// Validate checks the flags.
func (t *Flags) Validate() error {
	switch {
	case t.Retries < 0:
		return exit.UsageErrorf("--retries %d: must not be negative", t.Retries)
	case t.IdleTimeout <= 0:
		return exit.UsageErrorf("--idle-timeout %s: must be positive", t.IdleTimeout)
	case t.FetcherTimeout <= 0 || t.FetcherDeadline < time.Minute:
		return exit.UsageErrorf("--fetcher-timeout must be positive and --fetcher-deadline at least 1m")
	case t.FetcherImage == "":
		return exit.UsageErrorf("--fetcher-image: give an image")
	}
	return nil
}

// Complete takes the fetcher-image setting unless --fetcher-image was
// given; settings (the factory's Config) is read only then.
func (t *Flags) Complete(settings func() (*config.Config, error)) error {
	if t.image != nil && t.image.Changed {
		return nil
	}
	cfg, err := settings()
	if err != nil {
		return err
	}
	if cfg.FetcherImage != "" {
		t.FetcherImage = cfg.FetcherImage
	}
	return nil
}
