// Command easyai runs distributed training on Kubernetes.
package main

import (
	// First, so that the first garbage collection waits for a 32 MiB heap
	// before the other packages initialize (see the package).
	_ "github.com/easyai-dev/easyai/pkg/startgc"

	"os"

	"github.com/easyai-dev/easyai/pkg/cmd/root"
)

func main() {
	os.Exit(root.Main())
}
