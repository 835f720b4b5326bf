package submit

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobs/jobstest"
)

// submitDryRun runs "easyai submit ARGS" with fakes and returns its exit
// code and outputs; stdin is what "-f -" reads.
func submitDryRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f, out, errOut := jobstest.Factory(t, false, jobstest.Dynamic(), nil)
	f.IOStreams.In = strings.NewReader(stdin)
	cmd := NewCmdSubmit(f, nil)
	cmd.SetArgs(args)
	cmd.SetOut(&strings.Builder{})
	cmd.SetErr(&strings.Builder{})
	err := cmd.Execute()
	if err != nil {
		errOut.WriteString("Error: " + err.Error() + "\n")
	}
	return exit.Code(err), out.String(), errOut.String()
}

const pipedJob = "kind: tf\nname: from-a-pipe\nimage: tf:1\ncommand: [python, train.py]\n"

// TestJobFileFromAPipe: a job file from a pipe (-f <(...), -f /dev/stdin)
// or standard input (-f -) is read once and all of it is submitted.
func TestJobFileFromAPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		w.WriteString(pipedJob)
		w.Close()
	}()
	for name, args := range map[string][]string{
		"pipe":             {"-f", "/dev/fd/" + strconv.Itoa(int(r.Fd())), "--dry-run=client"},
		"stdin":            {"-f", "-", "--dry-run=client"},
		"stdin, submit tf": {"tf", "-f", "-", "--workers", "2", "--dry-run=client"},
	} {
		code, stdout, stderr := submitDryRun(t, pipedJob, args...)
		if code != 0 || !strings.Contains(stdout, "name: from-a-pipe") || !strings.Contains(stdout, "image: tf:1") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %s", name, code, stdout, stderr)
		}
	}
}

// TestEndlessJobFile: -f /dev/zero fails at once, exit 2, naming the file
// and the limit.
func TestEndlessJobFile(t *testing.T) {
	for _, args := range [][]string{
		{"-f", "/dev/zero", "--dry-run=client"},
		{"tf", "-f", "/dev/zero", "--dry-run=client", "--", "x"},
	} {
		code, _, stderr := submitDryRun(t, "", args...)
		if code != exit.Usage || !strings.Contains(stderr, "-f /dev/zero") || !strings.Contains(stderr, "4 MiB") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	code, _, stderr := submitDryRun(t, pipedJob, "-f", "-", "-f", "-", "--dry-run=client")
	if code != exit.Usage || !strings.Contains(stderr, "-f -") {
		t.Errorf("-f - twice: exit %d, stderr %q", code, stderr)
	}
}
