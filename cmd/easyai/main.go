// Command easyai runs distributed training on Kubernetes.
package main

import (
	"os"

	"github.com/easyai-dev/easyai/pkg/cmd/root"
)

func main() {
	os.Exit(root.Main())
}
