#!/usr/bin/env bash
# The logs benchmark (make bench-logs, part of make bench): starts the
# benchmarks' own cluster, makes one TFJob of BENCH_REPLICAS replicas whose
# pods run on kwok's fake nodes (test/bench/fill -nodes), has every replica
# print the same BENCH_LOG_LINES numbered lines (a kwok ClusterLogs serving
# one file, followed), and follows them all with
#   easyai logs -f tf/JOB
#   kubectl logs -f -l training.kubeflow.org/job-name=JOB --prefix --tail=-1 --max-log-requests N
# alternating, each under GNU time, its output read by test/bench/logcount,
# which counts the lines delivered once, duplicated and lost, and stops the
# follower when every line has come (or none came for BENCH_IDLE).
#
# Two scenarios: "backlog", the whole log there when the follower starts (how
# fast it catches up, and what it holds meanwhile), and "live", the log
# written while the follower runs, over BENCH_LIVE_SECONDS (what following
# costs with every stream open). kubectl opens its streams at its client's
# default 5 requests a second (it has no flag to raise it), so its last
# streams open after about 100 s: a live run starts writing only once the
# API server holds every stream of the follower open (its
# apiserver_longrunning_requests gauge), so that both followers get every
# line live, none of it as a backlog read at once.
#
# Targets: easyai's peak memory at most kubectl's (1.0x), its CPU time per
# line at most kubectl's; every line delivered once. (No arena line: `arena
# logs -f` follows one replica, the chief or the one -i names, not every one.) Writes the medians
# between the logs markers of docs/benchmarks.md.
#
# BENCH_KIND=trainjob or volcano makes the job a Kubeflow Trainer TrainJob of
# BENCH_REPLICAS nodes or a Volcano Job of one task of BENCH_REPLICAS
# replicas instead (their pods as the JobSet and Volcano controllers name and
# label them; no operator runs), kubectl following that kind's pod label, and
# writes between the "logs-trainjob" or "logs-volcano" markers.
#
# Knobs (environment):
#   BENCH_KIND=tf             tf, trainjob or volcano
#   BENCH_REPLICAS=512        replicas of the job (1 PS + the rest workers)
#   BENCH_LOG_LINES=2000      lines each replica prints
#   BENCH_RUNS=3              backlog runs of each follower
#   BENCH_LIVE_RUNS=1         live runs of each follower
#   BENCH_LIVE_SECONDS=120    how long writing the log takes in a live run
#   BENCH_OPEN_WAIT=180       how long a live run waits for every stream to open before writing
#   BENCH_IDLE=30s            a follower that delivers nothing new for this long is stopped
#   BENCH_DOC=docs/benchmarks.md   where the results go; empty: nowhere
#   BENCH_KEEP_CLUSTER=1, BENCH_CLUSTER_DIR, BENCH_PORT_OFFSET: as for list.sh
# Needs GNU time (/usr/bin/time) and jq; as root it raises
# fs.inotify.max_user_instances when kwok needs more (one per followed stream).
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCH_KIND=${BENCH_KIND:-tf}
BENCH_REPLICAS=${BENCH_REPLICAS:-512}
BENCH_LOG_LINES=${BENCH_LOG_LINES:-2000}
BENCH_RUNS=${BENCH_RUNS:-3}
BENCH_LIVE_RUNS=${BENCH_LIVE_RUNS:-1}
BENCH_LIVE_SECONDS=${BENCH_LIVE_SECONDS:-120}
BENCH_OPEN_WAIT=${BENCH_OPEN_WAIT:-180}
BENCH_IDLE=${BENCH_IDLE:-30s}
BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}
[ "$BENCH_REPLICAS" -ge 2 ] || bdie "BENCH_REPLICAS must be at least 2 (1 PS and a worker)"
# The kind's pod label, its replicas' container, what the results call it,
# and where they go.
case "$BENCH_KIND" in
  tf) POD_LABEL=training.kubeflow.org/job-name CONTAINER=tensorflow WHAT="one TFJob of $BENCH_REPLICAS replicas" MARK=logs ;;
  trainjob) POD_LABEL=jobset.sigs.k8s.io/jobset-name CONTAINER=node WHAT="one TrainJob (torch-distributed) of $BENCH_REPLICAS nodes" MARK=logs-trainjob ;;
  volcano) POD_LABEL=volcano.sh/job-name CONTAINER=worker WHAT="one Volcano Job of one task of $BENCH_REPLICAS replicas" MARK=logs-volcano ;;
  *) bdie "BENCH_KIND=$BENCH_KIND: not tf, trainjob or volcano" ;;
esac

bench_cluster_up logs

bench_build logcount
COUNT=$EASYAI_CACHE_DIR/bench-logcount

NS=bench-logs-0 JOB=bench-0000
nodes=$("$KUBECTL" get nodes -o name | sed -n 's|^node/\(kwok-node-.*\)|\1|p' | paste -sd, -)
[ -n "$nodes" ] || bdie "the cluster has no fake nodes"
blog "making $JOB in $NS: $BENCH_REPLICAS replicas on the fake nodes $nodes"
"$FILL" -kind "$BENCH_KIND" -jobs 1 -workers $((BENCH_REPLICAS - 1)) -namespaces 1 -namespace-prefix bench-logs- -nodes "$nodes"

# kwok watches the file with inotify for every followed stream: more streams
# than the user's inotify instances (128 by default) do not follow.
inotify=/proc/sys/fs/inotify/max_user_instances
if [ "$(cat "$inotify")" -lt $((BENCH_REPLICAS + 64)) ]; then
  if [ -w "$inotify" ]; then
    blog "raising fs.inotify.max_user_instances from $(cat "$inotify") to $((BENCH_REPLICAS + 64)): kwok follows each stream's file with one"
    echo $((BENCH_REPLICAS + 64)) >"$inotify"
  else
    blog "warning: fs.inotify.max_user_instances is $(cat "$inotify"): kwok cannot follow $BENCH_REPLICAS streams, the live runs will lose lines; raise it as root"
  fi
fi

# Every replica prints the same file: "seq=N" and a line of the length a
# training loop's progress line has (test/bench/logcount -write).
LOG=$WORK/replica.log
"$COUNT" -write "$LOG" -lines "$BENCH_LOG_LINES" -over 0s
"$KUBECTL" apply -f - >/dev/null <<EOF
apiVersion: kwok.x-k8s.io/v1alpha1
kind: ClusterLogs
metadata:
  name: bench-logs
spec:
  selector:
    matchNamespaces: [$NS]
  logs:
  - containers: [$CONTAINER]
    logsFile: $LOG
    follow: true
EOF

blog "waiting for the $BENCH_REPLICAS pods to run"
"$KUBECTL" wait pods -n "$NS" -l "$POD_LABEL=$JOB" \
  --for=jsonpath='{.status.phase}'=Running --timeout=600s >/dev/null
running=$("$KUBECTL" get pods -n "$NS" -l "$POD_LABEL=$JOB" --no-headers | grep -c ' Running ')
[ "$running" = "$BENCH_REPLICAS" ] || bdie "$running pods run, not $BENCH_REPLICAS"
first_pod=$("$KUBECTL" get pods -n "$NS" -l "$POD_LABEL=$JOB" -o jsonpath='{.items[0].metadata.name}')
"$KUBECTL" logs -n "$NS" "$first_pod" --tail=1 | grep -q "seq=$BENCH_LOG_LINES " ||
  bdie "kwok does not serve the replicas' log"

# log_streams: the pod log streams the API server holds open (its
# apiserver_longrunning_requests gauge); every one is a follower's here.
log_streams() {
  "$KUBECTL" get --raw /metrics | awk '/^apiserver_longrunning_requests\{/ && /resource="pods"/ && /subresource="log"/ { s += $NF } END { print s + 0 }'
}

# wait_for_streams N NAME: waits until the API server holds N pod log
# streams open, at most BENCH_OPEN_WAIT seconds.
wait_for_streams() {
  local deadline=$((SECONDS + BENCH_OPEN_WAIT)) open
  while open=$(log_streams) && [ "$open" -lt "$1" ]; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      blog "warning: $2: $open of $1 streams open after ${BENCH_OPEN_WAIT}s; writing anyway"
      return
    fi
    sleep 1
  done
}

# follow NAME CMD...: one run of a follower; appends to $WORK/NAME
# "<seconds to the last new line> <peak RSS KiB> <CPU seconds> <delivered> <duplicated> <lost> <seconds waited>".
# For a NAME ending in -live, the log is emptied first, and written anew
# once the follower holds every stream open (the seconds waited for that;
# the time to the last line then counts from when the writing began).
follow() {
  local name=$1 writer= first_idle=$BENCH_IDLE offset=0 start; shift
  rm -f "$WORK/pid" "$WORK/write-start"
  if [[ $name == *-live ]]; then
    : >"$LOG"
    first_idle=$((BENCH_OPEN_WAIT + 30))s
    local want=$(($(log_streams) + BENCH_REPLICAS))
    { wait_for_streams "$want" "$name"; date +%s%N >"$WORK/write-start"
      "$COUNT" -write "$LOG" -lines "$BENCH_LOG_LINES" -over "${BENCH_LIVE_SECONDS}s"; } &
    writer=$!
  fi
  start=$(date +%s%N)
  { /usr/bin/time -f '%M %U %S' -o "$WORK/usage" sh -c 'echo $$ >"$0"; exec "$@"' "$WORK/pid" "$@" 2>"$WORK/stderr" || true; } |
    "$COUNT" -streams "$BENCH_REPLICAS" -lines "$BENCH_LOG_LINES" -idle "$BENCH_IDLE" -first-idle "$first_idle" \
      -pid-file "$WORK/pid" >"$WORK/count.json"
  [ -z "$writer" ] || wait "$writer"
  # A live run's time to the last line counts from when the writing began.
  [ ! -s "$WORK/write-start" ] || offset=$(awk -v a="$start" -v b="$(cat "$WORK/write-start")" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
  tail -n 1 "$WORK/usage" | grep -Eq '^[0-9]+ [0-9.]+ [0-9.]+$' || { cat "$WORK/stderr" "$WORK/usage" >&2; bdie "$name: no usage"; }
  jq -r --arg usage "$(tail -n 1 "$WORK/usage")" --argjson offset "$offset" '($usage | split(" ")) as $u |
    "\(.seconds - $offset) \($u[0]) \(($u[1] | tonumber) + ($u[2] | tonumber)) \(.delivered) \(.duplicated) \(.lost) \($offset)"' \
    "$WORK/count.json" >>"$WORK/$name"
  if ! jq -e .complete "$WORK/count.json" >/dev/null; then
    blog "$name did not deliver every line: $(jq -c . "$WORK/count.json"); its stderr ends with:"
    tail -n 3 "$WORK/stderr" >&2
  fi
}
run_easyai() { follow "easyai$1" "$EASYAI" logs -f "$BENCH_KIND/$JOB" -n "$NS" --max-log-requests "$BENCH_REPLICAS"; }
run_kubectl() {
  follow "kubectl$1" "$KUBECTL" logs -f -n "$NS" -l "$POD_LABEL=$JOB" --prefix --tail=-1 \
    --max-log-requests "$BENCH_REPLICAS"
}
last_run() { tail -n 1 "$WORK/$1" | awk '{ printf "%.1fs, %.0f MiB, CPU %.2fs, %d lines (%d duplicated, %d lost)", $1, $2 / 1024, $3, $4, $5, $6 }'; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
blog "backlog: $BENCH_RUNS runs of each follower, alternating, the whole log there when each starts"
for i in $(seq 1 "$BENCH_RUNS"); do
  run_easyai ""
  run_kubectl ""
  blog "backlog run $i: easyai $(last_run easyai); kubectl $(last_run kubectl)"
done
blog "live: $BENCH_LIVE_RUNS runs of each, the log written during the run over ${BENCH_LIVE_SECONDS}s"
for i in $(seq 1 "$BENCH_LIVE_RUNS"); do
  run_easyai -live
  run_kubectl -live
  blog "live run $i: easyai $(last_run easyai-live); kubectl $(last_run kubectl-live)"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

expected=$((BENCH_REPLICAS * BENCH_LOG_LINES))
# row NAME LABEL: the table row of NAME's runs (medians; lines of the worst
# run) into $WORK/NAME.row; sets M (median peak KiB), PL (CPU per line, µs),
# DUP and LOST.
row() {
  local t tmin tmax m mmin mmax c del
  read -r t tmin tmax < <(stats "$WORK/$1" 1)
  read -r m mmin mmax < <(stats "$WORK/$1" 2)
  read -r c _ _ < <(stats "$WORK/$1" 3)
  read -r del DUP LOST < <(awk -v e="$expected" 'BEGIN { d = e } { if ($4 < d) d = $4; if ($5 > dup) dup = $5; if ($6 > l) l = $6 } END { printf "%d %d %d\n", d, dup, l }' "$WORK/$1")
  M=$m PL=$(awk -v c="$c" -v n="$del" 'BEGIN { printf "%.1f", n ? c * 1e6 / n : 0 }')
  echo "| $2 | $(secs "$t") s | $(secs "$tmin") – $(secs "$tmax") s | **$(mib "$m") MiB** | $(mib "$mmin") – $(mib "$mmax") MiB | $(secs "$c") s | **$PL µs** | $del | $DUP | $LOST |" >"$WORK/$1.row"
}
easyai_label="\`easyai logs -f $BENCH_KIND/$JOB\`"
kubectl_label="\`kubectl logs -f -l ... --prefix --max-log-requests $BENCH_REPLICAS\`"
row easyai "$easyai_label"; e_m=$M e_pl=$PL e_dup=$DUP e_lost=$LOST
row kubectl "$kubectl_label"; k_m=$M k_pl=$PL
row easyai-live "$easyai_label"; el_m=$M el_pl=$PL el_dup=$DUP el_lost=$LOST
row kubectl-live "$kubectl_label"; kl_m=$M kl_pl=$PL
once() { [ "$1" = 0 ] && [ "$2" = 0 ] && echo met || echo "NOT met"; }
verdict() { # memory-ratio cpu-ratio dup lost
  echo "peak memory at most kubectl's: ratio $1, $(at_most "$1" 1.0); CPU per line at most kubectl's: ratio $2, $(at_most "$2" 1.0); every line once: $(once "$3" "$4")"
}
backlog_verdict=$(verdict "$(div "$e_m" "$k_m")" "$(div "$e_pl" "$k_pl")" "$e_dup" "$e_lost")
live_verdict=$(verdict "$(div "$el_m" "$kl_m")" "$(div "$el_pl" "$kl_pl")" "$el_dup" "$el_lost")
blog "backlog: $backlog_verdict"
blog "live: $live_verdict"

header="| follower | median time to the last line | min – max | median peak RSS | min – max | median CPU time | CPU per line | lines delivered (worst run) | duplicated | lost |
|---|---|---|---|---|---|---|---|---|---|"
runs() { awk '{ printf "%s%.1f s / %.0f MiB / CPU %.2f s / %d lines", (NR > 1 ? ", " : ""), $1, $2 / 1024, $3, $4 }' "$WORK/$1"; }
results=$WORK/results.md
cat >"$results" <<EOF
<!-- BEGIN $MARK results: written by test/bench/logs.sh, do not edit by hand -->
Measured on $(date -u +%F): $machine; cluster Kubernetes
$(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes) (kubectl of the same version), kwok serving the logs.
Data: $WHAT, each printing the same $BENCH_LOG_LINES lines
($(du -k "$LOG" | cut -f1) KiB), $expected lines in all.
Load average (1, 5, 15 min) $load_before before the runs, $load_after after.

Backlog: the whole log there when the follower starts; $BENCH_RUNS runs of each, alternating.

$header
$(cat "$WORK/easyai.row")
$(cat "$WORK/kubectl.row")

Targets: $backlog_verdict.

Live: the log written over $BENCH_LIVE_SECONDS s once every stream of the follower is open (the time to the last line counted from then); $BENCH_LIVE_RUNS run(s) of each.

$header
$(cat "$WORK/easyai-live.row")
$(cat "$WORK/kubectl-live.row")

Targets: $live_verdict.

Every run (time to the last line / peak RSS / CPU / lines): backlog: easyai $(runs easyai); kubectl $(runs kubectl);
live: easyai $(runs easyai-live); kubectl $(runs kubectl-live).
<!-- END $MARK results -->
EOF
bench_write "$MARK" "$results"
