#!/usr/bin/env bash
# The `easyai list` benchmark (make bench-list, part of make bench): starts a cluster of its own beside
# the development one, fills it with TFJobs and their pods (test/bench/fill),
# checks what both tools see, then times `easyai list -A` against
# `kubectl get tfjobs -A` on the same data, alternating (with a third
# command: a prototype of a leaner list, test/bench/profile -lean-list),
# times the phases of easyai's list apart, and writes the medians to
# docs/benchmarks.md. The cluster is stopped at the end, also on failure.
#
# Knobs (environment):
#   BENCH_JOBS=2000        TFJobs (1 PS + BENCH_WORKERS workers each, 1 GPU per worker)
#   BENCH_WORKERS=4
#   BENCH_NAMESPACES=4
#   BENCH_RUNS=7           timed runs of each command
#   BENCH_DOC=docs/benchmarks.md   where the results go; empty: nowhere
#   BENCH_KEEP_CLUSTER=1   leave the cluster running afterwards (for profiling;
#                          stop it with the EASYAI_CLUSTER_* lines printed at the end)
#   BENCH_CLUSTER_DIR, BENCH_PORT_OFFSET   the cluster's directory (.cache/bench-cluster)
#                          and port offset (200) beside the development cluster
# Needs GNU time (/usr/bin/time, Debian package "time") and jq.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BENCH_JOBS=${BENCH_JOBS:-2000}
BENCH_WORKERS=${BENCH_WORKERS:-4}
BENCH_NAMESPACES=${BENCH_NAMESPACES:-4}
BENCH_RUNS=${BENCH_RUNS:-7}
BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}

# The benchmark's own cluster, never the development one (an EASYAI_CLUSTER_DIR
# in the caller's environment is deliberately not used: up.sh wipes the dir).
export EASYAI_CLUSTER_DIR=${BENCH_CLUSTER_DIR:-$BENCH_ROOT/.cache/bench-cluster}
export EASYAI_CLUSTER_PORT_OFFSET=${BENCH_PORT_OFFSET:-200}
export EASYAI_CLUSTER_OPERATORS=none
source "$BENCH_ROOT/hack/cluster/lib.sh"
cd "$REPO_ROOT"

blog() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bdie() { blog "error: $*"; exit 1; }

[ "$(realpath -m "$EASYAI_CLUSTER_DIR")" != "$(realpath -m "$EASYAI_CACHE_DIR/cluster")" ] ||
  bdie "BENCH_CLUSTER_DIR is the development cluster's directory; the benchmark needs its own"
[ "$EASYAI_CLUSTER_PORT_OFFSET" != 0 ] || bdie "BENCH_PORT_OFFSET=0 would collide with the development cluster"
[ -x /usr/bin/time ] || bdie "GNU time is needed for peak memory: apt-get install time"
command -v jq >/dev/null || bdie "jq is needed: apt-get install jq"

WORK=$(mktemp -d)
cleanup() {
  local status=$?
  if [ "${BENCH_KEEP_CLUSTER:-}" = 1 ]; then
    blog "cluster kept: export KUBECONFIG=$KUBECONFIG_FILE; stop it with"
    blog "  EASYAI_CLUSTER_DIR=$EASYAI_CLUSTER_DIR EASYAI_CLUSTER_PORT_OFFSET=$EASYAI_CLUSTER_PORT_OFFSET hack/cluster/down.sh"
  else
    "$CLUSTER_HACK_DIR/down.sh" || true
  fi
  rm -rf "$WORK"
  [ $status = 0 ] || blog "failed (exit $status)"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

blog "starting the benchmark cluster in ${EASYAI_CLUSTER_DIR#"$REPO_ROOT"/} (ports +$EASYAI_CLUSTER_PORT_OFFSET, no operators)"
"$CLUSTER_HACK_DIR/up.sh"

EASYAI=$EASYAI_CACHE_DIR/bench-easyai
FILL=$EASYAI_CACHE_DIR/bench-fill
PROFILE=$EASYAI_CACHE_DIR/bench-profile
KUBECTL=$(kube_bin_dir)/kubectl
blog "building easyai and the filler"
go build -o "$EASYAI" ./cmd/easyai
go build -o "$FILL" ./test/bench/fill
go build -o "$PROFILE" ./test/bench/profile

export KUBECONFIG=$KUBECONFIG_FILE
# No user configuration for easyai, and kubectl's discovery cache kept apart.
export XDG_CONFIG_HOME=$WORK/config KUBECACHEDIR=$WORK/kube-cache
mkdir -p "$XDG_CONFIG_HOME"

blog "filling: $BENCH_JOBS TFJobs (1 PS + $BENCH_WORKERS workers) and their pods in $BENCH_NAMESPACES namespaces"
fill_start=$(date +%s%N)
"$FILL" -jobs "$BENCH_JOBS" -workers "$BENCH_WORKERS" -namespaces "$BENCH_NAMESPACES"
fill_seconds=$(awk -v ns=$(($(date +%s%N) - fill_start)) 'BEGIN { printf "%.0f", ns / 1e9 }')

blog "checking what each tool sees"
pods_per_job=$((1 + BENCH_WORKERS))
"$EASYAI" list -A -o json >"$WORK/list.json"
jq -e --argjson n "$BENCH_JOBS" --argjson w "$pods_per_job" --argjson g "$BENCH_WORKERS" '
  (.items | length) == $n and
  all(.items[]; .workers.ready == $w and .workers.total == $w and .gpus == $g and .status.state == "Running")' \
  "$WORK/list.json" >/dev/null ||
  bdie "easyai list -A -o json: expected $BENCH_JOBS Running jobs with workers $pods_per_job/$pods_per_job and $BENCH_WORKERS GPUs; got $(jq -c '[.items | length, (group_by(.status.state, .workers, .gpus) | map({state: .[0].status.state, workers: .[0].workers, gpus: .[0].gpus, n: length}))]' "$WORK/list.json")"
"$EASYAI" list -A >"$WORK/list.txt"
[ "$(wc -l <"$WORK/list.txt")" = "$BENCH_JOBS" ] || bdie "easyai list -A printed $(wc -l <"$WORK/list.txt") lines, not $BENCH_JOBS"
[ "$("$PROFILE" -lean-list | wc -l)" = "$BENCH_JOBS" ] || bdie "the lean-decoder prototype does not list $BENCH_JOBS jobs"
kubectl_jobs=$("$KUBECTL" get tfjobs -A --no-headers | wc -l)
[ "$kubectl_jobs" = "$BENCH_JOBS" ] || bdie "kubectl get tfjobs -A sees $kubectl_jobs jobs, not $BENCH_JOBS"
pods=$("$KUBECTL" get pods -A --no-headers -l training.kubeflow.org/operator-name=tfjob-controller | wc -l)
[ "$pods" = $((BENCH_JOBS * pods_per_job)) ] || bdie "$pods pods, not $((BENCH_JOBS * pods_per_job))"
blog "both see $BENCH_JOBS jobs; $pods pods exist"
blog "easyai list -A, first line: $(head -n 1 "$WORK/list.txt" | tr '\t' ' ')"

# measure NAME CMD...: runs CMD with stdout to /dev/null, appends
# "<wall seconds> <peak RSS KiB> <CPU seconds, user + system>" to $WORK/NAME.
# (The CPU time says what the tool itself costs when other work shares the
# machine's cores and stretches the wall time.)
measure() {
  local name=$1 t0 t1; shift
  t0=$(date +%s%N)
  if ! /usr/bin/time -f '%M %U %S' -o "$WORK/usage" "$@" >/dev/null 2>"$WORK/stderr"; then
    cat "$WORK/stderr" >&2
    bdie "$name failed"
  fi
  t1=$(date +%s%N)
  tail -n 1 "$WORK/usage" | awk -v ns=$((t1 - t0)) '{ printf "%.3f %s %.2f\n", ns / 1e9, $1, $2 + $3 }' >>"$WORK/$name"
}
run_easyai() { measure easyai "$EASYAI" list -A; }
run_kubectl() { measure kubectl "$KUBECTL" get tfjobs -A; }
# The proposed fix (docs/benchmarks.md) as a command, to time it the same way.
run_lean() { measure lean "$PROFILE" -lean-list; }

blog "warming up (one run each, not counted)"
run_easyai && run_kubectl && run_lean
rm -f "$WORK/easyai" "$WORK/kubectl" "$WORK/lean"
last_run() { tail -n 1 "$WORK/$1" | awk '{ printf "%ss (CPU %ss) %.0fMiB", $1, $3, $2 / 1024 }'; }
blog "timing $BENCH_RUNS runs of each, alternating (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$BENCH_RUNS"); do
  run_easyai
  run_kubectl
  run_lean
  blog "run $i: easyai $(last_run easyai), kubectl $(last_run kubectl), prototype $(last_run lean)"
done

# stats NAME COLUMN: median, min and max of a column (1: wall seconds, 2: KiB, 3: CPU seconds).
stats() {
  cut -d' ' -f"$2" "$WORK/$1" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR] }'
}
read -r e_t e_tmin e_tmax < <(stats easyai 1)
read -r e_m e_mmin e_mmax < <(stats easyai 2)
read -r k_t k_tmin k_tmax < <(stats kubectl 1)
read -r k_m k_mmin k_mmax < <(stats kubectl 2)
read -r e_c e_cmin e_cmax < <(stats easyai 3)
read -r k_c k_cmin k_cmax < <(stats kubectl 3)
read -r l_t l_tmin l_tmax < <(stats lean 1)
read -r l_m l_mmin l_mmax < <(stats lean 2)
read -r l_c l_cmin l_cmax < <(stats lean 3)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
ratio=$(div "$e_t" "$k_t") mem_ratio=$(div "$e_m" "$k_m") cpu_ratio=$(div "$e_c" "$k_c")
l_ratio=$(div "$l_t" "$k_t") l_mem_ratio=$(div "$l_m" "$k_m") l_cpu_ratio=$(div "$l_c" "$k_c")
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
secs() { awk -v s="$1" 'BEGIN { printf "%.2f", s }'; }
runs() { awk '{ printf "%s%.2f s (CPU %.2f s) / %.0f MiB", (NR > 1 ? ", " : ""), $1, $3, $2 / 1024 }' "$WORK/$1"; }

summary="easyai list -A: median $(secs "$e_t") s (CPU $(secs "$e_c") s), peak RSS $(mib "$e_m") MiB | kubectl get tfjobs -A: median $(secs "$k_t") s (CPU $(secs "$k_c") s), peak RSS $(mib "$k_m") MiB | ratios easyai/kubectl: time $ratio, CPU $cpu_ratio, memory $mem_ratio | lean-decoder prototype: median $(secs "$l_t") s (CPU $(secs "$l_c") s), $(mib "$l_m") MiB, time ratio to kubectl $l_ratio"
blog "$summary"
# The targets: at most half of kubectl's wall time and of its peak memory.
met() { awk -v r="$1" 'BEGIN { exit !(r <= 0.5) }' && echo met || echo "NOT met"; }
verdict="Targets (at most 0.5 of kubectl's): wall time ratio $ratio, $(met "$ratio"); peak memory ratio $mem_ratio, $(met "$mem_ratio")"
awk -v r="$ratio" 'BEGIN { exit !(r > 1.0) }' && verdict="$verdict; easyai is SLOWER than kubectl"
blog "$verdict"

# Where easyai's time goes: the phases of list timed apart, in-process
# (test/bench/profile; a CPU profile: BENCH_CPUPROFILE=FILE).
blog "timing the phases of easyai list apart"
"$PROFILE" -runs 5 ${BENCH_CPUPROFILE:+-cpuprofile "$BENCH_CPUPROFILE"} >"$WORK/phases"
cat "$WORK/phases" >&2

[ -n "$BENCH_DOC" ] || exit 0

# The machine and the versions, for the record.
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
commit=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- cmd pkg go.mod 2>/dev/null && [ -z "$(git ls-files --others --exclude-standard cmd pkg)" ] ||
  commit="$commit + uncommitted changes in cmd/, pkg/"
results=$WORK/results.md
cat >"$results" <<EOF
<!-- BEGIN list results: written by test/bench/list.sh, do not edit by hand -->
Measured on $(date -u +%F): $(nproc) CPUs ($cpu_model), $mem_gib GiB of memory,
$(uname -sr); Go $(go env GOVERSION | sed 's/^go//'); cluster Kubernetes $(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes)
(kubectl of the same version); easyai built from $commit.
Data: $BENCH_JOBS TFJobs (1 PS + $BENCH_WORKERS workers, $BENCH_WORKERS GPUs each) and $pods pods in
$BENCH_NAMESPACES namespaces, filled in ${fill_seconds} s. $BENCH_RUNS runs of each command, alternating, after one warm-up run each;
load average (1, 5, 15 min) $load_before before the runs, $load_after after.

| command | median wall time | min – max | median CPU time (user + sys) | median peak RSS | min – max |
|---|---|---|---|---|---|
| \`easyai list -A\` | **$(secs "$e_t") s** | $(secs "$e_tmin") – $(secs "$e_tmax") s | $(secs "$e_c") s | **$(mib "$e_m") MiB** | $(mib "$e_mmin") – $(mib "$e_mmax") MiB |
| \`kubectl get tfjobs -A\` | **$(secs "$k_t") s** | $(secs "$k_tmin") – $(secs "$k_tmax") s | $(secs "$k_c") s | **$(mib "$k_m") MiB** | $(mib "$k_mmin") – $(mib "$k_mmax") MiB |
| ratio easyai / kubectl | **$ratio** | | $cpu_ratio | **$mem_ratio** | |
| *prototype of the proposed fix* (\`test/bench/profile -lean-list\`, not easyai) | $(secs "$l_t") s | $(secs "$l_tmin") – $(secs "$l_tmax") s | $(secs "$l_c") s | $(mib "$l_m") MiB | $(mib "$l_mmin") – $(mib "$l_mmax") MiB |
| ratio prototype / kubectl | $l_ratio | | $l_cpu_ratio | $l_mem_ratio | |

$verdict.

Every run (wall time (CPU time) / peak RSS): easyai $(runs easyai); kubectl $(runs kubectl); prototype $(runs lean).

The phases of \`easyai list -A\` timed apart, in one process with a warm
connection (test/bench/profile, 5 runs each; the "proposed" line is a
prototype of a lean decoder, not what easyai does):

\`\`\`
$(cat "$WORK/phases")
\`\`\`
<!-- END list results -->
EOF

doc=$REPO_ROOT/$BENCH_DOC
if [ -f "$doc" ] && grep -q '^<!-- BEGIN list results' "$doc" && grep -q '^<!-- END list results' "$doc"; then
  # Replace what lies between the markers; the prose around them stays.
  awk -v results="$results" '
    /^<!-- BEGIN list results/ { while ((getline line < results) > 0) print line; skip = 1; next }
    /^<!-- END list results/ { skip = 0; next }
    !skip' "$doc" >"$WORK/doc" && cat "$WORK/doc" >"$doc"
else
  mkdir -p "$(dirname "$doc")"
  {
    cat <<'EOF'
# Benchmarks

## `easyai list -A` against `kubectl get tfjobs -A`

What is measured: the wall time, CPU time and peak resident memory of listing
every training job of a busy cluster, 2,000 running TFJobs of 1 PS and 4 GPU
workers each with their 10,000 pods, by `easyai list -A` and by
`kubectl get tfjobs -A`, on the same cluster and data. The targets: at most
half of kubectl's wall time and half of its peak memory, while showing more
than kubectl does (workers ready/total, GPUs, user, duration).

How: `make bench-list` (test/bench/list.sh; `make bench` runs every benchmark) starts a local cluster of its own
(`.cache/bench-cluster`, ports shifted by 200, without the training-operator
and Volcano so the objects stay as written), fills it with
`test/bench/fill` (jobs labelled and annotated as easyai submits them, with
the status the operator writes for running jobs, and their pods, left
Pending), checks that both tools see every job, then runs each command with
its output to /dev/null (not a terminal), alternating, under GNU
`/usr/bin/time` for the peak RSS and the CPU time. It also times the phases
of easyai's list apart (`test/bench/profile`), writes the section below and
stops the cluster.

To rerun: `make bench-list` (needs `time` and `jq` from Debian; 4 to 5 minutes
with the cluster's binaries built, most of it filling). `BENCH_RUNS`,
`BENCH_JOBS` and `BENCH_KEEP_CLUSTER=1` (keep the cluster to profile it) are
described at the top of the script. For a CPU profile of easyai's list:
`BENCH_CPUPROFILE=/tmp/list.pprof make bench-list`, then
`go tool pprof -top -cum .cache/bench-profile /tmp/list.pprof`.
The wall time is only comparable on a quiet machine: the load average is
recorded with each result, and the CPU time is the steadier figure.

EOF
    cat "$results"
  } >"$doc"
fi
blog "results written to $BENCH_DOC"
