package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/printers"
)

const clustersFile = `# team settings
cluster: prod # the usual target
clusters:
  # production
  prod:
    type: timaker
    addr: https://ti.example.com/
    host: ti.example.com
    project-id: 3
    uin: "100012345"
  staging: {type: timaker, addr: "http://10.0.0.1:8080/ti", project-id: 1, uin: 42, app-group-id: 9, credentials-file: staging.yaml}
  home:
    type: timaker
    addr: https://ti.example.com:8443
    project-id: 2147483647
    uin: a_b-C
    credentials-file: ~/ti/credentials.yaml
`

// TestClustersInTheFile: every field of a cluster is read and checked;
// the default cluster is the "cluster" key, which EASYAI_CLUSTER
// overrides; a relative credentials file is relative to the file's
// directory, "~/" is the home directory.
func TestClustersInTheFile(t *testing.T) {
	clearEnv(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	path := write(t, clustersFile)
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Cluster{
		"prod":    {Name: "prod", Type: "timaker", Addr: "https://ti.example.com", Host: "ti.example.com", ProjectID: 3, Uin: "100012345"},
		"staging": {Name: "staging", Type: "timaker", Addr: "http://10.0.0.1:8080/ti", ProjectID: 1, Uin: "42", AppGroupID: 9, CredentialsFile: filepath.Join(filepath.Dir(path), "staging.yaml")},
		"home":    {Name: "home", Type: "timaker", Addr: "https://ti.example.com:8443", ProjectID: 2147483647, Uin: "a_b-C", CredentialsFile: filepath.Join(home, "ti", "credentials.yaml")},
	}
	if !reflect.DeepEqual(c.Clusters, want) || c.Cluster != "prod" || len(c.Warnings) != 0 {
		t.Errorf("clusters %+v\ndefault %q, warnings %q", c.Clusters, c.Cluster, c.Warnings)
	}
	if got, _ := c.Get(KeyCluster); got != "prod" {
		t.Errorf("Get cluster = %v", got)
	}
	if cl, err := c.LookupCluster(""); err != nil || cl != want["prod"] {
		t.Errorf("LookupCluster of the default: %+v %v", cl, err)
	}
	if cl, err := c.LookupCluster("staging"); err != nil || cl != want["staging"] {
		t.Errorf("LookupCluster staging: %+v %v", cl, err)
	}
	_, err = c.LookupCluster("prd")
	wantUsage(t, "LookupCluster prd", err, `unknown cluster "prd"`, "the clusters configured in "+path+" are home, prod, staging")
	if !strings.Contains(exit.Hint(err), "easyai config get-clusters") {
		t.Errorf("hint %q", exit.Hint(err))
	}
	_, err = (&Config{Path: path}).LookupCluster("")
	wantUsage(t, "LookupCluster without a default", err, "no cluster named, and no default cluster")
	_, err = (&Config{Path: path}).LookupCluster("prod")
	wantUsage(t, "LookupCluster without clusters", err, "no cluster is configured in "+path)

	t.Setenv("EASYAI_CLUSTER", "home")
	if c, err := Load(path); err != nil || c.Cluster != "home" {
		t.Errorf("EASYAI_CLUSTER=home: %+v %v", c, err)
	}
	t.Setenv("EASYAI_CLUSTER", "nope")
	_, err = Load(path)
	wantUsage(t, "EASYAI_CLUSTER=nope", err, `EASYAI_CLUSTER "nope": the clusters configured in `+path+" are home, prod, staging")
	t.Setenv("EASYAI_CLUSTER", "Bad_Name")
	_, err = Load(path)
	wantUsage(t, "EASYAI_CLUSTER=Bad_Name", err, `EASYAI_CLUSTER "Bad_Name": not a cluster name`)

	// "config view" prints what the file holds, under the file's names.
	t.Setenv("EASYAI_CLUSTER", "")
	c, _ = Load(path)
	var b strings.Builder
	if err := printers.YAML(&b, c.Clusters["prod"]); err != nil {
		t.Fatal(err)
	}
	if want := "addr: https://ti.example.com\nhost: ti.example.com\nname: prod\nproject-id: 3\ntype: timaker\nuin: \"100012345\"\n"; b.String() != want {
		t.Errorf("as YAML:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestBadClustersNameTheLine: a bad cluster, field or default is exit 2
// naming the file, the line and the field, with the commands that repair
// it.
func TestBadClustersNameTheLine(t *testing.T) {
	clearEnv(t)
	const ok = "    type: timaker\n    addr: https://ti.example.com\n    project-id: 1\n    uin: \"7\"\n"
	for _, tc := range []struct {
		content string
		want    []string
	}{
		{"clusters:\n  prod:\n    type: slurm\n    addr: https://a\n    project-id: 1\n    uin: \"7\"\n", []string{`line 3: clusters.prod: type "slurm": the only cluster type is timaker`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: ftp://a\n    project-id: 1\n    uin: \"7\"\n", []string{`line 4: clusters.prod: addr "ftp://a": want the gateway's URL`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://\n", []string{`line 4: clusters.prod: addr "https://": want the gateway's URL`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://u:p@ti.example.com\n", []string{`line 4: clusters.prod: addr`, "a user in the URL is not allowed"}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://ti.example.com/?a=b\n", []string{`line 4: clusters.prod: addr`, "no query or fragment"}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://ti.example.com:99999\n", []string{`line 4: clusters.prod: addr`, "the port must be a number from 1 to 65535"}},
		{"clusters:\n  prod:\n" + ok + "    host: a b\n", []string{`line 7: clusters.prod: host "a b": want a host name or an IP address`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: 0\n    uin: \"7\"\n", []string{`line 5: clusters.prod: project-id "0": want a whole number from 1 to 2147483647 (timaker's default project is 1)`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: 2147483648\n", []string{`line 5: clusters.prod: project-id "2147483648": want a whole number`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: three\n", []string{`line 5: clusters.prod: project-id "three"`}},
		{"clusters:\n  prod:\n" + ok + "    app-group-id: -1\n", []string{`line 7: clusters.prod: app-group-id "-1": want a whole number from 0 to 2147483647`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: 1\n    uin: 7 8\n", []string{`line 6: clusters.prod: uin "7 8": want the user's id on timaker`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: [1]\n", []string{`line 5: clusters.prod: project-id: want a single value, not a list`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    addr: https://b\n", []string{`line 5: clusters.prod: addr is also set on line 4`}},
		{"clusters:\n  prod:\n    type: timaker\n    addr: https://a\n", []string{`line 2: clusters.prod: project-id and uin missing (every cluster has type, addr, project-id and uin)`}},
		{"clusters:\n  prod:\n", []string{`line 2: clusters.prod: want FIELD: VALUE lines under it`}},
		{"clusters:\n  prod: https://a\n", []string{`line 2: clusters.prod: want FIELD: VALUE lines under it (type, addr, project-id, uin), not a single value`}},
		{"clusters:\n  Prod:\n" + ok, []string{`line 2: clusters: "Prod": not a cluster name`}},
		{"clusters:\n  prod:\n" + ok + "  prod:\n" + ok, []string{`line 7: clusters: prod is also set on line 2`}},
		{"clusters:\n  prod:\n" + ok + "    name: staging\n", []string{`line 7: clusters.prod: name "staging": the name is the entry's key (prod)`}},
		{"clusters: [prod]\n", []string{`line 1: clusters: want NAME: followed by the cluster's fields under it, not a list`}},
		{"clusters:\n  prod:\n" + ok + "clusters: {}\n", []string{`line 7: clusters is also set on line 1`}},
	} {
		path := write(t, tc.content)
		_, err := Load(path)
		wantUsage(t, tc.content, err, append(tc.want, "--config "+path+": ")...)
		if hint := exit.Hint(err); !strings.Contains(hint, "easyai --config "+path+" config set-cluster NAME") || !strings.Contains(hint, "config delete-cluster NAME") {
			t.Errorf("%q: hint %q", tc.content, hint)
		}
	}

	// A default that names no cluster: set or unset repairs it.
	for content, want := range map[string]string{
		"cluster: prod\n": `line 1: cluster "prod": no cluster is configured in `,
		"clusters:\n  staging:\n" + ok + "cluster: prod\n": `line 7: cluster "prod": the clusters configured in `,
		"cluster: Prod\n": `line 1: cluster "Prod": not a cluster name`,
	} {
		path := write(t, content)
		_, err := Load(path)
		wantUsage(t, content, err, "--config "+path+": "+want)
		if hint := exit.Hint(err); !strings.Contains(hint, "config set cluster VALUE") || !strings.Contains(hint, "config unset cluster") {
			t.Errorf("%q: hint %q", content, hint)
		}
	}
}

// TestUnknownClusterFieldsWarn: a field easyai does not know is ignored
// with a warning naming the file, the line and the field it probably means.
func TestUnknownClusterFieldsWarn(t *testing.T) {
	clearEnv(t)
	path := write(t, "clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    hots: a\n    project-id: 1\n    uin: \"7\"\n    zone: gz\n    name: prod\n")
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`--config ` + path + `: line 5: clusters.prod: unknown field "hots" is ignored (did you mean "host"?)`,
		`--config ` + path + `: line 8: clusters.prod: unknown field "zone" is ignored (known fields: type, addr, host, project-id, uin, app-group-id, credentials-file)`,
	}
	if !reflect.DeepEqual(c.Warnings, want) || c.Clusters["prod"].Host != "" {
		t.Errorf("warnings %q, clusters %+v", c.Warnings, c.Clusters)
	}
	c, err = Load(write(t, "clusers:\n  prod: {}\n"))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], `unknown key "clusers" is ignored (did you mean "clusters"?)`) {
		t.Errorf("a misspelt clusters: %q %v", c.Warnings, err)
	}
}

// TestSetTheDefaultCluster: "config set cluster NAME" needs NAME among the
// file's clusters; "clusters" is not a key of set, get or unset.
func TestSetTheDefaultCluster(t *testing.T) {
	clearEnv(t)
	path := write(t, clustersFile)
	if _, err := Set(path, KeyCluster, "home"); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.Cluster != "home" {
		t.Errorf("after set: %+v %v", c, err)
	}
	_, err := Set(path, KeyCluster, "nope")
	wantUsage(t, "set cluster nope", err, `cluster "nope": no such cluster in --config `+path+": the clusters there are home, prod, staging")
	if hint := exit.Hint(err); !strings.Contains(hint, "config set-cluster nope --type timaker") {
		t.Errorf("hint %q", hint)
	}
	_, err = Set(filepath.Join(t.TempDir(), "new.yaml"), KeyCluster, "prod")
	wantUsage(t, "set cluster in a new file", err, "no cluster is configured there")
	_, err = Set(path, KeyCluster, "Prod")
	wantUsage(t, "set cluster Prod", err, `cluster "Prod": not a cluster name`)
	for _, err := range []error{CheckKey("clusters"), func() error { _, err := Set(path, "clusters", "x"); return err }()} {
		wantUsage(t, "clusters as a key", err, "clusters is a map of clusters: easyai config set-cluster NAME")
	}
}

// TestSetClusterKeepsTheRestOfTheFile: set-cluster adds a cluster or
// changes the fields given, in the file's order, keeping comments and
// everything else; an empty value removes an optional field.
func TestSetClusterKeepsTheRestOfTheFile(t *testing.T) {
	clearEnv(t)
	path := write(t, `# team settings
image: tf:1 # the usual
clusters:
  # production
  prod:
    type: timaker
    addr: https://ti.example.com/ # the gateway
    # the project of the team
    project-id: 3
    uin: "100012345"
    zone: gz
# the end
`)
	_, created, err := SetCluster(path, "prod", map[string]string{"host": "ti.example.com", "uin": "100012346", "app-group-id": "7"})
	if err != nil || created {
		t.Fatalf("changing prod: %v %v", created, err)
	}
	_, created, err = SetCluster(path, "dev", map[string]string{"type": "timaker", "addr": "http://127.0.0.1:8080/", "project-id": "1", "uin": "42", "credentials-file": "~/dev.yaml"})
	if err != nil || !created {
		t.Fatalf("adding dev: %v %v", created, err)
	}
	want := `# team settings
image: tf:1 # the usual
clusters:
  # production
  prod:
    type: timaker
    addr: https://ti.example.com/ # the gateway
    host: ti.example.com
    # the project of the team
    project-id: 3
    uin: "100012346"
    app-group-id: 7
    zone: gz
  dev:
    type: timaker
    addr: http://127.0.0.1:8080
    project-id: 1
    uin: "42"
    credentials-file: ~/dev.yaml
# the end
`
	if got := read(t, path); got != want {
		t.Errorf("after set-cluster:\n%s\nwant:\n%s", got, want)
	}
	// Empty values (0 for app-group-id) remove optional fields.
	if _, _, err := SetCluster(path, "prod", map[string]string{"host": "", "app-group-id": "0", "addr": "https://ti2.example.com"}); err != nil {
		t.Fatal(err)
	}
	want = strings.Replace(want, "    addr: https://ti.example.com/ # the gateway\n    host: ti.example.com\n", "    addr: https://ti2.example.com # the gateway\n", 1)
	want = strings.Replace(want, "    app-group-id: 7\n", "", 1)
	if got := read(t, path); got != want {
		t.Errorf("after removing fields:\n%s\nwant:\n%s", got, want)
	}
	c, err := Load(path)
	if err != nil || c.Clusters["prod"].Addr != "https://ti2.example.com" || c.Clusters["dev"].Uin != "42" || len(c.Warnings) != 1 {
		t.Errorf("loaded: %+v %v", c, err)
	}

	// A new file, and a cluster that was only a name.
	path = filepath.Join(t.TempDir(), "new.yaml")
	if _, created, err := SetCluster(path, "prod", map[string]string{"type": "timaker", "addr": "https://a", "project-id": "1", "uin": "7"}); err != nil || !created {
		t.Fatalf("in a new file: %v %v", created, err)
	}
	if got, want := read(t, path), "clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: 1\n    uin: \"7\"\n"; got != want {
		t.Errorf("new file %q, want %q", got, want)
	}
	path = write(t, "clusters:\n  prod: # to do\n")
	if _, created, err := SetCluster(path, "prod", map[string]string{"type": "timaker", "addr": "https://a", "project-id": "1", "uin": "7"}); err != nil || !created {
		t.Fatalf("an empty entry: %v %v", created, err)
	}
	if c, err := Load(path); err != nil || c.Clusters["prod"].Uin != "7" {
		t.Errorf("an empty entry: %+v %v\n%s", c, err, read(t, path))
	}
}

// TestSetClusterChecksWhatItWrites: bad values name the flag; a new
// cluster needs every required field; a bad field the file holds is named
// with its line; nothing is written on an error.
func TestSetClusterChecksWhatItWrites(t *testing.T) {
	clearEnv(t)
	content := "clusters:\n  prod:\n    type: timaker\n    addr: https://a\n    project-id: 1\n    uin: 7 8\n"
	path := write(t, content)
	for _, tc := range []struct {
		name   string
		fields map[string]string
		want   []string
	}{
		{"Prod", map[string]string{"uin": "7"}, []string{`cluster "Prod": not a cluster name`}},
		{"prod", map[string]string{"addr": "ti.example.com"}, []string{`--addr "ti.example.com": want the gateway's URL: http(s)://HOST[:PORT][/PATH]`}},
		{"prod", map[string]string{"addr": ""}, []string{`--addr "": a cluster needs its type, addr, project-id and uin`}},
		{"prod", map[string]string{"project-id": "0"}, []string{`--project-id "0": want a whole number from 1`}},
		{"prod", map[string]string{"type": "k8s"}, []string{`--type "k8s": the only cluster type is timaker`}},
		{"prod", map[string]string{"uin": "a/b"}, []string{`--uin "a/b": want the user's id on timaker`}},
		{"prod", map[string]string{"host": "https://a"}, []string{`--host "https://a": want a host name`}},
		{"prod", map[string]string{"addr": "https://b"}, []string{"cluster prod: --config " + path + `: line 6: uin "7 8": want the user's id`, ""}},
		{"dev", map[string]string{"type": "timaker", "addr": "https://b"}, []string{"a new cluster needs --type, --addr, --project-id, --uin (missing: --project-id, --uin)"}},
	} {
		_, _, err := SetCluster(path, tc.name, tc.fields)
		wantUsage(t, tc.name+" "+strings.Join(tc.want, ""), err, tc.want...)
		if got := read(t, path); got != content {
			t.Fatalf("a failed set-cluster wrote %q", got)
		}
	}
	// Giving the bad field's flag repairs it.
	if _, _, err := SetCluster(path, "prod", map[string]string{"uin": "78"}); err != nil {
		t.Fatal(err)
	}
	if c, err := Load(path); err != nil || c.Clusters["prod"].Uin != "78" {
		t.Errorf("repaired: %+v %v", c, err)
	}
}

// TestDeleteCluster: delete-cluster removes the cluster and the comment
// above it, the default when it named it, and the map once empty; a
// cluster the file does not hold is exit 3.
func TestDeleteCluster(t *testing.T) {
	clearEnv(t)
	path := write(t, clustersFile)
	if _, cleared, err := DeleteCluster(path, "staging"); err != nil || cleared {
		t.Fatalf("delete staging: %v %v", cleared, err)
	}
	if _, cleared, err := DeleteCluster(path, "prod"); err != nil || !cleared {
		t.Fatalf("delete prod: %v %v", cleared, err)
	}
	want := "# team settings\nclusters:\n  home:\n    type: timaker\n    addr: https://ti.example.com:8443\n    project-id: 2147483647\n    uin: a_b-C\n    credentials-file: ~/ti/credentials.yaml\n"
	if got := read(t, path); got != want {
		t.Errorf("after delete:\n%s\nwant:\n%s", got, want)
	}
	_, _, err := DeleteCluster(path, "prod")
	if exit.Code(err) != exit.NotFound || err.Error() != `no cluster "prod" in --config `+path+": the clusters there are home" {
		t.Errorf("delete prod again: %v (exit %d)", err, exit.Code(err))
	}
	if _, _, err := DeleteCluster(path, "home"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, path); got != "# team settings\n\n{}\n" {
		t.Errorf("after deleting every cluster: %q", got)
	}
	_, _, err = DeleteCluster(path, "home")
	if exit.Code(err) != exit.NotFound || !strings.Contains(err.Error(), "no cluster is configured there") {
		t.Errorf("delete in a file without clusters: %v (exit %d)", err, exit.Code(err))
	}
	_, _, err = DeleteCluster(filepath.Join(t.TempDir(), "missing.yaml"), "home")
	wantUsage(t, "delete in a missing --config", err, "no such file")
	if ClusterNames(path) != nil || !reflect.DeepEqual(ClusterNames(write(t, "clusters:\n  b: x\n  a: {}\n")), []string{"a", "b"}) {
		t.Error("ClusterNames")
	}
}

// TestCredentialVariablesAreNotSettings: EASYAI_TIMAKER_SECRET_* are read
// only by LoadTimakerCredentials: no key is spelt as them, and Load
// leaves them alone.
func TestCredentialVariablesAreNotSettings(t *testing.T) {
	clearEnv(t)
	for _, key := range KeyNames() {
		if name := EnvName(key); name == EnvTimakerSecretID || name == EnvTimakerSecretKey || strings.HasPrefix(name, "EASYAI_TIMAKER_") {
			t.Errorf("the key %s is read from %s", key, name)
		}
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv(EnvTimakerSecretID, "id with spaces")
	t.Setenv(EnvTimakerSecretKey, "\n")
	if _, err := Load(""); err != nil {
		t.Errorf("Load read the credentials: %v", err)
	}
	if _, err := os.Stat(DefaultCredentialsPath()); !os.IsNotExist(err) {
		t.Errorf("credentials file: %v", err)
	}
}
