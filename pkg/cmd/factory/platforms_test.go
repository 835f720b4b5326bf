package factory

import (
	"testing"

	"github.com/easyai-dev/easyai/pkg/config"
)

// TestEveryClusterTypeHasAPlatform: a cluster type the configuration
// accepts (config.ClusterTypes) is made into its platform by the factory;
// a new platform whose type is not in platformOfType fails here.
func TestEveryClusterTypeHasAPlatform(t *testing.T) {
	for _, typ := range config.ClusterTypes {
		if platformOfType[typ] == nil {
			t.Errorf("cluster type %q: the factory makes no platform of it (platformOfType)", typ)
		}
	}
	if len(platformOfType) != len(config.ClusterTypes) {
		t.Errorf("platformOfType has %d types, config.ClusterTypes %d", len(platformOfType), len(config.ClusterTypes))
	}
}
