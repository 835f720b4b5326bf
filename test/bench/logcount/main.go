// Command logcount reads what a log follower prints (easyai logs -f, or
// kubectl logs -f --prefix) for the logs benchmark (test/bench/logs.sh) and
// counts, per stream, the lines delivered once, twice or never.
//
// Every line the benchmark's pods print is "seq=N ..." with N from 1 to
// -lines; a follower prints it after a prefix in brackets naming the stream
// ("[worker-3] " or "[pod/job-worker-3/tensorflow] "), which is the stream's
// key here. When every stream has delivered every line, or no line came for
// -idle (-first-idle before the first line), logcount sends SIGINT to the process whose pid is in -pid-file (the
// follower, which would otherwise follow for ever), reads on to the end and
// prints its counts as JSON on stdout.
//
// With -write FILE it is instead the replicas' writer of the live runs: it
// appends the -lines numbered lines to FILE in the CRI log format kwok
// serves, evenly over -over, each stamped with the time it is written.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

type result struct {
	Streams    int     `json:"streams"`
	Expected   int     `json:"expected"`
	Delivered  int     `json:"delivered"`
	Unique     int     `json:"unique"`
	Duplicated int     `json:"duplicated"`
	Lost       int     `json:"lost"`
	Unparsed   int     `json:"unparsed"`
	Seconds    float64 `json:"seconds"`
	Complete   bool    `json:"complete"`
}

func main() {
	streams := flag.Int("streams", 0, "streams expected")
	lines := flag.Int("lines", 0, "lines each stream prints, seq=1 to seq=N")
	idle := flag.Duration("idle", 20*time.Second, "stop the follower when no new line came for this long")
	firstIdle := flag.Duration("first-idle", 0, "stop the follower when no line at all came for this long (default: -idle)")
	pidFile := flag.String("pid-file", "", "file holding the follower's pid, signalled when done")
	write := flag.String("write", "", "append the lines to this file over -over instead of counting")
	over := flag.Duration("over", time.Minute, "with -write: how long the writing takes")
	flag.Parse()
	if *write != "" {
		if err := writeLines(*write, *lines, *over); err != nil {
			fmt.Fprintln(os.Stderr, "logcount:", err)
			os.Exit(1)
		}
		return
	}
	if *streams <= 0 || *lines <= 0 {
		fmt.Fprintln(os.Stderr, "logcount: -streams and -lines are required")
		os.Exit(2)
	}
	if *firstIdle <= 0 {
		*firstIdle = *idle
	}
	c := newCounter(*streams, *lines)
	start := time.Now()
	stop := make(chan struct{})
	var once sync.Once
	signal := func() {
		once.Do(func() {
			close(stop)
			if *pidFile == "" {
				return
			}
			b, err := os.ReadFile(*pidFile)
			if err != nil {
				fmt.Fprintln(os.Stderr, "logcount:", err)
				return
			}
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				_ = syscall.Kill(pid, syscall.SIGINT)
			}
		})
	}
	lastNew := make(chan time.Time, 1)
	lastNew <- start
	go func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			t := <-lastNew
			lastNew <- t
			limit := *idle
			if t.Equal(start) {
				limit = *firstIdle
			}
			if time.Since(t) > limit {
				signal()
				return
			}
		}
	}()
	var done time.Time
	err := c.read(os.Stdin, func(complete bool) {
		now := time.Now()
		<-lastNew
		lastNew <- now
		if complete && done.IsZero() {
			done = now
			signal()
		}
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "logcount:", err)
		os.Exit(1)
	}
	signal()
	r := c.result()
	if !done.IsZero() {
		r.Seconds = done.Sub(start).Seconds()
	} else {
		r.Seconds = (<-lastNew).Sub(start).Seconds()
	}
	_ = json.NewEncoder(os.Stdout).Encode(r)
}

// Line is the text of line seq of n, as every replica prints it: the
// length of a training loop's progress line.
func Line(seq, n int) string {
	left := n - seq
	return fmt.Sprintf("seq=%d step=%d loss=%.6f lr=0.000100 throughput=1843.2 samples/s eta=00:%02d:%02d", seq, seq*10, 2.0/float64(seq), left/60%60, left%60)
}

func writeLines(path string, n int, over time.Duration) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	start := time.Now()
	for seq := 1; seq <= n; seq++ {
		if wait := time.Until(start.Add(over * time.Duration(seq-1) / time.Duration(n))); wait > 0 {
			time.Sleep(wait)
		}
		stamp := time.Now().UTC().Format(time.RFC3339Nano)
		if _, err := fmt.Fprintf(f, "%s stdout F %s\n", stamp, Line(seq, n)); err != nil {
			return err
		}
	}
	return nil
}

type counter struct {
	lines, streams int
	seen           map[string][]uint8
	r              result
}

func newCounter(streams, lines int) *counter {
	return &counter{lines: lines, streams: streams, seen: map[string][]uint8{}, r: result{Expected: streams * lines}}
}

// read counts every line of in; fresh is called after each line seen for
// the first time, with whether every expected line has now come.
func (c *counter) read(in io.Reader, fresh func(complete bool)) error {
	br := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := br.ReadSlice('\n')
		if len(line) > 0 {
			if c.count(line) {
				fresh(c.r.Unique == c.r.Expected)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			c.r.Unparsed++
			// The rest of an overlong line is skipped.
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			if err == io.EOF {
				return nil
			}
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// count reads one line; it reports whether it was a line not seen before.
func (c *counter) count(line []byte) bool {
	key, rest, ok := bytes.Cut(line, []byte("] "))
	i := bytes.Index(rest, []byte("seq="))
	if !ok || len(key) < 2 || key[0] != '[' || i < 0 {
		c.r.Unparsed++
		return false
	}
	digits := rest[i+4:]
	end := bytes.IndexFunc(digits, func(r rune) bool { return r < '0' || r > '9' })
	if end >= 0 {
		digits = digits[:end]
	}
	seq, err := strconv.Atoi(string(digits))
	if err != nil || seq < 1 || seq > c.lines {
		c.r.Unparsed++
		return false
	}
	c.r.Delivered++
	got, known := c.seen[string(key[1:])]
	if !known {
		got = make([]uint8, c.lines)
		c.seen[string(key[1:])] = got
	}
	if got[seq-1] > 0 {
		c.r.Duplicated++
		return false
	}
	got[seq-1] = 1
	c.r.Unique++
	return true
}

func (c *counter) result() result {
	r := c.r
	r.Streams = len(c.seen)
	r.Lost = r.Expected - r.Unique
	if r.Lost < 0 {
		r.Lost = 0
	}
	r.Complete = r.Lost == 0 && r.Streams == c.streams
	return r
}
