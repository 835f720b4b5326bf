#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules into the cache, once per
# version: etcd, kube-apiserver/-controller-manager/-scheduler and kubectl,
# kwok, the training-operator, Kubeflow Trainer v2 with JobSet, KServe and
# Kueue (those of EASYAI_CLUSTER_COMPONENTS), Volcano and the CRD of Volcano
# 1.13's CronJob (unless EASYAI_CLUSTER_VOLCANO=0); for the real node (unless
# EASYAI_REAL_NODE=0) the kubelet, CoreDNS, the node tools and the images
# (images.sh, started as soon as kubectl and the node tools are built, beside
# the remaining builds). A warm cache makes this a no-op.
#   build.sh [--missing]
# --missing builds nothing: it prints the components still to build, one a
# line (nothing when all are there).
# Two builds at once (make demo's in the background, make test's) share the
# work: each component's build holds a lock, and the other waits for it and
# then finds it built.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

check_only=0
case "${1:-}" in
  "") ;;
  --missing) check_only=1 ;;
  *) die "usage: build.sh [--missing]" ;;
esac

# command_name NAME PKG: the file name go build gives PKG's command: the last
# path element, or the one before a major-version suffix; "." is the wrapper's own.
command_name() {
  local base; base=$(basename "$2")
  case "$base" in
    .) echo "$1" ;;
    v[0-9]*) basename "$(dirname "$2")" ;;
    *) echo "$base" ;;
  esac
}

# running_from DIR: some process runs a binary of DIR (a cluster still up).
running_from() {
  local exe
  for exe in /proc/[0-9]*/exe; do
    case "$(readlink "$exe" 2>/dev/null)" in "$1"/*) return 0 ;; esac
  done
  return 1
}

# A cold build's seconds on a quiet 2-core machine (measured: etcd, kube,
# kwok and the training-operator by make bench-demo, Trainer and Volcano in
# a first run; the others on a busier one: docs/development.md), for the
# progress lines until this machine has built a component itself
# ($BIN_CACHE/build-times then holds its own last times).
declare -A cold_seconds=([etcd]=45 [kube]=240 [kwok]=75 [training-operator]=75 [trainer]=125 [kserve]=180 [kueue]=300 [volcano]=210 [volcanocron]=40 [kubelet]=250 [coredns]=180 [nodetools]=40)
times_file=$BIN_CACHE/build-times
expected_seconds() {
  local recorded
  recorded=$(awk -v n="$1" '$1 == n { s = $2 } END { print s }' "$times_file" 2>/dev/null)
  echo "${recorded:-${cold_seconds[$1]:-300}}"
}
record_seconds() {
  mkdir -p "$BIN_CACHE"
  { grep -v "^$1 " "$times_file" 2>/dev/null || true; echo "$1 $2"; } >"$times_file.$$" && mv "$times_file.$$" "$times_file"
}
minutes() { echo "$(( ($1 + 59) / 60 )) min"; }
clock() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

# build NAME BINDIR LDFLAGS PKG...: go build the packages' commands into BINDIR
# unless every one is already there (or in the cache of an older layout, which
# is then taken over). While it builds, a progress line every 30 s says how
# long it has taken and about how long is left. It holds NAME's lock
# meanwhile; a build of NAME by another build.sh waits for it. (With
# --missing: prints NAME unless built.)
build() {
  local name=$1 dir=$2
  if [ $check_only = 1 ]; then
    local pkg legacy=$REPO_ROOT/.cache/bin/$(basename "$dir")
    shift 3
    for pkg in "$@"; do
      [ -x "$dir/$(command_name "$name" "$pkg")" ] || [ -x "$legacy/$(command_name "$name" "$pkg")" ] || { echo "$name"; return; }
    done
    return
  fi
  mkdir -p "$BIN_CACHE"
  if ! command -v flock >/dev/null; then build_unlocked "$@"; return; fi
  local lock status=0
  exec {lock}>>"$BIN_CACHE/.lock-$name"
  if ! flock -n "$lock"; then
    log "$name: another build of it runs; waiting for it"
    flock "$lock"
  fi
  # (What a build stopped midway left; not what one of an older build.sh,
  # which takes no lock, is still writing.)
  local tmp
  for tmp in "$dir".tmp.*; do
    [ ! -d "$tmp" ] || pid_alive "${tmp##*.tmp.}" || rm -rf "$tmp"
  done
  build_unlocked "$@" || status=$?
  exec {lock}>&-
  return $status
}
build_unlocked() {
  local name=$1 dir=$2 ldflags=$3; shift 3
  local pkg missing=0
  for pkg in "$@"; do [ -x "$dir/$(command_name "$name" "$pkg")" ] || missing=1; done
  local legacy=$REPO_ROOT/.cache/bin/$(basename "$dir")
  if [ $missing = 1 ] && [ "$legacy" != "$dir" ] && [ -d "$legacy" ]; then
    missing=0
    for pkg in "$@"; do [ -x "$legacy/$(command_name "$name" "$pkg")" ] || missing=1; done
    if [ $missing = 0 ]; then
      mkdir -p "$BIN_CACHE" && rm -rf "$dir" && cp -R "$legacy" "$dir.tmp.$$" && mv "$dir.tmp.$$" "$dir"
      log "$name: taken from ${legacy#"$REPO_ROOT"/} into ${dir}"
    fi
  fi
  if [ $missing = 0 ]; then log "$name: cached in ${dir#"$REPO_ROOT"/}"; touch "$dir"; return; fi
  local expected; expected=$(expected_seconds "$name")
  log "$name: building (about $(minutes "$expected") here$([ -f "$times_file" ] && grep -q "^$name " "$times_file" || echo ", measured on 2 cores"))"
  local start=$SECONDS tmp="$dir.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  # EASYAI_BUILD_TRACE=DIR keeps go's trace of each build's actions (compile,
  # link, each package's time) as DIR/NAME.json, to see where the time goes.
  local trace=()
  [ -z "${EASYAI_BUILD_TRACE:-}" ] || { mkdir -p "$EASYAI_BUILD_TRACE" && trace=(-debug-trace "$EASYAI_BUILD_TRACE/$name.json"); }
  # (The subshell's "times" then says the CPU time go build and its
  # compilers took: on 2 cores shared with other work, the wall time alone
  # says little of what a build costs.)
  (cd "$TOOLS_DIR/$name" && CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} ${BUILD_GOFLAGS:-}" go build -trimpath "${trace[@]}" -ldflags "$ldflags" -o "$tmp/" "$@" &&
    times >"$tmp.cpu") &
  local builder=$! status=0
  while ! wait_up_to 30 "$builder"; do
    local spent=$((SECONDS - start))
    log "$name: building, $(clock "$spent") so far$([ "$spent" -lt "$expected" ] && echo ", about $(minutes $((expected - spent))) left" || echo ", longer than the $(minutes "$expected") expected")"
  done
  wait "$builder" || status=$?
  [ $status = 0 ] || { rm -rf "$tmp"; die "$name: build failed"; }
  # (times' second line: the children's user and system time, as 1m2.345s.)
  local cpu; cpu=$(sed -n 2p "$tmp.cpu" 2>/dev/null | awk '{ s = 0; for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }')
  rm -f "$tmp.cpu"
  rm -rf "$dir" && mv "$tmp" "$dir"
  record_seconds "$name" $((SECONDS - start))
  log "$name: built in $((SECONDS - start))s${cpu:+ ($cpu CPU-seconds)}"
  # Builds of other versions of the component not used for 30 days go.
  local old
  for old in "$BIN_CACHE/$name"-*; do
    [ "$old" = "$dir" ] || [ ! -d "$old" ] || running_from "$old" ||
      [ -z "$(find "$old" -maxdepth 0 -mtime +30)" ] || rm -rf "$old"
  done
}

# wait_up_to SECONDS PID: true once PID has ended, false after SECONDS.
wait_up_to() {
  local i
  for ((i = 0; i < $1 * 4; i++)); do
    kill -0 "$2" 2>/dev/null || return 0
    sleep 0.25
  done
  return 1
}

kube_version=$(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes)
# Kubernetes binaries built as a module report v0.0.0 unless stamped.
kube_ldflags="-s -w"
for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $v.gitVersion=$kube_version -X $v.gitMajor=1 -X $v.gitMinor=$(cut -d. -f2 <<<"$kube_version")"
  kube_ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
done

# Independent modules build at once on a machine of more than 2 cores: each
# go build already compiles on every core, but its link step runs on one,
# and beside another build the other cores stay busy. EASYAI_BUILD_JOBS
# overrides (1: one after the other, as on 2 cores).
cores=$(nproc 2>/dev/null || echo 2)
build_jobs=${EASYAI_BUILD_JOBS:-$((cores > 2 ? (cores / 2 < 3 ? cores / 2 : 3) : 1))}
[ $check_only = 0 ] || build_jobs=1
declare -a build_pids=()
# spawn COMMAND...: runs it now (one job), or in the background once fewer
# than build_jobs builds run.
spawn() {
  if [ "$build_jobs" -le 1 ]; then "$@"; return; fi
  local p running
  while :; do
    running=0
    for p in "${build_pids[@]}"; do ! kill -0 "$p" 2>/dev/null || running=$((running + 1)); done
    [ "$running" -ge "$build_jobs" ] || break
    sleep 1
  done
  "$@" &
  build_pids+=($!)
}

build_kube() {
  build kube "$(kube_bin_dir)" "$kube_ldflags" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
}
# module_copy NAME MODULE DIR: a writable copy of MODULE's source, at the
# version tools/NAME pins, in DIR/NAME, and DIR/go.mod: the wrapper's, with a
# replace that builds MODULE from that copy. Prints the copy's path.
module_copy() {
  local name=$1 module=$2 dir=$3 version src
  version=$(module_version "$TOOLS_DIR/$name" "$module")
  src=$(cd "$TOOLS_DIR/$name" && go mod download -json "$module@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || die "$name: no module source for $version"
  rm -rf "$dir" && mkdir -p "$dir"
  cp -R "$src" "$dir/$name" && chmod -R u+w "$dir/$name"
  cp "$TOOLS_DIR/$name/go.mod" "$TOOLS_DIR/$name/go.sum" "$dir/"
  printf '\nreplace %s => %s\n' "$module" "$dir/$name" >>"$dir/go.mod"
  echo "$dir/$name"
}

# patch_kwok SRC: the project's exit-code fix (tools/kwok/exitcode_patch.go)
# in kwok's source SRC.
patch_kwok() {
  local server=$1/pkg/kwok/server
  grep -v '^//go:build easyai_kwok_patch' "$TOOLS_DIR/kwok/exitcode_patch.go" >"$server/zz_easyai_exitcode.go"
  local call='utilsexec\.Exec(ctx, cmd\[0\], cmd\[1:\]\.\.\.)'
  [ "$(cat "$server/debugging_exec.go" "$server/debugging_exec_other.go" | grep -c "$call")" = 2 ] \
    || die "kwok: the exec calls to patch are not where they were in v0.8.0"
  sed -i "s/$call/exitCodeError(&)/" "$server/debugging_exec.go" "$server/debugging_exec_other.go"
}

# patch_kueue SRC: Kueue's controller manager reads its metrics certificate
# from the directory $EASYAI_KUEUE_METRICS_CERTS instead of
# /etc/kueue/metrics/certs (a path only a pod, or root, can provide).
patch_kueue() {
  local main=$1/cmd/kueue/main.go
  grep -q 'metricsCertPath := "/etc/kueue/metrics/certs"' "$main" ||
    die "kueue: the metrics certificate path to patch is not where it was in v0.17.0"
  sed -i 's|metricsCertPath := "/etc/kueue/metrics/certs"|metricsCertPath := os.Getenv("EASYAI_KUEUE_METRICS_CERTS")|' "$main"
}

# build_patched NAME MODULE PKG: builds NAME's command PKG from a copy of
# MODULE's source that patch_NAME changed, unless already built.
build_patched() {
  local name=$1 module=$2 pkg=$3 dir src
  dir=$("${name//-/_}_bin_dir")
  if [ $check_only = 1 ] || [ -x "$dir/$(command_name "$name" "$pkg")" ]; then
    build "$name" "$dir" "-s -w" "$pkg"
    return
  fi
  local copy=$EASYAI_CACHE_DIR/src/$name
  src=$(module_copy "$name" "$module" "$copy") || exit 1
  "patch_$name" "$src"
  BUILD_GOFLAGS="-modfile=$copy/go.mod" build "$name" "$dir" "-s -w" "$pkg"
  rm -rf "$copy"
}

# Volcano 1.13's CronJob CRD, generated from its API types by controller-gen
# (tools/volcanocron): built once, then the CRD beside it in the cache.
build_volcanocron() {
  local dir crd tmp
  dir=$(volcanocron_bin_dir)
  crd=$dir/batch.volcano.sh_cronjobs.yaml
  if [ $check_only = 1 ]; then [ -f "$crd" ] || echo volcanocron; return; fi
  build volcanocron "$dir" "-s -w" sigs.k8s.io/controller-tools/cmd/controller-gen
  [ -f "$crd" ] && return
  tmp=$(mktemp -d)
  (cd "$TOOLS_DIR/volcanocron" && "$dir/controller-gen" crd:generateEmbeddedObjectMeta=true paths=volcano.sh/apis/pkg/apis/batch/v1alpha1 output:crd:dir="$tmp") ||
    { rm -rf "$tmp"; die "volcanocron: controller-gen made no CRD"; }
  [ -f "$tmp/${crd##*/}" ] || { rm -rf "$tmp"; die "volcanocron: controller-gen made no ${crd##*/}"; }
  mv "$tmp/${crd##*/}" "$crd" && rm -rf "$tmp"
  log "volcanocron: generated Volcano's CronJob CRD"
}

# start_images: images.sh in the background, once kubectl and the node tools
# (its inputs among the builds) are there, beside the remaining builds.
# (build moves a component's directory into place whole once built.)
images_pid=
start_images() {
  if [ $check_only = 1 ]; then [ -f "$(images_archive)" ] || echo images; return; fi
  local kubectl imagepack
  kubectl=$(kube_bin_dir)/kubectl imagepack=$(nodetools_bin_dir)/imagepack
  (
    until [ -x "$kubectl" ] && [ -x "$imagepack" ]; do
      kill -0 $$ 2>/dev/null || exit 1
      sleep 1
    done
    exec "$CLUSTER_HACK_DIR/images.sh"
  ) &
  images_pid=$!
}

# The default cluster's parts first (make demo's first: etcd, kube, kwok,
# the training-operator), the others' after; the real node's images as soon
# as their inputs are built.
[ "$build_jobs" -le 1 ] || [ $check_only = 1 ] || log "building up to $build_jobs components at once ($cores cores)"
spawn build etcd "$(etcd_bin_dir)" "-s -w" go.etcd.io/etcd/server/v3
spawn build_kube
if real_node; then
  spawn build nodetools "$(nodetools_bin_dir)" "-s -w" ./pause ./nslookup ./imagepack ./apiproxy
  start_images
fi
spawn build_patched kwok sigs.k8s.io/kwok sigs.k8s.io/kwok/cmd/kwok
if has_component training-operator; then
  spawn build training-operator "$(training_operator_bin_dir)" "-s -w" .
fi
if has_component trainer; then
  spawn build trainer "$(trainer_bin_dir)" "-s -w" sigs.k8s.io/jobset github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager
fi
if volcano_on; then
  spawn build volcano "$(volcano_bin_dir)" "-s -w" \
    volcano.sh/volcano/cmd/scheduler volcano.sh/volcano/cmd/controller-manager volcano.sh/volcano/cmd/webhook-manager
  spawn build_volcanocron
fi
# The real node's kubelet (after the control plane, whose build cache it
# shares) and a minimal CoreDNS.
if real_node; then
  spawn build coredns "$(coredns_bin_dir)" "-s -w" .
  spawn build kubelet "$(kubelet_bin_dir)" "$kube_ldflags" k8s.io/kubernetes/cmd/kubelet
fi
if has_component kserve; then
  spawn build kserve "$(kserve_bin_dir)" "-s -w" github.com/kserve/kserve/cmd/manager
fi
if has_component kueue; then
  spawn build_patched kueue sigs.k8s.io/kueue sigs.k8s.io/kueue/cmd/kueue
fi
failed=0
for p in "${build_pids[@]}"; do wait "$p" || failed=1; done
if [ -n "$images_pid" ]; then
  # (Still waiting for an input that did not build: it ends here.)
  if [ $failed = 1 ] && ! { [ -x "$(kube_bin_dir)/kubectl" ] && [ -x "$(nodetools_bin_dir)/imagepack" ]; }; then
    kill "$images_pid" 2>/dev/null || true
  fi
  wait "$images_pid" || failed=1
fi
[ $failed = 0 ] || die "a component did not build (see above)"
