package timaker

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
)

// redacted stands for a secret wherever one would be printed.
const redacted = "[redacted]"

// Credentials sign requests. Printing them (with any fmt verb, as JSON or
// through slog) shows the secret id but never the secret key.
type Credentials struct {
	SecretID  string
	SecretKey string
}

func (c Credentials) redactedKey() string {
	if c.SecretKey == "" {
		return ""
	}
	return redacted
}

func (c Credentials) String() string {
	return "{" + c.SecretID + " " + c.redactedKey() + "}"
}

func (c Credentials) GoString() string {
	return fmt.Sprintf("timaker.Credentials{SecretID:%q, SecretKey:%q}", c.SecretID, c.redactedKey())
}

// Format prints the credentials as %v, %+v and %#v print a struct, the key
// redacted; other verbs print the %v form.
func (c Credentials) Format(f fmt.State, verb rune) {
	switch {
	case verb == 'v' && f.Flag('#'):
		fmt.Fprint(f, c.GoString())
	case verb == 'v' && f.Flag('+'):
		fmt.Fprintf(f, "{SecretID:%s SecretKey:%s}", c.SecretID, c.redactedKey())
	case verb == 'q':
		fmt.Fprintf(f, "%q", c.String())
	default:
		fmt.Fprint(f, c.String())
	}
}

// MarshalJSON writes the credentials with the key redacted.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct{ SecretID, SecretKey string }{c.SecretID, c.redactedKey()})
}

// LogValue is what slog logs for the credentials.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(slog.String("SecretID", c.SecretID), slog.String("SecretKey", c.redactedKey()))
}

// fileSystemDataSourceFields prints like FileSystemDataSource, without
// its Format method.
type fileSystemDataSourceFields FileSystemDataSource

// Format prints the data source as fmt would, its SecretKey redacted.
func (d FileSystemDataSource) Format(f fmt.State, verb rune) {
	shown := fileSystemDataSourceFields(d)
	if shown.SecretKey != "" {
		shown.SecretKey = redacted
	}
	s := fmt.Sprintf(fmt.FormatString(f, verb), shown)
	fmt.Fprint(f, strings.Replace(s, "timaker.fileSystemDataSourceFields", "timaker.FileSystemDataSource", 1))
}

// secretName matches the names of environment variables whose values are
// likely secrets.
var secretName = regexp.MustCompile(`(?i)(secret|password|passwd|token|credential|api_?key|access_?key|private_?key)`)

// redactBody is a JSON body for the logs: the values of SecretKey keys,
// and of environment variables named like secrets, replaced. A body that
// is not JSON is quoted, cut at 4 KiB.
func redactBody(body []byte) string {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		if len(body) > 4096 {
			return fmt.Sprintf("%q...", body[:4096])
		}
		return fmt.Sprintf("%q", body)
	}
	out, err := json.Marshal(redactValue(v))
	if err != nil {
		return redacted
	}
	return string(out)
}

func redactValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if name, ok := v["Name"].(string); ok && secretName.MatchString(name) {
			if _, ok := v["Value"]; ok {
				v["Value"] = redacted
			}
		}
		for k, x := range v {
			if strings.EqualFold(k, "SecretKey") {
				v[k] = redacted
				continue
			}
			v[k] = redactValue(x)
		}
	case []any:
		for i, x := range v {
			v[i] = redactValue(x)
		}
	}
	return v
}
