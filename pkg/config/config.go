// Package config reads and writes easyai's own settings: the file
// $XDG_CONFIG_HOME/easyai/config.yaml (or --config), overridden by EASYAI_*
// environment variables, overridden in turn by command flags.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/viper"
	"sigs.k8s.io/yaml"

	"github.com/easyai-dev/easyai/pkg/userfile"
)

// The keys easyai reads. EASYAI_<KEY> overrides each, with "-" as "_"
// (EASYAI_GPU_RESOURCE); labels in the environment are "k=v,k2=v2".
const (
	KeyImage         = "image"
	KeyGPUResource   = "gpu-resource"
	KeyQueue         = "queue"
	KeyPriorityClass = "priority-class"
	KeyLabels        = "labels"
	KeyFetcherImage  = "fetcher-image"
)

// Keys lists every key with what it means, for help and validation.
var Keys = map[string]string{
	KeyImage:         "image of jobs submitted without --image",
	KeyGPUResource:   "the extended resource GPUs are requested as",
	KeyQueue:         "queue of jobs submitted without --queue (Volcano queue for gang scheduling)",
	KeyPriorityClass: "priority class of jobs submitted without --priority",
	KeyLabels:        "labels added to every job (a map; on the command line k=v,k2=v2)",
	KeyFetcherImage:  "image of download's fetcher pod without --fetcher-image (e.g. a mirror, or pinned by digest)",
}

// DefaultGPUResource is the GPU resource of NVIDIA's device plugin.
const DefaultGPUResource = "nvidia.com/gpu"

// Config is easyai's resolved configuration.
type Config struct {
	Image         string            `json:"image,omitempty"`
	GPUResource   string            `json:"gpu-resource"`
	Queue         string            `json:"queue,omitempty"`
	PriorityClass string            `json:"priority-class,omitempty"`
	Labels        map[string]string `json:"labels,omitempty"`
	FetcherImage  string            `json:"fetcher-image,omitempty"`

	// Path is the file the configuration was read from (and is written to).
	Path string `json:"-"`
}

// DefaultPath is $XDG_CONFIG_HOME/easyai/config.yaml (~/.config/... when unset).
func DefaultPath() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".config")
		}
	}
	return filepath.Join(dir, "easyai", "config.yaml")
}

func newViper(path string) *viper.Viper {
	v := viper.New()
	v.SetConfigFile(path)
	v.SetConfigType("yaml")
	v.SetEnvPrefix("EASYAI")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	v.SetDefault(KeyGPUResource, DefaultGPUResource)
	return v
}

// Load reads the configuration at path ("" for the default path). A missing
// file is an empty configuration, not an error.
func Load(path string) (*Config, error) {
	if path == "" {
		path = DefaultPath()
	}
	v := newViper(path)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	if data != nil {
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("reading %s: %w", path, err)
		}
	}
	labels, err := labelsOf(v)
	if err != nil {
		return nil, err
	}
	return &Config{
		Image:         v.GetString(KeyImage),
		GPUResource:   v.GetString(KeyGPUResource),
		Queue:         v.GetString(KeyQueue),
		PriorityClass: v.GetString(KeyPriorityClass),
		Labels:        labels,
		FetcherImage:  v.GetString(KeyFetcherImage),
		Path:          path,
	}, nil
}

// readFile reads the configuration file, bounded (--config /dev/zero would
// be read without end): nil for a missing file.
func readFile(path string) ([]byte, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := userfile.CheckRegular("--config", path, userfile.ConfigLimit); err != nil {
		return nil, err
	}
	return userfile.Read(context.Background(), "--config", path, userfile.ConfigLimit, nil)
}

// labelsOf reads labels as a map from the file, or as "k=v,..." from the environment.
func labelsOf(v *viper.Viper) (map[string]string, error) {
	if s, ok := v.Get(KeyLabels).(string); ok {
		return ParseLabels(s)
	}
	m := v.GetStringMapString(KeyLabels)
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// ParseLabels parses "k=v,k2=v2".
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("labels: %q is not KEY=VALUE", kv)
		}
		out[k] = val
	}
	return out, nil
}

// Set writes one key into the configuration file at path, keeping the others.
func Set(path, key, value string) error {
	if _, ok := Keys[key]; !ok {
		return fmt.Errorf("unknown key %q (known: %s)", key, strings.Join(KeyNames(), ", "))
	}
	doc := map[string]any{}
	data, err := readFile(path)
	switch {
	case err != nil:
		return err
	case data != nil:
		if err := yaml.Unmarshal(data, &doc); err != nil {
			return fmt.Errorf("reading %s: %w", path, err)
		}
		if doc == nil {
			doc = map[string]any{}
		}
	}
	if key == KeyLabels {
		labels, err := ParseLabels(value)
		if err != nil {
			return err
		}
		doc[key] = labels
	} else {
		doc[key] = value
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// KeyNames returns the known keys, sorted.
func KeyNames() []string {
	names := make([]string, 0, len(Keys))
	for k := range Keys {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
