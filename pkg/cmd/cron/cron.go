// Package cron is "easyai cron create|list|get|trigger|suspend|resume|delete":
// training jobs on a schedule, submitted by a CronJob whose pod runs easyai
// (docs/cron.md). The schedule itself is made and read by pkg/cron.
package cron

import (
	"github.com/spf13/cobra"

	"github.com/easyai-dev/easyai/pkg/cmd/cron/create"
	deletecmd "github.com/easyai-dev/easyai/pkg/cmd/cron/delete"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/get"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/launch"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/list"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/resume"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/suspend"
	"github.com/easyai-dev/easyai/pkg/cmd/cron/trigger"
	"github.com/easyai-dev/easyai/pkg/cmdutil"
)

// NewCmdCron returns "easyai cron" and its subcommands.
func NewCmdCron(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "cron",
		Aliases: []string{"schedule"},
		Short:   "Submit a job on a schedule, by a CronJob that runs easyai",
		Long: `A schedule submits the job of a job file at the times of a cron schedule. A
Kubernetes CronJob runs easyai itself in a pod of the namespace, as its
ServiceAccount easyai-cron: nothing has to keep running on your machine, and
nothing of easyai's own runs in the cluster besides that pod (docs/cron.md).`,
		Example: `  easyai cron create nightly --schedule "0 2 * * *" --timezone Asia/Shanghai -f job.yaml
  easyai cron list
  easyai cron get nightly
  easyai cron trigger nightly
  easyai cron suspend nightly
  easyai cron delete nightly --yes`,
	}
	cmd.AddCommand(create.NewCmdCreate(f, nil), list.NewCmdList(f, nil), get.NewCmdGet(f, nil), trigger.NewCmdTrigger(f, nil),
		suspend.NewCmdSuspend(f, nil), resume.NewCmdResume(f, nil), deletecmd.NewCmdDelete(f, nil), launch.NewCmdLaunch(f, nil))
	return cmd
}
