package submit

import (
	"context"
	"fmt"

	"github.com/easyai-dev/easyai/pkg/config"
	"github.com/easyai-dev/easyai/pkg/exit"
	"github.com/easyai-dev/easyai/pkg/kinds"
	"github.com/easyai-dev/easyai/pkg/kueue"
	"github.com/easyai-dev/easyai/pkg/render"
)

// place checks where the job waits and, for a Kueue LocalQueue, puts it
// there: the queue and the priority become the labels Kueue reads on the
// job (kueue.x-k8s.io/queue-name and priority-class) instead of Volcano's
// queue and the pods' PriorityClass. A Volcano queue and a PriorityClass are
// checked as they always were.
func (s *Submission) place(ctx context.Context, req *Request, resolved map[string]any) error {
	run, _ := resolved["runPolicy"].(map[string]any)
	queue, _ := run["queue"].(string)
	if queue == "" {
		return s.checkPlacement(ctx, resolved)
	}
	system, err := s.queueSystem(ctx, queue)
	if err != nil || system != config.QueueSystemKueue {
		if err != nil {
			return err
		}
		return s.checkPlacement(ctx, resolved)
	}
	priority, _ := resolved["priorityClassName"].(string)
	if err := s.checkKueue(ctx, req, run, queue, priority); err != nil {
		return err
	}
	if req.JobLabels == nil {
		req.JobLabels = map[string]string{}
	}
	req.JobLabels[kueue.QueueLabel] = queue
	reset := map[string]any{"runPolicy": map[string]any{"queue": ""}}
	if priority != "" {
		req.JobLabels[kueue.PriorityLabel] = priority
		reset["priorityClassName"] = ""
	}
	req.Values = render.MergeMaps(req.Values, reset)
	return nil
}

// queueSystem is what --queue names: the system asked for (--queue-system,
// else the queue-system setting), else Kueue where the namespace has
// LocalQueues, else Volcano. A client dry run asks the cluster nothing:
// Volcano unless Kueue is asked for.
func (s *Submission) queueSystem(ctx context.Context, queue string) (string, error) {
	asked, from := s.Flags.QueueSystem, "--queue-system"
	if asked == "" {
		asked, from = s.Settings.QueueSystem, "the queue-system setting"
	}
	switch asked {
	case config.QueueSystemKueue, config.QueueSystemVolcano:
		return asked, nil
	case "":
	default:
		return "", exit.UsageErrorf("%s %q: kueue or volcano", from, asked)
	}
	if s.DryRun == DryRunClient || s.Dynamic == nil {
		return config.QueueSystemVolcano, nil
	}
	if s.Served != nil {
		if ok, err := s.Served(ctx, kueue.LocalQueues); err != nil || !ok {
			if old, _ := s.Served(ctx, kueue.OldLocalQueues); old {
				s.notef("--queue %s taken as a Volcano queue: this cluster's Kueue serves only its v1beta1 API, and easyai reads Kueue's v1beta2 (Kueue 0.15 and later)\n", queue)
			}
			return config.QueueSystemVolcano, nil
		}
	}
	client, err := s.Dynamic()
	if err != nil {
		return "", err
	}
	has, refused, err := (&kueue.Client{Dynamic: client}).NamespaceHasLocalQueues(ctx, s.Namespace)
	switch {
	case err != nil:
		return "", err
	case refused:
		s.notef("--queue %s taken as a Volcano queue: you may not list the LocalQueues of namespace %s (--queue-system kueue says it is one)\n", queue, s.Namespace)
	case has:
		return config.QueueSystemKueue, nil
	}
	return config.QueueSystemVolcano, nil
}

// checkKueue checks a job for a LocalQueue: its kind is one Kueue admits,
// it asks for no Volcano gang, and (unless a client dry run) the
// LocalQueue and the WorkloadPriorityClass exist. A user who may not read
// them is told in one line that they were not checked.
func (s *Submission) checkKueue(ctx context.Context, req *Request, run map[string]any, queue, priority string) error {
	if k, ok := req.Kind.(kinds.KueueIntegration); !ok || k.KueueIntegration() == "" {
		return exit.UsageErrorf("--queue %s is a Kueue LocalQueue, and Kueue admits no %s job (it admits the training-operator's TFJob, PyTorchJob, XGBoostJob, PaddleJob, JAXJob and Trainer's TrainJob): give --queue-system volcano for a Volcano queue", queue, req.Kind.Name())
	}
	if gang, _ := run["gang"].(bool); gang {
		return exit.UsageErrorf("--gang is Volcano's gang scheduling, and --queue %s is a Kueue LocalQueue: Kueue admits all of a job's pods at once already; leave --gang out, or give --queue-system volcano", queue)
	}
	if s.DryRun == DryRunClient || s.Dynamic == nil {
		return nil
	}
	if err := s.checkObject(ctx, kueue.LocalQueues, s.Namespace, queue, "LocalQueue", "--queue"); err != nil {
		return err
	}
	if priority == "" {
		return nil
	}
	return s.checkObject(ctx, kueue.WorkloadPriorityClasses, "", priority, "WorkloadPriorityClass", "--priority")
}

// notef says something on Notes, when there is one.
func (s *Submission) notef(format string, args ...any) {
	if s.Notes != nil {
		fmt.Fprintf(s.Notes, format, args...)
	}
}
