//go:build unix

package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// secret is a secret key no message may show.
const secret = "sk-NEVER-SHOWN-0123"

// credentialsEnv clears the credentials' variables and points
// XDG_CONFIG_HOME at a directory of the test's; it returns the default
// credentials file's path.
func credentialsEnv(t *testing.T) string {
	t.Helper()
	t.Setenv(EnvTimakerSecretID, "")
	t.Setenv(EnvTimakerSecretKey, "")
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	path := DefaultCredentialsPath()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	return path
}

func writeMode(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// wantNoSecret fails when err, its hint or text shows the secret key.
func wantNoSecret(t *testing.T, what string, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(s, secret) || strings.Contains(s, "NEVER-SHOWN") {
			t.Errorf("%s shows the secret key: %q", what, s)
		}
	}
}

func TestCredentialsFromTheEnvironment(t *testing.T) {
	path := credentialsEnv(t)
	writeMode(t, path, "secret-id: file-id\nsecret-key: file-key\n", 0o600)
	t.Setenv(EnvTimakerSecretID, "env-id")
	t.Setenv(EnvTimakerSecretKey, secret)
	creds, err := LoadTimakerCredentials(Cluster{Name: "prod"})
	if err != nil || creds.SecretID != "env-id" || creds.SecretKey != secret || creds.Source != "EASYAI_TIMAKER_SECRET_ID/KEY" {
		t.Errorf("the environment over the file: %v %v", creds, err)
	}

	// One alone is an error naming the other, whatever the file holds.
	t.Setenv(EnvTimakerSecretKey, "")
	_, err = LoadTimakerCredentials(Cluster{Name: "prod"})
	wantUsage(t, "the id alone", err, "EASYAI_TIMAKER_SECRET_ID is set but EASYAI_TIMAKER_SECRET_KEY is not: set both, or neither")
	t.Setenv(EnvTimakerSecretID, "")
	t.Setenv(EnvTimakerSecretKey, secret)
	_, err = LoadTimakerCredentials(Cluster{Name: "prod"})
	wantUsage(t, "the key alone", err, "EASYAI_TIMAKER_SECRET_KEY is set but EASYAI_TIMAKER_SECRET_ID is not")
	wantNoSecret(t, "the key alone", err.Error())

	t.Setenv(EnvTimakerSecretID, "env-id")
	t.Setenv(EnvTimakerSecretKey, secret+"\n")
	_, err = LoadTimakerCredentials(Cluster{Name: "prod"})
	wantUsage(t, "a key with a newline", err, "EASYAI_TIMAKER_SECRET_KEY: holds spaces or control characters (not shown)")
	wantNoSecret(t, "a key with a newline", err.Error())

	// Set to "" is unset: the file answers.
	t.Setenv(EnvTimakerSecretID, "")
	t.Setenv(EnvTimakerSecretKey, "")
	if creds, err := LoadTimakerCredentials(Cluster{Name: "prod"}); err != nil || creds.SecretID != "file-id" || creds.Source != path {
		t.Errorf("from the file: %v %v", creds, err)
	}
}

func TestCredentialsFile(t *testing.T) {
	path := credentialsEnv(t)
	hint := "export EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY, or write \"clusters: {prod: {secret-id: ID, secret-key: KEY}}\" into " + path + " and chmod 600 it"

	_, err := LoadTimakerCredentials(Cluster{Name: "prod"})
	wantUsage(t, "no credentials", err, "no timaker credentials for cluster prod: set EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY, or write them into "+path)
	if exit.Hint(err) != hint {
		t.Errorf("hint %q, want %q", exit.Hint(err), hint)
	}

	writeMode(t, path, `# timaker
secret-id: default-id
secret-key: default-key
clusters:
  prod:
    secret-id: prod-id
    secret-key: `+secret+`
  staging:
    secret-id: staging-id
    secret-key: "staging key"
`, 0o600)
	for name, want := range map[string]TimakerCredentials{
		"prod": {SecretID: "prod-id", SecretKey: secret, Source: path},
		"home": {SecretID: "default-id", SecretKey: "default-key", Source: path},
	} {
		if creds, err := LoadTimakerCredentials(Cluster{Name: name}); err != nil || creds != want {
			t.Errorf("%s: %v %v", name, creds, err)
		}
	}
	_, err = LoadTimakerCredentials(Cluster{Name: "staging"})
	wantUsage(t, "staging", err, "credentials file "+path+": line 10: clusters.staging: secret-key: holds spaces or control characters (not shown)")

	// The mode: the owner's alone, as ssh wants a private key.
	for _, mode := range []os.FileMode{0o640, 0o604, 0o644, 0o660} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := LoadTimakerCredentials(Cluster{Name: "prod"})
		wantUsage(t, fmt.Sprintf("mode %04o", mode), err, fmt.Sprintf("credentials file %s is readable by others (mode %04o): chmod 600 %s", path, mode, path))
	}
	if err := os.Chmod(path, 0o400); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTimakerCredentials(Cluster{Name: "prod"}); err != nil {
		t.Errorf("mode 0400: %v", err)
	}

	// A cluster's own file; it must exist.
	own := filepath.Join(t.TempDir(), "prod.yaml")
	writeMode(t, own, "clusters:\n  prod: {secret-id: own-id, secret-key: own-key}\n", 0o600)
	if creds, err := LoadTimakerCredentials(Cluster{Name: "prod", CredentialsFile: own}); err != nil || creds.SecretID != "own-id" || creds.Source != own {
		t.Errorf("the cluster's file: %v %v", creds, err)
	}
	_, err = LoadTimakerCredentials(Cluster{Name: "home", CredentialsFile: own})
	wantUsage(t, "no entry", err, "credentials file "+own+" holds no credentials for cluster home (it has clusters prod, and no top-level secret-id and secret-key)")
	missing := filepath.Join(t.TempDir(), "missing.yaml")
	_, err = LoadTimakerCredentials(Cluster{Name: "prod", CredentialsFile: missing})
	wantUsage(t, "a missing file", err, "credentials file "+missing+" of cluster prod: no such file")
	if !strings.Contains(exit.Hint(err), "export EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY") {
		t.Errorf("hint %q", exit.Hint(err))
	}
	_, err = LoadTimakerCredentials(Cluster{Name: "prod", CredentialsFile: "/dev/null"})
	wantUsage(t, "/dev/null", err, "credentials file /dev/null: not a regular file")
}

// TestBadCredentialsFiles: a malformed file is exit 2 naming the file and
// the line, and never shows the secret key, not even in what the YAML
// parser would say about it.
func TestBadCredentialsFiles(t *testing.T) {
	path := credentialsEnv(t)
	for _, tc := range []struct {
		content, want string
	}{
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: \"" + secret + "\n", "line 4: not valid YAML"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: " + secret + ": x\n", "line 4: not valid YAML"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: *" + secret + "\n", "not valid YAML"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: !" + secret + "! x\n", "line 4: not valid YAML"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: '" + secret + "\n\t x'\n", "line 4: clusters.prod: secret-key: holds spaces or control characters (not shown)"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: [" + secret + "]\n", "line 4: clusters.prod: secret-key: want a single value, not a list"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: " + secret + " and more\n", "line 4: clusters.prod: secret-key: holds spaces or control characters (not shown)"},
		{"clusters:\n  prod:\n    secret-key: " + secret + "\n", "line 2: clusters.prod: secret-id is missing (want both secret-id and secret-key)"},
		{"clusters:\n  prod:\n    secret-id: a\n    secret-key: " + secret + "\n    secret-key: " + secret + "\n", "line 5: clusters.prod: secret-key is also set on line 4"},
		{"clusters:\n  prod: " + secret + "\n", "line 2: clusters.prod: want secret-id: and secret-key: under it, not a single value"},
		{"clusters: " + secret + "\n", "line 1: clusters: want NAME: followed by its secret-id and secret-key, not a single value"},
		{secret + "\n", "line 1: want clusters:, or secret-id: and secret-key: lines, not a single value"},
		{"secret-key: " + secret + "\n", "line 1: secret-id is missing"},
	} {
		writeMode(t, path, tc.content, 0o600)
		_, err := LoadTimakerCredentials(Cluster{Name: "prod"})
		wantUsage(t, tc.content, err, "credentials file "+path+": "+tc.want)
		if err != nil {
			wantNoSecret(t, tc.content, err.Error(), exit.Hint(err))
		}
	}
}

// TestCredentialsAreRedacted: printing credentials, as text, Go syntax,
// JSON or a log line, never shows the secret key.
func TestCredentialsAreRedacted(t *testing.T) {
	creds := TimakerCredentials{SecretID: "AKID1", SecretKey: secret, Source: "EASYAI_TIMAKER_SECRET_ID/KEY"}
	if want := "secret id AKID1, secret key (redacted), from EASYAI_TIMAKER_SECRET_ID/KEY"; creds.String() != want {
		t.Errorf("String() = %q, want %q", creds, want)
	}
	data, err := json.Marshal(creds)
	if err != nil {
		t.Fatal(err)
	}
	var logged bytes.Buffer
	slog.New(slog.NewTextHandler(&logged, nil)).Info("signing", "credentials", creds)
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("signing", "credentials", creds)
	wantNoSecret(t, "printing credentials", fmt.Sprint(creds), fmt.Sprintf("%v %+v %#v %s %q", creds, creds, creds, creds, creds),
		fmt.Sprintf("%v %+v", &creds, []TimakerCredentials{creds}), string(data), logged.String())
	if !strings.Contains(logged.String(), "AKID1") {
		t.Errorf("the log does not name the secret id: %s", logged.String())
	}
}
