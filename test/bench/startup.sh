#!/usr/bin/env bash
# The start-up benchmark (make bench-startup, part of make bench): how long
# the commands that do little take, where easyai's own start (package
# initialization, the first garbage collections, reading the kubeconfig)
# is most of the time. Starts the benchmarks' own cluster, makes 10 TFJobs
# in a namespace (test/bench/fill), checks that both tools see them, then
# times `easyai version` against `kubectl version --client` and
# `easyai list -n NS` against `kubectl get tfjobs -n NS`, and writes the
# medians between the "startup" markers of docs/benchmarks.md.
#
# A single run of these takes tens of milliseconds, less than the noise of a
# shared machine: each command runs in samples of BENCH_RUNS runs in a row,
# the commands alternating sample by sample; a sample's figure is its mean
# per run, and a command's figure the median of its samples.
#
# Where BENCH_ARENA names an arena binary, `arena version` and
# `arena list -n NS` are timed the same way (fill labels the jobs as arena's
# charts do); without it they are not.
#
# Knobs (environment):
#   BENCH_SAMPLES=9        samples of each command
#   BENCH_RUNS=20          runs in a sample
#   BENCH_ARENA            an arena binary to time as well (none: not timed)
#   BENCH_DOC=docs/benchmarks.md   where the results go; empty: nowhere
#   BENCH_KEEP_CLUSTER=1, BENCH_CLUSTER_DIR, BENCH_PORT_OFFSET: as for list.sh
# Needs GNU time (/usr/bin/time) and jq.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCH_SAMPLES=${BENCH_SAMPLES:-9}
BENCH_RUNS=${BENCH_RUNS:-20}
BENCH_ARENA=${BENCH_ARENA:-}
BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}
JOBS=10

# (The cluster's kubeconfig names its files by this path: an absolute one.)
[ -z "${BENCH_CLUSTER_DIR:-}" ] || BENCH_CLUSTER_DIR=$(realpath -m "$BENCH_CLUSTER_DIR")
bench_cluster_up startup
bench_build

NS=bench-startup-0
blog "making $JOBS TFJobs in $NS"
"$FILL" -jobs "$JOBS" -namespaces 1 -namespace-prefix bench-startup-

blog "checking what each tool sees"
jobs=$("$EASYAI" list -n "$NS" -o json | jq '.items | length')
[ "$jobs" = "$JOBS" ] || bdie "easyai list -n $NS shows $jobs jobs, not $JOBS"
jobs=$("$KUBECTL" get tfjobs -n "$NS" --no-headers | wc -l)
[ "$jobs" = "$JOBS" ] || bdie "kubectl get tfjobs -n $NS sees $jobs jobs, not $JOBS"
if [ -n "$BENCH_ARENA" ]; then
  jobs=$("$BENCH_ARENA" list -n "$NS" | grep -c '^bench-' || true)
  [ "$jobs" = "$JOBS" ] || bdie "arena list -n $NS shows $jobs jobs, not $JOBS"
fi

# sample NAME CMD...: runs CMD BENCH_RUNS times in a row (stdout to
# /dev/null) and appends "<wall ms per run> <CPU ms per run>" to $WORK/NAME.
sample() {
  local name=$1 t0 t1; shift
  t0=$(date +%s%N)
  # shellcheck disable=SC2016 # expanded by the inner shell
  if ! /usr/bin/time -f '%U %S' -o "$WORK/usage" bash -c '
      runs=$1; shift
      for ((i = 0; i < runs; i++)); do "$@" >/dev/null || exit 1; done' _ "$BENCH_RUNS" "$@" 2>"$WORK/stderr"; then
    cat "$WORK/stderr" >&2
    bdie "$name failed"
  fi
  t1=$(date +%s%N)
  tail -n 1 "$WORK/usage" | awk -v ns=$((t1 - t0)) -v runs="$BENCH_RUNS" '
    { printf "%.3f %.3f\n", ns / 1e6 / runs, ($1 + $2) * 1000 / runs }' >>"$WORK/$name"
}

run_all() {
  sample easyai-version "$EASYAI" version
  sample kubectl-version "$KUBECTL" version --client
  [ -z "$BENCH_ARENA" ] || sample arena-version "$BENCH_ARENA" version
  sample easyai-list "$EASYAI" list -n "$NS"
  sample kubectl-list "$KUBECTL" get tfjobs -n "$NS"
  [ -z "$BENCH_ARENA" ] || sample arena-list "$BENCH_ARENA" list -n "$NS"
}

blog "warming up (one sample each, not counted)"
run_all
rm -f "$WORK"/*-version "$WORK"/*-list
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
blog "timing $BENCH_SAMPLES samples of $BENCH_RUNS runs of each command, alternating"
for _ in $(seq 1 "$BENCH_SAMPLES"); do run_all; done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

median() { stats "$WORK/$1" "${2:-1}" | cut -d' ' -f1; }
ms() { awk -v v="$1" 'BEGIN { printf "%.1f", v }'; }
# row NAME COMMAND: a table row of NAME's samples.
row() {
  local t tmin tmax
  read -r t tmin tmax < <(stats "$WORK/$1" 1)
  echo "| \`$2\` | **$(ms "$t") ms** | $(ms "$tmin") – $(ms "$tmax") ms | $(ms "$(median "$1" 2)") ms |"
}
# ratio A B: the ratio of A's median wall time to B's, and the verdict.
ratio() {
  local r
  r=$(div "$(median "$1")" "$(median "$2")")
  echo "$r (target at most 0.5: $(at_most "$r" 0.5))"
}

version_ratio=$(ratio easyai-version kubectl-version)
list_ratio=$(ratio easyai-list kubectl-list)
blog "easyai / kubectl version: $version_ratio; list: $list_ratio"
[ -z "$BENCH_ARENA" ] ||
  blog "easyai / arena version: $(ratio easyai-version arena-version); list: $(ratio easyai-list arena-list)"

results=$WORK/results.md
{
  echo "<!-- BEGIN startup results: written by test/bench/startup.sh, do not edit by hand -->"
  echo "Measured on $(date -u +%F): $machine; cluster Kubernetes"
  echo "$(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes) (kubectl of the same version)."
  echo "Data: $JOBS TFJobs (1 PS, 4 workers each) and their pods in the namespace $NS."
  echo "$BENCH_SAMPLES samples of $BENCH_RUNS runs of each command in a row, the commands alternating, after one warm-up sample each;"
  echo "a sample's figure is its mean per run, a command's the median of its samples."
  echo "Load average (1, 5, 15 min) $load_before before the runs, $load_after after."
  echo
  echo "| command | median wall time per run | min – max of the samples | median CPU time per run |"
  echo "|---|---|---|---|"
  row easyai-version "easyai version"
  row kubectl-version "kubectl version --client"
  [ -z "$BENCH_ARENA" ] || row arena-version "arena version"
  row easyai-list "easyai list -n $NS"
  row kubectl-list "kubectl get tfjobs -n $NS"
  [ -z "$BENCH_ARENA" ] || row arena-list "arena list -n $NS"
  echo
  echo "easyai / kubectl version: $version_ratio."
  echo "easyai / kubectl list: $list_ratio."
  if [ -n "$BENCH_ARENA" ]; then
    echo "easyai / arena version: $(ratio easyai-version arena-version)."
    echo "easyai / arena list: $(ratio easyai-list arena-list)."
  fi
  echo "<!-- END startup results -->"
} >"$results"
bench_write startup "$results"
