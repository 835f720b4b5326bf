package jobclient

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/easyai-dev/easyai/pkg/kinds/registry"
)

// FuzzReadPage: a LIST page as any server (or anything in its place) may
// send it, read as list streams it: never a panic, and a page that is not
// whole JSON is an error, not jobs.
func FuzzReadPage(f *testing.F) {
	f.Add(`{"metadata":{"continue":"x"},"items":[{"kind":"TFJob","metadata":{"name":"a"},"spec":{"tfReplicaSpecs":{"W":{"replicas":2}}}}]}`)
	f.Add(`{"items":[{"metadata":{"name":"b"},"spec":{"tfReplicaSpecs":{"W":{"replicas":"x"}}}},{"metadata":{"name":"c"}}]}`)
	f.Add(`{"items":null,"metadata":{}}`)
	f.Add(`{"items":[{"metadata":{"name":"d"},"status":{"startTime":"no"}}`)
	f.Add(`<html>`)
	reg := registry.Default()
	tf, _ := reg.Lookup("tf")
	c := &Client{Kinds: reg, GPUResource: "nvidia.com/gpu"}
	f.Fuzz(func(t *testing.T, page string) {
		in := &recordingReader{r: strings.NewReader(page)}
		var names []string
		_, err := readPage(newPageDecoder(in), func(dec *jsontext.Decoder) error {
			s, err := c.summarizeNext(tf, dec, in)
			if err == nil {
				names = append(names, s.Name)
			}
			return err
		})
		if err == nil && !json.Valid([]byte(page)) {
			t.Errorf("a page that is not JSON was read: %d jobs", len(names))
		}
	})
}
