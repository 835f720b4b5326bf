# Shared by the benchmark scripts of test/bench (sourced, not run).
#
# bench_cluster_up NAME: starts the benchmarks' own cluster (never the
# development one), without operators, stops it on exit unless
# BENCH_KEEP_CLUSTER=1, and sets WORK (a temporary directory removed on exit),
# KUBECONFIG, KUBECTL and a clean easyai configuration. The other functions
# compute and write results.

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

blog() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
bdie() { blog "error: $*"; exit 1; }

bench_need_tools() {
  [ -x /usr/bin/time ] || bdie "GNU time is needed for peak memory: apt-get install time"
  command -v jq >/dev/null || bdie "jq is needed: apt-get install jq"
}

bench_cluster_up() {
  # An EASYAI_CLUSTER_DIR in the caller's environment is deliberately not
  # used: up.sh wipes the directory.
  export EASYAI_CLUSTER_DIR=${BENCH_CLUSTER_DIR:-$BENCH_ROOT/.cache/bench-cluster}
  export EASYAI_CLUSTER_PORT_OFFSET=${BENCH_PORT_OFFSET:-200}
  export EASYAI_CLUSTER_OPERATORS=none
  # (The benchmarks need no containers: no real node.)
  export EASYAI_REAL_NODE=0
  # shellcheck source=../../hack/cluster/lib.sh
  source "$BENCH_ROOT/hack/cluster/lib.sh"
  cd "$REPO_ROOT"
  [ "$(realpath -m "$EASYAI_CLUSTER_DIR")" != "$(realpath -m "$EASYAI_CACHE_DIR/cluster")" ] ||
    bdie "BENCH_CLUSTER_DIR is the development cluster's directory; the benchmark needs its own"
  [ "$EASYAI_CLUSTER_PORT_OFFSET" != 0 ] || bdie "BENCH_PORT_OFFSET=0 would collide with the development cluster"
  bench_need_tools

  WORK=$(mktemp -d)
  trap bench_cleanup EXIT
  trap 'exit 130' INT TERM
  blog "starting the benchmark cluster in ${EASYAI_CLUSTER_DIR#"$REPO_ROOT"/} (ports +$EASYAI_CLUSTER_PORT_OFFSET, no operators) for the $1 benchmark"
  "$CLUSTER_HACK_DIR/up.sh"
  export KUBECONFIG=$KUBECONFIG_FILE
  KUBECTL=$(kube_bin_dir)/kubectl
  # No user configuration for easyai, and kubectl's discovery cache kept apart.
  export XDG_CONFIG_HOME=$WORK/config KUBECACHEDIR=$WORK/kube-cache
  mkdir -p "$XDG_CONFIG_HOME"
}

bench_cleanup() {
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

# Every Go build of the benchmarks is made without cgo, as easyai is
# released (.goreleaser.yaml) and as make test builds: the filler and the
# tools then reuse the packages compiled for easyai, and a make bench after
# make test compiles almost nothing (with cgo on, it first compiled client-go
# and the rest again: 4 minutes on 2 cores).
export CGO_ENABLED=0

# bench_build_easyai OUT: builds easyai as it is released: no cgo, no symbol
# tables, which is also how the cluster's kubectl is built (a build with
# symbols and cgo peaks 15 MiB higher at start). Unlike the release, paths
# are not trimmed: -trimpath would make every package a build of its own
# again, and it changes nothing but the file names in the binary.
bench_build_easyai() {
  (cd "$BENCH_ROOT" && go build -ldflags "-s -w" -o "$1" ./cmd/easyai)
}

# bench_build TOOL...: builds easyai (as released) into $EASYAI, the filler
# into $FILL and each test/bench/TOOL into $EASYAI_CACHE_DIR/bench-TOOL, and
# sets machine (bench_machine, now: what the binaries were built from).
bench_build() {
  EASYAI=$EASYAI_CACHE_DIR/bench-easyai FILL=$EASYAI_CACHE_DIR/bench-fill
  blog "building easyai, the filler and $*"
  bench_build_easyai "$EASYAI"
  go build -o "$FILL" ./test/bench/fill
  local tool
  for tool in "$@"; do go build -o "$EASYAI_CACHE_DIR/bench-$tool" "./test/bench/$tool"; done
  machine=$(bench_machine)
}

# bench_measure NAME CMD...: runs CMD with stdout to /dev/null, appends
# "<wall seconds> <peak RSS KiB> <CPU seconds, user + system> <API server CPU
# seconds>" to $WORK/NAME. (The CPU time says what the tool itself costs when
# other work shares the machine's cores and stretches the wall time; the API
# server's, read before and after, what serving it cost the server, which
# shares the same cores.)
bench_measure() {
  local name=$1 t0 t1 s0 s1; shift
  s0=$(bench_server_cpu)
  t0=$(date +%s%N)
  if ! /usr/bin/time -f '%M %U %S' -o "$WORK/usage" "$@" >/dev/null 2>"$WORK/stderr"; then
    cat "$WORK/stderr" >&2
    bdie "$name failed"
  fi
  t1=$(date +%s%N)
  s1=$(bench_server_cpu)
  tail -n 1 "$WORK/usage" | awk -v ns=$((t1 - t0)) -v s="$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')" \
    '{ printf "%.3f %s %.2f %.2f\n", ns / 1e9, $1, $2 + $3, s }' >>"$WORK/$name"
}

# bench_server_cpu: the CPU time (user + system, seconds) the benchmark
# cluster's kube-apiserver has used since it started (/proc/PID/stat, in
# clock ticks of 10 ms).
bench_server_cpu() {
  local pid
  pid=$(cat "$PID_DIR/kube-apiserver.pid") || bdie "no kube-apiserver pid in $PID_DIR"
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = kube-apiserver ] || bdie "process $pid is not the cluster's kube-apiserver"
  # The fields after the command's name: utime and stime are the 12th and 13th.
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); split($0, f, " "); printf "%.2f\n", (f[12] + f[13]) / hz }' "/proc/$pid/stat"
}

# bench_runs NAME: every run bench_measure recorded of NAME, on one line.
bench_runs() { awk '{ printf "%s%.2f s (CPU %.2f s, server %.2f s) / %.0f MiB", (NR > 1 ? ", " : ""), $1, $3, $4, $2 / 1024 }' "$WORK/$1"; }

# bench_arena_setup: when BENCH_ARENA names an arena binary, sets ARENA to
# the command that runs it against the benchmark cluster, its configuration
# (~/.arena, ARENA_CONFIG) kept in $WORK, and checks that it runs; else
# leaves ARENA empty.
bench_arena_setup() {
  ARENA=()
  [ -n "${BENCH_ARENA:-}" ] || return 0
  [ -x "$BENCH_ARENA" ] || bdie "BENCH_ARENA=$BENCH_ARENA is not an executable file"
  mkdir -p "$WORK/arena-home"
  ARENA=(env HOME="$WORK/arena-home" ARENA_CONFIG="$WORK/arena-home/config" "$BENCH_ARENA")
  "${ARENA[@]}" version >"$WORK/arena-version" 2>&1 || { cat "$WORK/arena-version" >&2; bdie "$BENCH_ARENA version failed"; }
  # (A plain `go build` of arena stamps no version: v0.0.0+unknown.)
  ARENA_VERSION=$(sed -n 's/^arena: *//p' "$WORK/arena-version" | grep -v '^v0\.0\.0' | head -n 1 || true)
  blog "arena ${ARENA_VERSION:+$ARENA_VERSION }($BENCH_ARENA) is timed too"
}

# stats FILE COLUMN: median, min and max of a column of numbers.
stats() {
  cut -d' ' -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    print m, v[1], v[NR] }'
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) printf "n/a"; else printf "%.2f", a / b }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.0f", k / 1024 }'; }
secs() { awk -v s="$1" 'BEGIN { printf "%.2f", s }'; }
# at_most RATIO LIMIT: "met" or "NOT met".
at_most() { awk -v r="$1" -v l="$2" 'BEGIN { exit !(r <= l) }' && echo met || echo "NOT met"; }

# replace_block DOC MARK FILE: puts FILE in place of the lines from
# "<!-- BEGIN MARK" to "<!-- END MARK" of DOC, both included; fails, leaving
# DOC as it is, when DOC has not both markers.
replace_block() {
  local doc=$1 mark=$2 file=$3
  grep -q "^<!-- BEGIN $mark" "$doc" && grep -q "^<!-- END $mark" "$doc" || return 1
  awk -v file="$file" -v begin="^<!-- BEGIN $mark" -v end="^<!-- END $mark" '
    $0 ~ begin { while ((getline line < file) > 0) print line; skip = 1; next }
    $0 ~ end { skip = 0; next }
    !skip' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
}

# bench_history NAME HEADER ROW: adds ROW (a markdown table row) to the
# table between "<!-- BEGIN NAME history" and "<!-- END NAME history -->" of
# $BENCH_DOC, under HEADER (its first two lines), keeping the last
# BENCH_HISTORY (10) rows; the block goes right after NAME's results when it
# is not there yet. Nothing when BENCH_DOC is empty.
bench_history() {
  local name=$1 header=$2 row=$3 doc block
  [ -n "${BENCH_DOC:-}" ] || return 0
  doc=$BENCH_ROOT/$BENCH_DOC block=$WORK/history.md
  {
    echo "<!-- BEGIN $name history: a row per run, added by the benchmark, the latest last; do not edit by hand -->"
    echo "$header"
    awk -v begin="^<!-- BEGIN $name history" -v end="^<!-- END $name history" '
      $0 ~ begin { inside = 1; next }
      $0 ~ end { inside = 0 }
      inside && /^\| [0-9]/' "$doc" | tail -n $((${BENCH_HISTORY:-10} - 1))
    echo "$row"
    echo "<!-- END $name history -->"
  } >"$block"
  if ! replace_block "$doc" "$name history" "$block"; then
    awk -v block="$block" -v end="^<!-- END $name results" '
      { print }
      $0 ~ end { print ""; while ((getline line < block) > 0) print line }' "$doc" >"$doc.new" && mv "$doc.new" "$doc"
  fi
}

# bench_machine: one line on the machine, the toolchain and the commit.
bench_machine() {
  local cpu_model mem_gib commit
  cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
  mem_gib=$(awk '/^MemTotal:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
  commit=$(git -C "$BENCH_ROOT" rev-parse --short HEAD)
  git -C "$BENCH_ROOT" diff --quiet HEAD -- cmd pkg go.mod 2>/dev/null &&
    [ -z "$(git -C "$BENCH_ROOT" ls-files --others --exclude-standard cmd pkg)" ] ||
    commit="$commit + uncommitted changes in cmd/, pkg/"
  echo "$(nproc) CPUs ($cpu_model), $mem_gib GiB of memory, $(uname -sr); Go $(go env GOVERSION | sed 's/^go//'); easyai built from $commit"
}

# bench_write NAME RESULTS: puts RESULTS (a file that starts with
# "<!-- BEGIN NAME results" and ends with "<!-- END NAME results -->")
# between the same markers of $BENCH_DOC, or at its end when they are not
# there yet; the prose around them stays. Nothing when BENCH_DOC is empty.
bench_write() {
  local name=$1 results=$2 doc
  [ -n "${BENCH_DOC:-}" ] || return 0
  doc=$BENCH_ROOT/$BENCH_DOC
  mkdir -p "$(dirname "$doc")"
  touch "$doc"
  if ! replace_block "$doc" "$name results" "$results"; then
    { echo; cat "$results"; } >>"$doc"
  fi
  blog "results written to $BENCH_DOC"
}
