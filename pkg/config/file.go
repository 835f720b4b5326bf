package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/userfile"
)

// file is the configuration file: the default one, or the one --config names.
type file struct {
	path string
	// explicit is a file named with --config: reading it, it must exist.
	explicit bool
}

func fileFor(configFlag string) file {
	if configFlag == "" {
		return file{path: DefaultPath()}
	}
	return file{path: configFlag, explicit: true}
}

// what is how messages name the file before its path.
func (f file) what() string {
	if f.explicit {
		return "--config"
	}
	return "configuration file"
}

// name is how messages name the file: "--config ./team.yaml".
func (f file) name() string { return f.what() + " " + f.path }

// command is how hints start a command on this file.
func (f file) command() string {
	if f.explicit {
		return "easyai --config " + f.path
	}
	return "easyai"
}

// read returns the file's content, bounded (--config /dev/zero fails at
// once); exists is false for a missing file.
func (f file) read() (data []byte, exists bool, err error) {
	if _, err := os.Stat(f.path); errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err := userfile.CheckRegular(f.what(), f.path, userfile.ConfigLimit); err != nil {
		return nil, true, err
	}
	data, err = userfile.Read(context.Background(), f.what(), f.path, userfile.ConfigLimit, nil)
	return data, true, err
}

// missing is the error for a --config file that does not exist.
func (f file) missing() error {
	return exit.WithHint(exit.UsageErrorf("%s: no such file", f.name()),
		fmt.Sprintf("create it with: %s config set KEY VALUE", f.command()))
}

// document parses data into its YAML tree: a document whose content is
// one mapping (made empty for an empty file). A file that does not parse,
// or is not a mapping, is a usage error naming the file and the line.
func (f file) document(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, f.unreadable(strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if doc.Kind != yaml.DocumentNode {
		doc = yaml.Node{Kind: yaml.DocumentNode}
	}
	if len(doc.Content) == 0 || isNull(doc.Content[0]) {
		doc.Content = []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}
	}
	if root := doc.Content[0]; root.Kind != yaml.MappingNode {
		return nil, f.unreadable(fmt.Sprintf("line %d: want KEY: VALUE lines (e.g. image: pytorch/pytorch:2.4), not %s", root.Line, describe(root)))
	}
	return &doc, nil
}

// unreadable is a file that does not parse: easyai config set and unset
// cannot change it either, since they keep the rest of the file.
func (f file) unreadable(why string) error {
	return exit.WithHint(exit.UsageErrorf("%s: %s", f.name(), why),
		fmt.Sprintf("fix the file in an editor, or move it away: %s config set writes a new one", f.command()))
}

// settings is what a parsed file holds: each known key's checked value,
// and a warning for each key easyai does not know.
type settings struct {
	values map[string]any
	// lines are where each key is set.
	lines    map[string]int
	clusters map[string]Cluster
	warnings []string
}

// settings parses data and checks every value; an error names the file,
// the line and the key, and hints at the commands that repair it.
func (f file) settings(data []byte) (*settings, error) {
	doc, err := f.document(data)
	if err != nil {
		return nil, err
	}
	root := doc.Content[0]
	s := &settings{values: map[string]any{}, lines: map[string]int{}}
	seen := s.lines
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], resolve(root.Content[i+1])
		key := k.Value
		if _, known := Keys[key]; (!known && key != keyClusters) || k.Kind != yaml.ScalarNode {
			s.warnings = append(s.warnings, f.unknownKey(k))
			continue
		}
		if first, again := seen[key]; again {
			if key == keyClusters {
				return nil, f.badCluster(k.Line, fmt.Errorf("clusters is also set on line %d: keep one map of clusters", first))
			}
			return nil, f.badValue(key, k.Line, fmt.Errorf("%s is also set on line %d", key, first))
		}
		seen[key] = k.Line
		if key == keyClusters {
			clusters, warnings, line, err := f.clusters(v, filepath.Dir(f.path))
			if err != nil {
				return nil, f.badCluster(line, err)
			}
			s.clusters = clusters
			s.warnings = append(s.warnings, warnings...)
			continue
		}
		value, line, err := fileValue(key, v)
		if err != nil {
			return nil, f.badValue(key, line, err)
		}
		if value != nil {
			s.values[key] = value
		}
	}
	return s, nil
}

func (f file) unknownKey(k *yaml.Node) string {
	known := strings.Join(fileKeys(), ", ")
	if k.Kind != yaml.ScalarNode {
		return fmt.Sprintf("%s: line %d: %s as a key is ignored (known keys: %s)", f.name(), k.Line, describe(k), known)
	}
	msg := fmt.Sprintf("%s: line %d: unknown key %q is ignored", f.name(), k.Line, k.Value)
	if near := nearest(k.Value, fileKeys()); near != "" {
		return msg + fmt.Sprintf(" (did you mean %q?)", near)
	}
	return msg + " (known keys: " + known + ")"
}

// fileKeys are the keys of the file: the settings and the clusters.
func fileKeys() []string {
	return slices.Sorted(slices.Values(append(KeyNames(), keyClusters)))
}

func (f file) badValue(key string, line int, err error) error {
	return exit.WithHint(exit.UsageErrorf("%s: line %d: %v", f.name(), line, err),
		fmt.Sprintf("%[1]s config set %[2]s VALUE replaces it, %[1]s config unset %[2]s removes it", f.command(), key))
}

// fileValue reads and checks the value of a known key in the file: a
// string, or the labels' map; nil for an empty value. line is where a
// bad value is.
func fileValue(key string, v *yaml.Node) (value any, line int, err error) {
	line = v.Line
	if isNull(v) {
		return nil, line, nil
	}
	if key != KeyLabels {
		if v.Kind != yaml.ScalarNode {
			return nil, line, fmt.Errorf("%s: want a string, not %s", key, describe(v))
		}
		if v.Value == "" {
			return nil, line, nil
		}
		if err := checkString(key, v.Value); err != nil {
			return nil, line, fmt.Errorf("%s%s: %v", key, quoted(key, v.Value), err)
		}
		return v.Value, line, nil
	}
	switch v.Kind {
	case yaml.ScalarNode:
		labels, err := ParseLabels(v.Value)
		if err != nil {
			return nil, line, fmt.Errorf("labels: %v", err)
		}
		return labels, line, nil
	case yaml.MappingNode:
		labels := map[string]string{}
		for i := 0; i+1 < len(v.Content); i += 2 {
			lk, lv := v.Content[i], resolve(v.Content[i+1])
			if lk.Kind != yaml.ScalarNode || lv.Kind != yaml.ScalarNode {
				bad := lv
				if lk.Kind != yaml.ScalarNode {
					bad = lk
				}
				return nil, lk.Line, fmt.Errorf("labels: want KEY: VALUE strings (e.g. team: vision), not %s", describe(bad))
			}
			value := lv.Value
			if isNull(lv) {
				value = ""
			}
			if err := checkLabel(lk.Value, value); err != nil {
				return nil, lk.Line, fmt.Errorf("labels: %v", err)
			}
			labels[lk.Value] = value
		}
		return labels, line, nil
	}
	return nil, line, fmt.Errorf("labels: want KEY: VALUE lines under it (e.g. team: vision), not %s", describe(v))
}

// resolve follows an alias (*anchor) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe names what a node is, for messages.
func describe(n *yaml.Node) string {
	switch resolve(n).Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a map"
	default:
		return "a single value"
	}
}

// edit reads the file for Set or Unset, which keep the rest of it:
// comments, order and keys easyai does not know. A missing file is an
// empty document.
func (f file) edit() (*yaml.Node, bool, error) {
	data, exists, err := f.read()
	if err != nil || !exists {
		doc, _ := f.document(nil)
		return doc, exists, err
	}
	doc, err := f.document(data)
	return doc, true, err
}

// editExisting is edit of a file that must exist when --config names it
// (a removal: there is nothing to remove from a file not there).
func (f file) editExisting() (*yaml.Node, error) {
	doc, exists, err := f.edit()
	switch {
	case err != nil:
		return nil, err
	case !exists && f.explicit:
		return nil, f.missing()
	}
	return doc, nil
}

// write replaces the file's content with doc.
func (f file) write(doc *yaml.Node) error {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	if !f.explicit {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return fmt.Errorf("writing %s: %w", f.name(), err)
		}
	}
	// Written in place, not renamed over: a file kept as a symlink (to a
	// dotfiles repository) stays one.
	if err := os.WriteFile(f.path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", f.name(), err)
	}
	return nil
}

// Set writes key into the configuration file (configFlag, or the default
// file), keeping the rest of it, and returns the file's path. The value is
// given and checked as on the command line (labels as "k=v,k2=v2"); a
// missing file is created. The file's other values are not checked: Set
// is how a bad one is repaired.
func Set(configFlag, key, raw string) (path string, err error) {
	if err := CheckKey(key); err != nil {
		return "", err
	}
	value, err := ParseValue(key, raw)
	if err != nil {
		return "", exit.UsageErrorf("%s%s: %v", key, quoted(key, raw), err)
	}
	f := fileFor(configFlag)
	doc, _, err := f.edit()
	if err != nil {
		return "", err
	}
	if names := namesIn(doc); key == KeyCluster && !slices.Contains(names, raw) {
		known := "no cluster is configured there"
		if len(names) > 0 {
			known = "the clusters there are " + strings.Join(names, ", ")
		}
		return "", exit.WithHint(exit.UsageErrorf("cluster %q: no such cluster in %s: %s", raw, f.name(), known),
			fmt.Sprintf("add it first: %s config set-cluster %s --type timaker --addr URL --project-id N --uin UIN", f.command(), raw))
	}
	root := doc.Content[0]
	node := valueNode(value)
	// A key set twice: the first one now holds the value.
	if !setKey(root, key, node, func(i int) { removePair(doc, i) }) {
		root.Content = append(root.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, node)
	}
	return f.path, f.write(doc)
}

// Unset removes key from the configuration file, keeping the rest of it,
// and reports whether the file held it. A key easyai does not know can be
// removed too, if the file holds it. A --config file must exist.
func Unset(configFlag, key string) (path string, removed bool, err error) {
	f := fileFor(configFlag)
	doc, err := f.editExisting()
	if err != nil {
		return "", false, err
	}
	root := doc.Content[0]
	removed = setKey(root, key, nil, func(i int) { removePair(doc, i) })
	if !removed {
		return f.path, false, CheckKey(key)
	}
	return f.path, true, f.write(doc)
}

// setKey gives the first key named key of mapping m the value node (which
// keeps the old value's line comment) and has drop remove any later key of
// that name; a nil node has drop remove every one. It reports whether m
// held the key.
func setKey(m *yaml.Node, key string, node *yaml.Node, drop func(i int)) (held bool) {
	for i := 0; i+1 < len(m.Content); {
		if k := m.Content[i]; k.Kind != yaml.ScalarNode || k.Value != key {
			i += 2
			continue
		}
		if held || node == nil {
			drop(i)
			held = true
			continue
		}
		node.LineComment = m.Content[i+1].LineComment
		m.Content[i+1] = node
		held = true
		i += 2
	}
	return held
}

// removePair removes the i-th key of the document's mapping and its value.
// The comment right above a key goes with it, but the one above the first
// key is the file's own (a title) and stays, as does a comment below it.
func removePair(doc *yaml.Node, i int) {
	root := doc.Content[0]
	if i == 0 {
		// The comment above the file's first key is the file's: it stays.
		key := root.Content[0]
		key.FootComment = joinComments(key.HeadComment, key.FootComment)
	}
	if orphan := removeEntry(root, i); orphan != "" {
		doc.HeadComment = joinComments(doc.HeadComment, orphan)
	}
}

func joinComments(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "\n" + b
}

// valueNode is a checked value as YAML: a string, or a map with sorted keys.
func valueNode(value any) *yaml.Node {
	if s, ok := value.(string); ok {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	}
	labels := value.(map[string]string)
	node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		node.Content = append(node.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: labels[k]})
	}
	return node
}
