package timakerplatform

import (
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestIndexRoundTrip(t *testing.T) {
	x := &Index{Path: filepath.Join(t.TempDir(), "state", "easyai", "timaker", "prod.json")}
	at := time.Date(2024, 3, 1, 10, 0, 0, 123, time.UTC)
	a := Record{ID: "train-1", Name: "mnist", Kind: "tf", User: "100", Experiment: "lr", Labels: map[string]string{"team": "vision"},
		Image: "train:1", Command: "python train.py", Instances: 2, GPUs: 1.5, Submitted: at}
	b := Record{ID: "train-2", Name: "train-2", Submitted: at.Add(time.Second), Adopted: true}
	for _, r := range []Record{a, b} {
		if err := x.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	got, err := x.Records()
	if err != nil || !reflect.DeepEqual(got, []Record{a, b}) {
		t.Fatalf("records %+v, error %v", got, err)
	}
	// Add replaces the record of the same id.
	a2 := a
	a2.Name = "mnist-renamed"
	if err := x.Add(a2); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Records(); !reflect.DeepEqual(got, []Record{b, a2}) {
		t.Errorf("after replacing: %+v", got)
	}
	if err := x.Remove("train-1"); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Records(); !reflect.DeepEqual(got, []Record{b}) {
		t.Errorf("after removing train-1: %+v", got)
	}
	// Removing an id the index does not have changes nothing.
	if err := x.Remove("train-9"); err != nil {
		t.Fatal(err)
	}
	if got, _ := x.Records(); !reflect.DeepEqual(got, []Record{b}) {
		t.Errorf("after removing train-9: %+v", got)
	}
	if err := x.Remove("train-2"); err != nil {
		t.Fatal(err)
	}
	if got, err := x.Records(); err != nil || len(got) != 0 {
		t.Errorf("after removing all: %+v, %v", got, err)
	}
	// The file and its directory are the user's only; no temporary file stays.
	for _, p := range []string{x.Path, filepath.Dir(x.Path)} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s: mode %v", p, fi.Mode().Perm())
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(x.Path))
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("a temporary file stayed: %s", e.Name())
		}
	}
}

func TestIndexMissingFileIsEmpty(t *testing.T) {
	x := &Index{Path: filepath.Join(t.TempDir(), "nowhere", "prod.json")}
	got, err := x.Records()
	if err != nil || len(got) != 0 {
		t.Errorf("records %+v, error %v", got, err)
	}
	if _, err := os.Stat(filepath.Dir(x.Path)); !os.IsNotExist(err) {
		t.Errorf("reading created the directory: %v", err)
	}
	// Removing from a missing index creates an empty one.
	if err := x.Remove("train-1"); err != nil {
		t.Fatal(err)
	}
	if got, err := x.Records(); err != nil || len(got) != 0 {
		t.Errorf("records %+v, error %v", got, err)
	}
}

func TestIndexUnreadableFileNamesItsPath(t *testing.T) {
	dir := t.TempDir()
	x := &Index{Path: filepath.Join(dir, "prod.json")}
	if err := os.WriteFile(x.Path, []byte(`{"jobs": [{"id": "train-1"`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := x.Records()
	if err == nil || !strings.Contains(err.Error(), x.Path) || !strings.Contains(err.Error(), "move it away") {
		t.Errorf("a truncated index: %v", err)
	}
	// Writes refuse it too, and leave it as it was.
	if err := x.Add(Record{ID: "train-2"}); err == nil || !strings.Contains(err.Error(), x.Path) {
		t.Errorf("adding to a truncated index: %v", err)
	}
	if data, _ := os.ReadFile(x.Path); string(data) != `{"jobs": [{"id": "train-1"` {
		t.Errorf("the index was changed: %q", data)
	}

	// A directory where the file should be.
	x = &Index{Path: filepath.Join(dir, "adir.json")}
	if err := os.Mkdir(x.Path, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := x.Records(); err == nil || !strings.Contains(err.Error(), x.Path) {
		t.Errorf("a directory as the index: %v", err)
	}
}

func TestDefaultIndexPath(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := DefaultIndexPath("prod"); got != filepath.Join("/state", "easyai", "timaker", "prod.json") {
		t.Errorf("with XDG_STATE_HOME: %s", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip(err)
	}
	if got := DefaultIndexPath("prod"); got != filepath.Join(home, ".local", "state", "easyai", "timaker", "prod.json") {
		t.Errorf("without XDG_STATE_HOME: %s", got)
	}
}
