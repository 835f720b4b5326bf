package logs

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// BenchmarkCopyStampedLines: the cost of each line a follower reads, stamped
// by the API server (every line a new time, as when the log is written
// while followed), through the resume point to the shared writer.
func BenchmarkCopyStampedLines(b *testing.B) {
	const lines = 2000
	var sb strings.Builder
	at := time.Date(2026, 11, 26, 3, 0, 0, 0, time.UTC)
	for i := range lines {
		at = at.Add(1234567 * time.Nanosecond)
		fmt.Fprintf(&sb, "%s step %d: loss=0.%06d accuracy=0.%04d\n", at.Format(time.RFC3339Nano), i, i*7919%1000000, i%10000)
	}
	stream := sb.String()
	out := &lineWriter{w: io.Discard}
	var resume resumePoint
	b.SetBytes(int64(len(stream)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		resume = resumePoint{}
		if err := copyLines(strings.NewReader(stream), out, "[worker-0] ", &resume, false); err != nil {
			b.Fatal(err)
		}
	}
	_ = out.flush()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*lines), "ns/line")
}
