#!/usr/bin/env bash
# Shared settings of the local development cluster scripts. Sourced, not run.
#
# Where things live:
#   $BIN_CACHE/<component>-<version>-<hash>/   built binaries, reused across runs and checkouts
#                                              (~/.cache/easyai/cluster-bin, see below)
#   $EASYAI_CLUSTER_DIR/                       one running cluster: pki, kubeconfig, etcd data,
#                                              logs, pids, kwok files (.cache/cluster, git-ignored)
set -euo pipefail

CLUSTER_HACK_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$CLUSTER_HACK_DIR/../.." && pwd)
TOOLS_DIR=$CLUSTER_HACK_DIR/tools
MANIFESTS_DIR=$CLUSTER_HACK_DIR/manifests

# The built binaries are shared by every checkout on the machine (a fresh
# clone, CI's, reuses what an earlier one built): $EASYAI_BIN_CACHE, else
# $EASYAI_CACHE_DIR/bin when that is set, else the user's cache directory.
if [ -n "${EASYAI_BIN_CACHE:-}" ]; then
  BIN_CACHE=$EASYAI_BIN_CACHE
elif [ -z "${EASYAI_CACHE_DIR:-}" ] && [ -n "${XDG_CACHE_HOME:-${HOME:-}}" ]; then
  BIN_CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/easyai/cluster-bin
else
  BIN_CACHE=${EASYAI_CACHE_DIR:-$REPO_ROOT/.cache}/bin
fi
EASYAI_CACHE_DIR=${EASYAI_CACHE_DIR:-$REPO_ROOT/.cache}
EASYAI_CLUSTER_DIR=${EASYAI_CLUSTER_DIR:-$EASYAI_CACHE_DIR/cluster}

PKI_DIR=$EASYAI_CLUSTER_DIR/pki
LOG_DIR=$EASYAI_CLUSTER_DIR/logs
PID_DIR=$EASYAI_CLUSTER_DIR/pids
KUBECONFIG_FILE=$EASYAI_CLUSTER_DIR/admin.kubeconfig
# Directory a test may fill with log files, exec working directories etc.;
# kwok serves files from here, so it must be readable by the kwok process.
KWOK_FILES_DIR=$EASYAI_CLUSTER_DIR/kwok

# Ports, all on 127.0.0.1, chosen away from every component's default.
# EASYAI_CLUSTER_PORT_OFFSET shifts them all, so that a second cluster (with
# its own EASYAI_CLUSTER_DIR, e.g. the benchmark's) can run beside the first.
HOST=127.0.0.1
port() { echo $(($1 + ${EASYAI_CLUSTER_PORT_OFFSET:-0})); }
ETCD_CLIENT_PORT=$(port 32379)
ETCD_PEER_PORT=$(port 32380)
APISERVER_PORT=$(port 36443)
KCM_PORT=$(port 30257)
SCHEDULER_PORT=$(port 30259)
KWOK_PORT=$(port 30250)
TRAINING_OPERATOR_PROBE_PORT=$(port 30081)
TRAINING_OPERATOR_WEBHOOK_PORT=$(port 30443)
VOLCANO_SCHEDULER_METRICS_PORT=$(port 30080)
VOLCANO_SCHEDULER_HEALTH_PORT=$(port 30082)
VOLCANO_CONTROLLER_HEALTH_PORT=$(port 30083)
VOLCANO_WEBHOOK_PORT=$(port 30444)
VOLCANO_WEBHOOK_HEALTH_PORT=$(port 30084)
TRAINER_WEBHOOK_PORT=$(port 30445)
TRAINER_PROBE_PORT=$(port 30085)
TRAINER_METRICS_PORT=$(port 30086)
TRAINER_STATUS_PORT=$(port 30087)
JOBSET_WEBHOOK_PORT=$(port 30446)
JOBSET_PROBE_PORT=$(port 30088)
JOBSET_METRICS_PORT=$(port 30089)
KSERVE_WEBHOOK_PORT=$(port 30447)
KSERVE_PROBE_PORT=$(port 30090)
KSERVE_METRICS_PORT=$(port 30091)
KUEUE_WEBHOOK_PORT=$(port 30448)
KUEUE_PROBE_PORT=$(port 30092)
KUEUE_METRICS_PORT=$(port 30093)

# EASYAI_CLUSTER_OPERATORS=none starts the cluster without the
# training-operator and Volcano (CRDs still installed): objects then stay as
# written, as the benchmark needs.
EASYAI_CLUSTER_OPERATORS=${EASYAI_CLUSTER_OPERATORS:-all}

# EASYAI_CLUSTER_COMPONENTS: which Kubeflow training operators run, comma
# separated: training-operator (the v1 kinds: TFJob, PyTorchJob, ...) and
# trainer (Kubeflow Trainer v2's TrainJob, with the JobSet controller).
# Volcano runs too (EASYAI_CLUSTER_VOLCANO below). The default runs both,
# side by side (their API groups differ). kserve (not in the default) adds the KServe controller
# manager in RawDeployment mode, with its CRDs and webhooks; kueue (not in
# the default) adds Kueue's controller manager, with its CRDs and webhooks
# (docs/development.md says why neither is on by default).
EASYAI_CLUSTER_COMPONENTS=${EASYAI_CLUSTER_COMPONENTS:-training-operator,trainer}
has_component() { [[ ",$EASYAI_CLUSTER_COMPONENTS," == *",$1,"* ]]; }

# EASYAI_CLUSTER_VOLCANO=0 leaves Volcano out: not built, no CRDs, webhooks
# or processes; the training-operator then schedules without gangs (make
# demo's first cluster, which starts before Volcano is built).
EASYAI_CLUSTER_VOLCANO=${EASYAI_CLUSTER_VOLCANO:-1}
volcano_on() { [ "$EASYAI_CLUSTER_VOLCANO" != 0 ]; }

FAKE_NODES=${EASYAI_FAKE_NODES:-4}
FAKE_NODE_GPUS=${EASYAI_FAKE_NODE_GPUS:-8}
FAKE_NODE_CPU=${EASYAI_FAKE_NODE_CPU:-64}
FAKE_NODE_MEMORY=${EASYAI_FAKE_NODE_MEMORY:-512Gi}

log() { printf '[cluster %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "error: $*"; exit 1; }

# module_version DIR MODULE: the version of MODULE that the wrapper module in DIR requires.
module_version() {
  (cd "$1" && go list -m -f '{{.Version}}' "$2")
}

# tools_hash DIR: a short hash of a wrapper module's own files, so that editing
# a wrapper (a new version, a changed main.go) builds into a new cache entry.
tools_hash() {
  (cd "$1" && cat go.mod go.sum ./*.go 2>/dev/null | sha256sum | cut -c1-10)
}

# component_dir NAME MODULE: the cache directory of one component's binaries.
component_dir() {
  local dir=$TOOLS_DIR/$1
  printf '%s/%s-%s-%s' "$BIN_CACHE" "$1" "$(module_version "$dir" "$2")" "$(tools_hash "$dir")"
}

kube_bin_dir()              { component_dir kube k8s.io/kubernetes; }
etcd_bin_dir()              { component_dir etcd go.etcd.io/etcd/server/v3; }
kwok_bin_dir()              { component_dir kwok sigs.k8s.io/kwok; }
volcano_bin_dir()           { component_dir volcano volcano.sh/volcano; }
volcanocron_bin_dir()       { component_dir volcanocron volcano.sh/apis; }
training_operator_bin_dir() { component_dir training-operator github.com/kubeflow/training-operator; }
trainer_bin_dir()           { component_dir trainer github.com/kubeflow/trainer/v2; }
kserve_bin_dir()            { component_dir kserve github.com/kserve/kserve; }
kueue_bin_dir()             { component_dir kueue sigs.k8s.io/kueue; }
kubelet_bin_dir()           { component_dir kubelet k8s.io/kubernetes; }
coredns_bin_dir()           { component_dir coredns github.com/coredns/coredns; }
# The node tools are the wrapper's own code: keyed by a hash of all its files.
nodetools_bin_dir() {
  printf '%s/nodetools-%s' "$BIN_CACHE" "$(cd "$TOOLS_DIR/nodetools" && find . -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-10)"
}

# The real node (hack/cluster/realnode.sh): a kubelet with containerd and
# runc beside the fake nodes, running real containers of images built from
# Debian's packages (images.sh). EASYAI_REAL_NODE=0 leaves it out.
EASYAI_REAL_NODE=${EASYAI_REAL_NODE:-1}
real_node() { [ "$EASYAI_REAL_NODE" != 0 ]; }
REAL_NODE_NAME=real-node-0
# Each cluster (port offset) has a bridge and a /24 of its own.
REAL_NODE_SLOT=$(( (${EASYAI_CLUSTER_PORT_OFFSET:-0} / 100) % 150 ))
REAL_NODE_BRIDGE=easyai$REAL_NODE_SLOT
REAL_NODE_SUBNET=10.244.$((77 + REAL_NODE_SLOT)).0/24
REAL_NODE_HOST_IP=10.244.$((77 + REAL_NODE_SLOT)).1
KUBELET_PORT=$(port 30262)
KUBELET_HEALTHZ_PORT=$(port 30263)
COREDNS_READY_PORT=$(port 30264)
REAL_NODE_DIR=$EASYAI_CLUSTER_DIR/realnode

# The images' archive (images.sh), shared by every checkout like the binaries.
IMAGE_CACHE=${EASYAI_IMAGE_CACHE:-$(dirname "$BIN_CACHE")/images}
IMAGE_SUITE=bookworm
# (debootstrap resolves no virtual package: python3-cffi-backend provides the
# python3-cffi-backend-api-* that Jupyter's zmq and argon2 need.)
IMAGE_PACKAGES=(python3 python3-torch python3-xgboost git openssh-server busybox-static ca-certificates jupyter-server python3-cffi-backend openmpi-bin python3-mpi4py)
IMAGE_DEBIAN=localhost/easyai-e2e/debian:1
IMAGE_PYTORCH_INIT=docker.io/library/alpine:3.10
IMAGE_PAUSE=localhost/easyai-e2e/pause:1
IMAGE_BUSYBOX=docker.io/library/busybox:1.36
IMAGE_GIT=docker.io/alpine/git:2.47.2
# The training-operator's MPIJob launcher copies kubectl from this image (its
# default, pulled only when not present).
IMAGE_KUBECTL_DELIVERY=ghcr.io/kubeflow/training-v1/kubectl-delivery:latest
# Bumped when images.sh builds a root file system differently from the same
# packages (ROOTFS_RECIPE), or the images from the same root file system
# (IMAGE_RECIPE).
ROOTFS_RECIPE=1
IMAGE_RECIPE=2
# rootfs_tar: the packed Debian root file system of images.sh, cached apart
# from the images so that a change of the layers above it (the node tools,
# hack/cluster/images/) does not debootstrap again.
rootfs_tar() {
  printf '%s/rootfs-%s.tar' "$IMAGE_CACHE" "$(
    printf '%s\n' "$ROOTFS_RECIPE" "$IMAGE_SUITE" "${IMAGE_PACKAGES[@]}" | sha256sum | cut -c1-12)"
}
images_archive() {
  printf '%s/e2e-images-%s.tar' "$IMAGE_CACHE" "$(
    { printf '%s\n' "$IMAGE_RECIPE" "$(basename "$(rootfs_tar)")" "$IMAGE_DEBIAN" "$IMAGE_PYTORCH_INIT" "$IMAGE_PAUSE" "$IMAGE_BUSYBOX" "$IMAGE_GIT" "$(basename "$(nodetools_bin_dir)")" \
      "$IMAGE_KUBECTL_DELIVERY" "$(basename "$(kube_bin_dir)")"
      cat "$CLUSTER_HACK_DIR"/images/*; } | sha256sum | cut -c1-12)"
}
# apt_mirror: the Debian mirror apt uses here for $IMAGE_SUITE's main component
# (deb822 .sources files or one-line sources.list entries).
apt_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk -v suite="$IMAGE_SUITE" '
      /^$/ { if (uri != "" && hit && main) { print uri; exit } uri = ""; hit = 0; main = 0; next }
      tolower($1) == "uris:" { uri = $2 }
      tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == suite) hit = 1 }
      tolower($1) == "components:" { for (i = 2; i <= NF; i++) if ($i == "main") main = 1 }
      END { if (uri != "" && hit && main) print uri }' "$f" | head -n1 | grep . && return 0
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk -v suite="$IMAGE_SUITE" '$1 == "deb" { i = 2; if ($2 ~ /^\[/) while ($i !~ /\]$/) i++; if ($2 ~ /^\[/) i++; if ($(i+1) == suite) { print $i; exit } }' "$f" | grep . && return 0
  done
  return 1
}

# module_dir DIR MODULE: where the Go module cache holds MODULE's source (for CRDs and stages).
module_dir() {
  (cd "$1" && go mod download -json "$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
}

kubectl() { "$(kube_bin_dir)/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# cluster_running: true when every recorded process of the cluster is alive.
cluster_running() {
  [ -d "$PID_DIR" ] || return 1
  local f any=1
  for f in "$PID_DIR"/*.pid; do
    [ -e "$f" ] || return 1
    pid_alive "$(cat "$f")" || return 1
    any=0
  done
  return $any
}

# cluster_parts: what a cluster started in this environment runs, besides
# the control plane and kwok, one word each; up.sh records it in PARTS_FILE.
PARTS_FILE=$EASYAI_CLUSTER_DIR/parts
cluster_parts() {
  local parts=() c
  if [ "$EASYAI_CLUSTER_OPERATORS" != none ]; then
    if volcano_on; then parts+=(volcano); fi
    for c in ${EASYAI_CLUSTER_COMPONENTS//,/ }; do parts+=("$c"); done
  fi
  if real_node; then parts+=(real-node); fi
  echo "${parts[*]}"
}
# missing_parts: the parts this environment asks for that the cluster of
# EASYAI_CLUSTER_DIR lacks (none for a cluster that recorded none, started
# before up.sh recorded them).
missing_parts() {
  [ -f "$PARTS_FILE" ] || return 0
  local have p missing=()
  have=" $(cat "$PARTS_FILE") "
  for p in $(cluster_parts); do [[ "$have" == *" $p "* ]] || missing+=("$p"); done
  echo "${missing[*]}"
}

# background_session NICE COMMAND...: runs COMMAND in the background in a
# session of its own (stopping the session stops every process COMMAND
# started) at priority NICE, and sets $! to it. With the kernel's autogroup
# scheduling (on by default in most distributions' kernels), each session
# shares the CPU as one group, whatever the nice values of its processes: a
# build started with setsid at plain nice 19 still takes half of 2 cores from
# the session that waits for it. The group's own nice value
# (/proc/self/autogroup) is what lowers it; raising it needs no privilege.
# Without autogroup scheduling, the processes' nice value does the same.
background_session() {
  local nice=$1; shift
  setsid bash -c 'echo "$0" >/proc/self/autogroup 2>/dev/null || true; exec nice -n "$0" "$@"' "$nice" "$@" &
}

# start NAME BINARY ARGS...: runs BINARY in a session of its own (so that
# down.sh can end it with every child it spawned) and records its PID.
start() {
  local name=$1; shift
  setsid "$@" >>"$LOG_DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$PID_DIR/$name.pid"
}

# wait_for WHAT SECONDS COMMAND...: retries COMMAND until it succeeds; gives
# up early when WHAT is a process of ours that exited.
wait_for() {
  local what=$1 limit=$2 start=$SECONDS; shift 2
  until "$@" >/dev/null 2>&1; do
    if [ -f "$PID_DIR/$what.pid" ] && ! pid_alive "$(cat "$PID_DIR/$what.pid")"; then
      tail -n 20 "$LOG_DIR/$what.log" >&2
      die "$what exited; its log is $LOG_DIR/$what.log"
    fi
    if [ $((SECONDS - start)) -ge "$limit" ]; then die "$what not ready after ${limit}s"; fi
    sleep 0.5
  done
}

https_ok() { curl -fsS --max-time 2 --cacert "$PKI_DIR/ca.crt" --cert "$PKI_DIR/admin.crt" --key "$PKI_DIR/admin.key" "$1"; }

# ours PID: the process still runs one of the cache's binaries, or names this
# cluster's directory (a PID file can outlive its process, and the number be
# reused by another one).
ours() {
  local exe; exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  # (Also a binary of the checkout's .cache/bin, where they were built before.)
  case "$exe" in "$BIN_CACHE"/* | "$REPO_ROOT/.cache/bin"/*) return 0 ;; esac
  # A program of the system's (the real node's containerd) started for this
  # cluster: its command line names the cluster's directory.
  tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | grep -qF -- "$EASYAI_CLUSTER_DIR/"
}

# stop NAME...: asks the processes to end together, waits up to 10s, then
# kills what is left, with every child of their sessions (kwok's exec commands).
stop() {
  local name pid pids=() names=()
  for name in "$@"; do
    [ -f "$PID_DIR/$name.pid" ] || continue
    pid=$(cat "$PID_DIR/$name.pid")
    if pid_alive "$pid" && ours "$pid"; then
      kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
      pids+=("$pid") names+=("$name")
    fi
  done
  local i
  for _ in $(seq 1 40); do
    local alive=0
    for pid in "${pids[@]}"; do pid_alive "$pid" && alive=1; done
    [ $alive = 1 ] || break
    sleep 0.25
  done
  for i in "${!pids[@]}"; do
    if pid_alive "${pids[$i]}"; then log "${names[$i]} did not stop in 10s; killing it"; fi
    kill -KILL -- "-${pids[$i]}" 2>/dev/null || true
  done
  for name in "$@"; do rm -f "$PID_DIR/$name.pid"; done
}
