package job

// The labels and annotations contract (docs/labels.md): everything easyai
// knows about a job lives on the job object and its pod templates.
const (
	// ManagedByLabel marks objects easyai created.
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedByValue = "easyai"

	// NameLabel is the job's name, also on its pods.
	NameLabel = "easyai.io/job-name"
	// KindLabel is easyai's name of the job's kind (tf, pytorch, ...).
	KindLabel = "easyai.io/kind"
	// UserLabel is who submitted the job (label-safe form of the identity).
	UserLabel = "easyai.io/user"
	// ExperimentLabel groups jobs of one experiment.
	ExperimentLabel = "easyai.io/experiment"

	// UserAnnotation is the submitter's identity exactly as the API server
	// reported it (labels cannot hold every user name).
	UserAnnotation = "easyai.io/user"
	// RequestAnnotation holds the resolved submit values, as JSON, for get
	// and a later rerun.
	RequestAnnotation = "easyai.io/request"
	// VersionAnnotation is the easyai version that submitted the job.
	VersionAnnotation = "easyai.io/cli-version"
)
