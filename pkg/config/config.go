// Package config reads and writes easyai's own settings: the file
// $XDG_CONFIG_HOME/easyai/config.yaml (or --config), overridden by EASYAI_*
// environment variables, overridden in turn by command flags.
//
// Every value is checked where it is read, and an error names where the
// value came from: the file and its line, the environment variable, or the
// command line of "easyai config set".
package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/notify"
)

// The keys easyai reads. EASYAI_<KEY> overrides each, with "-" as "_"
// (EASYAI_GPU_RESOURCE); labels in the environment are "k=v,k2=v2".
const (
	KeyImage           = "image"
	KeyGPUResource     = "gpu-resource"
	KeyQueue           = "queue"
	KeyPriorityClass   = "priority-class"
	KeyLabels          = "labels"
	KeyFetcherImage    = "fetcher-image"
	KeyCluster         = "cluster"
	KeyKubeflowBackend = "kubeflow-backend"
	KeyStorage         = "storage"
	KeyNotify          = "notify"
	KeyNotebookImage   = "notebook-image"
	KeyCronImage       = "cron-image"
	KeyGPUResources    = "gpu-resources"
	KeyPreemptible     = "preemptible-priority-class"
	KeyQueueSystem     = "queue-system"
)

// Keys lists every key with what it means, for help and validation.
var Keys = map[string]string{
	KeyImage:           "image of jobs submitted without --image",
	KeyGPUResource:     "the extended resource GPUs are requested as (default " + DefaultGPUResource + ")",
	KeyQueue:           "queue of jobs submitted without --queue (a Kueue LocalQueue or a Volcano queue: queue-system)",
	KeyQueueSystem:     "what --queue names: " + QueueSystemKueue + " (a LocalQueue of the namespace) or " + QueueSystemVolcano + " (a Volcano queue); unset: Kueue where the namespace has LocalQueues, else Volcano",
	KeyPriorityClass:   "priority class of jobs submitted without --priority",
	KeyLabels:          "labels added to every job (a map; on the command line k=v,k2=v2)",
	KeyFetcherImage:    "image of download's fetcher pod without --fetcher-image (e.g. a mirror, or pinned by digest)",
	KeyCluster:         "the default target, a timaker cluster of the file (config set-cluster); unset: the kubeconfig's context",
	KeyStorage:         "the team's shared storage of jobs submitted without --storage, and of upload: pvc:CLAIM[:/prefix] or nfs:SERVER:/export[:/prefix] (docs/storage.md)",
	KeyNotebookImage:   "image of notebooks created without --image (it must run jupyter lab)",
	KeyCronImage:       "image of easyai itself that a schedule's launcher runs (easyai cron create without --image)",
	KeyNotify:          "webhooks wait and submit --wait notify without --notify: " + notify.Form + ", separated by spaces; secrets, shown as scheme and host only (docs/notifications.md)",
	KeyGPUResources:    "more extended resources top node counts as GPUs, besides gpu-resource, comma-separated (e.g. nvidia.com/mig-1g.10gb,amd.com/gpu)",
	KeyPreemptible:     "the low PriorityClass of jobs submitted with --preemptible",
	KeyKubeflowBackend: "what serves submit pytorch|jax|xgboost where both are installed: " + BackendTrainingOperator + " (the default: the v1 kinds) or " + BackendTrainer + " (a TrainJob of Kubeflow Trainer v2)",
}

// The values of kubeflow-backend (and of submit's --backend).
const (
	BackendTrainingOperator = "training-operator"
	BackendTrainer          = "trainer"
)

// The values of queue-system (and of submit's --queue-system).
const (
	QueueSystemKueue   = "kueue"
	QueueSystemVolcano = "volcano"
)

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
	NotebookImage string            `json:"notebook-image,omitempty"`
	CronImage     string            `json:"cron-image,omitempty"`
	// GPUResources are more resources top node counts as GPUs (a comma
	// list; GPUResourceNames resolves it).
	GPUResources string `json:"gpu-resources,omitempty"`
	// Preemptible is the PriorityClass of submit --preemptible.
	Preemptible string `json:"preemptible-priority-class,omitempty"`
	// Cluster is the default target, one of Clusters; empty means the
	// kubeconfig's context.
	Cluster string `json:"cluster,omitempty"`
	// KubeflowBackend is what serves the kinds both Kubeflow operators
	// serve, where both are installed ("": training-operator).
	KubeflowBackend string `json:"kubeflow-backend,omitempty"`
	// Storage is the default --storage ("": none).
	Storage string `json:"storage,omitempty"`
	// QueueSystem is what --queue names ("": decided by the namespace).
	QueueSystem string `json:"queue-system,omitempty"`
	// Notify are the webhooks of wait and submit --wait without --notify,
	// separated by spaces ("": none).
	Notify Webhooks `json:"notify,omitempty"`
	// Clusters are the timaker clusters the file names, by name.
	Clusters map[string]Cluster `json:"clusters,omitempty"`

	// Path is the file the configuration was read from (and is written to).
	Path string `json:"-"`
	// Warnings are what the file holds that easyai ignores (unknown keys),
	// one sentence each, for the caller to show once.
	Warnings []string `json:"-"`
}

// Get returns the value of key in c: a string, or the labels' map (never
// nil). ok is false for an unknown key.
func (c *Config) Get(key string) (value any, ok bool) {
	switch key {
	case KeyImage:
		return c.Image, true
	case KeyGPUResource:
		return c.GPUResource, true
	case KeyQueue:
		return c.Queue, true
	case KeyPriorityClass:
		return c.PriorityClass, true
	case KeyFetcherImage:
		return c.FetcherImage, true
	case KeyNotebookImage:
		return c.NotebookImage, true
	case KeyCronImage:
		return c.CronImage, true
	case KeyGPUResources:
		return c.GPUResources, true
	case KeyPreemptible:
		return c.Preemptible, true
	case KeyCluster:
		return c.Cluster, true
	case KeyKubeflowBackend:
		return c.KubeflowBackend, true
	case KeyStorage:
		return c.Storage, true
	case KeyQueueSystem:
		return c.QueueSystem, true
	case KeyNotify:
		// Secrets: shown as their scheme and host.
		return notify.RedactList(string(c.Notify)), true
	case KeyLabels:
		if c.Labels == nil {
			return map[string]string{}, true
		}
		return c.Labels, true
	}
	return nil, false
}

// set stores one checked value (a string, or the labels' map) into c.
func (c *Config) set(key string, value any) {
	switch key {
	case KeyImage:
		c.Image = value.(string)
	case KeyGPUResource:
		c.GPUResource = value.(string)
	case KeyQueue:
		c.Queue = value.(string)
	case KeyPriorityClass:
		c.PriorityClass = value.(string)
	case KeyFetcherImage:
		c.FetcherImage = value.(string)
	case KeyNotebookImage:
		c.NotebookImage = value.(string)
	case KeyCronImage:
		c.CronImage = value.(string)
	case KeyGPUResources:
		c.GPUResources = value.(string)
	case KeyPreemptible:
		c.Preemptible = value.(string)
	case KeyCluster:
		c.Cluster = value.(string)
	case KeyKubeflowBackend:
		c.KubeflowBackend = value.(string)
	case KeyStorage:
		c.Storage = value.(string)
	case KeyQueueSystem:
		c.QueueSystem = value.(string)
	case KeyNotify:
		c.Notify = Webhooks(value.(string))
	case KeyLabels:
		c.Labels = value.(map[string]string)
	}
}

// Webhooks are the notify setting: webhook URLs, which are secrets (whoever
// has one may post to its channel). Printed (config view), each shows its
// scheme and host only.
type Webhooks string

// MarshalJSON writes the webhooks redacted.
func (w Webhooks) MarshalJSON() ([]byte, error) {
	return json.Marshal(notify.RedactList(string(w)))
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

// EnvName is the environment variable that overrides key: EASYAI_GPU_RESOURCE.
func EnvName(key string) string {
	return "EASYAI_" + strings.ToUpper(strings.ReplaceAll(key, "-", "_"))
}

// Load reads the configuration: the file --config names (configFlag; it
// must exist), or the default file (missing, it is an empty
// configuration), then the EASYAI_* variables over it. A file that does not
// parse, or any bad value, is a usage error (exit 2) naming the file and
// line or the variable; unknown keys in the file are only warnings. The
// default cluster must be one of the file's clusters.
func Load(configFlag string) (*Config, error) {
	file := fileFor(configFlag)
	c := &Config{GPUResource: DefaultGPUResource, Path: file.path}
	data, exists, err := file.read()
	if err != nil {
		return nil, err
	}
	if !exists && file.explicit {
		return nil, file.missing()
	}
	clusterLine := 0
	if exists {
		settings, err := file.settings(data)
		if err != nil {
			return nil, err
		}
		for key, value := range settings.values {
			c.set(key, value)
		}
		c.Clusters = settings.clusters
		c.Warnings = settings.warnings
		clusterLine = settings.lines[KeyCluster]
	}
	if c.Cluster != "" && os.Getenv(EnvName(KeyCluster)) == "" {
		if _, ok := c.Clusters[c.Cluster]; !ok {
			return nil, file.badValue(KeyCluster, clusterLine, fmt.Errorf("cluster %q: %s", c.Cluster, c.clusterList()))
		}
	}
	for _, key := range KeyNames() {
		name := EnvName(key)
		raw := os.Getenv(name)
		if raw == "" {
			continue
		}
		value, err := ParseValue(key, raw)
		if err != nil {
			return nil, exit.UsageErrorf("%s%s: %v", name, quoted(key, raw), err)
		}
		if _, ok := c.Clusters[raw]; key == KeyCluster && !ok {
			return nil, exit.WithHint(exit.UsageErrorf("%s %q: %s", name, raw, c.clusterList()), c.knownClusters())
		}
		c.set(key, value)
	}
	return c, nil
}

// KeyNames returns the known keys, sorted.
func KeyNames() []string {
	return slices.Sorted(maps.Keys(Keys))
}

// CheckKey fails (exit 2) unless key is known, suggesting the key it
// probably means.
func CheckKey(key string) error {
	if _, ok := Keys[key]; ok {
		return nil
	}
	if key == keyClusters {
		return exit.UsageErrorf("%s is a map of clusters: easyai config set-cluster NAME changes one, config get-clusters lists them, config delete-cluster NAME removes one (the default cluster is the key %q)", keyClusters, KeyCluster)
	}
	if near := suggestKey(key); near != "" {
		return exit.UsageErrorf("unknown key %q: did you mean %q? (known keys: %s)", key, near, strings.Join(KeyNames(), ", "))
	}
	return exit.UsageErrorf("unknown key %q (known keys: %s)", key, strings.Join(KeyNames(), ", "))
}

// suggestKey is the known key closest to name (nearest).
func suggestKey(name string) string {
	return nearest(name, KeyNames())
}

// nearest is the word closest to name: at most two edits away, or one it
// starts; "" when none is.
func nearest(name string, words []string) string {
	best, bestDistance := "", 3
	for _, key := range words {
		d := editDistance(strings.ToLower(name), key)
		if d < bestDistance || (best == "" && name != "" && strings.HasPrefix(key, strings.ToLower(name))) {
			best, bestDistance = key, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// GPUResourceNames are the resources top node counts as GPUs: gpu-resource
// first, then gpu-resources' names not already given.
func (c *Config) GPUResourceNames() []string {
	names := []string{c.GPUResource}
	for _, n := range strings.Split(c.GPUResources, ",") {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}
