#!/usr/bin/env bash
# The project's test command (make test, and so CI): unit tests, then the
# end-to-end suite against the local cluster, which it starts when none runs
# and stops again afterwards. Prints how long each phase took.
#   hack/test.sh [all|unit|e2e]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
cd "$REPO_ROOT"

mode=${1:-all}
declare -a timings=()

# phase NAME COMMAND...: runs COMMAND, records its duration, returns its status.
# (Called in "||" lists, where set -e is off: every step must chain with &&.)
phase() {
  local name=$1 start=$SECONDS status=0; shift
  echo "=== phase: $name" >&2
  "$@" || status=$?
  timings+=("$name: $((SECONDS - start))s$([ $status = 0 ] || echo " (failed: $status)")")
  echo "=== phase: $name took $((SECONDS - start))s" >&2
  return $status
}

report() {
  local status=$?
  if [ ${#timings[@]} -gt 0 ]; then
    echo "=== timings" >&2
    printf '  %s\n' "${timings[@]}" >&2
  fi
  return $status
}
trap report EXIT

# Generated files, formatting, go.mod tidiness and the release configuration.
checks() {
  hack/check-generated.sh &&
    go run "github.com/goreleaser/goreleaser/v2@$(sed -n 's/^GORELEASER_VERSION := //p' Makefile)" check
}

unit() {
  go vet ./... &&
    go test -race -shuffle=on -count=1 ./...
}

e2e() {
  go test -tags e2e -count=1 -timeout 30m -v ./test/e2e/... 2>&1 | tee "$EASYAI_CACHE_DIR/e2e.log"
}

# Shows what the cluster's components logged last, for a failed CI run.
dump_cluster_logs() {
  local f
  for f in "$LOG_DIR"/*.log; do
    [ -e "$f" ] || continue
    echo "----- last lines of $(basename "$f")" >&2
    tail -n 25 "$f" >&2
  done
}

run_e2e() {
  local started=0
  if ! cluster_running; then
    phase cluster-up "$CLUSTER_HACK_DIR/up.sh"
    started=1
  fi
  export KUBECONFIG=$KUBECONFIG_FILE
  local status=0
  phase e2e e2e || status=$?
  if [ $status != 0 ] && [ $started = 1 ]; then dump_cluster_logs; fi
  if [ $started = 1 ]; then phase cluster-down "$CLUSTER_HACK_DIR/down.sh"; fi
  return $status
}

mkdir -p "$EASYAI_CACHE_DIR"
case "$mode" in
  unit) phase checks checks; phase unit unit ;;
  e2e) run_e2e ;;
  all) phase checks checks; phase unit unit; run_e2e ;;
  *) echo "usage: $0 [all|unit|e2e]" >&2; exit 2 ;;
esac
