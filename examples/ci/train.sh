#!/usr/bin/env bash
# Runs a training job as a step of a CI pipeline: submits a job file, streams
# the log of every replica into the step's output, waits for the job to end,
# and ends the step as the job ended (docs/exit-codes.md):
#   0 succeeded, 4 failed, 5 timed out, 2 bad job file or flags, 1 other errors.
# The job's final state (easyai get -o json) is written to $JOB_RESULT.
#
#   examples/ci/train.sh JOB_FILE [easyai submit flags...]
#
#   JOB_NAME       the job's name (default ci-<UTC time>-<pid>; two runs must not share one)
#   JOB_NAMESPACE  its namespace (default: the kubeconfig's)
#   JOB_TIMEOUT    the longest wait (default 2h); a job still running then is deleted
#   JOB_RESULT     where the final state goes (default result.json)
#   EASYAI         the easyai command (default easyai)
set -uo pipefail

if [ $# -lt 1 ]; then
  echo "usage: $0 JOB_FILE [easyai submit flags...]" >&2
  exit 2
fi
job_file=$1
shift
name=${JOB_NAME:-ci-$(date -u +%Y%m%d%H%M%S)-$$}
result=${JOB_RESULT:-result.json}
easyai=${EASYAI:-easyai}
ns=()
if [ -n "${JOB_NAMESPACE:-}" ]; then ns=(-n "$JOB_NAMESPACE"); fi

"$easyai" submit ${ns[@]+"${ns[@]}"} -f "$job_file" --name "$name" \
  --wait --logs --timeout "${JOB_TIMEOUT:-2h}" -o json "$@" >"$result"
code=$?

case $code in
  0) echo "Job $name succeeded." >&2 ;;
  4) echo "Job $name failed: its final state is in $result." >&2 ;;
  5 | 130)
    # Timed out, or the pipeline was cancelled: the job would go on holding
    # its GPUs with nobody waiting for it.
    echo "Job $name did not end in time (or the step was cancelled): deleting it." >&2
    "$easyai" delete ${ns[@]+"${ns[@]}"} "$name" --yes >&2 ;;
  2) echo "The job file or a flag was refused; nothing was submitted." >&2 ;;
  3) echo "Job $name was deleted while it was followed." >&2 ;;
  *) echo "easyai exited $code: see its message above; job $name may still exist (easyai get ${ns[*]:-} $name)." >&2 ;;
esac
exit "$code"
