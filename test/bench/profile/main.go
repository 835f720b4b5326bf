// Command profile runs an easyai command in-process under the Go CPU
// profiler, and times the phases of "easyai list" apart, to find where the
// benchmark's time goes (docs/benchmarks.md):
//
//	profile [-cpuprofile FILE] [-runs N] -- list -A
//	go tool pprof -top FILE
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/easyai-dev/easyai/pkg/cmd/factory"
	"github.com/easyai-dev/easyai/pkg/cmd/root"
	"github.com/easyai-dev/easyai/pkg/jobclient"
	"github.com/easyai-dev/easyai/pkg/printers"
)

func main() {
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile of the command's runs to FILE")
	runs := flag.Int("runs", 5, "runs of each phase")
	phases := flag.Bool("phases", true, "also time the phases of list apart")
	lean := flag.Bool("lean-list", false, "only list every TFJob and PyTorchJob as easyai list -A does, with the lean decoder, and print them (the proposed fix as a command, to time it as one)")
	flag.Parse()
	if *lean {
		if err := leanListCommand(os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(1)
		}
		return
	}
	args := flag.Args()
	if len(args) == 0 {
		args = []string{"list", "-A"}
	}
	if *phases {
		if err := timePhases(*runs); err != nil {
			fmt.Fprintln(os.Stderr, "profile:", err)
			os.Exit(1)
		}
	}
	if *cpuprofile == "" {
		return
	}
	f, err := os.Create(*cpuprofile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "profile:", err)
		os.Exit(1)
	}
	// The command prints to stdout: keep it out of the way.
	stdout := os.Stdout
	devnull, _ := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	_ = pprof.StartCPUProfile(f)
	for range *runs {
		os.Stdout = devnull
		os.Args = append([]string{"easyai"}, args...)
		code := root.Main()
		os.Stdout = stdout
		if code != 0 {
			fmt.Fprintln(os.Stderr, "profile: exit", code)
		}
	}
	pprof.StopCPUProfile()
	_ = f.Close()
	fmt.Fprintf(os.Stderr, "CPU profile of %d runs of easyai %v in %s\n", *runs, args, *cpuprofile)
}

// timePhases measures, for list -A: the LIST requests alone (bytes read,
// nothing decoded), the same through the dynamic client (JSON decoded into
// unstructured objects), summarizing the jobs, and printing the table.
func timePhases(runs int) error {
	ctx := context.Background()
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return err
	}
	f := factory.New()
	kind, ok := f.Kinds.Lookup("tf")
	if !ok {
		return fmt.Errorf("no tf kind")
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	rc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	gvr := kind.Resource()
	report := func(name string, fn func() error) error {
		var total time.Duration
		var cpu0, cpu1 runtime.MemStats
		runtime.ReadMemStats(&cpu0)
		for range runs {
			start := time.Now()
			if err := fn(); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			total += time.Since(start)
		}
		runtime.ReadMemStats(&cpu1)
		fmt.Printf("%-52s %6.0f ms/run  %6.0f MiB allocated/run\n", name,
			float64(total.Milliseconds())/float64(runs), float64(cpu1.TotalAlloc-cpu0.TotalAlloc)/float64(runs)/(1<<20))
		return nil
	}

	var items []unstructured.Unstructured
	var bytes int64
	// The namespaces that hold TFJobs (the per-namespace phases read them).
	var namespaces []string
	{
		all, err := dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		seen := map[string]bool{}
		for _, j := range all.Items {
			if ns := j.GetNamespace(); !seen[ns] {
				seen[ns] = true
				namespaces = append(namespaces, ns)
			}
		}
		sort.Strings(namespaces)
	}
	steps := []struct {
		name string
		fn   func() error
	}{
		{"LIST tfjobs, raw bytes (4 pages of 500)", func() error {
			var err error
			bytes, err = rawPages(rc, cfg.Host+"/apis/"+gvr.Group+"/"+gvr.Version+"/"+gvr.Resource)
			return err
		}},
		{"LIST tfjobs, raw bytes, each namespace in turn", func() error {
			return listNamespaces(rc, cfg.Host, gvr.Group+"/"+gvr.Version+"/"+gvr.Resource, namespaces, 1, bytes)
		}},
		{"LIST tfjobs, raw bytes, 2 namespaces at once", func() error {
			return listNamespaces(rc, cfg.Host, gvr.Group+"/"+gvr.Version+"/"+gvr.Resource, namespaces, 2, bytes)
		}},
		{"LIST tfjobs, raw bytes, every namespace at once", func() error {
			return listNamespaces(rc, cfg.Host, gvr.Group+"/"+gvr.Version+"/"+gvr.Resource, namespaces, len(namespaces), bytes)
		}},
		{"LIST tfjobs, dynamic client (JSON decoded)", func() error {
			items = items[:0]
			opts := metav1.ListOptions{Limit: jobclient.PageSize}
			for {
				page, err := dyn.Resource(gvr).List(ctx, opts)
				if err != nil {
					return err
				}
				items = append(items, page.Items...)
				if opts.Continue = page.GetContinue(); opts.Continue == "" {
					return nil
				}
			}
		}},
		{"Summarize every job", func() error {
			for i := range items {
				if _, err := kind.Summarize(&items[i], corev1.ResourceName("nvidia.com/gpu")); err != nil {
					return err
				}
			}
			return nil
		}},
		{"proposed: LIST streamed into a lean struct", func() error {
			n := 0
			cont := ""
			for {
				url := cfg.Host + "/apis/" + gvr.Group + "/" + gvr.Version + "/" + gvr.Resource + "?limit=500"
				if cont != "" {
					url += "&continue=" + cont
				}
				resp, err := rc.Get(url)
				if err != nil {
					return err
				}
				var page leanList
				err = json.NewDecoder(resp.Body).Decode(&page)
				_ = resp.Body.Close()
				if err != nil {
					return err
				}
				for i := range page.Items {
					_ = page.Items[i].summary("nvidia.com/gpu")
					n++
				}
				if cont = page.Metadata.Continue; cont == "" {
					break
				}
			}
			if n != len(items) {
				return fmt.Errorf("lean decode found %d jobs, the dynamic client %d", n, len(items))
			}
			return nil
		}},
		{"jobs.Client.List as easyai list runs it (every kind)", func() error {
			c, err := f.JobsClient()
			if err != nil {
				return err
			}
			res, err := c.List(ctx, jobclient.ListOptions{})
			if err != nil {
				return err
			}
			t := printers.NewTable(io.Discard, false, "NAMESPACE", "NAME", "KIND", "STATUS", "WORKERS", "GPUS")
			for _, j := range res.Jobs {
				s := j.Summary
				t.AddRow(s.Namespace, s.Name, j.Kind.Name(), string(s.Status.State), fmt.Sprint(s.Workers.Ready, "/", s.Workers.Total), fmt.Sprint(s.GPUs))
			}
			return t.Render()
		}},
	}
	for _, s := range steps {
		if err := report(s.name, s.fn); err != nil {
			return err
		}
	}
	fmt.Printf("(%d jobs, %.1f MiB of JSON per LIST of every page)\n", len(items), float64(bytes)/(1<<20))
	return nil
}

// listNamespaces reads every page of resource ("group/version/plural") in
// each namespace, at most parallel namespaces at once, and checks that the
// bytes add up to want (the cluster-wide list's) within 5 %: the server's
// time for the same jobs, cut by namespace.
func listNamespaces(rc *http.Client, host, resource string, namespaces []string, parallel int, want int64) error {
	parts := strings.SplitN(resource, "/", 3)
	var mu sync.Mutex
	var total int64
	var firstErr error
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, ns := range namespaces {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			n, err := rawPages(rc, host+"/apis/"+parts[0]+"/"+parts[1]+"/namespaces/"+ns+"/"+parts[2])
			mu.Lock()
			defer mu.Unlock()
			total += n
			if err != nil && firstErr == nil {
				firstErr = err
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	if want > 0 && (total < want*95/100 || total > want*105/100) {
		return fmt.Errorf("read %d bytes by namespace, %d in one list", total, want)
	}
	return nil
}

// rawPages GETs every page of a list (500 a page) and returns the bytes read.
func rawPages(rc *http.Client, base string) (int64, error) {
	var n int64
	cont := ""
	for {
		url := base + "?limit=500"
		if cont != "" {
			url += "&continue=" + cont
		}
		resp, err := rc.Get(url)
		if err != nil {
			return n, err
		}
		b, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return n, err
		}
		if resp.StatusCode != http.StatusOK {
			return n, fmt.Errorf("GET %s: %s", base, resp.Status)
		}
		n += int64(len(b))
		var meta metav1.ListMeta
		if err := jsonMetadata(b, &meta); err != nil {
			return n, err
		}
		if cont = meta.Continue; cont == "" {
			return n, nil
		}
	}
}

// jsonMetadata reads a list's metadata; the items are scanned, not decoded.
func jsonMetadata(b []byte, into *metav1.ListMeta) error {
	var page struct {
		Metadata *metav1.ListMeta `json:"metadata"`
	}
	page.Metadata = into
	return json.Unmarshal(b, &page)
}

// leanList is a prototype of the fix proposed in docs/benchmarks.md: decode
// a LIST of training-operator jobs straight into the few fields list shows,
// instead of into unstructured maps that are then converted by reflection.
type leanList struct {
	Metadata metav1.ListMeta `json:"metadata"`
	Items    []leanJob       `json:"items"`
}

type leanJob struct {
	Metadata struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels"`
		Annotations struct {
			User string `json:"easyai.io/user"`
		} `json:"annotations"`
		CreationTimestamp metav1.Time `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec struct {
		RunPolicy struct {
			Suspend          *bool           `json:"suspend"`
			SchedulingPolicy json.RawMessage `json:"schedulingPolicy"`
		} `json:"runPolicy"`
		ReplicaSpecs        map[string]leanReplicaSpec `json:"tfReplicaSpecs"`
		PyTorchReplicaSpecs map[string]leanReplicaSpec `json:"pytorchReplicaSpecs"`
	} `json:"spec"`
	Status struct {
		Conditions []struct {
			Type   string `json:"type"`
			Status string `json:"status"`
			Reason string `json:"reason"`
		} `json:"conditions"`
		ReplicaStatuses map[string]struct {
			Active int32 `json:"active"`
		} `json:"replicaStatuses"`
		StartTime      *metav1.Time `json:"startTime"`
		CompletionTime *metav1.Time `json:"completionTime"`
	} `json:"status"`
}

type leanReplicaSpec struct {
	Replicas *int32 `json:"replicas"`
	Template struct {
		Spec struct {
			Containers []struct {
				Resources corev1.ResourceRequirements `json:"resources"`
			} `json:"containers"`
		} `json:"spec"`
	} `json:"template"`
}

type leanSummary struct {
	name, namespace, user, state string
	ready, total                 int32
	gpus                         int64
	created                      time.Time
	started                      *metav1.Time
}

func (j *leanJob) summary(gpu corev1.ResourceName) leanSummary {
	s := leanSummary{started: j.Status.StartTime, name: j.Metadata.Name, namespace: j.Metadata.Namespace, user: j.Metadata.Annotations.User, created: j.Metadata.CreationTimestamp.Time}
	for _, c := range j.Status.Conditions {
		if c.Status == "True" {
			s.state = c.Type
		}
	}
	specs := j.Spec.ReplicaSpecs
	if specs == nil {
		specs = j.Spec.PyTorchReplicaSpecs
	}
	for role, spec := range specs {
		n := int32(1)
		if spec.Replicas != nil {
			n = *spec.Replicas
		}
		s.total += n
		for _, c := range spec.Template.Spec.Containers {
			if q, ok := c.Resources.Limits[gpu]; ok {
				s.gpus += int64(n) * q.Value()
			}
		}
		s.ready += j.Status.ReplicaStatuses[role].Active
	}
	return s
}

// leanListCommand is "easyai list -A" as the proposed fix would make it:
// one paginated LIST per kind, every kind at once, each page streamed into
// leanList; then the rows, tab-separated as easyai prints them off a terminal.
func leanListCommand(out io.Writer) error {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(clientcmd.NewDefaultClientConfigLoadingRules(), nil).ClientConfig()
	if err != nil {
		return err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return err
	}
	type result struct {
		kind string
		jobs []leanSummary
		err  error
	}
	resources := []struct{ kind, resource string }{{"tf", "tfjobs"}, {"pytorch", "pytorchjobs"}}
	results := make([]result, len(resources))
	var wg sync.WaitGroup
	for i, r := range resources {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res := result{kind: r.kind}
			cont := ""
			for {
				url := cfg.Host + "/apis/kubeflow.org/v1/" + r.resource + "?limit=500"
				if cont != "" {
					url += "&continue=" + cont
				}
				resp, err := hc.Get(url)
				if err != nil {
					res.err = err
					break
				}
				var page leanList
				err = json.NewDecoder(resp.Body).Decode(&page)
				_ = resp.Body.Close()
				if err == nil && resp.StatusCode != 200 {
					err = fmt.Errorf("%s: %s", url, resp.Status)
				}
				if err != nil {
					res.err = err
					break
				}
				for i := range page.Items {
					res.jobs = append(res.jobs, page.Items[i].summary("nvidia.com/gpu"))
				}
				if cont = page.Metadata.Continue; cont == "" {
					break
				}
			}
			results[i] = res
		}()
	}
	wg.Wait()
	now := time.Now()
	w := bufio.NewWriter(out)
	for _, res := range results {
		if res.err != nil {
			return res.err
		}
		sort.SliceStable(res.jobs, func(a, b int) bool {
			if res.jobs[a].namespace != res.jobs[b].namespace {
				return res.jobs[a].namespace < res.jobs[b].namespace
			}
			return res.jobs[a].created.After(res.jobs[b].created)
		})
		for _, j := range res.jobs {
			duration := "-"
			if j.started != nil {
				duration = printers.HumanDuration(now.Sub(j.started.Time))
			}
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d/%d\t%d\t%s\t%s\t%s\n", j.namespace, j.name, res.kind, j.state,
				j.ready, j.total, j.gpus, printers.Age(now, j.created), duration, j.user)
		}
	}
	return w.Flush()
}
