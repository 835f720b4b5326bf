// Package sshaccess lets OpenSSH's client (ssh, scp, rsync, VS Code
// Remote-SSH) reach the sshd of a job submitted with --ssh through the
// Kubernetes API: the Host blocks of "easyai ssh-config", whose
// ProxyCommand is "easyai port-forward --stdio", and the job's host key as
// known hosts, read from the job's Secret (docs/ssh.md).
package sshaccess

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"golang.org/x/crypto/ssh"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/remote"
	"github.com/easyai-dev/easyai/pkg/submit"
)

// ErrNoSSH is the error of a job submitted without --ssh.
type ErrNoSSH struct{ Job string }

func (e ErrNoSSH) Error() string {
	return fmt.Sprintf("%s was not submitted with --ssh: it runs no sshd", e.Job)
}

// SecretOf is the Secret the job's SSHAnnotation names, or ErrNoSSH.
func SecretOf(job string, annotations map[string]string) (string, error) {
	name, ok := annotations[jobmodel.SSHAnnotation]
	if !ok || name == "" {
		return "", ErrNoSSH{Job: job}
	}
	if len(validation.IsDNS1123Subdomain(name)) > 0 {
		return "", exit.UsageErrorf("annotation %s of %s: %q is not a Secret's name", jobmodel.SSHAnnotation, job, jobmodel.OneLine(name))
	}
	return name, nil
}

// JobHostKey is the host key of job j's sshd (HostKey of SecretOf), or
// ErrNoSSH for a job submitted without --ssh.
func JobHostKey(ctx context.Context, kube kubernetes.Interface, namespace string, j *remote.Job) (ssh.PublicKey, error) {
	jobArg := j.String()
	secret, err := SecretOf(jobArg, j.Object.GetAnnotations())
	if err != nil {
		return nil, err
	}
	return HostKey(ctx, kube, namespace, jobArg, secret, j.Object.GetUID())
}

// HostKey reads the job's host public key from its Secret, which must be
// owned by the job (its uid): whoever may edit the job's annotation must
// not be able to make the user trust another key.
func HostKey(ctx context.Context, kube kubernetes.Interface, namespace, job, secret string, uid types.UID) (ssh.PublicKey, error) {
	s, err := kube.CoreV1().Secrets(namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading the host key of %s from Secret %s: %w", job, secret, err)
	}
	return hostKeyOf(s, job, uid)
}

func hostKeyOf(s *corev1.Secret, job string, uid types.UID) (ssh.PublicKey, error) {
	owned := false
	for _, ref := range s.OwnerReferences {
		if uid != "" && ref.UID == uid {
			owned = true
		}
	}
	if !owned || s.Type == corev1.SecretTypeServiceAccountToken {
		return nil, exit.WithHint(fmt.Errorf("Secret %s, named by the %s annotation of %s, is not the job's: refusing to trust a host key from it", s.Name, jobmodel.SSHAnnotation, job),
			fmt.Sprintf("the Secret of --ssh is owned by the job (uid %s); check who changed the annotation", uid))
	}
	key, _, _, _, err := ssh.ParseAuthorizedKey(s.Data[submit.SSHHostPublicKey])
	if err != nil {
		return nil, fmt.Errorf("Secret %s has no host public key (%s): %v", s.Name, submit.SSHHostPublicKey, err)
	}
	return key, nil
}

var userName = boundedName{64, regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)}

// boundedName is a pattern of names of at most max bytes. The length is
// checked apart because a bounded repetition such as {0,251} compiles to one
// copy of its class per repetition: hundreds of KB of program, built at
// every start of easyai.
type boundedName struct {
	max     int
	pattern *regexp.Regexp
}

func (b boundedName) MatchString(s string) bool {
	return len(s) <= b.max && b.pattern.MatchString(s)
}

// CheckUser fails unless user is a plain user name (it goes into an ssh
// config file).
func CheckUser(user string) error {
	if !userName.MatchString(user) {
		return exit.UsageErrorf("--user %q: not a user name (letters, digits, '_', '.', '-')", jobmodel.OneLine(user))
	}
	return nil
}

// Target is one replica as an ssh host.
type Target struct {
	// Alias is the Host of the block: TASK.JOB.NAMESPACE.
	Alias string
	Task  string
	// JobArg is KIND/NAME, for port-forward.
	JobArg    string
	Namespace string
	User      string
}

// Alias is the ssh host name of a replica: TASK.JOB.NAMESPACE.
func Alias(task, job, namespace string) string { return task + "." + job + "." + namespace }

// KeyAlias is the name the job's host key is known by (HostKeyAlias): one
// key for all of the job's replicas.
func KeyAlias(job, namespace string) string { return "easyai." + namespace + "." + job }

// Proxy is how the ProxyCommand runs easyai: its path and the connection
// flags that pin the cluster (--kubeconfig, --context), so that a later
// change of the kubeconfig's current context does not send the connection
// elsewhere.
type Proxy struct {
	Executable string
	Kubeconfig string
	Context    string
}

// command is the ProxyCommand for t.
func (p Proxy) command(t Target) string {
	args := []string{p.Executable, "port-forward", t.JobArg, "-n", t.Namespace, "--task", t.Task, "--stdio", fmt.Sprint(submit.SSHPort)}
	if p.Kubeconfig != "" {
		args = append(args, "--kubeconfig", p.Kubeconfig)
	}
	if p.Context != "" {
		args = append(args, "--context", p.Context)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

// shellQuote quotes s for the shell ssh runs a ProxyCommand with, when it
// needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// What may go into an ssh config file. A replica's task comes from the
// cluster (a Volcano job's task names are its pods' annotations, which a
// teammate with edit rights writes): a newline in one would start a
// directive of its own (a ProxyCommand that runs on the user's machine).
// So every value is checked against a strict pattern, and a config with
// one that does not match is not written at all.
var (
	// A task: ROLE-INDEX, or a Volcano task's name, as a DNS label.
	taskName = boundedName{63, regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)}
	// A job's or a namespace's name, as Kubernetes allows them.
	objectName = boundedName{253, regexp.MustCompile(`^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$`)}
	// easyai's kind names ("tf", "pytorch").
	kindName = boundedName{31, regexp.MustCompile(`^[a-z][a-z0-9-]*$`)}
)

// CheckTargets fails, naming the first value that may not go into an ssh
// config file, unless every value of the targets and of p is safe there.
func CheckTargets(p Proxy, knownHosts, job string, targets []Target) error {
	bad := func(what, v string) error {
		return fmt.Errorf("refusing to write an ssh config: %s %q is not a plain name (the cluster's objects name it; check who made them)", what, jobmodel.OneLine(v))
	}
	if !objectName.MatchString(job) {
		return bad("the job's name", job)
	}
	for _, path := range []struct{ what, v string }{{"the path of easyai", p.Executable}, {"the kubeconfig's path", p.Kubeconfig}, {"the context", p.Context}, {"the known hosts' path", knownHosts}} {
		if strings.ContainsFunc(path.v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return fmt.Errorf("refusing to write an ssh config: %s %q holds a control character", path.what, jobmodel.OneLine(path.v))
		}
	}
	for _, t := range targets {
		kind, name, ok := strings.Cut(t.JobArg, "/")
		switch {
		case !taskName.MatchString(t.Task):
			return bad("the replica", t.Task)
		case !objectName.MatchString(t.Namespace):
			return bad("the namespace", t.Namespace)
		case !ok || !kindName.MatchString(kind) || !objectName.MatchString(name):
			return bad("the job", t.JobArg)
		case !userName.MatchString(t.User):
			return bad("the user", t.User)
		case t.Alias != Alias(t.Task, name, t.Namespace):
			return bad("the host", t.Alias)
		}
	}
	return nil
}

// Config writes the Host blocks of targets: each reached through p, its
// host key checked against knownHosts (a file KnownHosts wrote) under the
// job's key alias, passwords never tried. It writes nothing, and fails,
// unless CheckTargets passes.
func Config(w io.Writer, p Proxy, knownHosts string, job string, targets []Target) error {
	if err := CheckTargets(p, knownHosts, job, targets); err != nil {
		return err
	}
	var b bytes.Buffer
	for _, t := range targets {
		fmt.Fprintf(&b, "# easyai: %s of %s in namespace %s\n", t.Task, t.JobArg, t.Namespace)
		fmt.Fprintf(&b, "Host %s\n", t.Alias)
		fmt.Fprintf(&b, "  HostName %s\n", t.Alias)
		fmt.Fprintf(&b, "  User %s\n", t.User)
		fmt.Fprintf(&b, "  ProxyCommand %s\n", p.command(t))
		fmt.Fprintf(&b, "  HostKeyAlias %s\n", KeyAlias(job, t.Namespace))
		fmt.Fprintf(&b, "  UserKnownHostsFile %s\n", shellQuote(knownHosts))
		fmt.Fprintf(&b, "  StrictHostKeyChecking yes\n")
		fmt.Fprintf(&b, "  PasswordAuthentication no\n")
		fmt.Fprintf(&b, "  ServerAliveInterval 30\n\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

// KnownHostsLine is the known_hosts line of the job's host key.
func KnownHostsLine(job, namespace string, key ssh.PublicKey) string {
	return KeyAlias(job, namespace) + " " + strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
}

// WriteKnownHosts writes the job's known hosts into dir (created 0700) as
// NAMESPACE.JOB.known_hosts, mode 0600, and returns its path.
func WriteKnownHosts(dir, job, namespace string, key ssh.PublicKey) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, namespace+"."+job+".known_hosts")
	tmp, err := os.CreateTemp(dir, ".known_hosts-")
	if err != nil {
		return "", err
	}
	_, err = tmp.WriteString(KnownHostsLine(job, namespace, key) + "\n")
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o600)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
		return "", err
	}
	return path, nil
}

// Answers reports whether an sshd answers on the replica's pod: one
// connection through the API server's port-forward, which must start with
// the SSH banner within timeout.
func Answers(ctx context.Context, config *rest.Config, kube kubernetes.Interface, namespace, pod string, timeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, inW := io.Pipe()
	defer inW.Close()
	banner := &bannerWriter{seen: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		_ = remote.ForwardStdio(ctx, config, kube, namespace, pod, submit.SSHPort, in, banner)
		close(done)
	}()
	select {
	case <-banner.seen:
		cancel()
		return true
	case <-done:
	case <-ctx.Done():
	}
	return banner.ok()
}

// bannerWriter watches for "SSH-" at the start of what it is written.
type bannerWriter struct {
	buf  []byte
	seen chan struct{}
	hit  bool
}

func (b *bannerWriter) Write(p []byte) (int, error) {
	if !b.hit && len(b.buf) < 4 {
		b.buf = append(b.buf, p...)
		if len(b.buf) >= 4 && string(b.buf[:4]) == "SSH-" {
			b.hit = true
			close(b.seen)
		}
	}
	return len(p), nil
}

func (b *bannerWriter) ok() bool {
	select {
	case <-b.seen:
		return true
	default:
		return false
	}
}
