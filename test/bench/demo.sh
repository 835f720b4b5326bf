#!/usr/bin/env bash
# The first `make demo` on a machine that has built nothing (make bench-demo,
# not part of make bench: it builds the demo's cluster from nothing, about
# 10 minutes on 2 cores). Clones HEAD into a temporary directory and runs
# `make demo` there with empty Go build, module and cluster caches (HOME,
# GOCACHE, GOMODCACHE and XDG_CACHE_HOME temporary directories too), on a
# cluster of its own (ports shifted by BENCH_PORT_OFFSET); records how long
# the demo said the user waited for the job's logs, and each component's
# build time; writes them between the "demo" markers of docs/benchmarks.md;
# then stops that cluster and the build make demo left in the background,
# and removes the temporary directories.
#
# Knobs (environment):
#   BENCH_PORT_OFFSET=400          the demo cluster's port offset (not 0)
#   BENCH_DOC=docs/benchmarks.md   where the results go; empty: nowhere
# The Go settings of `go env` (GOENV: the proxy, GOFLAGS) are kept.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BENCH_DOC=${BENCH_DOC-docs/benchmarks.md}
offset=${BENCH_PORT_OFFSET:-400}
[ "$offset" != 0 ] || bdie "BENCH_PORT_OFFSET=0 would collide with the development cluster"
commit=$(git -C "$BENCH_ROOT" rev-parse HEAD)
goenv=$(go env GOENV)

WORK=$(mktemp -d)
clone=$WORK/easyai
demo_env=(-u EASYAI_CACHE_DIR -u EASYAI_BIN_CACHE -u EASYAI_IMAGE_CACHE -u EASYAI_CLUSTER_DIR -u EASYAI_CLUSTER_COMPONENTS
  -u EASYAI_CLUSTER_OPERATORS -u EASYAI_CLUSTER_VOLCANO -u EASYAI_REAL_NODE -u EASYAI_BUILD_JOBS -u KUBECONFIG
  HOME="$WORK/home" XDG_CACHE_HOME="$WORK/cache" GOCACHE="$WORK/gocache" GOMODCACHE="$WORK/gomodcache"
  GOPATH="$WORK/gopath" GOENV="$goenv" EASYAI_CLUSTER_PORT_OFFSET="$offset")

cleanup() {
  local status=$? pid
  if [ -f "$clone/.cache/cluster-build.pid" ]; then
    pid=$(cat "$clone/.cache/cluster-build.pid")
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  if [ -d "$clone/.cache/cluster" ]; then env "${demo_env[@]}" "$clone/hack/cluster/down.sh" || true; fi
  # (The module cache is read-only.)
  chmod -R u+w "$WORK" 2>/dev/null || true
  rm -rf "$WORK"
  [ $status = 0 ] || blog "failed (exit $status)"
  exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$WORK/home" "$WORK/cache" "$WORK/gocache" "$WORK/gomodcache" "$WORK/gopath"
git clone -q "$BENCH_ROOT" "$clone"
git -C "$clone" checkout -q "$commit"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
blog "make demo in a fresh clone of ${commit:0:7} with empty caches, ports +$offset (load average $load_before)"
start=$SECONDS
(cd "$clone" && env "${demo_env[@]}" make demo) 2>&1 | tee "$WORK/demo.log" >&2
[ "${PIPESTATUS[0]}" = 0 ] || bdie "make demo failed"
total=$((SECONDS - start))
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

waited=$(grep '^Waited ' "$WORK/demo.log" | tail -n 1)
[ -n "$waited" ] || bdie "make demo said nothing of the time waited"
builds=$(sed -n 's/^\[cluster [0-9:]*\] \([a-z-]*\): built in \([0-9]*\)s$/\1 \2 s/p' "$WORK/demo.log" | paste -sd, - | sed 's/,/, /g')
# The rest of the building time: easyai's build, and the look-ups before.
building_s=$(sed -n 's/^Waited [0-9ms]* for [^:]*: \([0-9]*\)m\([0-9]*\)s building .*/\1 \2/p' <<<"$waited" | awk '{ print $1 * 60 + $2 }')
components_s=$(sed -n 's/^\[cluster [0-9:]*\] [a-z-]*: built in \([0-9]*\)s$/\1/p' "$WORK/demo.log" | awk '{ s += $1 } END { print s + 0 }')
# (The clone's commit, not the checkout's, which bench_machine names.)
machine=$(bench_machine | sed 's/; easyai built from .*//')

results=$WORK/results.md
cat >"$results" <<RESULTS
<!-- BEGIN demo results: written by test/bench/demo.sh, do not edit by hand -->
Measured $(date -u +%Y-%m-%d) at ${commit:0:7} on $machine; load average
$load_before before, $load_after after.

| | |
|---|---|
| what make demo said | $waited |
| components built before the demo started | ${builds:-none} |
| easyai, and the look-ups around the builds | $((${building_s:-0} - components_s)) s |
| \`make demo\` in all, to the job's Succeeded | $((total / 60))m$(printf '%02d' $((total % 60)))s |
<!-- END demo results -->
RESULTS
cat "$results" >&2
bench_write demo "$results"
