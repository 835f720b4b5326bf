package registry

import (
	"reflect"
	"testing"

	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
)

// TestEveryTrainingOperatorKindIsListed: list reads each training-operator
// kind's jobs in one pass through a struct that names every replica map;
// a new kind whose map it does not name would list with no replicas.
func TestEveryTrainingOperatorKindIsListed(t *testing.T) {
	found := 0
	for _, k := range Default().All() {
		v := reflect.ValueOf(k)
		if v.Kind() != reflect.Struct {
			continue
		}
		f := v.FieldByName("Base")
		if !f.IsValid() {
			continue
		}
		base, ok := f.Interface().(kubeflow.Base)
		if !ok {
			continue
		}
		found++
		if field := base.Shape.ReplicaSpecsField; !kubeflow.KnowsReplicaSpecsField(field) {
			t.Errorf("%s: list does not read spec.%s (add it to kubeflow's listedSpec)", k.Name(), field)
		}
	}
	if found != 6 {
		t.Errorf("%d training-operator kinds found, want 6", found)
	}
}
