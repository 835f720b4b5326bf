package submit

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/cmdutil/cmdutiltest"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobclient/jobclienttest"
)

// submitDryRun runs "easyai submit ARGS" with fakes and returns its exit
// code and outputs; stdin is what "-f -" reads.
func submitDryRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	f, out, errOut := cmdutiltest.Factory(t, false, jobclienttest.Dynamic(), nil)
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

// TestBadValuesNameTheFlag: names and numbers the API server or an operator
// would reject later fail the submit, exit 2, naming the flag; the same
// values from a job file or --set name the key and where it was given.
func TestBadValuesNameTheFlag(t *testing.T) {
	tf := func(args ...string) []string {
		return append(append([]string{"tf", "--image", "tf:1", "--dry-run=client"}, args...), "--", "python", "train.py")
	}
	volcano := func(args ...string) []string {
		return append(append([]string{"volcano", "--image", "pt:1", "--dry-run=client"}, args...), "--", "python", "train.py")
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"name with a dot", tf("--name", "a.b"), `--name "a.b"`},
		{"name starting with a digit", tf("--name", "1abc"), `--name "1abc"`},
		{"name from a job file", []string{"-f", "testdata/bad-name.yaml", "--dry-run=client"}, `-f testdata/bad-name.yaml: name "MyJob"`},
		{"name from --set", tf("--set", "name=MyJob"), `--set name=MyJob: name "MyJob"`},
		{"workers over int32", tf("--workers", "2147483648"), "--workers 2147483648"},
		{"ps over int32", tf("--ps", "2147483648"), "--ps 2147483648"},
		{"replicas over int32 from --set", tf("--set", "roles.worker.replicas=2147483648"), "--set roles.worker.replicas=2147483648: roles.worker.replicas"},
		{"gpus over int32", tf("--gpus", "9223372036854775807"), "--gpus 9223372036854776000: must be at most 2147483647"},
		{"negative cpu", tf("--cpu", "-1"), `--cpu "-1"`},
		{"ttl under a second", tf("--ttl-after-finished", "500ms"), "--ttl-after-finished 500ms"},
		{"image with a space", []string{"tf", "--image", "tf 1", "--dry-run=client", "--", "x"}, `--image "tf 1"`},
		{"image with a newline", []string{"tf", "--image", "tf:1\nx", "--dry-run=client", "--", "x"}, `--image "tf:1\nx"`},
		{"role image from --set", tf("--set", "roles.worker.image=a b"), `--set roles.worker.image=a b: roles.worker.image "a b"`},
		{"priority", tf("--priority", "Bad Prio"), `--priority "Bad Prio"`},
		{"image pull secret", tf("--image-pull-secret", "Bad_S"), `--image-pull-secret "Bad_S"`},
		{"two --data on one path", tf("--data", "a:/data", "--data", "b:/data"), `--data "b:/data": another --data is mounted at /data`},
		{"duplicate --env", tf("--env", "A=1", "--env", "A=2"), `--env "A=2": A is given twice`},
		{"duplicate env in a job file", []string{"-f", "testdata/dup-env.yaml", "--dry-run=client"}, "-f testdata/dup-env.yaml: env: A is given twice"},
		{"min-available over --workers", volcano("--workers", "2", "--min-available", "3"), "--min-available 3: more than the job's 2 pods"},
		{"min-available over --task", volcano("--task", "a=1", "--task", "b=1", "--min-available", "3"), "--min-available 3: more than the job's 2 pods"},
		{"min-available over the default task", volcano("--min-available", "3"), "--min-available 3: more than the job's 1 pods"},
		{"task replicas over int32", volcano("--task", "a=2147483648"), `--task "a=2147483648"`},
		{"relative working dir", tf("--working-dir", "src"), `--working-dir "src": must be an absolute path`},
		{"another kind by --set", tf("--set", "kind=pytorch"), `--set kind=pytorch: kind "pytorch": this is a tf job`},
		{"a chart's check of --set", tf("--set", "successPolicy=Chief"), `--set successPolicy=Chief: successPolicy: must be one of AllWorkers`},
		{"a chart's check of a job file", []string{"-f", "testdata/env-without-name.yaml", "--dry-run=client"}, "-f testdata/env-without-name.yaml: env[0].name: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := submitDryRun(t, "", tc.args...)
			if code != exit.Usage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 with %q", code, stderr, tc.want)
			}
			if strings.Contains(stderr, "execution error") || strings.Contains(stderr, "templates/") {
				t.Errorf("the message names a template, not the value: %q", stderr)
			}
			if stdout != "" {
				t.Errorf("a job was printed:\n%s", stdout)
			}
		})
	}
}

// TestGoodValuesStillPass: the checks refuse nothing the API takes.
func TestGoodValuesStillPass(t *testing.T) {
	for _, args := range [][]string{
		{"tf", "--name", "mnist-2", "--image", "registry.example.com:5000/team/tf@sha256:0123abcd", "--workers", "2147483647",
			"--ttl-after-finished", "0s", "--priority", "high", "--image-pull-secret", "regcred", "--working-dir", "/work",
			"--data", "a:/data", "--data", "b:/out", "--env", "A=1", "--env", "B=1", "--dry-run=client", "--", "x"},
		{"volcano", "--image", "pt:1", "--task", "a=2", "--task", "b=1", "--min-available", "3", "--dry-run=client", "--", "x"},
		{"-f", "testdata/job.yaml", "--set", "kind=pytorchjob", "--dry-run=client"},
	} {
		if code, _, stderr := submitDryRun(t, "", args...); code != 0 {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}
