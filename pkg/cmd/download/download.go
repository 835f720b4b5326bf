// Package download is "easyai download JOB [PATH]": copy files out of a
// replica of a training job, or off its shared storage once its pods are
// gone.
package download

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/easyai-dev/easyai/pkg/cmdutil"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/iostreams"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/printers"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

// modelDir is what download takes from a job with --storage when no path
// is given.
const modelDir = "/model_dir"

// Options of download.
type Options struct {
	Factory *cmdutil.Factory
	IO      *iostreams.IOStreams
	cmdutil.JobOptions

	Task       string
	Container  string
	RemotePath string
	LocalDir   string
	Print      *printers.PrintFlags
	// MaxBytes is --max-bytes as given ("": the destination's free space).
	MaxBytes string
	MaxFiles int
	// Setup holds the flags of the stream and of the fetcher pod, and
	// (Complete) the clients.
	transfer.Setup

	// maxBytes is MaxBytes parsed (0: the default).
	maxBytes int64
	// pathGiven: REMOTE_PATH was given (else the job's model_dir on its
	// --storage, or the working directory).
	pathGiven bool
}

// long is download's help.
const long = `Copy a file or directory out of a replica of a training job, as
"kubectl cp" does: tar runs in the replica's container and its archive is
unpacked into LOCAL_DIR (default: the current directory, made if missing).

REMOTE_PATH defaults to the job's /model_dir when it was submitted with
--storage, else to the container's working directory; a relative path is
taken from the working directory. A directory keeps its name under LOCAL_DIR ("outputs" becomes
LOCAL_DIR/outputs); "." unpacks the working directory's content into
LOCAL_DIR itself. Without --task the files come from the first of chief,
master, launcher and worker-0 (said on stderr). The container needs tar.

Entries that would land outside LOCAL_DIR are refused with a warning and
never written: absolute paths, ".." components, symlinks pointing outside,
hard links to files the download did not write, and anything beneath a
symlink, names ending like easyai's temporary files. Devices, named pipes
and sparse files are skipped. The download stops, exit 1, before it writes
more than --max-bytes (default: the free space of LOCAL_DIR's file system,
less a tenth of it, at most 1 GiB) or reads more than --max-files entries.

When the stream breaks, or sends nothing for --idle-timeout, the download
resumes where it broke (--retries times), without fetching the files that
arrived again. Files that changed while tar read them (tar's exit status 1,
usual while a job writes) are named in a warning; the download succeeds.

When the replica's pod is gone (the job ended and was cleaned up) or does
not run, a path on the job's shared storage can still be fetched: the
directories of --storage (/model_dir, /log_dir, /share_dir, /data_dir,
/pre_model_dir, the working directory of --code dir, and /summary_dir, the
one of --task's replica) and the volumes of --data. easyai starts a
short-lived fetcher pod in the job's namespace that mounts the same volume
read-only, copies from it and deletes it (also on Ctrl-C, on a closed
terminal and on errors; the job owns it and it has a deadline, should
easyai not live to delete it). On --storage's volume, a directory that is
a symbolic link is not followed. Other paths cannot be fetched once the
pods are gone. The fetcher runs as user 65534 (nobody),
without privileges, as Pod Security "restricted" requires: it reads what
that user may read. Its image (--fetcher-image, or the fetcher-image
setting) needs sh, sleep and tar.

A progress bar is drawn on stderr when it is a terminal; otherwise only a
one-line summary is printed there at the end. -o json (or yaml, or a
template) also prints the summary as a document on stdout.`

// examples are download's examples.
const examples = `  # the working directory's outputs/ of the default replica, into ./outputs
  easyai download mnist outputs

  # one file of worker-1 into /tmp
  easyai download tf/mnist logs/train.log /tmp --task worker-1

  # the model_dir of a job submitted with --storage, into ./model_dir
  easyai download mnist

  # worker-1's TensorBoard events, also after the job's pods are gone
  easyai download mnist /summary_dir ./tb --task worker-1

  # after the job ended: from the storage it mounted with --data ckpt:/mnt/ckpt
  easyai download mnist /mnt/ckpt/run-3 ./checkpoints

  # for a script: what was downloaded, as JSON on stdout
  easyai download mnist outputs ./run1 -o json`

// NewCmdDownload returns the command; runF replaces Complete and Run in tests.
func NewCmdDownload(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{Factory: f, IO: f.IOStreams,
		Print: printers.NewPrintFlags("a summary on stderr only", printers.FormatJSON, printers.FormatYAML, printers.FormatTemplate)}
	cmd := &cobra.Command{
		Use:               "download JOB [REMOTE_PATH [LOCAL_DIR]] [--task TASK]",
		Short:             "Copy files out of a training job",
		Long:              long,
		Example:           examples,
		Args:              jobAndPaths,
		ValidArgsFunction: cmdutil.CompleteJob(f),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JobArg, o.RemotePath, o.LocalDir = args[0], ".", "."
			if len(args) > 1 {
				o.RemotePath, o.pathGiven = args[1], true
			}
			if len(args) > 2 {
				o.LocalDir = args[2]
			}
			return cmdutil.RunSteps(cmd.Context(), o, runF)
		},
	}
	o.addFlags(cmd)
	return cmd
}

// addFlags adds download's flags.
func (o *Options) addFlags(cmd *cobra.Command) {
	f := o.Factory
	fl := cmd.Flags()
	cmdutil.AddKindFlag(cmd, f.Kinds, &o.KindName, "job's")
	cmdutil.AddTaskFlag(cmd, f, &o.Task, "the replica to copy from", cmdutil.DefaultReplica)
	fl.StringVarP(&o.Container, "container", "c", "", "the container (default: the pod's default container)")
	o.Print.AddFlags(cmd)
	fl.StringVar(&o.MaxBytes, "max-bytes", "", "the most bytes to write, e.g. 20Gi (default: the free space of the local directory's file system, less a margin)")
	fl.IntVar(&o.MaxFiles, "max-files", transfer.DefaultMaxFiles, "the most entries (files, directories, links) to read")
	o.Flags.Declare(cmd.Flags(), "fetcher", "tar, sh and sleep")
}

// jobAndPaths requires a job, at most one remote path and one local
// directory, as a usage error.
func jobAndPaths(cmd *cobra.Command, args []string) error {
	if len(args) < 1 || len(args) > 3 {
		return exit.UsageErrorf("%q needs a job, then at most a remote path and a local directory: JOB [REMOTE_PATH [LOCAL_DIR]] (got %d arguments)", cmd.CommandPath(), len(args))
	}
	return nil
}

// Validate checks the flags and the job argument without reaching the cluster.
func (o *Options) Validate() error {
	if o.RemotePath == "" {
		return exit.UsageErrorf("REMOTE_PATH is empty: give a path, or none for the working directory")
	}
	if o.LocalDir == "" {
		return exit.UsageErrorf("LOCAL_DIR is empty: give a directory, or none for the current one")
	}
	if err := o.Print.Validate(); err != nil {
		if !strings.ContainsAny(o.Print.Output, "=") && (strings.ContainsAny(o.Print.Output, "/.") || o.Print.Output == "~") {
			return exit.WithHint(err, "the local directory is the third argument: "+o.Factory.ExecutableName+" download JOB REMOTE_PATH "+o.Print.Output)
		}
		return err
	}
	if err := o.Flags.Validate(); err != nil {
		return err
	}
	if o.MaxBytes != "" {
		q, err := resource.ParseQuantity(o.MaxBytes)
		if err != nil || q.Sign() <= 0 {
			return exit.UsageErrorf("--max-bytes %q: give a positive size, e.g. 500Mi or 20G", o.MaxBytes)
		}
		o.maxBytes = q.Value()
	}
	if o.MaxFiles <= 0 {
		return exit.UsageErrorf("--max-files %d: must be positive", o.MaxFiles)
	}
	return o.ParseJob(o.Factory.Kinds)
}

// Complete resolves the namespace, the clients and the fetcher-image
// setting.
func (o *Options) Complete() error {
	r, err := o.CompleteReplicas(o.Factory)
	if err != nil {
		return err
	}
	o.Connect(r, o.Factory.Now)
	return o.Flags.Complete(o.Factory.Config)
}

// Summary is what -o json prints.
type Summary struct {
	Job   string `json:"job"`
	Task  string `json:"task"`
	Pod   string `json:"pod"`
	Path  string `json:"path"`
	Claim string `json:"claim,omitempty"`
	// Storage is where the files were on the job's --storage
	// (pvc:CLAIM:/PATH or nfs:SERVER:/PATH), when a fetcher read them there.
	Storage  string  `json:"storage,omitempty"`
	LocalDir string  `json:"localDir"`
	Files    int     `json:"files"`
	Bytes    int64   `json:"bytes"`
	Skipped  int     `json:"skipped"`
	Retries  int     `json:"retries"`
	Seconds  float64 `json:"seconds"`
}

// Run finds the job's replica and copies from it, or from its storage.
func (o *Options) Run(ctx context.Context) error {
	j, err := remote.FindJob(ctx, o.Client, o.Namespace, o.Ref)
	if err != nil {
		return err
	}
	r, note, err := j.Choose(o.Task)
	if err != nil {
		return err
	}
	name := j.Kind.Name() + "/" + j.Object.GetName()
	if !o.pathGiven {
		if _, err := storage.Of(j.Object); err == nil {
			o.RemotePath = modelDir
			fmt.Fprintf(o.IO.ErrOut, "Downloading the model_dir of %s (give a path for another)\n", name)
		}
	}
	if remote.Runnable(r) == nil {
		if note != "" {
			fmt.Fprintln(o.IO.ErrOut, note)
		}
		dir, base, into := transfer.SplitPath(o.RemotePath)
		src := transfer.Source{Namespace: o.Namespace, Pod: r.Pod, Container: o.Container, Dir: dir, Name: base}
		sum := Summary{Job: name, Task: r.Task, Pod: r.Pod, Path: o.RemotePath}
		return o.download(ctx, src, into, sum, r.Task+":"+o.RemotePath)
	}
	return o.fromStorage(ctx, j, r, name)
}

// fromStorage copies through a fetcher pod that mounts the job's storage.
func (o *Options) fromStorage(ctx context.Context, j *remote.Job, r jobmodel.Replica, name string) error {
	state := "gone"
	if r.Pod != "" {
		state = r.Phase
		if state == "" {
			state = "not running"
		}
	}
	found, err := transfer.StorageFor(j.Object, o.RemotePath, r.Task)
	if errors.Is(err, transfer.ErrNotOnStorage) {
		return exit.WithHint(
			exit.NotFoundErrorf("the pod of %s's replica %s is %s, so %s cannot be read from it: %v", name, r.Task, state, o.RemotePath, err),
			"once a job's pods are gone, only paths on its --storage or --data storage can be fetched")
	}
	if err != nil {
		return err
	}
	abs := o.RemotePath
	if found.Confined {
		fmt.Fprintf(o.IO.ErrOut, "The pod of %s's replica %s is %s: fetching %s (%s) through a fetcher pod\n", name, r.Task, state, abs, found.Location)
	} else {
		abs = path.Join(found.Mount.MountPath, found.Rel)
		fmt.Fprintf(o.IO.ErrOut, "The pod of %s's replica %s is %s: fetching %s from claim %s through a fetcher pod\n", name, r.Task, state, abs, found.Mount.Claim)
	}
	placement, err := transfer.PlacementOf(j.Object)
	if err != nil {
		return err
	}
	fetcher, err := o.StartFetcher(ctx, j.Object, found.Mount, placement)
	if err != nil {
		return err
	}
	defer fetcher.Stop(ctx, o.IO.ErrOut)
	// The fetcher's working directory is the mount path: tar is given the
	// path relative to it.
	dir, base, _ := transfer.SplitPath(found.Rel)
	_, _, into := transfer.SplitPath(o.RemotePath)
	src := transfer.Source{Namespace: o.Namespace, Pod: fetcher.Pod, Container: fetcher.Container, Dir: dir, Name: base, Confined: found.Confined}
	sum := Summary{Job: name, Task: r.Task, Pod: fetcher.Pod, Path: abs, Claim: found.Mount.Claim}
	if found.Confined {
		sum.Storage = found.Location
	}
	return o.download(ctx, src, into, sum, found.Location)
}

func (o *Options) download(ctx context.Context, src transfer.Source, into string, sum Summary, from string) error {
	req := o.DownloadRequest(src, o.LocalDir, into, o.IO.ErrOut)
	req.MaxBytes, req.MaxFiles = o.maxBytes, o.MaxFiles
	bar := cmdutil.TerminalProgress(o.IO, from)
	if bar != nil {
		req.Progress = bar
	}
	res, err := transfer.Download(ctx, req)
	bar.Stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(o.IO.ErrOut, "Downloaded %s, %s from %s to %s in %s%s\n",
		printers.Count(res.Files, "file"), printers.Bytes(res.Bytes), from, o.LocalDir, printers.Elapsed(res.Elapsed), printers.TransferNotes(res.Skipped, "skipped", res.Retries))
	if !o.Print.IsDocument() {
		return nil
	}
	sum.LocalDir, sum.Files, sum.Bytes, sum.Skipped, sum.Retries = o.LocalDir, res.Files, res.Bytes, res.Skipped, res.Retries
	sum.Seconds = res.Elapsed.Seconds()
	return o.Print.PrintDocument(o.IO.Out, sum)
}
