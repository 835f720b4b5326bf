#!/usr/bin/env bash
# The `easyai list` benchmark (make bench-list, part of make bench): starts a cluster of its own beside
# the development one, fills it with TFJobs and their pods (test/bench/fill),
# checks what both tools see, then times `easyai list -A` against
# `kubectl get tfjobs -A` on the same data, alternating (with a third
# command: a prototype of a leaner list, test/bench/profile -lean-list;
# with BENCH_ARENA, `arena list -A` too, once arena is seen to list every
# job, timed after the others), with the API server's CPU time during each
# run, times the phases of easyai's list apart, and writes the medians to
# docs/benchmarks.md, and a row for the run (date, commit, ratios, load) to
# the history table under them, so that separate runs can be set side by
# side. The cluster is stopped
# at the end, also on failure.
#
# Knobs (environment):
#   BENCH_JOBS=2000        TFJobs (1 PS + BENCH_WORKERS workers each, 1 GPU per worker)
#   BENCH_WORKERS=4
#   BENCH_NAMESPACES=4
#   BENCH_RUNS=7           timed runs of each command
#   BENCH_PODS=1           0: no pods (a 20,000-job run: BENCH_JOBS=20000 BENCH_PODS=0)
#   BENCH_PHASES           1: time the phases apart too (the default at 2,000 jobs only)
#   BENCH_ARENA            an arena binary to time as well (none: not timed)
#   BENCH_DOC=docs/benchmarks.md   where the results go (between the "list" markers,
#                          or "list-N" for N jobs other than 2000); empty: nowhere
#   BENCH_HISTORY=10       rows of the history table kept
#   BENCH_KEEP_CLUSTER=1   leave the cluster running afterwards (for profiling;
#                          stop it with the EASYAI_CLUSTER_* lines printed at the end)
#   BENCH_CLUSTER_DIR, BENCH_PORT_OFFSET   the cluster's directory (.cache/bench-cluster)
#                          and port offset (200) beside the development cluster
# Needs GNU time (/usr/bin/time, Debian package "time") and jq.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCH_JOBS=${BENCH_JOBS:-2000}
BENCH_WORKERS=${BENCH_WORKERS:-4}
BENCH_NAMESPACES=${BENCH_NAMESPACES:-4}
BENCH_RUNS=${BENCH_RUNS:-7}
BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}
BENCH_PODS=${BENCH_PODS:-1}
BENCH_ARENA=${BENCH_ARENA:+$(realpath "$BENCH_ARENA")}
# The phases timed apart (test/bench/profile): by default only at the
# default size, where they take a minute.
BENCH_PHASES=${BENCH_PHASES:-$([ "$BENCH_JOBS" = 2000 ] && echo 1 || echo 0)}
# Results of the default size go between the "list" markers of the doc,
# others between their own.
MARK=list
[ "$BENCH_JOBS" = 2000 ] || MARK="list-$BENCH_JOBS"

bench_cluster_up list

bench_build profile
PROFILE=$EASYAI_CACHE_DIR/bench-profile
bench_arena_setup

blog "filling: $BENCH_JOBS TFJobs (1 PS + $BENCH_WORKERS workers) and their pods in $BENCH_NAMESPACES namespaces"
fill_start=$(date +%s%N)
"$FILL" -jobs "$BENCH_JOBS" -workers "$BENCH_WORKERS" -namespaces "$BENCH_NAMESPACES" -pods="$([ "$BENCH_PODS" = 1 ] && echo true || echo false)"
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
pods=$("$KUBECTL" get pods -A --no-headers -l training.kubeflow.org/operator-name=tfjob-controller 2>/dev/null | wc -l)
want_pods=$((BENCH_PODS == 1 ? BENCH_JOBS * pods_per_job : 0))
[ "$pods" = "$want_pods" ] || bdie "$pods pods, not $want_pods"
if [ -n "$BENCH_ARENA" ]; then
  "${ARENA[@]}" list -A -o json >"$WORK/arena.json" 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; bdie "arena list -A failed"; }
  arena_jobs=$(jq 'length' "$WORK/arena.json")
  [ "$arena_jobs" = "$BENCH_JOBS" ] || bdie "arena list -A sees $arena_jobs jobs, not $BENCH_JOBS: it does not see the same jobs; not timed"
  arena_instances=$(jq '[.[].instances | length] | add // 0' "$WORK/arena.json")
  [ "$arena_instances" = "$want_pods" ] || bdie "arena list -A sees $arena_instances pods of the jobs, not $want_pods; not timed"
  blog "arena sees the $BENCH_JOBS jobs and their $arena_instances pods too"
fi
blog "both see $BENCH_JOBS jobs; $pods pods exist"
blog "easyai list -A, first line: $(head -n 1 "$WORK/list.txt" | tr '\t' ' ')"

run_easyai() { bench_measure easyai "$EASYAI" list -A; }
run_kubectl() { bench_measure kubectl "$KUBECTL" get tfjobs -A; }
# The proposed fix (docs/benchmarks.md) as a command, to time it the same way.
run_lean() { bench_measure lean "$PROFILE" -lean-list; }
run_arena() { [ -z "$BENCH_ARENA" ] || bench_measure arena "${ARENA[@]}" list -A; }

blog "warming up (one run each, not counted)"
run_easyai && run_kubectl && run_lean && run_arena
rm -f "$WORK/easyai" "$WORK/kubectl" "$WORK/lean" "$WORK/arena"
last_run() { tail -n 1 "$WORK/$1" | awk '{ printf "%ss (CPU %ss, server %ss) %.0fMiB", $1, $3, $4, $2 / 1024 }'; }
blog "timing $BENCH_RUNS runs of each, alternating (load average before: $(cut -d' ' -f1-3 /proc/loadavg))"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$BENCH_RUNS"); do
  run_easyai
  run_kubectl
  run_lean
  blog "run $i: easyai $(last_run easyai), kubectl $(last_run kubectl), prototype $(last_run lean)"
done
# Arena's runs come after, in a block of their own: each costs the API server
# about 2.5 s of CPU, which it was still paying during the next easyai run
# when arena took its turn in the rotation (easyai's server CPU per run 1.66
# s against 0.81 s without arena, and the wall-time ratio 0.57 against 0.39).
if [ -n "$BENCH_ARENA" ]; then
  for i in $(seq 1 "$BENCH_RUNS"); do
    run_arena
    blog "arena run $i: $(last_run arena)"
  done
fi

read -r e_t e_tmin e_tmax < <(stats "$WORK/easyai" 1)
read -r e_m e_mmin e_mmax < <(stats "$WORK/easyai" 2)
read -r k_t k_tmin k_tmax < <(stats "$WORK/kubectl" 1)
read -r k_m k_mmin k_mmax < <(stats "$WORK/kubectl" 2)
read -r e_c e_cmin e_cmax < <(stats "$WORK/easyai" 3)
read -r k_c k_cmin k_cmax < <(stats "$WORK/kubectl" 3)
read -r l_t l_tmin l_tmax < <(stats "$WORK/lean" 1)
read -r l_m l_mmin l_mmax < <(stats "$WORK/lean" 2)
read -r l_c l_cmin l_cmax < <(stats "$WORK/lean" 3)
read -r e_s _ _ < <(stats "$WORK/easyai" 4)
read -r k_s _ _ < <(stats "$WORK/kubectl" 4)
read -r l_s _ _ < <(stats "$WORK/lean" 4)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
ratio=$(div "$e_t" "$k_t") mem_ratio=$(div "$e_m" "$k_m") cpu_ratio=$(div "$e_c" "$k_c")
l_ratio=$(div "$l_t" "$k_t") l_mem_ratio=$(div "$l_m" "$k_m") l_cpu_ratio=$(div "$l_c" "$k_c")
server_ratio=$(div "$e_s" "$k_s") l_server_ratio=$(div "$l_s" "$k_s")
arena_rows="" arena_summary="" arena_runs=""
if [ -n "$BENCH_ARENA" ]; then
  read -r a_t a_tmin a_tmax < <(stats "$WORK/arena" 1)
  read -r a_m a_mmin a_mmax < <(stats "$WORK/arena" 2)
  read -r a_c _ _ < <(stats "$WORK/arena" 3)
  read -r a_s _ _ < <(stats "$WORK/arena" 4)
  a_ratio=$(div "$e_t" "$a_t") a_mem_ratio=$(div "$e_m" "$a_m") a_cpu_ratio=$(div "$e_c" "$a_c") a_server_ratio=$(div "$e_s" "$a_s")
  arena_rows="| \`arena list -A\`${ARENA_VERSION:+ (arena $ARENA_VERSION)} | **$(secs "$a_t") s** | $(secs "$a_tmin") – $(secs "$a_tmax") s | $(secs "$a_c") s | **$(mib "$a_m") MiB** | $(mib "$a_mmin") – $(mib "$a_mmax") MiB | $(secs "$a_s") s |
| ratio easyai / arena | **$a_ratio** | | $a_cpu_ratio | **$a_mem_ratio** | | $a_server_ratio |
"
  arena_summary=" | arena list -A: median $(secs "$a_t") s (CPU $(secs "$a_c") s), peak RSS $(mib "$a_m") MiB; ratios easyai/arena: time $a_ratio, memory $a_mem_ratio"
  arena_runs="; arena $(bench_runs arena)"
fi

summary="easyai list -A: median $(secs "$e_t") s (CPU $(secs "$e_c") s), peak RSS $(mib "$e_m") MiB | kubectl get tfjobs -A: median $(secs "$k_t") s (CPU $(secs "$k_c") s), peak RSS $(mib "$k_m") MiB | ratios easyai/kubectl: time $ratio, CPU $cpu_ratio, memory $mem_ratio | lean-decoder prototype: median $(secs "$l_t") s (CPU $(secs "$l_c") s), $(mib "$l_m") MiB, time ratio to kubectl $l_ratio | API server CPU per run: easyai $(secs "$e_s") s, kubectl $(secs "$k_s") s$arena_summary"
blog "$summary"
# The targets: at most half of kubectl's wall time and of its peak memory.
verdict="Targets (at most 0.5 of kubectl's): wall time ratio $ratio, $(at_most "$ratio" 0.5); peak memory ratio $mem_ratio, $(at_most "$mem_ratio" 0.5)"
awk -v r="$ratio" 'BEGIN { exit !(r > 1.0) }' && verdict="$verdict; easyai is SLOWER than kubectl"
blog "$verdict"

# Where easyai's time goes: the phases of list timed apart, in-process
# (test/bench/profile; a CPU profile: BENCH_CPUPROFILE=FILE).
phases=
if [ "$BENCH_PHASES" = 1 ]; then
  blog "timing the phases of easyai list apart"
  "$PROFILE" -runs 5 ${BENCH_CPUPROFILE:+-cpuprofile "$BENCH_CPUPROFILE"} >"$WORK/phases"
  cat "$WORK/phases" >&2
  phases="
The phases of \`easyai list -A\` timed apart, in one process with a warm
connection (test/bench/profile, 5 runs each; the \"proposed\" line is the
prototype of the lean decoder that list now has):

\`\`\`
$(cat "$WORK/phases")
\`\`\`"
fi

[ -n "$BENCH_DOC" ] || exit 0

results=$WORK/results.md
cat >"$results" <<EOF
<!-- BEGIN $MARK results: written by test/bench/list.sh, do not edit by hand -->
Measured on $(date -u +%F): $machine;
cluster Kubernetes $(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes) (kubectl of the same version).
Data: $BENCH_JOBS TFJobs (1 PS + $BENCH_WORKERS workers, $BENCH_WORKERS GPUs each) and $pods pods in
$BENCH_NAMESPACES namespaces, filled in ${fill_seconds} s. $BENCH_RUNS runs of each command, alternating$([ -z "$BENCH_ARENA" ] || echo " (arena's after the others)"), after one warm-up run each;
load average (1, 5, 15 min) $load_before before the runs, $load_after after.

| command | median wall time | min – max | median CPU time (user + sys) | median peak RSS | min – max | median API server CPU time |
|---|---|---|---|---|---|---|
| \`easyai list -A\` | **$(secs "$e_t") s** | $(secs "$e_tmin") – $(secs "$e_tmax") s | $(secs "$e_c") s | **$(mib "$e_m") MiB** | $(mib "$e_mmin") – $(mib "$e_mmax") MiB | $(secs "$e_s") s |
| \`kubectl get tfjobs -A\` | **$(secs "$k_t") s** | $(secs "$k_tmin") – $(secs "$k_tmax") s | $(secs "$k_c") s | **$(mib "$k_m") MiB** | $(mib "$k_mmin") – $(mib "$k_mmax") MiB | $(secs "$k_s") s |
| ratio easyai / kubectl | **$ratio** | | $cpu_ratio | **$mem_ratio** | | $server_ratio |
${arena_rows}| *prototype of the proposed fix* (\`test/bench/profile -lean-list\`, not easyai) | $(secs "$l_t") s | $(secs "$l_tmin") – $(secs "$l_tmax") s | $(secs "$l_c") s | $(mib "$l_m") MiB | $(mib "$l_mmin") – $(mib "$l_mmax") MiB | $(secs "$l_s") s |
| ratio prototype / kubectl | $l_ratio | | $l_cpu_ratio | $l_mem_ratio | | $l_server_ratio |

The API server's CPU time is what the kube-apiserver process spent during the run (/proc), on the
same $(nproc) cores as the command: a wall time well above the command's own CPU time is the server's work, or other load.

$verdict.

Every run (wall time (CPU time, API server's CPU time) / peak RSS): easyai $(bench_runs easyai); kubectl $(bench_runs kubectl)$arena_runs; prototype $(bench_runs lean).
$phases
<!-- END $MARK results -->
EOF

bench_write "$MARK" "$results"
# One row a run in the history table under the results: the target is met or
# not in each separate run, which this table sets side by side.
# (The commit easyai was built from, as bench_machine said then.)
commit=${machine##*easyai built from }
bench_history "$MARK" "| date (UTC) | easyai built from | easyai / kubectl wall time | target (at most 0.5) | easyai / kubectl peak memory | API server CPU per run, easyai / kubectl | easyai / arena wall time, memory | load average (1, 5, 15 min) before |
|---|---|---|---|---|---|---|---|" \
  "| $(date -u '+%F %H:%M') | $commit | $ratio | $(at_most "$ratio" 0.5) | $mem_ratio | $(secs "$e_s") s / $(secs "$k_s") s | $([ -z "$BENCH_ARENA" ] && echo "not measured" || echo "$a_ratio, $a_mem_ratio") | $load_before |"
blog "history row added under the $MARK results"
