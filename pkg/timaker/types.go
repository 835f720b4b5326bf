package timaker

// The request and answer bodies of timaker's actions. Their JSON keys are
// the Go field names (PascalCase), as the service expects them.

// Env is one environment variable of a training job.
type Env struct {
	Name  string
	Value string
}

// ResourceConfig is what each instance of a job asks for, and how many
// instances it has.
type ResourceConfig struct {
	Memory        int32  // MB per instance
	CpuNum        int32  // 1/1000 of a core per instance: 4000 is 4 cores
	GpuNum        int32  // 1/100 of a GPU per instance: 100 is one GPU
	GpuType       string `json:",omitempty"` // V100, A100, T4, P40; empty: shared vGPU
	InstanceCount int32
	RDMAConfig    RDMAConfig
}

// RDMAConfig asks for RDMA networking; only for services that have it, or
// the job is never scheduled.
type RDMAConfig struct {
	Enable bool
}

// FileSystemDataSource is a shared file system mounted into the job's
// containers (at /opt/ml/code for the algorithm source). SecretKey is sent
// as is but never printed (see Format).
type FileSystemDataSource struct {
	FileSystemType     string
	DirectoryPath      string
	ReadOnly           bool
	FileSystemEndpoint string
	User               string `json:",omitempty"` // a Ceph user
	SecretKey          string `json:",omitempty"` // that user's key
}

// AlgorithmSource is where the job's code comes from.
type AlgorithmSource struct {
	FileSystemDataSource *FileSystemDataSource `json:",omitempty"`
}

// AlgorithmSpecification is what the job runs.
type AlgorithmSpecification struct {
	EntryPoint        string // the command line
	TrainingImageName string
	AlgorithmSource   *AlgorithmSource `json:",omitempty"`
}

// RestartPolicy names what the service does when an instance fails
// ("AutoRestart").
type RestartPolicy struct {
	PolicyName string
}

// CreateTrainingJobRequest is the body of v1/CreateTrainingJob. The service
// starts the job it creates.
type CreateTrainingJobRequest struct {
	Uin                    string
	RequestId              string // empty: the client fills in a fresh id
	TiProjectId            int32  // the default project is 1
	TrainingJobName        string
	TrainingJobSource      string
	ResourceConfig         ResourceConfig
	EnvConfig              []Env
	AlgorithmSpecification AlgorithmSpecification
	Elastic                bool // run on the elastic resource pool
	RestartPolicy          RestartPolicy
}

// JobRequest is the body of v1/StopTrainingJob and v1/DescribeTrainingJob.
type JobRequest struct {
	Uin           string
	RequestId     string // empty: the client fills in a fresh id
	TiProjectId   int32
	TrainingJobId string
}

// TrainingJob is the answer of v1/DescribeTrainingJob. Times are
// "2006-01-02 15:04:05" in Asia/Shanghai (see ParseTime); TrainingEndTime
// is empty until the job ends.
type TrainingJob struct {
	TrainingJobId      string
	TrainingJobStatus  string
	TrainingCreateTime string
	TrainingEndTime    string
	FailureCode        string
	FailureReason      string
	InstanceId         string
	RequestId          string // the service's id of the answer
}

// ResourceRequest is the body of the resource server's two queries.
type ResourceRequest struct {
	Uin        string
	RequestId  string // empty: the client fills in a fresh id
	AppGroupId int32
}

// Resources are an app group's amounts in its two pools.
type Resources struct {
	Train   ResourceAmounts // the pool of jobs that are not elastic
	Elastic ResourceAmounts
}

// ResourceAmounts counts CPU in 1/1000 of a core, memory in MB and each
// kind of GPU in 1/100 of a GPU (VGpu: shared GPUs of no named type).
type ResourceAmounts struct {
	Cpu    int64
	Memory int64
	VGpu   int64
	V100   int64
	A100   int64
	T4     int64
	P40    int64
}
