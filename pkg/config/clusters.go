package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Cluster is a timaker cluster the configuration names. The JSON names are
// the file's, so that what "easyai config view" prints can be written back.
type Cluster struct {
	Name string `json:"name"`
	// Type is the platform: "timaker", the only type today (a kubeconfig
	// context needs no entry).
	Type string `json:"type"`
	// Addr is the gateway's base URL, http(s)://host[:port][/path], without
	// a trailing slash.
	Addr string `json:"addr"`
	// Host is the Host header the gateway expects; empty: Addr's host.
	Host string `json:"host,omitempty"`
	// ProjectID is the TiProjectId, >= 1 (timaker's default project is 1).
	ProjectID int32 `json:"project-id"`
	// Uin is the user's id on timaker.
	Uin string `json:"uin"`
	// AppGroupID is the group whose resources are asked for; 0: ProjectID.
	AppGroupID int32 `json:"app-group-id,omitempty"`
	// CredentialsFile holds the secret id and key (LoadTimakerCredentials);
	// empty: the default credentials file. When loaded it is an absolute
	// path: "~/" is the home directory, and a relative path is relative to
	// the configuration file's directory.
	CredentialsFile string `json:"credentials-file,omitempty"`
}

// ClusterTypeTimaker is the type of a timaker cluster.
const ClusterTypeTimaker = "timaker"

// ClusterTypes are the types a cluster may have.
var ClusterTypes = []string{ClusterTypeTimaker}

// keyClusters is the file's map of clusters: not a key "config set" takes,
// but set-cluster, get-clusters and delete-cluster's.
const keyClusters = "clusters"

// The fields of a cluster in the file; set-cluster's flags have the same
// names.
const (
	FieldType            = "type"
	FieldAddr            = "addr"
	FieldHost            = "host"
	FieldProjectID       = "project-id"
	FieldUin             = "uin"
	FieldAppGroupID      = "app-group-id"
	FieldCredentialsFile = "credentials-file"
	// fieldName may repeat the entry's key (as "config view" prints it).
	fieldName = "name"
)

// ClusterFields are the fields of a cluster, in the order set-cluster
// writes them.
var ClusterFields = []string{FieldType, FieldAddr, FieldHost, FieldProjectID, FieldUin, FieldAppGroupID, FieldCredentialsFile}

// requiredFields are the fields every cluster has.
var requiredFields = []string{FieldType, FieldAddr, FieldProjectID, FieldUin}

// ClusterNames returns the names of the configured clusters, sorted.
func (c *Config) ClusterNames() []string {
	return slices.Sorted(maps.Keys(c.Clusters))
}

// LookupCluster returns the cluster called name; "" is the default
// cluster (the "cluster" setting). An unknown name, or none at all, is a
// usage error (exit 2) naming the configured clusters.
func (c *Config) LookupCluster(name string) (Cluster, error) {
	if name == "" {
		name = c.Cluster
	}
	if name == "" {
		return Cluster{}, exit.WithHint(exit.UsageErrorf("no cluster named, and no default cluster (the %s setting) in %s", KeyCluster, c.Path), c.knownClusters())
	}
	cl, ok := c.Clusters[name]
	if !ok {
		return Cluster{}, exit.WithHint(exit.UsageErrorf("unknown cluster %q: %s", name, c.clusterList()), c.knownClusters())
	}
	return cl, nil
}

// clusterList says which clusters the configuration has, for messages.
func (c *Config) clusterList() string {
	if len(c.Clusters) == 0 {
		return "no cluster is configured in " + c.Path
	}
	return "the clusters configured in " + c.Path + " are " + strings.Join(c.ClusterNames(), ", ")
}

func (c *Config) knownClusters() string {
	return "easyai config get-clusters lists the clusters, easyai config set-cluster NAME --type timaker --addr URL --project-id N --uin UIN adds one"
}

// CheckClusterName checks a cluster's name: a DNS-1123 label.
func CheckClusterName(name string) error {
	if len(validation.IsDNS1123Label(name)) > 0 {
		return errors.New("not a cluster name: at most 63 lower-case letters, digits or '-', starting and ending with a letter or digit (e.g. prod, ti-gz)")
	}
	return nil
}

// uinPattern is what a timaker user id may hold (usually digits).
var uinPattern = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)

// CheckClusterField checks the value of a cluster's field given as text
// (set-cluster's flags, the file's values) and returns it as stored: addr
// without a trailing slash, the others as given. An empty value is
// refused for the fields every cluster has. The error says what is wrong
// and the form expected; the caller names the flag or the file's line.
func CheckClusterField(field, raw string) (string, error) {
	if raw == "" {
		if slices.Contains(requiredFields, field) {
			return "", fmt.Errorf(`"": a cluster needs its %s`, listAnd(requiredFields))
		}
		return "", nil
	}
	switch field {
	case FieldType:
		if !slices.Contains(ClusterTypes, raw) {
			return "", fmt.Errorf("%q: the only cluster type is %s (a Kubernetes cluster is a kubeconfig context and needs no entry)", raw, strings.Join(ClusterTypes, ", "))
		}
	case FieldAddr:
		return checkAddr(raw)
	case FieldHost:
		if err := checkHost(raw); err != nil {
			return "", err
		}
	case FieldProjectID:
		if _, err := parseID(raw, 1); err != nil {
			return "", fmt.Errorf("%q: %v (timaker's default project is 1)", raw, err)
		}
	case FieldAppGroupID:
		if _, err := parseID(raw, 0); err != nil {
			return "", fmt.Errorf("%q: %v (0: the project id)", raw, err)
		}
	case FieldUin:
		if !uinPattern.MatchString(raw) {
			return "", fmt.Errorf("%q: want the user's id on timaker: digits, letters, '_' or '-'", raw)
		}
	case FieldCredentialsFile:
		if strings.ContainsAny(raw, "\x00\n\r") {
			return "", fmt.Errorf("%q: not a file path", raw)
		}
	default:
		return "", fmt.Errorf("unknown field %q (known fields: %s)", field, strings.Join(ClusterFields, ", "))
	}
	return raw, nil
}

// parseID reads a whole number from least to the largest int32.
func parseID(raw string, least int64) (int32, error) {
	n, err := strconv.ParseInt(raw, 10, 32)
	if err != nil || n < least {
		return 0, fmt.Errorf("want a whole number from %d to %d", least, int32(^uint32(0)>>1))
	}
	return int32(n), nil
}

// checkAddr checks the gateway's URL: http or https, a host, an optional
// port and path; no user, query or fragment.
func checkAddr(raw string) (string, error) {
	const form = "want the gateway's URL: http(s)://HOST[:PORT][/PATH] (e.g. https://ti.example.com)"
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" || u.Opaque != "" {
		return "", fmt.Errorf("%q: %s", raw, form)
	}
	switch {
	case u.User != nil:
		return "", fmt.Errorf("%q: a user in the URL is not allowed: credentials come from the environment or the credentials file", raw)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(raw, "#"):
		return "", fmt.Errorf("%q: no query or fragment: %s", raw, form)
	}
	if err := checkHost(u.Host); err != nil {
		return "", fmt.Errorf("%q: %v", raw, err)
	}
	return strings.TrimRight(raw, "/"), nil
}

// checkHost checks a Host header: a DNS name or an IP address, and an
// optional port.
func checkHost(host string) error {
	name, port := host, ""
	if h, p, err := net.SplitHostPort(host); err == nil {
		name, port = h, p
	} else if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") {
		name = host[1 : len(host)-1]
	}
	if strings.Contains(host, "/") || (net.ParseIP(name) == nil && len(validation.IsDNS1123Subdomain(strings.ToLower(name))) > 0) {
		return fmt.Errorf("%q: want a host name or an IP address, and an optional :PORT (e.g. ti.example.com)", host)
	}
	if port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q: the port must be a number from 1 to 65535", host)
		}
	}
	return nil
}

// expandHome replaces a leading "~/" with the home directory.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// clusterEntry reads one cluster of the file's map; dir resolves a
// relative credentials file. It returns the cluster, warnings for the
// fields easyai does not know, and the line of a bad value.
func (f file) clusterEntry(k, v *yaml.Node, dir string) (Cluster, []string, int, error) {
	name := k.Value
	where := "clusters." + name
	if err := CheckClusterName(name); err != nil {
		return Cluster{}, nil, k.Line, fmt.Errorf("clusters: %q: %v", name, err)
	}
	if v.Kind != yaml.MappingNode {
		return Cluster{}, nil, v.Line, fmt.Errorf("%s: want FIELD: VALUE lines under it (%s), not %s", where, strings.Join(requiredFields, ", "), describe(v))
	}
	cl := Cluster{Name: name}
	var warnings []string
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		fk, fv := v.Content[i], resolve(v.Content[i+1])
		field := fk.Value
		if fk.Kind != yaml.ScalarNode || (field != fieldName && !slices.Contains(ClusterFields, field)) {
			warnings = append(warnings, f.unknownField(where, fk))
			continue
		}
		if first, again := seen[field]; again {
			return Cluster{}, nil, fk.Line, fmt.Errorf("%s: %s is also set on line %d", where, field, first)
		}
		seen[field] = fk.Line
		if isNull(fv) {
			continue
		}
		if fv.Kind != yaml.ScalarNode {
			return Cluster{}, nil, fv.Line, fmt.Errorf("%s: %s: want a single value, not %s", where, field, describe(fv))
		}
		if field == fieldName {
			if fv.Value != name {
				return Cluster{}, nil, fv.Line, fmt.Errorf("%s: name %q: the name is the entry's key (%s); leave it out", where, fv.Value, name)
			}
			continue
		}
		value, err := CheckClusterField(field, fv.Value)
		if err != nil {
			return Cluster{}, nil, fv.Line, fmt.Errorf("%s: %s %v", where, field, err)
		}
		cl.setField(field, value, dir)
	}
	var missing []string
	for _, field := range requiredFields {
		if _, ok := seen[field]; !ok || cl.field(field) == "" {
			missing = append(missing, field)
		}
	}
	if len(missing) > 0 {
		return Cluster{}, nil, k.Line, fmt.Errorf("%s: %s missing (every cluster has %s)", where, listAnd(missing), listAnd(requiredFields))
	}
	return cl, warnings, 0, nil
}

func (f file) unknownField(where string, k *yaml.Node) string {
	if k.Kind != yaml.ScalarNode {
		return fmt.Sprintf("%s: line %d: %s: %s as a field is ignored (known fields: %s)", f.name(), k.Line, where, describe(k), strings.Join(ClusterFields, ", "))
	}
	msg := fmt.Sprintf("%s: line %d: %s: unknown field %q is ignored", f.name(), k.Line, where, k.Value)
	if near := nearest(k.Value, ClusterFields); near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + " (known fields: " + strings.Join(ClusterFields, ", ") + ")"
}

// setField stores a checked value; dir resolves a relative credentials
// file (the configuration file's directory).
func (cl *Cluster) setField(field, value, dir string) {
	switch field {
	case FieldType:
		cl.Type = value
	case FieldAddr:
		cl.Addr = value
	case FieldHost:
		cl.Host = value
	case FieldProjectID:
		id, _ := parseID(value, 1)
		cl.ProjectID = id
	case FieldUin:
		cl.Uin = value
	case FieldAppGroupID:
		id, _ := parseID(value, 0)
		cl.AppGroupID = id
	case FieldCredentialsFile:
		path := expandHome(value)
		if path != "" && !filepath.IsAbs(path) && dir != "" {
			path = filepath.Join(dir, path)
		}
		cl.CredentialsFile = path
	}
}

// field is a field's value as text; "" when it has none.
func (cl *Cluster) field(field string) string {
	switch field {
	case FieldType:
		return cl.Type
	case FieldAddr:
		return cl.Addr
	case FieldHost:
		return cl.Host
	case FieldProjectID:
		if cl.ProjectID == 0 {
			return ""
		}
		return strconv.Itoa(int(cl.ProjectID))
	case FieldUin:
		return cl.Uin
	case FieldAppGroupID:
		if cl.AppGroupID == 0 {
			return ""
		}
		return strconv.Itoa(int(cl.AppGroupID))
	case FieldCredentialsFile:
		return cl.CredentialsFile
	}
	return ""
}

// listAnd writes "a, b and c".
func listAnd(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}

// clusters reads the file's map of clusters; dir resolves relative
// credentials files.
func (f file) clusters(v *yaml.Node, dir string) (map[string]Cluster, []string, int, error) {
	if isNull(v) {
		return nil, nil, 0, nil
	}
	if v.Kind != yaml.MappingNode {
		return nil, nil, v.Line, fmt.Errorf("clusters: want NAME: followed by the cluster's fields under it, not %s", describe(v))
	}
	out := map[string]Cluster{}
	var warnings []string
	lines := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, cv := v.Content[i], resolve(v.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			return nil, nil, k.Line, fmt.Errorf("clusters: want a cluster's name, not %s", describe(k))
		}
		if first, again := lines[k.Value]; again {
			return nil, nil, k.Line, fmt.Errorf("clusters: %s is also set on line %d", k.Value, first)
		}
		lines[k.Value] = k.Line
		cl, w, line, err := f.clusterEntry(k, cv, dir)
		if err != nil {
			return nil, nil, line, err
		}
		out[cl.Name] = cl
		warnings = append(warnings, w...)
	}
	return out, warnings, 0, nil
}

// badCluster is a bad cluster in the file: set-cluster repairs it,
// delete-cluster removes it.
func (f file) badCluster(line int, err error) error {
	return exit.WithHint(exit.UsageErrorf("%s: line %d: %v", f.name(), line, err),
		fmt.Sprintf("%[1]s config set-cluster NAME --FIELD VALUE repairs a cluster, %[1]s config delete-cluster NAME removes it", f.command()))
}

// clustersNode returns the value of the file's first "clusters" key, and
// its index among the root's content; nil, -1 without one.
func clustersNode(doc *yaml.Node) (*yaml.Node, int) {
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == keyClusters {
			return resolve(root.Content[i+1]), i
		}
	}
	return nil, -1
}

// entryIndex is the index of the key name in a mapping, or -1.
func entryIndex(m *yaml.Node, name string) int {
	if m == nil || m.Kind != yaml.MappingNode {
		return -1
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == name {
			return i
		}
	}
	return -1
}

// namesIn lists the keys of the file's clusters, however bad their fields.
func namesIn(doc *yaml.Node) []string {
	var names []string
	if m, _ := clustersNode(doc); m != nil && m.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(m.Content); i += 2 {
			if k := m.Content[i]; k.Kind == yaml.ScalarNode {
				names = append(names, k.Value)
			}
		}
	}
	slices.Sort(names)
	return names
}

// ClusterNames lists the clusters the configuration file (configFlag, or
// the default file) names, without checking them: for completion. A file
// that cannot be read names none.
func ClusterNames(configFlag string) []string {
	doc, _, err := fileFor(configFlag).edit()
	if err != nil {
		return nil
	}
	return namesIn(doc)
}

// SetCluster creates or changes the cluster name in the configuration
// file, keeping the rest of the file. fields holds the values given, by
// field (set-cluster's flags have the fields' names): only those change an
// existing cluster; an empty value removes an optional field ("0" too, for
// app-group-id). A new cluster needs every required field. The cluster
// written is checked as Load checks it; errors name the flags. created
// says whether the file had no such cluster.
func SetCluster(configFlag, name string, fields map[string]string) (path string, created bool, err error) {
	if err := CheckClusterName(name); err != nil {
		return "", false, exit.UsageErrorf("cluster %q: %v", name, err)
	}
	for _, field := range slices.Sorted(maps.Keys(fields)) {
		if _, err := CheckClusterField(field, fields[field]); err != nil {
			return "", false, exit.UsageErrorf("--%s %v", field, err)
		}
	}
	f := fileFor(configFlag)
	doc, _, err := f.edit()
	if err != nil {
		return "", false, err
	}
	clusters, err := f.clustersToEdit(doc)
	if err != nil {
		return "", false, err
	}
	entry, created, err := f.entryToEdit(clusters, name)
	if err != nil {
		return "", false, err
	}
	if created {
		if err := checkRequired(fields); err != nil {
			return "", false, err
		}
	}
	for _, field := range ClusterFields {
		if raw, given := fields[field]; given {
			value, _ := CheckClusterField(field, raw)
			setEntryField(entry, field, value)
		}
	}
	// What is written must load: a field the file held may be bad.
	k := &yaml.Node{Kind: yaml.ScalarNode, Value: name}
	if _, _, line, err := f.clusterEntry(k, entry, ""); err != nil {
		why := strings.TrimPrefix(err.Error(), "clusters."+name+": ")
		if line > 0 {
			why = fmt.Sprintf("%s: line %d: %s", f.name(), line, why)
		}
		return "", false, exit.WithHint(exit.UsageErrorf("cluster %s: %s", name, why),
			"give the field's flag to replace it (easyai config set-cluster "+name+" --help lists them)")
	}
	return f.path, created, f.write(doc)
}

// clustersToEdit is the map of clusters in doc, added when the file has
// none; an error when it is set twice or is no map.
func (f file) clustersToEdit(doc *yaml.Node) (*yaml.Node, error) {
	root := doc.Content[0]
	clusters, at := clustersNode(doc)
	if at >= 0 && slices.ContainsFunc(root.Content[at+2:], func(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Value == keyClusters }) {
		return nil, f.unreadable("clusters is set twice: keep one map of clusters")
	}
	switch {
	case clusters == nil:
		clusters = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: keyClusters}, clusters)
	case isNull(clusters):
		*clusters = yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: clusters.LineComment, HeadComment: clusters.HeadComment}
	case clusters.Kind != yaml.MappingNode:
		return nil, f.unreadable(fmt.Sprintf("line %d: clusters: want NAME: followed by the cluster's fields under it, not %s", clusters.Line, describe(clusters)))
	}
	return clusters, nil
}

// entryToEdit is the cluster name's map in clusters; created when there
// was none (or not a map), and it was added.
func (f file) entryToEdit(clusters *yaml.Node, name string) (entry *yaml.Node, created bool, err error) {
	i := entryIndex(clusters, name)
	if i < 0 {
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		clusters.Content = append(clusters.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: name}, entry)
		return entry, true, nil
	}
	if entryIndex(&yaml.Node{Kind: yaml.MappingNode, Content: clusters.Content[i+2:]}, name) >= 0 {
		return nil, false, f.unreadable(fmt.Sprintf("clusters: %s is set twice: keep one", name))
	}
	entry = resolve(clusters.Content[i+1])
	if entry.Kind != yaml.MappingNode {
		// Not a cluster yet (empty, or a value of the wrong form): a new one.
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", LineComment: clusters.Content[i+1].LineComment}
		clusters.Content[i+1] = entry
		return entry, true, nil
	}
	return entry, false, nil
}

// checkRequired is an error naming the required fields a new cluster lacks.
func checkRequired(fields map[string]string) error {
	var missing []string
	for _, field := range requiredFields {
		if fields[field] == "" {
			missing = append(missing, "--"+field)
		}
	}
	if len(missing) > 0 {
		return exit.UsageErrorf("a new cluster needs --%s (missing: %s)", strings.Join(requiredFields, ", --"), strings.Join(missing, ", "))
	}
	return nil
}

// setEntryField writes one field of a cluster: replaces its value (the
// first key; a repeated one goes), appends it, or removes it when empty
// ("0" for app-group-id).
func setEntryField(entry *yaml.Node, field, value string) {
	if value == "" || (field == FieldAppGroupID && value == "0") {
		setKey(entry, field, nil, func(i int) { removeEntry(entry, i) })
		return
	}
	node := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value}
	if field == FieldProjectID || field == FieldAppGroupID {
		node.Tag = "!!int"
	}
	if !setKey(entry, field, node, func(i int) { removeEntry(entry, i) }) {
		entry.Content = slices.Insert(entry.Content, fieldPosition(entry, field), &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: field}, node)
	}
}

// fieldPosition is where a new field goes among an entry's: after the
// fields that come before it in ClusterFields, so that a file edited by
// set-cluster reads as one it wrote.
func fieldPosition(entry *yaml.Node, field string) int {
	rank := slices.Index(ClusterFields, field)
	at := 0
	for i := 0; i+1 < len(entry.Content); i += 2 {
		if k := entry.Content[i]; k.Kind == yaml.ScalarNode {
			if r := slices.Index(ClusterFields, k.Value); r >= 0 && r < rank {
				at = i + 2
			}
		}
	}
	return at
}

// removeEntry removes the i-th key of a nested mapping and its value; the
// comment above the key goes with it, one below it stays. It returns what
// is left of the comments when the mapping has no other key to hold them.
func removeEntry(m *yaml.Node, i int) (orphan string) {
	key := m.Content[i]
	m.Content = slices.Delete(m.Content, i, i+2)
	keep := key.FootComment
	switch {
	case keep == "":
	case i < len(m.Content):
		m.Content[i].HeadComment = joinComments(keep, m.Content[i].HeadComment)
	case i > 0:
		m.Content[i-2].FootComment = joinComments(m.Content[i-2].FootComment, keep)
	default:
		return keep
	}
	return ""
}

// DeleteCluster removes the cluster name from the configuration file,
// keeping the rest of it; a cluster the file does not hold is not found
// (exit 3). When the file's "cluster" setting named it, that goes too, and
// clearedDefault says so. The map of clusters goes when it is left empty.
func DeleteCluster(configFlag, name string) (path string, clearedDefault bool, err error) {
	f := fileFor(configFlag)
	doc, err := f.editExisting()
	if err != nil {
		return "", false, err
	}
	clusters, at := clustersNode(doc)
	i := entryIndex(clusters, name)
	if i < 0 {
		known := "no cluster is configured there"
		if names := namesIn(doc); len(names) > 0 {
			known = "the clusters there are " + strings.Join(names, ", ")
		}
		return "", false, exit.NotFoundErrorf("no cluster %q in %s: %s", name, f.name(), known)
	}
	for i >= 0 {
		orphan := removeEntry(clusters, i)
		if len(clusters.Content) == 0 {
			root := doc.Content[0]
			root.Content[at].FootComment = joinComments(root.Content[at].FootComment, orphan)
			removePair(doc, at)
			break
		}
		i = entryIndex(clusters, name)
	}
	root := doc.Content[0]
	for j := 0; j+1 < len(root.Content); {
		k, v := root.Content[j], resolve(root.Content[j+1])
		if k.Kind == yaml.ScalarNode && k.Value == KeyCluster && v.Kind == yaml.ScalarNode && v.Value == name {
			removePair(doc, j)
			clearedDefault = true
			continue
		}
		j += 2
	}
	return f.path, clearedDefault, f.write(doc)
}
