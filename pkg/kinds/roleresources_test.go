package kinds

import (
	"reflect"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/pkg/exit"
)

func TestRoleResources(t *testing.T) {
	if res, err := RoleResources("ps", "", ""); res != nil || err != nil {
		t.Errorf("none set: %v, %v", res, err)
	}
	res, err := RoleResources("ps", "2", "8Gi")
	if err != nil || !reflect.DeepEqual(res, map[string]any{"cpu": "2", "memory": "8Gi"}) {
		t.Errorf("both set: %v, %v", res, err)
	}
	if _, err := RoleResources("launcher", "", "lots"); exit.Code(err) != exit.Usage || !strings.Contains(err.Error(), "--launcher-memory") {
		t.Errorf("a bad memory: %v", err)
	}
}
