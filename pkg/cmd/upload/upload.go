// Package upload is "easyai upload LOCAL_PATH": copy a file or directory
// onto the team's shared storage (submit --storage), into the user's data
// directory, the team's share directory or a job's share_dir.
package upload

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/storage"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

// The targets of --to besides a job.
const (
	ToData  = "data"
	ToShare = "share"
	// shareDir is the team's shared directory, below the storage's prefix.
	shareDir = "share"
)

// Options of upload.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	// JobOptions hold --to's job when it names one.
	cmdutil.JobOptions

	LocalPath string
	To        string
	Storage   string
	Print     *printers.PrintFlags
	// Setup holds the flags of the stream and of the uploader pod, and
	// (Complete) the clients.
	transfer.Setup

	// Set by Validate and Complete.
	spec       storage.Spec
	storageSet bool
}

// long is upload's help.
const long = `Copy a local file or directory onto the team's shared storage (the volume
of submit --storage, docs/storage.md). LOCAL_PATH keeps its name inside the
target:

  --to data   (the default) PREFIX/data/USER, your data directory, which
              jobs mount read-only at /data_dir (USER as the API server
              names you; a name that is not path-safe, alice@corp.com,
              is its safe part and a short hash: alice_corp.com-1a2b3c4d)
  --to share  PREFIX/share, the team's shared directory
  --to JOB    the job's PREFIX/JOBDIR/share_dir, its /share_dir; the job's
              own storage is used (a job submitted without --storage exits
              3). A job named data or share is given as KIND/NAME.

The storage is --storage, else the storage setting (easyai config set storage
pvc:CLAIM[:/prefix]); with neither, upload exits 2.

easyai starts a short-lived uploader pod in the namespace that mounts the
volume, streams a tar archive to it and deletes it at the end (also on
Ctrl-C; it has a deadline, should easyai not live to delete it). The pod runs
as root with only the capabilities DAC_OVERRIDE and FOWNER, without
privilege escalation and with a read-only root file system: the directories
the kubelet makes for a job's mounts are root's, and jobs write as any user.
The files it writes belong to root, with their local permissions (no
setuid, setgid or sticky bit). A namespace that enforces Pod Security
"restricted" refuses it; "baseline" admits it. Its image (--fetcher-image,
or the fetcher-image setting) needs sh, sleep, head, mkdir, rm, tar, find
and stat.

Nothing lands outside the target: a symbolic link inside LOCAL_PATH is sent
as a link when it points inside LOCAL_PATH, and left out with a warning
when it points elsewhere; named pipes, devices and sockets are left out; on
the volume, a directory of the target that is a symbolic link is refused,
and a symbolic link at or below LOCAL_PATH's name there (one someone else
made on the shared volume) is removed before anything is written, so that
nothing is written through it.
A LOCAL_PATH that is itself a symbolic link is followed. Files already in
the target are replaced.

When the stream breaks, or takes nothing for --idle-timeout, the upload
lists what arrived and resumes (--retries times): files already there with
their size are not sent again.

A progress bar is drawn on stderr when it is a terminal; a one-line summary
follows there. -o json (or yaml, or a template) also prints the summary as a
document on stdout.`

// examples are upload's examples.
const examples = `  # a dataset into your data directory, then a job that reads it at /data_dir/imagenet
  easyai upload ./imagenet
  easyai submit pytorch --data-dir data/alice/imagenet ...

  # a file for the whole team, on a storage given here
  easyai upload vocab.txt --to share --storage pvc:team-data:/teams/nlp

  # a config into a running job's /share_dir
  easyai upload ./eval.yaml --to mnist

  # for a script: what was uploaded, where
  easyai upload ./imagenet -o json`

// NewCmdUpload returns the command; runF replaces Complete and Run in tests.
func NewCmdUpload(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams,
		Print: printers.NewPrintFlags("a summary on stderr only", printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:     "upload LOCAL_PATH [--to data|share|JOB] [--storage STORAGE]",
		Short:   "Copy files onto the team's shared storage",
		Long:    long,
		Example: examples,
		Args:    cmdutil.ExactArgs(1, "a local file or directory: LOCAL_PATH"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			o.LocalPath = args[0]
			o.storageSet = cmd.Flags().Changed("storage")
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags adds upload's flags, --to completed with data, share and the
// namespace's jobs.
func (o *Options) addFlags(cmd *cobra.Command) {
	f := o.Factory
	fl := cmd.Flags()
	fl.StringVar(&o.To, "to", ToData, "where: data (your data directory), share (the team's) or a job (its share_dir), NAME or KIND/NAME")
	_ = cmd.RegisterFlagCompletionFunc("to", func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		jobs, directive := cmdutil.CompleteJob(f)(c, nil, toComplete)
		return append([]string{ToData, ToShare}, jobs...), directive
	})
	fl.StringVar(&o.Storage, "storage", "", "the storage, "+storage.Form+" (default: the storage setting)")
	o.Print.AddFlags(cmd)
	o.Flags.Declare(cmd.Flags(), "uploader", "sh, sleep, mkdir, head, tar, find and stat")
}

// toJob says --to names a job.
func (o *Options) toJob() bool { return o.To != ToData && o.To != ToShare }

// Validate checks the flags and the local path without reaching the cluster.
func (o *Options) Validate() error {
	if err := o.Print.Validate(); err != nil {
		return err
	}
	if o.LocalPath == "" {
		return exit.UsageErrorf("LOCAL_PATH is empty: give a file or directory")
	}
	info, err := os.Stat(o.LocalPath)
	if err != nil {
		return exit.UsageErrorf("LOCAL_PATH %s: %v", o.LocalPath, errors.Unwrap(err))
	}
	if !info.IsDir() && !info.Mode().IsRegular() {
		return exit.UsageErrorf("LOCAL_PATH %s: neither a file nor a directory", o.LocalPath)
	}
	if _, err := uploadName(o.LocalPath); err != nil {
		return err
	}
	if err := o.Flags.Validate(); err != nil {
		return err
	}
	if o.To == "" {
		return exit.UsageErrorf("--to: give data, share or a job")
	}
	if o.storageSet {
		spec, err := storage.Parse("--storage", o.Storage)
		if err != nil {
			return err
		}
		o.spec = spec
	}
	if o.toJob() {
		o.JobArg = o.To
		return o.ParseJob(o.Factory.Kinds)
	}
	return nil
}

// uploadName is the name LOCAL_PATH gets in the target: its base name.
func uploadName(local string) (string, error) {
	abs, err := filepath.Abs(local)
	if err != nil {
		return "", exit.UsageErrorf("LOCAL_PATH %s: %v", local, err)
	}
	name := filepath.Base(abs)
	if name == string(filepath.Separator) || name == "." || name == ".." || strings.ContainsAny(name, "/\\") {
		return "", exit.UsageErrorf("LOCAL_PATH %s: has no name to keep on the storage", local)
	}
	return name, nil
}

// Complete resolves the namespace, the clients and the storage setting.
func (o *Options) Complete() error {
	r, err := o.CompleteReplicas(o.Factory)
	if err != nil {
		return err
	}
	o.Connect(r, o.Factory.Now)
	cfg, err := o.Factory.Config()
	if err != nil {
		return err
	}
	if err := o.Flags.Complete(o.Factory.Config); err != nil {
		return err
	}
	if !o.storageSet && !o.toJob() {
		if cfg.Storage == "" {
			return exit.UsageErrorf("no storage to upload to: give --storage %s, or set the storage setting (%s config set storage pvc:CLAIM)", storage.Form, o.Factory.ExecutableName)
		}
		spec, err := storage.Parse("the storage setting", cfg.Storage)
		if err != nil {
			return err
		}
		o.spec = spec
	}
	return nil
}

// Summary is what -o json prints.
type Summary struct {
	// Storage is the storage, as --storage gives it.
	Storage string `json:"storage"`
	// Path is where the upload is, relative to the storage's prefix: what
	// submit --data-dir takes.
	Path string `json:"path"`
	// Location names it on the volume: pvc:CLAIM:/PATH or nfs:SERVER:/PATH.
	Location string  `json:"location"`
	Job      string  `json:"job,omitempty"`
	Pod      string  `json:"pod"`
	Files    int     `json:"files"`
	Dirs     int     `json:"dirs"`
	Links    int     `json:"links"`
	Bytes    int64   `json:"bytes"`
	Skipped  int     `json:"skipped"`
	Retries  int     `json:"retries"`
	Seconds  float64 `json:"seconds"`
}

// Run finds the target and uploads into it.
func (o *Options) Run(ctx context.Context) error {
	name, err := uploadName(o.LocalPath)
	if err != nil {
		return err
	}
	t, err := o.target(ctx)
	if err != nil {
		return err
	}
	sum := Summary{Job: t.job, Storage: o.spec.String(), Path: path.Join(t.dir, name), Location: o.spec.Location(path.Join(t.dir, name))}
	fmt.Fprintf(o.IO.ErrOut, "Uploading %s to %s\n", o.LocalPath, sum.Location)
	req := o.UploadRequest(t.volume, path.Join(o.spec.Prefix, t.dir), o.LocalPath, name, o.IO.ErrOut)
	bar := cmdutil.TerminalProgress(o.IO, sum.Location)
	if bar != nil {
		req.Progress = bar
	}
	res, err := transfer.Upload(ctx, req)
	bar.Stop()
	if err != nil {
		return err
	}
	return o.report(res, sum, name)
}

// target is where an upload goes: dir, relative to the storage's prefix;
// the job (KIND/NAME) whose share_dir it is, if any; and the volume.
type target struct {
	dir    string
	job    string
	volume transfer.Volume
}

// target resolves --to: the user's data directory or the team's share
// directory on the storage, or a job's share_dir (jobTarget).
func (o *Options) target(ctx context.Context) (target, error) {
	switch o.To {
	case ToData:
		user, err := o.Factory.User(ctx)
		if err != nil {
			return target{}, fmt.Errorf("who you are decides your data directory: %w", err)
		}
		return target{dir: storage.DefaultDataDir(user), volume: o.Volume(o.Namespace, o.spec)}, nil
	case ToShare:
		return target{dir: shareDir, volume: o.Volume(o.Namespace, o.spec)}, nil
	}
	return o.jobTarget(ctx)
}

// jobTarget is the share_dir of --to's job on the job's own storage (which
// o.spec becomes), uploaded by a pod placed as the job's pods.
func (o *Options) jobTarget(ctx context.Context) (target, error) {
	k, obj, err := o.Client.Find(ctx, o.Namespace, o.Ref)
	if err != nil {
		return target{}, err
	}
	job := k.Name() + "/" + obj.GetName()
	v, err := storage.Of(obj)
	switch {
	case errors.Is(err, storage.ErrNoStorage):
		return target{}, exit.NotFoundErrorf("%s was submitted without --storage: it has no share_dir to upload to", job)
	case err != nil:
		return target{}, err
	case o.storageSet && !o.spec.Same(v.Spec):
		return target{}, exit.UsageErrorf("--storage %s: %s is on %s; leave --storage out to upload to its share_dir", o.Storage, job, v.Spec.String())
	}
	share, _ := v.Dir(storage.ShareDir)
	o.spec = v.Spec
	placement, err := transfer.PlacementOf(obj)
	if err != nil {
		return target{}, err
	}
	vol := o.Volume(o.Namespace, o.spec)
	vol.JobName, vol.Placement = obj.GetName(), placement
	return target{dir: share.SubPath, job: job, volume: vol}, nil
}

// report says on stderr what was uploaded and how a job reads it; -o
// prints the summary as a document.
func (o *Options) report(res transfer.UploadResult, sum Summary, name string) error {
	fmt.Fprintf(o.IO.ErrOut, "Uploaded %s, %s to %s in %s%s\n",
		printers.Count(res.Files, "file"), printers.Bytes(res.Bytes), sum.Location, printers.Elapsed(res.Elapsed), printers.TransferNotes(res.Refused, "left out", res.Retries))
	switch o.To {
	case ToData:
		fmt.Fprintf(o.IO.ErrOut, "Jobs you submit read it at /data_dir/%s, or at /data_dir with --data-dir %s\n", name, sum.Path)
	case ToShare:
		fmt.Fprintf(o.IO.ErrOut, "A job reads it at /data_dir with --data-dir %s\n", sum.Path)
	}
	if !o.Print.IsDocument() {
		return nil
	}
	sum.Pod, sum.Files, sum.Dirs, sum.Links, sum.Bytes = res.Pod, res.Files, res.Dirs, res.Links, res.Bytes
	sum.Skipped, sum.Retries, sum.Seconds = res.Refused, res.Retries, res.Elapsed.Seconds()
	return o.Print.PrintDocument(o.IO.Out, sum)
}
