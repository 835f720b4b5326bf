package root

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"k8s.io/klog/v2"
)

// client-go's own log lines reach stderr only from -v 1; at -v 0 they go
// nowhere, neither to the command's stderr nor to the process's.
func TestClientGoLogLinesFollowVerbosity(t *testing.T) {
	processStderr, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = processStderr
	t.Cleanup(func() {
		os.Stderr = saved
		klog.SetOutput(saved)
	})

	var quiet bytes.Buffer
	if err := setVerbosity(0, &quiet); err != nil {
		t.Fatal(err)
	}
	klog.ErrorS(nil, "Watch failed at -v 0")
	klog.Flush()
	var loud bytes.Buffer
	if err := setVerbosity(1, &loud); err != nil {
		t.Fatal(err)
	}
	klog.ErrorS(nil, "Watch failed at -v 1")
	klog.Flush()

	written, err := os.ReadFile(processStderr.Name())
	if err != nil {
		t.Fatal(err)
	}
	if quiet.Len() != 0 || len(written) != 0 {
		t.Errorf("at -v 0 client-go's lines were shown: command stderr %q, process stderr %q", quiet.String(), written)
	}
	if !strings.Contains(loud.String(), "Watch failed at -v 1") {
		t.Errorf("at -v 1 client-go's lines were not shown: %q", loud.String())
	}
}
