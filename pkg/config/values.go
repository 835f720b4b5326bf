package config

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/easyai-dev/easyai/pkg/notify"
	"github.com/easyai-dev/easyai/pkg/storage"
)

// ParseValue reads a value given as text, as "easyai config set" and the
// EASYAI_* variables give it: labels as "k=v,k2=v2", the others as they
// are. The error says what is wrong and the form expected; the caller
// names where the value came from.
func ParseValue(key, raw string) (any, error) {
	if key == KeyLabels {
		return ParseLabels(raw)
	}
	if raw == "" {
		return nil, errors.New("empty (easyai config unset " + key + " removes it from the file)")
	}
	return raw, checkString(key, raw)
}

// quoted is " \"VALUE\"" for a message about a bad value, "" for a key
// whose value is a secret and is never printed.
func quoted(key, value string) string {
	if key == KeyNotify {
		return ""
	}
	return " " + strconv.Quote(value)
}

// imageRef is loose on purpose, as submit's --image check is: an image
// reference (registry/name:tag or name@sha256:...) with no spaces, quotes
// or newlines.
var imageRef = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._/:@+-]*$`)

// checkString checks the value of a key whose value is a string.
func checkString(key, value string) error {
	switch key {
	case KeyImage, KeyFetcherImage, KeyNotebookImage, KeyCronImage:
		if !imageRef.MatchString(value) {
			return errors.New("not an image reference (e.g. pytorch/pytorch:2.4 or registry.example.com/team/img@sha256:...)")
		}
	case KeyGPUResource:
		if !isExtendedResourceName(value) {
			return errors.New("not an extended resource name: want DOMAIN/NAME outside kubernetes.io, as the device plugin advertises it (e.g. nvidia.com/gpu, amd.com/gpu)")
		}
	case KeyGPUResources:
		for _, n := range strings.Split(value, ",") {
			if n = strings.TrimSpace(n); !isExtendedResourceName(n) {
				return fmt.Errorf("%q is not an extended resource name: want a comma-separated list of DOMAIN/NAME outside kubernetes.io (e.g. nvidia.com/mig-1g.10gb,amd.com/gpu)", n)
			}
		}
	case KeyCluster:
		return CheckClusterName(value)
	case KeyKubeflowBackend:
		if value != BackendTrainingOperator && value != BackendTrainer {
			return fmt.Errorf("must be %s or %s", BackendTrainingOperator, BackendTrainer)
		}
	case KeyQueueSystem:
		if value != QueueSystemKueue && value != QueueSystemVolcano {
			return fmt.Errorf("must be %s or %s", QueueSystemKueue, QueueSystemVolcano)
		}
	case KeyStorage:
		if _, err := storage.Parse("", value); err != nil {
			return errors.New(err.Error())
		}
	case KeyNotify:
		return notify.CheckList(value)
	case KeyQueue, KeyPriorityClass, KeyPreemptible:
		if len(validation.IsDNS1123Subdomain(value)) > 0 {
			what := "queue"
			if key != KeyQueue {
				what = "PriorityClass"
			}
			return fmt.Errorf("not a %s name: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253", what)
		}
	}
	return nil
}

// isExtendedResourceName is the API server's test of a resource a pod may
// request beyond cpu and memory: a qualified name with a domain other than
// kubernetes.io, whose quota name "requests.<name>" is qualified too.
func isExtendedResourceName(name string) bool {
	if !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/") || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(validation.IsQualifiedName(name)) == 0 && len(validation.IsQualifiedName("requests."+name)) == 0
}

// labelsForm is the form labels take on the command line.
const labelsForm = "want KEY=VALUE[,KEY=VALUE...], e.g. team=vision,cost=42"

// ParseLabels parses and checks "k=v,k2=v2" (empty: no labels).
func ParseLabels(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		kv = strings.TrimSpace(kv)
		if kv == "" {
			continue
		}
		k, val, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE (%s)", kv, labelsForm)
		}
		if err := checkLabel(k, val); err != nil {
			return nil, err
		}
		out[k] = val
	}
	return out, nil
}

// checkLabel checks one label as the API server would.
func checkLabel(key, value string) error {
	if len(validation.IsQualifiedName(key)) > 0 {
		return fmt.Errorf("%q is not a label key: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit, after an optional DNS prefix and '/' (e.g. team, example.com/team)", key)
	}
	if len(validation.IsValidLabelValue(value)) > 0 {
		return fmt.Errorf("%q is not a label value: at most 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit", value)
	}
	return nil
}
