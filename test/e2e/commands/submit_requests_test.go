//go:build e2e

package commands

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/test/e2e/cluster"
	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// responseLine is client-go's line for each response at -v 6.
var responseLine = regexp.MustCompile(`"Response" verb="([A-Z]+)" url="([^"]+)"`)

// requestsOf lists the requests a command's -v 6 stderr shows, as
// "VERB /path" (host and query left out).
func requestsOf(t *testing.T, stderr string) []string {
	t.Helper()
	var requests []string
	for _, m := range responseLine.FindAllStringSubmatch(stderr, -1) {
		u, err := url.Parse(m[2])
		if err != nil {
			t.Fatalf("a request's URL %q: %v", m[2], err)
		}
		requests = append(requests, m[1]+" "+u.Path)
	}
	return requests
}

// TestSubmitIsOneIdentityCallAndOnePOST: submit asks the API server who the
// user is once and creates the job in one POST, nothing else (no discovery,
// no reads), for a user of one namespace as for an admin, and for a job of
// 1,000 workers as for one of 2.
func TestSubmitIsOneIdentityCallAndOnePOST(t *testing.T) {
	t.Parallel()
	c := cluster.Get(t)
	ns := c.Namespace(t)
	applyExample(t, c, "rbac/easyai-user.yaml", ns)
	alice := []string{"KUBECONFIG=" + c.UserKubeconfig(t, "alice", ns)}
	for _, tc := range []struct {
		name    string
		env     []string
		workers int
		dryRun  bool
	}{
		{"alice", alice, 2, false},
		{"admin", nil, 2, false},
		{"alice-1000-workers", alice, 1000, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"submit", "tf", "-n", ns, "--name", "req-" + tc.name, "--workers", fmt.Sprint(tc.workers),
				"--image", "example.com/train:1", "-v", "6"}
			if tc.dryRun {
				args = append(args, "--dry-run=server", "-o", "name")
			}
			res := easyai.RunWith(t, tc.env, append(args, "--", "python", "train.py")...).MustSucceed(t)
			want := []string{
				"POST /apis/authentication.k8s.io/v1/selfsubjectreviews",
				"POST /apis/kubeflow.org/v1/namespaces/" + ns + "/tfjobs",
			}
			if got := requestsOf(t, res.Stderr); !slices.Equal(got, want) {
				t.Errorf("submit made the requests\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
		})
	}
}
