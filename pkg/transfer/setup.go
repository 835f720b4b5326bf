package transfer

import (
	"context"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// Setup is what a copy needs beside its paths: the flags of the stream and
// of the helper pod, the clients that reach the job's pods, and the clock.
// download and upload hold one in their options; submit --code dir:
// uploads with the flags' defaults (DefaultFlags).
type Setup struct {
	Flags
	Kube       kubernetes.Interface
	RESTConfig *rest.Config
	Executor   remote.Executor
	// Backoff is the first wait before resuming a broken stream.
	Backoff time.Duration
	Now     func() time.Time
}

// Connect gives the setup the clients c and the clock now; a broken stream
// is first resumed after DefaultBackoff.
func (s *Setup) Connect(c *remote.Clients, now func() time.Time) {
	s.Kube, s.RESTConfig, s.Executor = c.Kube, c.Config, c.Executor()
	s.Backoff, s.Now = DefaultBackoff, now
}

// Volume is the storage spec, in namespace, as the setup's uploader pods
// mount it (anywhere, named after no job: set Placement and JobName for a
// job's).
func (s *Setup) Volume(namespace string, spec storage.Spec) Volume {
	return Volume{
		Kube: s.Kube, Config: s.RESTConfig, Executor: s.Executor, Namespace: namespace, Storage: spec,
		Image: s.FetcherImage, PodTimeout: s.FetcherTimeout, Deadline: s.FetcherDeadline, Now: s.Now,
	}
}

// UploadRequest uploads local, named into, into subPath of v (relative to
// the volume's root), resuming a broken stream as the flags say; warnings
// (stderr) get a line each.
func (s *Setup) UploadRequest(v Volume, subPath, local, into string, warnings io.Writer) UploadRequest {
	return UploadRequest{
		Volume: v, SubPath: subPath, Local: local, Into: into,
		Retries: s.Retries, Backoff: s.Backoff, IdleTimeout: s.IdleTimeout, Warnings: warnings,
	}
}

// DownloadRequest downloads src into localDir, named into, resuming a
// broken stream as the flags say; warnings (stderr) get a line each.
func (s *Setup) DownloadRequest(src Source, localDir, into string, warnings io.Writer) Request {
	return Request{
		Executor: s.Executor, Source: src, LocalDir: localDir, Into: into,
		Retries: s.Retries, Backoff: s.Backoff, IdleTimeout: s.IdleTimeout, Warnings: warnings,
	}
}

// StartFetcher starts a fetcher pod of the flags' image, timeout and
// deadline that mounts m read-only for job, placed as its pods were
// (StartFetcher).
func (s *Setup) StartFetcher(ctx context.Context, job *unstructured.Unstructured, m Mount, p Placement) (*Fetcher, error) {
	return StartFetcher(ctx, s.Kube, FetcherSpec{
		Job: job, Mount: m, Placement: p, Image: s.FetcherImage, Deadline: s.FetcherDeadline, Now: s.Now,
	}, s.FetcherTimeout)
}
