package jobmodel

import (
	"encoding/json"
	"testing"

	"sigs.k8s.io/yaml"
)

// FuzzSubmittedValues: whatever the request annotation holds (anyone who
// may edit the job may write it), SubmittedValues either fails or returns
// values without a name and without easyai's own labels and annotations,
// which survive the YAML of get -o values that submit -f reads back.
func FuzzSubmittedValues(f *testing.F) {
	f.Add(`{"name":"mnist","image":"img","labels":{"easyai.io/kind":"tf","team":"a"},"annotations":{"easyai.io/request":"{}"}}`)
	f.Add(`{"labels":"not a map","roles":{"worker":{"replicas":2}}}`)
	f.Add(`null`)
	f.Add(`[1,2]`)
	f.Fuzz(func(t *testing.T, request string) {
		values, found, err := SubmittedValues(map[string]string{RequestAnnotation: request})
		if err != nil || !found {
			return
		}
		if _, ok := values["name"]; ok {
			t.Fatalf("values %v keep the old name", values)
		}
		for key, own := range map[string]func(string) bool{"labels": IsOwnLabel, "annotations": IsOwnAnnotation} {
			if m, ok := values[key].(map[string]any); ok {
				for k := range m {
					if own(k) {
						t.Fatalf("%s keep easyai's own %s", key, k)
					}
				}
			}
		}
		data, err := yaml.Marshal(values)
		if err != nil {
			// YAML cannot hold some characters (DEL): Recorded.JobFile
			// says so, exit 2, naming the annotation.
			return
		}
		var back map[string]any
		if err := yaml.Unmarshal(data, &back); err != nil {
			t.Fatalf("get -o values printed YAML submit -f cannot read: %v\n%s", err, data)
		}
		a, _ := json.Marshal(values)
		b, _ := json.Marshal(back)
		if len(values) > 0 && string(a) != string(b) {
			t.Fatalf("the values changed through YAML:\n%s\n%s", a, b)
		}
	})
}
