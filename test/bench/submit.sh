#!/usr/bin/env bash
# The submit benchmark (make bench-submit, part of make bench): no cluster.
# Times `easyai submit tf --workers 1000 --dry-run=client -o yaml` against
# `easyai version` (the cost of starting the binary), alternating, under GNU
# time, and beside them the same dry run of a PyTorchJob of 1,000 workers and
# of a TrainJob of 1,000 nodes (no target: figures); runs the Go benchmark of
# the render path (BenchmarkRender1000Workers); and writes the medians
# between the submit markers of docs/benchmarks.md. Targets: render at most
# 50 ms, the TFJob's whole command at most 2 times `easyai version`.
#
# Knobs (environment):
#   BENCH_RUNS=9                 timed runs of each command
#   BENCH_DOC=docs/benchmarks.md where the results go; empty: nowhere
# Needs GNU time (/usr/bin/time, Debian package "time").
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$ROOT"
RUNS=${BENCH_RUNS:-9}
DOC=${BENCH_DOC-docs/benchmarks.md}
[ -x /usr/bin/time ] || { echo "GNU time is needed: apt-get install time" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=lib.sh
source "$ROOT/test/bench/lib.sh"
bench_build_easyai "$WORK/easyai"
export KUBECONFIG=$WORK/none XDG_CONFIG_HOME=$WORK/config

submit=("$WORK/easyai" submit tf --name big --workers 1000 --gpus 8 --image example.com/train:1 --dry-run=client -o yaml -- python train.py)
pytorch=("$WORK/easyai" submit pytorch --name big --workers 1000 --gpus 8 --image example.com/train:1 --dry-run=client -o yaml -- torchrun train.py)
trainjob=("$WORK/easyai" submit trainjob --name big --runtime torch-distributed --workers 1000 --gpus 8 --image example.com/train:1 --dry-run=client -o yaml -- torchrun train.py)
version=("$WORK/easyai" version)
"${submit[@]}" >"$WORK/job.yaml"
grep -q 'replicas: 1000' "$WORK/job.yaml" || { echo "the dry run did not render 1000 workers" >&2; exit 1; }
# A PyTorchJob of 1,000 workers: its master and 999 workers.
"${pytorch[@]}" >"$WORK/pytorch.yaml"
grep -q 'replicas: 999$' "$WORK/pytorch.yaml" || { echo "the PyTorchJob dry run did not render 999 workers beside its master" >&2; exit 1; }
"${trainjob[@]}" >"$WORK/trainjob.yaml"
grep -q 'numNodes: 1000$' "$WORK/trainjob.yaml" || { echo "the TrainJob dry run did not render 1000 nodes" >&2; exit 1; }

# time_run NAME COMMAND...: one run; appends "seconds maxrss-KiB" to $WORK/NAME.
# The wall time is taken in nanoseconds around GNU time (whose %e has two
# decimals); its own start adds about a millisecond to both commands.
time_run() {
  local name=$1 t0 t1; shift
  t0=$(date +%s%N)
  /usr/bin/time -f '%M' -o "$WORK/usage" "$@" >/dev/null
  t1=$(date +%s%N)
  awk -v ns=$((t1 - t0)) '{ printf "%.4f %s\n", ns / 1e9, $1 }' "$WORK/usage" >>"$WORK/$name"
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
time_run submit "${submit[@]}"; time_run version "${version[@]}" # warm-up
time_run pytorch "${pytorch[@]}"; time_run trainjob "${trainjob[@]}"
: >"$WORK/submit"; : >"$WORK/version"; : >"$WORK/pytorch"; : >"$WORK/trainjob"
for _ in $(seq "$RUNS"); do
  time_run submit "${submit[@]}"
  time_run version "${version[@]}"
  time_run pytorch "${pytorch[@]}"
  time_run trainjob "${trainjob[@]}"
done
median() { cut -d' ' -f"$2" "$WORK/$1" | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
submit_s=$(median submit 1) version_s=$(median version 1)
submit_kib=$(median submit 2) version_kib=$(median version 2)
ratio=$(awk -v a="$submit_s" -v b="$version_s" 'BEGIN { printf "%.2f", a / b }')
submit_s=$(awk -v s="$submit_s" 'BEGIN { printf "%.3f", s }') version_s=$(awk -v s="$version_s" 'BEGIN { printf "%.3f", s }')
# other NAME: "| <median wall time> s | <median peak MiB> MiB | <ratio to version> |"
other() {
  awk -v t="$(median "$1" 1)" -v k="$(median "$1" 2)" -v v="$(median version 1)" \
    'BEGIN { printf "| %.3f s | %d MiB | %.2f |", t, k / 1024, t / v }'
}

go test -run '^$' -bench 'BenchmarkRender1000Workers' -benchtime 20x -count 1 ./pkg/render/ | tee "$WORK/bench"
render=$(awk '/^BenchmarkRender1000Workers\// { sub(/-[0-9]+$/, "", $1); sub(/.*\//, "", $1); printf "%s%s %.1f ms", sep, $1, $3 / 1e6; sep = ", " }' "$WORK/bench")

verdict_ratio="met"
awk -v r="$ratio" 'BEGIN { exit !(r > 2.0) }' && verdict_ratio="NOT met"
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
results=$WORK/results
cat >"$results" <<EOF
<!-- BEGIN submit results: written by test/bench/submit.sh, do not edit by hand -->
Measured on $(date +%F): $(nproc) CPUs ($cpu), $(go env GOVERSION);
easyai built from $(git rev-parse --short HEAD); load average (1, 5, 15 min) $load_before before the runs, $(cut -d' ' -f1-3 /proc/loadavg) at the end.
$RUNS runs of each command, alternating, after one warm-up run each.

| command | median wall time | median peak RSS | ratio to \`easyai version\` |
|---|---|---|---|
| \`easyai submit tf --workers 1000 --dry-run=client -o yaml\` | **${submit_s} s** | $((submit_kib / 1024)) MiB | **${ratio}** (target at most 2.0: ${verdict_ratio}) |
| \`easyai version\` | ${version_s} s | $((version_kib / 1024)) MiB | |
| \`easyai submit pytorch --workers 1000 --dry-run=client -o yaml\` (no target) $(other pytorch)
| \`easyai submit trainjob --runtime torch-distributed --workers 1000 --dry-run=client -o yaml\` (1,000 nodes; no target) $(other trainjob)

Render path alone (BenchmarkRender1000Workers, 20 renders each): ${render}
(target at most 50 ms).
<!-- END submit results -->
EOF

if [ -n "$DOC" ]; then
  doc=$ROOT/$DOC
  if grep -q '^<!-- BEGIN submit results' "$doc" && grep -q '^<!-- END submit results' "$doc"; then
    awk -v results="$results" '
      /^<!-- BEGIN submit results/ { while ((getline line < results) > 0) print line; skip = 1; next }
      /^<!-- END submit results/ { skip = 0; next }
      !skip' "$doc" >"$WORK/doc" && cat "$WORK/doc" >"$doc"
  else
    { echo; echo '## `easyai submit --dry-run=client` of 1,000 workers'; echo; cat "$results"; } >>"$doc"
  fi
  echo "results written to $DOC" >&2
fi
cat "$results"
