package logs

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/storage"
	"github.com/easyai-dev/easyai/pkg/transfer"
)

// Persisted is how logs reads what the replicas of a job with --storage
// (and persistLogs) kept in log_dir/TASK.log once their pods are gone:
// through a fetcher pod that mounts the storage read-only.
type Persisted struct {
	Executor remote.Executor
	// Image of the fetcher pod ("": transfer.DefaultFetcherImage).
	Image string
	// Timeout is how long to wait for the fetcher to run (0:
	// transfer.DefaultFetcherTimeout); Deadline bounds its life (0: 10
	// minutes).
	Timeout  time.Duration
	Deadline time.Duration
	Now      func() time.Time
}

// persistedLogs is the log directory of a job, read through a running
// fetcher pod.
type persistedLogs struct {
	exec    remote.Executor
	fetcher *transfer.Fetcher
	// dir is log_dir on the volume; where names it for people.
	dir, where string
	// files are the log files by the task they are of.
	files map[string]string
	// others are files of no replica the job has now (an elastic job's
	// former workers), by name.
	others []string
}

// canPersist says whether a job may have kept logs on its storage: it was
// submitted with persistLogs; nil when it was not.
func canPersist(obj *unstructured.Unstructured) *storage.Values {
	v, err := storage.Of(obj)
	if err != nil || !v.PersistLogs {
		return nil
	}
	return &v
}

// persisted opens the logs the job kept on its storage when some selected
// replica has no pod and the job has run (not Queued or Pending: its logs
// are not there yet); nil when they are not needed, or cannot be read
// (said on stderr).
func (c *Request) persisted(ctx context.Context, all, selected []jobmodel.Replica, pods []corev1.Pod, state jobmodel.State) *persistedLogs {
	if c.Persisted == nil || c.Previous || state == jobmodel.Queued || state == jobmodel.Pending {
		return nil
	}
	byName := podsByName(pods)
	var gone []string
	for _, r := range selected {
		if _, ok := byName[r.Pod]; !ok {
			gone = append(gone, r.Task)
		}
	}
	if len(gone) == 0 {
		return nil
	}
	what := fmt.Sprintf("The pods of %s/%s are gone", c.Kind.Name(), c.Job.GetName())
	if len(gone) < len(selected) {
		what = fmt.Sprintf("The pods of %s/%s's %s are gone", c.Kind.Name(), c.Job.GetName(), strings.Join(gone, ", "))
	}
	v := canPersist(c.Job)
	if v == nil {
		return nil
	}
	tasks := make([]string, len(all))
	for i, r := range all {
		tasks[i] = r.Task
	}
	pl, err := c.openPersisted(ctx, *v, tasks, what)
	if err != nil {
		if ctx.Err() == nil {
			fmt.Fprintf(c.ErrOut, "Warning: the logs kept on the storage cannot be read: %v\n", err)
		}
		return nil
	}
	if c.Since > 0 || c.Timestamps || c.Container != "" {
		fmt.Fprintln(c.ErrOut, "Note: a kept log is the whole output of a replica's command, without times: --since, --timestamps and -c do not apply to it")
	}
	return pl
}

// openPersisted starts a fetcher on the job's storage and lists its
// log_dir. The caller deletes the fetcher (close).
func (c *Request) openPersisted(ctx context.Context, v storage.Values, tasks []string, what string) (*persistedLogs, error) {
	p := c.Persisted
	placement, err := transfer.PlacementOf(c.Job)
	if err != nil {
		return nil, err
	}
	image, timeout, deadline := p.Image, p.Timeout, p.Deadline
	if image == "" {
		image = transfer.DefaultFetcherImage
	}
	if timeout <= 0 {
		timeout = transfer.DefaultFetcherTimeout
	}
	if deadline <= 0 {
		deadline = 10 * time.Minute
	}
	logDir, _ := v.Dir(storage.LogDir)
	pl := &persistedLogs{exec: p.Executor, dir: v.OnVolume(logDir.SubPath), where: v.Spec.Location(logDir.SubPath)}
	fmt.Fprintf(c.ErrOut, "%s: reading the logs its replicas kept on the storage (%s)\n", what, pl.where)
	pl.fetcher, err = transfer.StartFetcher(ctx, c.Kube, transfer.FetcherSpec{
		Job: c.Job, Mount: transfer.StorageMount(v.Spec), Placement: placement, Image: image, Deadline: deadline, Now: p.Now,
	}, timeout)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	stderr := &bytes.Buffer{}
	err = pl.run(ctx, listLogsScript, nil, &cappedWriter{buf: &out, max: maxListing}, stderr)
	switch {
	case transfer.DirMissing(err):
		// No replica wrote a log yet.
	case err != nil:
		_ = pl.close(ctx)
		return nil, transfer.RemoteError(err, stderr.String(), "listing "+pl.where)
	}
	pl.files, pl.others = logFiles(out.Bytes(), c.Job.GetName(), tasks)
	return pl, nil
}

// maxListing bounds what is read of a log directory's listing.
const maxListing = 4 << 20

// cappedWriter keeps the first max bytes written to it.
type cappedWriter struct {
	buf *bytes.Buffer
	max int
}

func (w *cappedWriter) Write(p []byte) (int, error) {
	if room := w.max - w.buf.Len(); room > 0 {
		w.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// listLogsScript lists the regular files named *.log of the log
// directory; dot-files (a replica's named pipes) are not.
const listLogsScript = `exec find . -maxdepth 1 -type f -name '*.log' ! -name '.*'`

// run runs script in the log directory, args being $2...
func (pl *persistedLogs) run(ctx context.Context, script string, args []string, stdout, stderr io.Writer) error {
	command := transfer.InDir(pl.dir, script, args...)
	return pl.exec.Exec(ctx, pl.fetcher.Namespace, pl.fetcher.Pod, pl.fetcher.Container, command, remote.Streams{Stdout: stdout, Stderr: stderr})
}

// print prints one log file under the task's prefix: the last tail lines
// when tail >= 0.
func (pl *persistedLogs) print(ctx context.Context, file, prefix string, tail int64, out *lineWriter) error {
	script, args := `exec cat -- "$2"`, []string{"./" + file}
	if tail >= 0 {
		script, args = `exec tail -n "$3" -- "$2"`, []string{"./" + file, strconv.FormatInt(tail, 10)}
	}
	pr, pw := io.Pipe()
	stderr := &bytes.Buffer{}
	done := make(chan error, 1)
	go func() {
		err := pl.run(ctx, script, args, pw, stderr)
		pw.CloseWithError(err)
		done <- err
	}()
	cerr := copyLines(pr, out, prefix, nil, false)
	pr.CloseWithError(io.ErrClosedPipe)
	err := <-done
	if err != nil {
		return transfer.RemoteError(err, stderr.String(), "reading "+pl.where+"/"+file)
	}
	return cerr
}

func (pl *persistedLogs) close(ctx context.Context) error {
	return pl.fetcher.Delete(ctx)
}

// logName is a file name a replica's log may have: TASK.log, the task
// being ROLE-INDEX ("worker-0") or, on T9k's ColossalAIJob, the pod's
// name ("mnist-worker-0"): letters, digits, dots, dashes and underscores,
// at most 257 bytes in all (the length is checked apart: a repetition bounded
// to 252 in the pattern would compile to hundreds of KB at every start).
var logName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*\.log$`)

const maxLogName = 1 + 252 + len(".log")

func isLogName(name string) bool {
	return len(name) <= maxLogName && logName.MatchString(name)
}

// logFiles reads the listing of a log directory (untrusted: anyone who may
// write there may name files as they like): the file of each task of
// tasks, TASK.log or JOB-TASK.log, and the other files that may be
// replicas' logs, sorted. Names that are not a replica's are left out.
func logFiles(listing []byte, job string, tasks []string) (map[string]string, []string) {
	want := map[string]bool{}
	for _, t := range tasks {
		want[t] = true
	}
	files := map[string]string{}
	var others []string
	seen := map[string]bool{}
	for _, line := range strings.Split(string(listing), "\n") {
		name, ok := strings.CutPrefix(line, "./")
		if !ok || !isLogName(name) || seen[name] {
			continue
		}
		seen[name] = true
		stem := strings.TrimSuffix(name, ".log")
		task := stem
		if !want[task] {
			if t, ok := strings.CutPrefix(stem, job+"-"); ok && job != "" {
				task = t
			}
		}
		switch {
		case !want[task]:
			others = append(others, name)
		case files[task] == "":
			files[task] = name
		case name == task+".log":
			// TASK.log over JOB-TASK.log when both are there.
			others = append(others, files[task])
			files[task] = name
		default:
			others = append(others, name)
		}
	}
	sort.Strings(others)
	return files, others
}
