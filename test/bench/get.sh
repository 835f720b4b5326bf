#!/usr/bin/env bash
# The `easyai get` benchmark (make bench-get, part of make bench): starts the
# benchmarks' own cluster, makes one TFJob of BENCH_REPLICAS replicas with
# its pods (test/bench/fill), bound to kwok's fake nodes, which run them,
# counts the API requests `easyai get tf/JOB` sends (client-go's -v 6
# lines), then times it against `kubectl get pods -l <the job's label>`, the
# nearest kubectl has to it, alternating, with the API server's CPU time
# during each run, and writes the medians between the "get" markers of
# docs/benchmarks.md.
#
# With BENCH_ARENA=path/to/arena, `arena get JOB -n NS` is a third command
# (the job and its pods carry the labels arena reads, app=tfjob and
# release=JOB), once arena is seen to show every replica. Targets: at most
# kubectl's wall time and peak memory (1.0), at most half of arena's.
#
# Knobs (environment):
#   BENCH_REPLICAS=1000    replicas of the job (1 PS + the rest workers)
#   BENCH_RUNS=7           timed runs of each command
#   BENCH_ARENA            an arena binary to time as well (none: not timed)
#   BENCH_DOC=docs/benchmarks.md   where the results go; empty: nowhere
#   BENCH_KEEP_CLUSTER=1, BENCH_CLUSTER_DIR, BENCH_PORT_OFFSET: as for list.sh
# Needs GNU time (/usr/bin/time) and jq.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCH_REPLICAS=${BENCH_REPLICAS:-1000}
BENCH_RUNS=${BENCH_RUNS:-7}
BENCH_ARENA=${BENCH_ARENA:+$(realpath "$BENCH_ARENA")}
BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}
[ "$BENCH_REPLICAS" -ge 2 ] || bdie "BENCH_REPLICAS must be at least 2 (1 PS and a worker)"

bench_cluster_up get
bench_build
bench_arena_setup

NS=bench-get-0 JOB=bench-0000
SELECTOR=training.kubeflow.org/job-name=$JOB
nodes=$("$KUBECTL" get nodes -o name | sed -n 's|^node/\(kwok-node-.*\)|\1|p' | paste -sd, -)
[ -n "$nodes" ] || bdie "the cluster has no fake nodes"
blog "making $JOB in $NS: $BENCH_REPLICAS replicas and their pods, on the fake nodes $nodes"
"$FILL" -jobs 1 -workers $((BENCH_REPLICAS - 1)) -namespaces 1 -namespace-prefix bench-get- -pods=true -nodes "$nodes"
running=0
for _ in $(seq 1 120); do
  running=$("$KUBECTL" get pods -n "$NS" -l "$SELECTOR" --field-selector status.phase=Running --no-headers 2>/dev/null | wc -l)
  [ "$running" != "$BENCH_REPLICAS" ] || break
  sleep 1
done
[ "$running" = "$BENCH_REPLICAS" ] || bdie "$running of the $BENCH_REPLICAS pods run after 2 minutes"

blog "checking what each tool sees"
"$EASYAI" get "tf/$JOB" -n "$NS" -o json >"$WORK/get.json"
replicas=$(jq '.replicas | length' "$WORK/get.json")
[ "$replicas" = "$BENCH_REPLICAS" ] || bdie "easyai get shows $replicas replicas, not $BENCH_REPLICAS"
pods=$("$KUBECTL" get pods -n "$NS" -l "$SELECTOR" --no-headers | wc -l)
[ "$pods" = "$BENCH_REPLICAS" ] || bdie "kubectl get pods sees $pods pods, not $BENCH_REPLICAS"
"$EASYAI" get "tf/$JOB" -n "$NS" -v 6 2>"$WORK/requests" >/dev/null
requests=$(grep -c '"Response" verb=' "$WORK/requests" || true)
request_list=$(sed -n 's/.*"Response" verb="\([A-Z]*\)" url="https:\/\/[^/]*\([^?"]*\).*/\1 \2/p' "$WORK/requests" | paste -sd';' - | sed 's/;/; /g')
blog "easyai get sends $requests requests: $request_list"
if [ -n "$BENCH_ARENA" ]; then
  "${ARENA[@]}" get "$JOB" -n "$NS" -o json >"$WORK/arena.json" 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; bdie "arena get $JOB failed"; }
  arena_replicas=$(jq '.instances | length' "$WORK/arena.json")
  [ "$arena_replicas" = "$BENCH_REPLICAS" ] ||
    bdie "arena get $JOB shows $arena_replicas instances, not $BENCH_REPLICAS: it does not see the same job; not timed"
  blog "arena get shows the $arena_replicas replicas too"
fi

run_easyai() { bench_measure easyai "$EASYAI" get "tf/$JOB" -n "$NS"; }
run_kubectl() { bench_measure kubectl "$KUBECTL" get pods -n "$NS" -l "$SELECTOR"; }
run_arena() { [ -z "$BENCH_ARENA" ] || bench_measure arena "${ARENA[@]}" get "$JOB" -n "$NS"; }

blog "warming up (one run each, not counted)"
run_easyai && run_kubectl && run_arena
rm -f "$WORK/easyai" "$WORK/kubectl" "$WORK/arena"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
blog "timing $BENCH_RUNS runs of each, alternating"
for i in $(seq 1 "$BENCH_RUNS"); do
  run_easyai
  run_kubectl
  run_arena
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# row NAME LABEL: a table row of NAME's medians.
row() {
  local t tmin tmax m c sc
  read -r t tmin tmax < <(stats "$WORK/$1" 1)
  read -r m _ _ < <(stats "$WORK/$1" 2)
  read -r c _ _ < <(stats "$WORK/$1" 3)
  read -r sc _ _ < <(stats "$WORK/$1" 4)
  echo "| $2 | **$(secs "$t") s** | $(secs "$tmin") – $(secs "$tmax") s | $(secs "$c") s | **$(mib "$m") MiB** | $(secs "$sc") s |"
}
# median NAME COLUMN: the median of a column of NAME's runs (1 wall time,
# 2 peak RSS, 3 CPU time, 4 the API server's CPU time).
median() { stats "$WORK/$1" "$2" | cut -d' ' -f1; }
easyai_row=$(row easyai "\`easyai get tf/$JOB\`") e_t=$(median easyai 1) e_m=$(median easyai 2)
kubectl_row=$(row kubectl "\`kubectl get pods -l $SELECTOR\`") k_t=$(median kubectl 1) k_m=$(median kubectl 2)
k_ratio=$(div "$e_t" "$k_t") k_mem=$(div "$e_m" "$k_m")
kubectl_verdict="at most kubectl's wall time: $(at_most "$k_ratio" 1.0); at most its peak memory: $(at_most "$k_mem" 1.0)"
ratios="- easyai / kubectl wall time: $k_ratio
- easyai / kubectl peak memory: $k_mem"
arena_row="" arena_verdict="not measured (BENCH_ARENA unset)"
if [ -n "$BENCH_ARENA" ]; then
  arena_row=$(row arena "\`arena get $JOB\`${ARENA_VERSION:+ (arena $ARENA_VERSION)}") a_t=$(median arena 1) a_m=$(median arena 2)
  a_ratio=$(div "$e_t" "$a_t") a_mem=$(div "$e_m" "$a_m")
  arena_verdict="at most half of arena's wall time: $(at_most "$a_ratio" 0.5); at most half of its peak memory: $(at_most "$a_mem" 0.5)"
  ratios="$ratios
- easyai / arena wall time: $a_ratio
- easyai / arena peak memory: $a_mem"
fi
request_verdict="at most 3 requests: $requests, $( [ "$requests" -le 3 ] && echo met || echo "NOT met")"
blog "easyai get: median $(secs "$e_t") s, $(mib "$e_m") MiB; kubectl get pods -l: median $(secs "$k_t") s, $(mib "$k_m") MiB (ratios $k_ratio, $k_mem): $kubectl_verdict; $request_verdict"
[ -z "$BENCH_ARENA" ] || blog "arena get: median $(secs "$a_t") s, $(mib "$a_m") MiB (ratios $a_ratio, $a_mem): $arena_verdict"

results=$WORK/results.md
{
  echo "<!-- BEGIN get results: written by test/bench/get.sh, do not edit by hand -->"
  echo "Measured on $(date -u +%F): $machine; cluster Kubernetes"
  echo "$(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes) (kubectl of the same version)."
  echo "Data: one TFJob of $BENCH_REPLICAS replicas (1 PS, $((BENCH_REPLICAS - 1)) workers) and its $BENCH_REPLICAS pods, running on kwok's fake nodes."
  echo "$BENCH_RUNS runs of each command, alternating, after one warm-up run each;"
  echo "load average (1, 5, 15 min) $load_before before the runs, $load_after after."
  echo "The API server's CPU time is what the kube-apiserver process spent during the run (/proc), on the same cores."
  echo
  echo "| command | median wall time | min – max | median CPU time | median peak RSS | median API server CPU time |"
  echo "|---|---|---|---|---|---|"
  echo "$easyai_row"
  echo "$kubectl_row"
  [ -z "$arena_row" ] || echo "$arena_row"
  echo
  echo "$ratios"
  echo
  echo "Targets against kubectl: $kubectl_verdict. Against arena: $arena_verdict."
  echo "Requests of \`easyai get\` ($request_verdict): $request_list."
  echo
  echo "Every run (wall time (CPU time, API server's CPU time) / peak RSS): easyai $(bench_runs easyai); kubectl $(bench_runs kubectl)$( [ -z "$BENCH_ARENA" ] || echo "; arena $(bench_runs arena)")."
  echo "<!-- END get results -->"
} >"$results"
bench_write get "$results"
