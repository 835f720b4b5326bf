#!/usr/bin/env bash
# The project's test command (make test, and so CI): the checks and unit
# tests, then the end-to-end suites against the local cluster (which it
# builds and starts when none runs, and stops again afterwards), with
# fuzzing beside the unit tests. Prints how long each phase took.
#   hack/test.sh [all|unit|fuzz|e2e]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
cd "$REPO_ROOT"

mode=${1:-all}
# One build configuration for every plain build of the run: the checks' go
# run, go vet, the fuzz and e2e test binaries, and the static easyai the
# real node's schedule test puts in an image all compile easyai's
# dependencies with cgo off, so that they compile once. (With cgo on, net
# and os/user build from other files, and every package above them again:
# a new machine would compile client-go and the rest twice.) Only the race
# detector needs cgo: the unit tests turn it back on.
export CGO_ENABLED=0
# Every test binary (unit, fuzz, e2e) is linked without DWARF or the symbol
# table: with a warm cache the links of the 88 race-built unit test binaries
# are most of the unit phase, and those tables took a third of it (877
# against 613 CPU seconds). Stack traces and race reports come from the pcln
# table, which stays.
TEST_LDFLAGS='-s -w'
declare -a timings=()

# How busy the machine's CPUs were, which says whether a phase could have
# gone faster by overlapping more (on 2 cores, a phase beside a build that
# keeps them 98 % busy cannot): busy_ticks prints the machine's busy CPU
# time so far in clock ticks (nothing where there is no /proc/stat), and
# busy_share TICKS SECONDS the share of every core's time since then, "" when
# unknown.
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100) NCPU=$(nproc 2>/dev/null || echo 1)
busy_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8 + $9; exit }' /proc/stat 2>/dev/null || true; }
busy_share() {
  local now; now=$(busy_ticks)
  [ -n "$1" ] && [ -n "$now" ] && [ "$2" -gt 0 ] || return 0
  # (Capped: SECONDS counts whole seconds.)
  local share=$(((now - $1) * 100 / (CLK_TCK * NCPU * $2)))
  echo "$((share > 100 ? 100 : share)) %"
}
run_ticks=$(busy_ticks) run_start=$SECONDS

# phase NAME COMMAND...: runs COMMAND, records its duration, returns its status.
# (Called in "||" lists, where set -e is off: every step must chain with &&.)
phase() {
  local name=$1 start=$SECONDS ticks status=0 busy; shift
  ticks=$(busy_ticks)
  echo "=== phase: $name" >&2
  "$@" || status=$?
  busy=$(busy_share "$ticks" $((SECONDS - start)))
  timings+=("$name: $((SECONDS - start))s${busy:+ (CPUs $busy busy)}$([ $status = 0 ] || echo " (failed: $status)")")
  echo "=== phase: $name took $((SECONDS - start))s" >&2
  return $status
}

report() {
  local status=$?
  # (A run that ends early does not leave its background phases running.)
  ! declare -F stop_beside >/dev/null || { stop_beside fuzz; stop_beside e2e-components; }
  ! declare -F stop_prebuild >/dev/null || stop_prebuild
  if [ ${#timings[@]} -gt 0 ]; then
    echo "=== timings" >&2
    printf '  %s\n' "${timings[@]}" >&2
    # (Only for a whole run: the fuzz phase beside it is a run of this
    # script too, whose report is shown within the whole run's.)
    local busy= now; [ "$mode" != all ] || busy=$(busy_share "$run_ticks" $((SECONDS - run_start))) now=$(busy_ticks)
    [ -z "$busy" ] || echo "  the whole run: $((SECONDS - run_start))s, in which the machine's $NCPU CPUs were $busy busy ($(((now - run_ticks) / CLK_TCK)) CPU-seconds, whatever else ran on it included)" >&2
  fi
  return $status
}
trap report EXIT
# (Interrupted, the run ends, and report stops what runs in the background.)
trap 'exit 130' INT
trap 'exit 143' TERM

# Generated files, formatting, go.mod tidiness and the release configuration
# (read strictly by the pinned GoReleaser's configuration types: seconds to
# build, where GoReleaser itself compiles for minutes on a new machine;
# make goreleaser-check runs its full check).
checks() {
  hack/check-generated.sh &&
    (cd hack/tools/releaseconfig && go run . ../../../.goreleaser.yaml)
}

unit() {
  vet && unit_tests
}
vet() { go vet ./...; }
unit_tests() { CGO_ENABLED=1 go test -race -shuffle=on -count=1 -ldflags "$TEST_LDFLAGS" ./...; }

# Every fuzz target (func FuzzX in a _test.go file) for a bounded time each
# ($EASYAI_FUZZTIME: 15s by default, 5s within make test, which CI runs and
# which keeps to its time budget; make test-fuzz searches longer). The unit phase already ran each seed
# corpus; this phase looks for new inputs. A crash fails the run and go writes
# the input under the package's testdata/fuzz/, to be committed with the fix.
# Each package's test binary is built once and run for each of its targets
# (a go test -fuzz per target would load, check and link the package again
# each time: as long as the fuzzing itself). The binaries are built one after
# the other in the background while those built already fuzz: fuzzing runs
# for a fixed wall time, so a link beside it costs the run no time.
# Only the project's own packages are instrumented for coverage (the
# compiler's -d=libfuzzer, which go test -fuzz gives every package): the
# parsers fuzzed are the project's, the dependencies come compiled from the
# cache that go vet and the e2e builds fill, where go test -fuzz would
# compile all of them (client-go, Helm...) once more, instrumented; and a
# target runs some ten times as many inputs a second (FuzzOf: 32,000 a
# second against 3,800).
fuzz() {
  local dir target status=0 gocache bindir builder i module
  local -a dirs targets
  gocache=$(go env GOCACHE) module=$(go list -m)
  bindir=$(mktemp -d)
  mapfile -t dirs < <(grep -rl --include='*_test.go' '^func Fuzz' cmd pkg | xargs -n1 dirname | sort -u | sed 's|^|./|')
  fuzz_targets() { sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$1"/*_test.go; }
  (
    for i in "${!dirs[@]}"; do
      # (At most two binaries ahead of the fuzzing: each is some 80 MB.)
      until [ "$i" -lt 2 ] || [ -e "$bindir/$((i - 2)).done" ]; do sleep 0.2; done
      if go test -c -gcflags="$module/...=-d=libfuzzer" -ldflags "$TEST_LDFLAGS" -o "$bindir/$i.test.tmp" "${dirs[$i]}" >"$bindir/$i.log" 2>&1; then
        mv "$bindir/$i.test.tmp" "$bindir/$i.test"
      else
        touch "$bindir/$i.failed"
      fi
    done
  ) &
  builder=$!
  for i in "${!dirs[@]}"; do
    dir=${dirs[$i]}
    until [ -e "$bindir/$i.test" ] || [ -e "$bindir/$i.failed" ] || ! kill -0 "$builder" 2>/dev/null; do sleep 0.2; done
    if [ ! -e "$bindir/$i.test" ]; then
      echo "--- fuzz $dir: its test binary did not build" >&2
      cat "$bindir/$i.log" >&2 2>/dev/null || true
      status=1; touch "$bindir/$i.done"; continue
    fi
    mapfile -t targets < <(fuzz_targets "$dir")
    for target in "${targets[@]}"; do
      fuzz_target "$dir" "$target" "$bindir/$i.test" "$gocache/fuzz/$module/${dir#./}" || status=1
    done
    rm -f "$bindir/$i.test"; touch "$bindir/$i.done"
  done
  wait "$builder" || true
  rm -rf "$bindir"
  return $status
}

# fuzz_target DIR TARGET BINARY CACHEDIR: fuzzes one target with the
# package's test binary, run in the package's directory as go test runs it
# (its seed corpus and any failing input are under testdata/fuzz/ there; the
# inputs found so far in go's own cache, CACHEDIR). Go 1.26's fuzz coordinator can
# fail a target with a bare "context deadline exceeded" when -fuzztime ends
# while a worker is busy (go.dev/issue/75804, fixed in Go 1.27), having found
# nothing: such a run, with no failing input written, is run once more, and a
# second one is reported and let pass. Anything else that fails fails. (Such
# a run's output is not shown, only the line that says why it does not
# count: its "--- FAIL" would read as a failure in a CI summary.)
fuzz_target() {
  local dir=$1 target=$2 bin=$3 cachedir=$4 attempt out
  out=$(mktemp)
  for attempt in 1 2; do
    echo "--- fuzz $dir $target" >&2
    if (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^${target}\$" -test.fuzztime="${EASYAI_FUZZTIME:-15s}" \
      -test.fuzzcachedir="$cachedir" -test.paniconexit0 -test.timeout=10m) >"$out" 2>&1; then
      cat "$out"; rm -f "$out"; return 0
    fi
    if ! grep -q 'context deadline exceeded' "$out" || grep -q 'Failing input written to' "$out"; then
      cat "$out"; rm -f "$out"; return 1
    fi
    echo "--- fuzz $dir $target: the coordinator's deadline race (go.dev/issue/75804), no input found: $(grep -m1 'context deadline exceeded' "$out" | sed 's/^[[:space:]]*//')" >&2
  done
  rm -f "$out"
  return 0
}

# The end-to-end suites. Those under test/e2e/disruptive restart parts of the
# cluster (the API server), so they run alone, after the others.
e2e() {
  local -a quiet disruptive
  mapfile -t quiet < <(go list -tags e2e ./test/e2e/... | grep -v /test/e2e/disruptive)
  mapfile -t disruptive < <(go list -tags e2e ./test/e2e/... | grep /test/e2e/disruptive || true)
  {
    go test -tags e2e -count=1 -ldflags "$TEST_LDFLAGS" -timeout 30m -v "${quiet[@]}" &&
      if [ ${#disruptive[@]} -gt 0 ]; then
        go test -tags e2e -count=1 -ldflags "$TEST_LDFLAGS" -timeout 15m -p 1 -v "${disruptive[@]}"
      fi
  } 2>&1 | tee "$EASYAI_CACHE_DIR/e2e.log"
  return "${PIPESTATUS[0]}"
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

# The tests of the backend choice again, on a cluster with only Kubeflow
# Trainer v2 and on one with only the training-operator (each started and
# stopped here, without the real node): submit pytorch must pick what each
# has. Then the serving test and the Kueue test on one cluster with the real
# KServe and Kueue controllers: serve create must pick KServe
# (EASYAI_E2E_KSERVE=1 fails the test if not) and the Kueue test must find
# Kueue (EASYAI_E2E_KUEUE=1 likewise). (Kueue manages only what names one of
# its queues, so it leaves KServe's objects alone: one cluster, not two.)
# These clusters are those of $EASYAI_CLUSTER_DIR: run_e2e runs this beside
# the e2e phase, as hack/test.sh _components, with a directory and ports of
# its own (start_components_beside).
components_e2e() {
  local run comps tests status=0
  export EASYAI_REAL_NODE=0
  if cluster_running; then "$CLUSTER_HACK_DIR/down.sh"; fi
  for run in \
    "trainer|TestSubmitPytorchPicksTheBackend|TestTrainJobResultAndWait" \
    "training-operator|TestSubmitPytorchPicksTheBackend|TestTrainJobResultAndWait" \
    "training-operator,trainer,kserve,kueue|TestServeAModelATeamMemberTrained|TestKueueQueuesAdmitsAndPreempts"; do
    comps=${run%%|*} tests=${run#*|}
    if [ "$(has_kserve "$comps")" = 1 ]; then wait_later_build || return 1; fi
    echo "=== e2e-components: $comps" >&2
    EASYAI_CLUSTER_COMPONENTS=$comps "$CLUSTER_HACK_DIR/up.sh" || return 1
    EASYAI_CLUSTER_COMPONENTS=$comps EASYAI_E2E_KSERVE=$(has_kserve "$comps") EASYAI_E2E_KUEUE=$(has_kueue "$comps") \
      go test -tags e2e -count=1 -ldflags "$TEST_LDFLAGS" -timeout 10m -v ./test/e2e/commands/ -run "$tests" 2>&1
    status=$?
    if [ "$status" != 0 ]; then dump_cluster_logs; fi
    "$CLUSTER_HACK_DIR/down.sh"
    [ "$status" = 0 ] || return "$status"
  done
}
# wait_later_build: waits for KServe's and Kueue's build, when make test's
# background build ($EASYAI_E2E_LATER_BUILD_PID) still runs it.
wait_later_build() {
  local pid=${EASYAI_E2E_LATER_BUILD_PID:-} start=$SECONDS
  [ -n "$pid" ] || return 0
  echo "=== e2e-components: waiting for KServe's and Kueue's build (output: ${prebuild_later_log#"$REPO_ROOT"/})" >&2
  while [ ! -s "$prebuild_later_done" ] && kill -0 "$pid" 2>/dev/null; do sleep 1; done
  cat "$prebuild_later_log" >&2
  echo "=== e2e-components: waited $((SECONDS - start))s for KServe's and Kueue's build" >&2
  [ "$(cat "$prebuild_later_done" 2>/dev/null)" = 0 ]
}
has_kserve() { [[ ",$1," == *",kserve,"* ]] && echo 1 || echo 0; }
has_kueue() { [[ ",$1," == *",kueue,"* ]] && echo 1 || echo 0; }

# The cluster's components build in the background while the checks, the
# unit tests and fuzzing run (make test on a machine that has not built them yet: minutes
# of builds, overlapping tests that wait on timers and files); the e2e part
# waits for that build, whose output is shown then. KServe and Kueue, which
# only e2e-components needs, build after the others, during the e2e phase;
# e2e-components waits for them before its cluster that runs them.
prebuild_pid=
prebuild_log=$EASYAI_CACHE_DIR/cluster-build.log
prebuild_later_log=$EASYAI_CACHE_DIR/cluster-build-later.log
# (Hold the first build's and the second's exit status once each has ended.)
prebuild_done=$EASYAI_CACHE_DIR/cluster-build.status
prebuild_later_done=$EASYAI_CACHE_DIR/cluster-build-later.status
prebuild() {
  cluster_running && [ -z "$(missing_parts)" ] && return 0
  stop_demo_build
  echo "=== building the cluster's components in the background (output: ${prebuild_log#"$REPO_ROOT"/}), then KServe and Kueue (${prebuild_later_log#"$REPO_ROOT"/})" >&2
  rm -f "$prebuild_done" "$prebuild_later_done"
  # (A session of its own, so that stopping it stops its go builds too, at
  # the same priority as the tests: lib.sh's background_session. The second
  # build runs during the e2e phase; at a lower priority it came too late
  # for e2e-components: KServe took 21 min at nice 10.)
  background_session 0 bash -c '
    "$1/build.sh" >"$2" 2>&1
    status=$?
    echo $status >"$4"
    [ $status = 0 ] || exit $status
    EASYAI_CLUSTER_COMPONENTS=$5,kserve,kueue "$1/build.sh" >"$3" 2>&1
    status=$?
    echo $status >"$6"
    exit $status
  ' prebuild "$CLUSTER_HACK_DIR" "$prebuild_log" "$prebuild_later_log" "$prebuild_done" "$EASYAI_CLUSTER_COMPONENTS" "$prebuild_later_done"
  prebuild_pid=$!
}
# wait_prebuild: waits for the first build (the cluster of the e2e phase).
wait_prebuild() {
  [ -n "$prebuild_pid" ] || return 0
  while [ ! -s "$prebuild_done" ] && kill -0 "$prebuild_pid" 2>/dev/null; do sleep 1; done
  cat "$prebuild_log" >&2
  local status
  status=$(cat "$prebuild_done" 2>/dev/null || echo 1)
  [ "$status" = 0 ] || prebuild_pid=
  return "$status"
}
stop_prebuild() {
  [ -z "$prebuild_pid" ] || stop_session "$prebuild_pid"
  prebuild_pid=
}
# stop_session PID: stops a background job started in a session of its own
# (setsid), with every process of that session, and waits for it.
stop_session() {
  kill -TERM -- "-$1" 2>/dev/null || kill -TERM "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
}

# stop_demo_build: ends the background build make demo started, if it still
# runs: this one builds the same and more, at normal priority. (Either
# would wait for the other's component builds, which hold locks.)
stop_demo_build() {
  local pid_file=$EASYAI_CACHE_DIR/cluster-build.pid pid
  [ -f "$pid_file" ] || return 0
  pid=$(cat "$pid_file")
  if pid_alive "$pid" && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q 'cluster/build\.sh'; then
    echo "=== stopping make demo's background build of the cluster" >&2
    kill -TERM -- "-$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do pid_alive "$pid" || break; sleep 0.2; done
    kill -KILL -- "-$pid" 2>/dev/null || true
  fi
  rm -f "$pid_file"
}

# Phases that run in the background, beside the others, each in a session
# of its own (lib.sh's background_session; stopping it stops every process
# it started), its output in a file shown when it ends. The run waits for
# each before it reports.
declare -A beside_pid=() beside_started=() beside_log=()
# start_beside NAME NICE WHERE LOG COMMAND...: starts phase NAME.
start_beside() {
  local name=$1 nice=$2 where=$3 log=$4; shift 4
  echo "=== phase: $name, in the background $where (output: ${log#"$REPO_ROOT"/}, shown when it ends)" >&2
  beside_started[$name]=$(date +%s) beside_log[$name]=$log
  background_session "$nice" "$@" >"$log" 2>&1
  beside_pid[$name]=$!
}
# wait_beside NAME: waits for phase NAME, shows its output and records how
# long it took from its start and how much of that the run waited for.
wait_beside() {
  local name=$1 waited=$SECONDS status=0
  [ -n "${beside_pid[$name]:-}" ] || return 0
  echo "=== waiting for the $name phase" >&2
  wait "${beside_pid[$name]}" || status=$?
  beside_pid[$name]=
  cat "${beside_log[$name]}" >&2
  # (It ended when it last wrote its output.)
  local ended; ended=$(stat -c %Y "${beside_log[$name]}" 2>/dev/null || date +%s)
  timings+=("$name (in the background): $((ended - beside_started[$name]))s, $((SECONDS - waited))s of it waited for at the end$([ $status = 0 ] || echo " (failed: $status)")")
  return $status
}
# lower_beside NAME NICE: phase NAME goes on at priority NICE (its group's
# and each of its processes', those it starts later included).
lower_beside() {
  local pid=${beside_pid[$1]:-}
  [ -n "$pid" ] || return 0
  echo "$2" >"/proc/$pid/autogroup" 2>/dev/null || true
  # (The session's processes: its id is the PID of its first.)
  ps -o pid= -s "$pid" 2>/dev/null | xargs -r renice -n "$2" -p >/dev/null 2>&1 || true
}
# stop_beside NAME: stops phase NAME if it still runs.
stop_beside() {
  [ -z "${beside_pid[$1]:-}" ] || stop_session "${beside_pid[$1]}"
  beside_pid[$1]=
}

# Within make test, the fuzz phase runs beside the unit tests, from the end
# of go vet (which leaves the dependencies compiled for its binaries), at
# their priority: fuzzing takes a fixed wall time a target, so beside them
# it costs them about half of the CPU for that time, where after the e2e part
# (which leaves no core idle) it would add all of its time to the run. What
# is left of it when the unit tests end goes on at the lowest priority, so as
# not to slow the e2e tests, and the run waits for it at the end. The
# e2e-components phase runs beside the e2e phase, on clusters of its own
# (the directory .cache/cluster-components, every port shifted by 600).
start_fuzz_beside() {
  start_beside fuzz 0 "beside the unit tests" "$EASYAI_CACHE_DIR/fuzz.log" "$REPO_ROOT/hack/test.sh" fuzz
}
start_components_beside() {
  EASYAI_CLUSTER_DIR=$EASYAI_CACHE_DIR/cluster-components EASYAI_CLUSTER_PORT_OFFSET=600 EASYAI_E2E_LATER_BUILD_PID=$prebuild_pid \
    start_beside e2e-components 0 "beside the e2e phase on clusters of its own" "$EASYAI_CACHE_DIR/e2e-components.log" "$REPO_ROOT/hack/test.sh" _components
}

run_e2e() {
  local started=0 missing
  if [ -n "$prebuild_pid" ]; then phase cluster-build wait_prebuild || return $?; fi
  # A cluster without some of the parts the suites need (make demo's, with
  # no Volcano, Trainer or real node) is replaced by the whole one.
  if cluster_running && missing=$(missing_parts) && [ -n "$missing" ]; then
    echo "=== the running cluster has no ${missing// /, } (make demo's): stopping it to start the whole cluster" >&2
    phase cluster-down "$CLUSTER_HACK_DIR/down.sh" || return $?
  fi
  if ! cluster_running; then
    phase cluster-up "$CLUSTER_HACK_DIR/up.sh"
    started=1
  fi
  export KUBECONFIG=$KUBECONFIG_FILE
  # The suites that restart a component find the cluster (and its scripts) by it.
  export EASYAI_CLUSTER_DIR
  local status=0
  # Only a run that started its own cluster may start others.
  if [ $started = 1 ]; then start_components_beside; fi
  phase e2e e2e || status=$?
  if [ $status != 0 ] && [ $started = 1 ]; then dump_cluster_logs; fi
  if [ $started = 1 ]; then phase cluster-down "$CLUSTER_HACK_DIR/down.sh"; fi
  if [ $status = 0 ]; then wait_beside e2e-components || status=$?; fi
  stop_beside e2e-components
  stop_prebuild
  return $status
}

# (Internal: the e2e-components phase, for start_components_beside.)
case "$mode" in
  _components)
    export KUBECONFIG=$KUBECONFIG_FILE EASYAI_CLUSTER_DIR
    # (Stopped midway, it stops its cluster, whose processes run in
    # sessions of their own.)
    trap '[ ! -d "$PID_DIR" ] || "$CLUSTER_HACK_DIR/down.sh"' EXIT
    # (Called in a list, so that a failing test does not end it before it
    # shows the cluster's logs: set -e is off in there.)
    status=0
    components_e2e || status=$?
    exit $status
    ;;
esac

# Before anything builds: what the machine lacks, in one line.
# (Unit tests and fuzzing need no real node.)
case "$mode" in unit | fuzz) EASYAI_REAL_NODE=0 "$REPO_ROOT/hack/prerequisites.sh" check ;; *) "$REPO_ROOT/hack/prerequisites.sh" check ;; esac || exit 1

mkdir -p "$EASYAI_CACHE_DIR"
case "$mode" in
  unit) phase checks checks && phase unit unit ;;
  fuzz) phase fuzz fuzz ;;
  e2e) run_e2e ;;
  all)
    export EASYAI_FUZZTIME=${EASYAI_FUZZTIME:-5s}
    prebuild
    phase checks checks && phase vet vet || { status=$?; stop_prebuild; exit $status; }
    start_fuzz_beside
    phase unit unit_tests || { status=$?; stop_beside fuzz; stop_prebuild; exit $status; }
    lower_beside fuzz 19
    status=0
    run_e2e || status=$?
    wait_beside fuzz || { [ $status != 0 ] || status=$?; }
    exit $status
    ;;
  *) echo "usage: $0 [all|unit|fuzz|e2e]" >&2; exit 2 ;;
esac
