package submit

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/crypto/ssh"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/jobmodel"
	"github.com/easyai-dev/easyai/pkg/render"
)

// SSHPort is the port the sshd of --ssh listens on in every replica (the
// chart's easyai-lib.sshPort): above 1024, so that an image that runs as a
// user other than root can run it too.
const SSHPort = 2222

// The keys of the Secret of --ssh.
const (
	SSHAuthorizedKeys = "authorized_keys"
	SSHHostKey        = "ssh_host_ed25519_key"
	SSHHostPublicKey  = "ssh_host_ed25519_key.pub"
)

// MaxPublicKeySize bounds the key file --ssh-key reads.
const MaxPublicKeySize = 64 << 10

// sshValues are --ssh (and --ssh-key, which implies it) as the
// "devtools.ssh" value.
func (f *Flags) sshValues() (map[string]any, error) {
	if !f.Changed("ssh") && !f.Changed("ssh-key") {
		return nil, nil
	}
	on := f.Devtools.SSH || f.Changed("ssh-key")
	if f.Changed("ssh-key") && f.Changed("ssh") && !f.Devtools.SSH {
		return nil, exit.UsageErrorf("--ssh-key: the key of --ssh, which is off (--ssh=false)")
	}
	return map[string]any{"ssh": map[string]any{"enabled": on}}, nil
}

// fillSSH completes devtools.ssh: the Secret submit makes beside the job,
// and the public key it lets in, read now (a key file that cannot be read
// or is not a public key is a usage error naming it).
func (s *Submission) fillSSH(ctx context.Context, req *Request) error {
	resolved, err := req.Resolved()
	if err != nil {
		return err
	}
	if _, on := toolOn(resolved, "ssh"); !on {
		return nil
	}
	key, err := ReadPublicKey(s.Flags.Devtools.SSHKey)
	if err != nil {
		return err
	}
	s.sshKey = key
	name, _ := resolved["name"].(string)
	secret, err := attachmentName(name, "ssh")
	if err != nil {
		return err
	}
	req.Values = render.MergeMaps(req.Values, map[string]any{"devtools": map[string]any{"ssh": map[string]any{"secret": secret}}})
	req.annotate(jobmodel.SSHAnnotation, secret)
	return nil
}

// DefaultPublicKeys are the files --ssh reads without --ssh-key, in order,
// under ~/.ssh.
var DefaultPublicKeys = []string{"id_ed25519.pub", "id_ecdsa.pub", "id_rsa.pub"}

// ReadPublicKey reads the public key of --ssh-key (path ""): the first of
// DefaultPublicKeys in ~/.ssh) as one authorized_keys line. A missing or
// unreadable file, a private key, or anything that is not one public key
// is a usage error naming the file.
func ReadPublicKey(path string) (string, error) {
	flag := "--ssh-key " + path
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", exit.UsageErrorf("--ssh: no home directory to find a public key in: give --ssh-key FILE")
		}
		for _, name := range DefaultPublicKeys {
			p := filepath.Join(home, ".ssh", name)
			if _, err := os.Stat(p); err == nil {
				path = p
				break
			}
		}
		if path == "" {
			return "", exit.UsageErrorf("--ssh: no public key in ~/.ssh (%s): give --ssh-key FILE, or make one with ssh-keygen -t ed25519", strings.Join(DefaultPublicKeys, ", "))
		}
		flag = "--ssh (its key " + path + ")"
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", exit.UsageErrorf("%s: no such file", flag)
		}
		return "", exit.UsageErrorf("%s: %v", flag, err)
	}
	defer f.Close()
	buf := make([]byte, MaxPublicKeySize+1)
	n, _ := f.Read(buf)
	data := buf[:n]
	if n > MaxPublicKeySize {
		return "", exit.UsageErrorf("%s: over %d bytes: not a public key", flag, MaxPublicKeySize)
	}
	return ParsePublicKey(flag, data)
}

// ParsePublicKey reads one public key in the authorized_keys format (as
// ssh-keygen writes NAME.pub) from data, and returns it as one line without
// options. A private key is refused: it must never leave the machine.
func ParsePublicKey(flag string, data []byte) (string, error) {
	if strings.Contains(string(data), "PRIVATE KEY") {
		return "", exit.UsageErrorf("%s: is a private key: give the public one (the .pub file)", flag)
	}
	key, comment, _, rest, err := ssh.ParseAuthorizedKey(data)
	if err != nil {
		return "", exit.UsageErrorf("%s: not a public key (want one line such as ssh-ed25519 AAAA... as in ~/.ssh/id_ed25519.pub)", flag)
	}
	if strings.TrimSpace(string(rest)) != "" {
		return "", exit.UsageErrorf("%s: holds more than one key: give a file of one", flag)
	}
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(key)))
	if comment = jobmodel.OneLine(comment); comment != "" {
		line += " " + comment
	}
	return line, nil
}

// HostKey is a new ed25519 host key: the private key in OpenSSH's format
// and the public key as an authorized_keys line.
func HostKey() (private, public string, err error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("making the job's host key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		return "", "", fmt.Errorf("making the job's host key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return "", "", err
	}
	return string(pem.EncodeToMemory(block)), strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))), nil
}

// sshObjects are what the sshd needs beside the job: the Secret of the key
// it lets in and of the job's host key, new at each submission.
func (s *Submission) sshObjects(req *Request, values map[string]any, job *unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	v, on := toolOn(values, "ssh")
	if !on {
		return nil, nil
	}
	if s.sshKey == "" {
		return nil, fmt.Errorf("internal error: --ssh without the key it lets in")
	}
	private, public, err := HostKey()
	if err != nil {
		return nil, err
	}
	return []*unstructured.Unstructured{TokenSecret(fmt.Sprint(v["secret"]), job, map[string]string{
		SSHAuthorizedKeys: s.sshKey + "\n",
		SSHHostKey:        private,
		SSHHostPublicKey:  public + "\n",
	})}, nil
}
