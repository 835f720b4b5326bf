package timakerplatform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/easyai-dev/easyai/pkg/userfile"
)

// Record is what the index keeps of a job easyai submitted to (or adopted
// from) a timaker cluster: what timaker cannot list, and what it does not
// say when described (the kind, the user, the image and command).
type Record struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Kind       string            `json:"kind,omitempty"`
	User       string            `json:"user,omitempty"`
	Experiment string            `json:"experiment,omitempty"`
	Labels     map[string]string `json:"labels,omitempty"`
	Image      string            `json:"image,omitempty"`
	Command    string            `json:"command,omitempty"`
	Instances  int32             `json:"instances,omitempty"`
	GPUs       float64           `json:"gpus,omitempty"`
	Submitted  time.Time         `json:"submitted"`
	// Adopted: a job submitted elsewhere, named by its id.
	Adopted bool `json:"adopted,omitempty"`
}

// indexLimit bounds the index file read.
const indexLimit = 16 << 20

// Index is the local list of the jobs of one timaker cluster, a JSON file
// under the user's state directory. timaker has no list action: the index
// is what "easyai list" lists, the status always read from timaker. Losing
// it loses the listing, nothing else.
type Index struct {
	Path string
}

// DefaultIndexPath is $XDG_STATE_HOME/easyai/timaker/CLUSTER.json
// (~/.local/state when unset).
func DefaultIndexPath(cluster string) string {
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		if home, err := os.UserHomeDir(); err == nil {
			dir = filepath.Join(home, ".local", "state")
		}
	}
	return filepath.Join(dir, "easyai", "timaker", cluster+".json")
}

type indexFile struct {
	Jobs []Record `json:"jobs"`
}

// Records reads the index; a missing file is an empty index.
func (x *Index) Records() ([]Record, error) {
	if _, err := os.Stat(x.Path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err := userfile.CheckRegular("job index", x.Path, indexLimit); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(x.Path)
	if err != nil {
		return nil, fmt.Errorf("reading the job index: %w", err)
	}
	var f indexFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the job index %s is not readable (%v): move it away to start a new one", x.Path, err)
	}
	return f.Jobs, nil
}

// Add records a job (replacing one of the same id).
func (x *Index) Add(r Record) error {
	return x.update(func(rs []Record) []Record {
		rs = slices.DeleteFunc(rs, func(old Record) bool { return old.ID == r.ID })
		return append(rs, r)
	})
}

// Remove forgets the job of this id.
func (x *Index) Remove(id string) error {
	return x.update(func(rs []Record) []Record {
		return slices.DeleteFunc(rs, func(old Record) bool { return old.ID == id })
	})
}

// update changes the index under a lock, written to a temporary file and
// renamed over the index, so that a reader never sees half of it.
func (x *Index) update(change func([]Record) []Record) error {
	if err := os.MkdirAll(filepath.Dir(x.Path), 0o700); err != nil {
		return fmt.Errorf("writing the job index: %w", err)
	}
	unlock, err := lock(x.Path + ".lock")
	if err != nil {
		return fmt.Errorf("locking the job index: %w", err)
	}
	defer unlock()
	rs, err := x.Records()
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(indexFile{Jobs: change(rs)}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(x.Path), filepath.Base(x.Path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing the job index: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("writing the job index: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("writing the job index: %w", err)
	}
	if err := os.Rename(tmp.Name(), x.Path); err != nil {
		return fmt.Errorf("writing the job index: %w", err)
	}
	return nil
}
