// Command easyai runs distributed training on Kubernetes.
package main

import (
	// No garbage collection before a 32 MiB heap: its init runs before the
	// heavy ones (see the package).
	_ "github.com/easyai-dev/easyai/pkg/startgc"

	"os"

	"github.com/easyai-dev/easyai/pkg/cmd/root"
)

func main() {
	os.Exit(root.Main())
}
