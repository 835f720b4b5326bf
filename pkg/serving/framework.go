package serving

import (
	"sort"
	"strconv"
	"strings"

	"github.com/easyai-dev/easyai/pkg/exit"
)

// Framework is what one kind of model server needs: how it is started,
// where it listens, how it says it is ready and alive, and where it reads
// the model. docs/serving.md shows the table, with the upstream
// documentation each row follows.
type Framework struct {
	Name string
	// Command starts the server; {port} and {model} stand for the port and
	// the model's mount path. None: the user gives it (custom).
	Command []string
	Port    int32
	// ReadyPath answers 2xx once the model is loaded; "": the port accepting
	// connections is taken for ready.
	ReadyPath string
	// LivePath answers 2xx while the server is alive; "": no liveness probe.
	LivePath string
	// ModelPath is where the model is mounted.
	ModelPath string
	// FixedPort: the server listens on Port unless its own configuration
	// says otherwise, which a flag cannot change.
	FixedPort bool
	// Doc is the upstream documentation the row follows.
	Doc string
}

// Frameworks are the servers --framework names.
var Frameworks = map[string]Framework{
	"custom": {Name: "custom", Port: 8000, ModelPath: "/model"},
	"vllm": {Name: "vllm", Port: 8000, ReadyPath: "/health", LivePath: "/health", ModelPath: "/model",
		Command: []string{"python3", "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host", "0.0.0.0", "--port", "{port}"},
		Doc:     "https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html"},
	"tgi": {Name: "tgi", Port: 8080, ReadyPath: "/health", LivePath: "/health", ModelPath: "/model",
		Command: []string{"text-generation-launcher", "--model-id", "{model}", "--hostname", "0.0.0.0", "--port", "{port}"},
		Doc:     "https://huggingface.co/docs/text-generation-inference/reference/launcher"},
	"triton": {Name: "triton", Port: 8000, ReadyPath: "/v2/health/ready", LivePath: "/v2/health/live", ModelPath: "/models",
		Command: []string{"tritonserver", "--model-repository={model}", "--http-port={port}"},
		Doc:     "https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/getting_started/quickstart.html"},
	"torchserve": {Name: "torchserve", Port: 8080, ReadyPath: "/ping", LivePath: "/ping", ModelPath: "/home/model-server/model-store", FixedPort: true,
		Command: []string{"torchserve", "--start", "--foreground", "--model-store", "{model}", "--models", "all"},
		Doc:     "https://pytorch.org/serve/server.html"},
	"tfserving": {Name: "tfserving", Port: 8501, ReadyPath: "/v1/models/model", ModelPath: "/models/model",
		Command: []string{"tensorflow_model_server", "--rest_api_port={port}", "--model_name=model", "--model_base_path={model}"},
		Doc:     "https://www.tensorflow.org/tfx/serving/docker"},
}

// FrameworkNames are the names --framework takes, sorted.
func FrameworkNames() []string {
	names := make([]string, 0, len(Frameworks))
	for n := range Frameworks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ParseFramework reads --framework.
func ParseFramework(name string) (Framework, error) {
	f, ok := Frameworks[strings.ToLower(name)]
	if !ok {
		return Framework{}, exit.UsageErrorf("--framework %q: not a framework easyai knows (%s)", name, strings.Join(FrameworkNames(), ", "))
	}
	return f, nil
}

// command is the framework's command for port and the model's path.
func (f Framework) command(port int32, model string) []string {
	out := make([]string, len(f.Command))
	r := strings.NewReplacer("{port}", strconv.Itoa(int(port)), "{model}", model)
	for i, a := range f.Command {
		out[i] = r.Replace(a)
	}
	return out
}
