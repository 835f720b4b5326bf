package config

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// The variables that hold timaker's credentials. They are not settings:
// no key's EnvName is one of them, and Load does not read them.
const (
	EnvTimakerSecretID  = "EASYAI_TIMAKER_SECRET_ID"
	EnvTimakerSecretKey = "EASYAI_TIMAKER_SECRET_KEY"
)

// envSource is the Source of credentials from the environment.
const envSource = "EASYAI_TIMAKER_SECRET_ID/KEY"

// The fields of a pair of credentials in the credentials file.
const (
	fieldSecretID  = "secret-id"
	fieldSecretKey = "secret-key"
)

// TimakerCredentials sign the requests to a timaker gateway. The secret
// key is never printed: String, GoString, LogValue and JSON leave it out.
type TimakerCredentials struct {
	SecretID  string `json:"secretId"`
	SecretKey string `json:"-"`
	// Source is where they came from: "EASYAI_TIMAKER_SECRET_ID/KEY", or
	// the credentials file's path.
	Source string `json:"source"`
}

// String names the secret id and the source, not the key.
func (c TimakerCredentials) String() string {
	key := "(none)"
	if c.SecretKey != "" {
		key = "(redacted)"
	}
	return fmt.Sprintf("secret id %s, secret key %s, from %s", c.SecretID, key, c.Source)
}

// GoString is String, for %#v.
func (c TimakerCredentials) GoString() string { return "config.TimakerCredentials{" + c.String() + "}" }

// LogValue is String, for slog.
func (c TimakerCredentials) LogValue() slog.Value { return slog.StringValue(c.String()) }

// DefaultCredentialsPath is $XDG_CONFIG_HOME/easyai/credentials.yaml
// (~/.config/... when unset), beside the configuration file.
func DefaultCredentialsPath() string {
	return filepath.Join(filepath.Dir(DefaultPath()), "credentials.yaml")
}

// LoadTimakerCredentials returns the credentials of the cluster cl: from
// EASYAI_TIMAKER_SECRET_ID and EASYAI_TIMAKER_SECRET_KEY when set (both, or
// neither), else from the credentials file (cl.CredentialsFile, else
// DefaultCredentialsPath): the cluster's entry under "clusters", else the
// file's top-level secret-id and secret-key. The file must be private to
// its owner (mode 0600) on Unix. Every failure is a usage error (exit 2)
// saying how to give the credentials; none of them holds the secret key.
func LoadTimakerCredentials(cl Cluster) (TimakerCredentials, error) {
	// A variable set to "" counts as unset, as for the settings.
	id, key := os.Getenv(EnvTimakerSecretID), os.Getenv(EnvTimakerSecretKey)
	switch {
	case id != "" && key != "":
		if err := checkSecret(id); err != nil {
			return TimakerCredentials{}, exit.UsageErrorf("%s: %v", EnvTimakerSecretID, err)
		}
		if err := checkSecret(key); err != nil {
			return TimakerCredentials{}, exit.UsageErrorf("%s: %v", EnvTimakerSecretKey, err)
		}
		return TimakerCredentials{SecretID: id, SecretKey: key, Source: envSource}, nil
	case id != "":
		return TimakerCredentials{}, exit.UsageErrorf("%s is set but %s is not: set both, or neither to use the credentials file", EnvTimakerSecretID, EnvTimakerSecretKey)
	case key != "":
		return TimakerCredentials{}, exit.UsageErrorf("%s is set but %s is not: set both, or neither to use the credentials file", EnvTimakerSecretKey, EnvTimakerSecretID)
	}

	path := cl.CredentialsFile
	if path == "" {
		path = DefaultCredentialsPath()
	}
	hint := credentialsHint(cl.Name, path)
	data, exists, err := userfile.ReadPrivate("credentials file", path, userfile.SecretsLimit)
	switch {
	case err != nil:
		return TimakerCredentials{}, err
	case !exists && cl.CredentialsFile != "":
		return TimakerCredentials{}, exit.WithHint(exit.UsageErrorf("credentials file %s of cluster %s: no such file", path, cl.Name), hint)
	case !exists:
		return TimakerCredentials{}, exit.WithHint(exit.UsageErrorf("no timaker credentials for cluster %s: set %s and %s, or write them into %s", cl.Name, EnvTimakerSecretID, EnvTimakerSecretKey, path), hint)
	}
	creds, err := parseCredentials(path, data, cl.Name)
	if err != nil {
		return TimakerCredentials{}, exit.WithHint(err, hint)
	}
	return creds, nil
}

// credentialsHint says both ways to give a cluster's credentials.
func credentialsHint(name, path string) string {
	if name == "" {
		name = "NAME"
	}
	return fmt.Sprintf("export %s and %s, or write \"clusters: {%s: {secret-id: ID, secret-key: KEY}}\" into %s and chmod 600 it", EnvTimakerSecretID, EnvTimakerSecretKey, name, path)
}

// checkSecret refuses a secret id or key that is empty or holds spaces or
// control characters (a line pasted whole, with its newline). The value
// itself is never in the message.
func checkSecret(s string) error {
	if s == "" {
		return fmt.Errorf("empty")
	}
	if strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 {
		return fmt.Errorf("holds spaces or control characters (not shown)")
	}
	return nil
}

// yamlLine finds the line a YAML error is on; the rest of the parser's
// message is dropped, since it may quote the file, secrets included.
var yamlLine = regexp.MustCompile(`line (\d+)`)

// parseCredentials reads the credentials file's entry for cluster name,
// else its default pair. Messages name the file and the line, never a
// value.
func parseCredentials(path string, data []byte, name string) (TimakerCredentials, error) {
	bad := func(line int, format string, args ...any) error {
		return exit.UsageErrorf("credentials file %s: line %d: %s", path, line, fmt.Sprintf(format, args...))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			return TimakerCredentials{}, exit.UsageErrorf("credentials file %s: line %s: not valid YAML", path, m[1])
		}
		return TimakerCredentials{}, exit.UsageErrorf("credentials file %s: not valid YAML", path)
	}
	root := &yaml.Node{Kind: yaml.MappingNode}
	if len(doc.Content) > 0 && !isNull(doc.Content[0]) {
		root = resolve(doc.Content[0])
	}
	if root.Kind != yaml.MappingNode {
		return TimakerCredentials{}, bad(root.Line, "want %s:, or %s: and %s: lines, not %s", keyClusters, fieldSecretID, fieldSecretKey, describe(root))
	}
	fields, err := secretFields(root, "", bad)
	if err != nil {
		return TimakerCredentials{}, err
	}
	var names []string
	clusters := fields[keyClusters]
	if clusters != nil && !isNull(clusters) {
		if clusters.Kind != yaml.MappingNode {
			return TimakerCredentials{}, bad(clusters.Line, "%s: want NAME: followed by its %s and %s, not %s", keyClusters, fieldSecretID, fieldSecretKey, describe(clusters))
		}
		for i := 0; i+1 < len(clusters.Content); i += 2 {
			k, v := clusters.Content[i], resolve(clusters.Content[i+1])
			if k.Kind != yaml.ScalarNode {
				return TimakerCredentials{}, bad(k.Line, "%s: want a cluster's name, not %s", keyClusters, describe(k))
			}
			names = append(names, k.Value)
			if k.Value != name || name == "" {
				continue
			}
			where := keyClusters + "." + name
			if v.Kind != yaml.MappingNode {
				return TimakerCredentials{}, bad(v.Line, "%s: want %s: and %s: under it, not %s", where, fieldSecretID, fieldSecretKey, describe(v))
			}
			entry, err := secretFields(v, where+": ", bad)
			if err != nil {
				return TimakerCredentials{}, err
			}
			return secretPair(path, entry, k.Line, where+": ", bad)
		}
	}
	if fields[fieldSecretID] != nil || fields[fieldSecretKey] != nil {
		return secretPair(path, fields, root.Line, "", bad)
	}
	slices.Sort(names)
	there := "no cluster"
	if len(names) > 0 {
		there = "clusters " + strings.Join(names, ", ")
	}
	return TimakerCredentials{}, exit.UsageErrorf("credentials file %s holds no credentials for cluster %s (it has %s, and no top-level %s and %s)", path, name, there, fieldSecretID, fieldSecretKey)
}

// secretFields collects the fields of a mapping the credentials file
// knows (clusters at the top, the secret's), refusing one set twice;
// other fields are left alone.
func secretFields(m *yaml.Node, where string, bad func(int, string, ...any) error) (map[string]*yaml.Node, error) {
	out := map[string]*yaml.Node{}
	lines := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case keyClusters:
			if where != "" {
				continue
			}
		case fieldSecretID, fieldSecretKey:
		default:
			continue
		}
		if first, again := lines[k.Value]; again {
			return nil, bad(k.Line, "%s%s is also set on line %d", where, k.Value, first)
		}
		lines[k.Value] = k.Line
		out[k.Value] = resolve(m.Content[i+1])
	}
	return out, nil
}

// secretPair checks a secret id and key; line is where the pair starts.
func secretPair(path string, fields map[string]*yaml.Node, line int, where string, bad func(int, string, ...any) error) (TimakerCredentials, error) {
	var values [2]string
	for i, field := range []string{fieldSecretID, fieldSecretKey} {
		v := fields[field]
		if v == nil || isNull(v) {
			return TimakerCredentials{}, bad(line, "%s%s is missing (want both %s and %s)", where, field, fieldSecretID, fieldSecretKey)
		}
		if v.Kind != yaml.ScalarNode {
			return TimakerCredentials{}, bad(v.Line, "%s%s: want a single value, not %s", where, field, describe(v))
		}
		if err := checkSecret(v.Value); err != nil {
			return TimakerCredentials{}, bad(v.Line, "%s%s: %v", where, field, err)
		}
		values[i] = v.Value
	}
	return TimakerCredentials{SecretID: values[0], SecretKey: values[1], Source: path}, nil
}
