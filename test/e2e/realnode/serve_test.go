//go:build e2e

package realnode

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/easyai-dev/easyai/test/e2e/easyai"
)

// trainLine fits y = 3x + 2 and keeps the model in model_dir (rank 0).
const trainLine = `import os, torch
torch.manual_seed(0)
x = torch.linspace(-1, 1, 64).unsqueeze(1)
y = 3 * x + 2
m = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.5)
for step in range(300):
    opt.zero_grad()
    loss = ((m(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
print("loss", loss.item(), flush=True)
if os.environ.get("RANK", "0") == "0":
    torch.save(m.state_dict(), os.path.join(os.environ["model_dir"], "model.pt"))
`

// serveLine answers POST /predict {"x": [...]} with the model's {"y": [...]},
// and GET /health once the model is loaded.
const serveLine = `import json, torch
from http.server import BaseHTTPRequestHandler, HTTPServer
m = torch.nn.Linear(1, 1)
m.load_state_dict(torch.load("/model/model.pt"))
m.eval()
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()
        self.wfile.write(b"ok\n")
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        with torch.no_grad():
            y = m(torch.tensor(body["x"], dtype=torch.float32).unsqueeze(1)).squeeze(1).tolist()
        out = json.dumps({"y": y}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(out)
HTTPServer(("0.0.0.0", 8080), H).serve_forever()
`

// TestTheDayFromTrainingToServing: the design documents' day on the real
// node, as a team member: a real job trains a model into its model_dir; a
// real server serves it with --model-from (its readiness probe real: the
// serving is Available once the model is loaded); serve invoke gets a real
// prediction through the API server; a serving whose image cannot be
// pulled makes --wait exit 5 naming the pull failure; delete leaves
// nothing.
func TestTheDayFromTrainingToServing(t *testing.T) {
	t.Parallel()
	c, placement, ns, alice := onTheRealNode(t)
	c.RealNodeClaim(t, ns, "team-data")
	as := func(args ...string) easyai.Result {
		t.Helper()
		return easyai.RunWith(t, alice, append([]string{"-n", ns}, args...)...)
	}

	args := append([]string{"submit", "pytorch", "--name", "line", "--workers", "1", "--storage", "pvc:team-data"}, placement...)
	as(append(args, "--", "python3", "-c", trainLine)...).MustSucceed(t)
	if res := as("wait", "line", "--timeout", "5m"); res.Code != 0 {
		t.Fatalf("wait: exit %d, stderr %q", res.Code, res.Stderr)
	}

	args = append([]string{"serve", "create", "line", "--model-from", "line", "--port", "8080", "--ready-path", "/health",
		"--wait", "--timeout", "4m"}, placement...)
	res := as(append(args, "--", "python3", "-c", serveLine)...)
	if res.Code != 0 || !strings.Contains(res.Stderr, "Serving line is available: 1/1 replicas ready") {
		t.Fatalf("serve create: exit %d, stderr %q", res.Code, res.Stderr)
	}
	res = as("serve", "invoke", "line", "--path", "/predict", "-d", `{"x": [1.0, 10.0]}`).MustSucceed(t)
	var answer struct{ Y []float64 }
	if err := json.Unmarshal([]byte(res.Stdout), &answer); err != nil || len(answer.Y) != 2 {
		t.Fatalf("invoke: %q (%v)", res.Stdout, err)
	}
	for i, want := range []float64{5, 32} {
		if math.Abs(answer.Y[i]-want) > 0.1 {
			t.Errorf("the served model predicts %v for x=[1 10], want about [5 32]", answer.Y)
		}
	}

	// An image no registry has: the kubelet's pull fails, --wait says so and exits 5.
	args = append([]string{"serve", "create", "nopull", "--wait", "--timeout", "90s"}, placement...)
	res = as(append(args, "--image", "localhost/easyai-no-such-image:1", "--", "serve")...)
	if res.Code != 5 || !strings.Contains(res.Stderr, "serving nopull is not ready after 1m30s: pod nopull-v1-") ||
		!(strings.Contains(res.Stderr, "ErrImagePull") || strings.Contains(res.Stderr, "ImagePullBackOff")) {
		t.Errorf("a serving whose image cannot be pulled: exit %d, stderr %q; want 5 naming the pull failure", res.Code, res.Stderr)
	}

	for _, name := range []string{"line", "nopull"} {
		as("serve", "delete", name, "--yes").MustSucceed(t)
	}
	if out := as("serve", "list", "-o", "name").MustSucceed(t).Stdout; out != "" {
		t.Errorf("after delete, serve list shows %q", out)
	}
}
