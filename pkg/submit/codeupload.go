package submit

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/build"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/prompter"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

// RunEnv is what a submission takes from the run that submits it, beside
// its flags and job files.
type RunEnv struct {
	// Settings are the configuration's defaults.
	Settings Settings
	// Prompter asks for a missing image or command; nil (no terminal)
	// leaves the submission's own.
	Prompter prompter.Prompter
	// Notes get what the user should know and is not data (stderr).
	Notes io.Writer
}

// UseEnv gives the request its run's settings, prompter and notes, and
// this easyai's version, recorded on the job.
func (s *JobRequest) UseEnv(e RunEnv) {
	s.Settings = e.Settings
	s.CLIVersion = build.Version
	if e.Prompter != nil {
		s.Prompter = e.Prompter
	}
	s.Notes = e.Notes
}

// CodeUploader uploads --code dir:PATH onto the storage through an
// uploader pod placed as the job's pods will be (transfer.Upload, with the
// flags' defaults), before the job is created.
type CodeUploader struct {
	// Clients resolves the clients that reach the uploader pod, only when
	// there is code to upload.
	Clients func() (*remote.Clients, error)
	// Image is the uploader pod's (the fetcher-image setting; "":
	// transfer.DefaultFetcherImage).
	Image string
	Now   func() time.Time
	// Notes get the summary line and the warnings (stderr).
	Notes io.Writer
}

// Upload is Submission.UploadCode: local into subPath of the volume of
// spec, at most MaxCodeBytes. The function it returns removes jobDir (the
// job's directory, new with this submission) again; when the upload fails,
// what arrived of it is removed at once.
func (c CodeUploader) Upload(ctx context.Context, job *unstructured.Unstructured, spec storage.Spec, subPath, jobDir, local string) (func(context.Context) error, error) {
	r, err := c.Clients()
	if err != nil {
		return nil, err
	}
	placement, err := transfer.PlacementOf(job)
	if err != nil {
		return nil, err
	}
	setup := transfer.Setup{Flags: transfer.DefaultFlags()}
	if c.Image != "" {
		setup.FetcherImage = c.Image
	}
	setup.Connect(r, c.Now)
	vol := setup.Volume(job.GetNamespace(), spec)
	vol.JobName, vol.Placement = job.GetName(), placement
	req := setup.UploadRequest(vol, subPath, local, "", c.Notes)
	req.MaxBytes = MaxCodeBytes
	res, err := transfer.Upload(ctx, req)
	if err != nil {
		// What arrived of it is of no use: the job is not created.
		if res.Pod != "" {
			if rerr := transfer.Remove(ctx, vol, jobDir); rerr != nil {
				fmt.Fprintf(c.Notes, "warning: %s of the storage was not removed: %v\n", jobDir, rerr)
			}
		}
		return nil, fmt.Errorf("--code dir:%s: %w", local, err)
	}
	fmt.Fprintf(c.Notes, "Uploaded %d files, %s\n", res.Files, printers.Bytes(res.Bytes))
	return func(ctx context.Context) error { return transfer.Remove(ctx, vol, jobDir) }, nil
}
