package jobmodel

import (
	"regexp"
	"slices"
	"strings"
)

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
	// DebugLabel ("true") marks a job submitted in debug mode: its
	// replicas wait for "easyai run" (docs/debug.md).
	DebugLabel = "easyai.io/debug"
	// RoleLabel marks pods easyai runs beside a job's replicas, e.g. the
	// fetcher pod of "easyai download" (RoleFetcher) and the uploader pod
	// of "easyai upload" (RoleUploader).
	RoleLabel    = "easyai.io/role"
	RoleFetcher  = "fetcher"
	RoleUploader = "uploader"
	// RoleTensorBoard marks the pods of the TensorBoard Deployment submit
	// --tensorboard creates beside a job.
	RoleTensorBoard = "tensorboard"

	// UserAnnotation is the submitter's identity exactly as the API server
	// reported it (labels cannot hold every user name).
	UserAnnotation = "easyai.io/user"
	// RequestAnnotation holds the resolved submit values, as JSON, for get
	// (image and command), download (storage and placement) and a later
	// rerun; ReadRequest reads it.
	RequestAnnotation = "easyai.io/request"
	// JobDirAnnotation is the job's own directory on its --storage ({job}
	// of docs/storage.md): its name and a suffix new at every submission.
	JobDirAnnotation = "easyai.io/job-dir"
	// SSHAnnotation names the Secret of a job submitted with --ssh: the
	// keys its sshd lets in and its host key (easyai ssh, ssh-config).
	SSHAnnotation = "easyai.io/ssh"
	// VersionAnnotation is the easyai version that submitted the job.
	VersionAnnotation = "easyai.io/cli-version"
	// RerunOfAnnotation is the job "easyai rerun" submitted this one again
	// from: KIND/NAME, in the same namespace.
	RerunOfAnnotation = "easyai.io/rerun-of"
	// ExpiresAnnotation is when a pod easyai runs beside a job (RoleLabel)
	// is past its use, RFC 3339: anything may delete it after that.
	ExpiresAnnotation = "easyai.io/expires"
)

// ownLabels and ownAnnotations are the keys easyai writes on a job itself
// when it submits one: a job file's labels and annotations never need them.
var (
	ownLabels      = []string{ManagedByLabel, NameLabel, KindLabel, UserLabel, ExperimentLabel}
	ownAnnotations = []string{UserAnnotation, RequestAnnotation, JobDirAnnotation, VersionAnnotation, RerunOfAnnotation}
)

// IsOwnLabel reports whether key is a label easyai writes on every job it
// submits.
func IsOwnLabel(key string) bool { return slices.Contains(ownLabels, key) }

// IsOwnAnnotation reports whether key is an annotation easyai writes on a
// job it submits (not one the user gives, such as EndpointsAnnotation).
func IsOwnAnnotation(key string) bool { return slices.Contains(ownAnnotations, key) }

var notLabelSafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// LabelSafe is the label form of a user name ("system:serviceaccount:ns:ci",
// "alice@corp"): runs of other characters become "_", at most 63
// characters, no leading or trailing punctuation. The exact name is kept in
// UserAnnotation.
func LabelSafe(user string) string {
	s := notLabelSafe.ReplaceAllString(user, "_")
	if len(s) > 63 {
		s = s[:63]
	}
	return strings.Trim(s, "._-")
}

// operatorJobLabels name the job of a pod easyai did not label: the
// training-operator's, Volcano's and JobSet's (a TrainJob's) job name.
var operatorJobLabels = []string{"training.kubeflow.org/job-name", "volcano.sh/job-name", "jobset.sigs.k8s.io/jobset-name"}

// JobOfLabels is the job a pod (or its metrics) belongs to, from its
// labels: easyai's kind and name, else an operator's job name with kind
// "". Both are "" for a pod of no job. Labels are anyone's to write: use
// the result to group and print, never to act on.
func JobOfLabels(labels map[string]string) (kind, name string) {
	if name := labels[NameLabel]; name != "" {
		return labels[KindLabel], name
	}
	for _, l := range operatorJobLabels {
		if name := labels[l]; name != "" {
			return "", name
		}
	}
	return "", ""
}
