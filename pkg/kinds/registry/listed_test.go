package registry_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kinds/kubeflow"
	"github.com/easyai-dev/easyai/pkg/kinds/registry"
)

// trainingOperatorShape is the kubeflow.Shape of a kind built on
// kubeflow.Base, if it is one.
func trainingOperatorShape(k kinds.Kind) (kubeflow.Shape, bool) {
	v := reflect.ValueOf(k)
	if v.Kind() != reflect.Struct {
		return kubeflow.Shape{}, false
	}
	f := v.FieldByName("Base")
	if !f.IsValid() {
		return kubeflow.Shape{}, false
	}
	base, ok := f.Interface().(kubeflow.Base)
	return base.Shape, ok
}

// TestEveryTrainingOperatorKindIsListed: every kind the training-operator
// serves is built on kubeflow.Base, and list reads its jobs' replicas (from
// the replica map under its own field) in either decoder.
func TestEveryTrainingOperatorKindIsListed(t *testing.T) {
	found := 0
	for _, k := range registry.Default().All() {
		shape, ok := trainingOperatorShape(k)
		if k.Operator() != kubeflow.Operator {
			continue
		}
		found++
		if !ok {
			t.Errorf("%s: served by %s but not built on kubeflow.Base", k.Name(), kubeflow.Operator)
			continue
		}
		role := shape.Roles[len(shape.Roles)-1]
		job := fmt.Sprintf(`{"kind":%q,"metadata":{"name":"j"},"spec":{%q:{%q:{"replicas":3}}}}`, shape.APIKind, shape.ReplicaSpecsField, role)
		s, err := k.SummarizeJSON([]byte(job), "nvidia.com/gpu")
		if err != nil || s.Workers.Total != 3 {
			t.Errorf("%s: list reads %d replicas of %s (%v), want 3", k.Name(), s.Workers.Total, job, err)
		}
	}
	if found == 0 {
		t.Errorf("no kind is served by %s", kubeflow.Operator)
	}
}
