#!/usr/bin/env bash
# The local cluster's real node: containerd (Debian's) on a socket and
# directories of its own, a CNI bridge of its own with no route out, CoreDNS
# answering the cluster domain on that bridge, and a kubelet that registers
# node real-node-0, labelled and tainted easyai.io/real-node=true so that only
# pods that ask for it land there. Its images come from images.sh.
#   realnode.sh up     called by up.sh once the API server runs
#   realnode.sh down   called by down.sh before the API server stops: ends
#                      the pods' containers and everything started here, and
#                      undoes what the kubelet changed on the host (sysctls,
#                      mounts, cgroups, the bridge, network namespaces)
#   realnode.sh import NAME DIR ENTRYPOINT
#                      an image of one directory, imported into containerd
#                      (a test's own build: the easyai binary)
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONTAINERD_SOCK=$REAL_NODE_DIR/containerd/containerd.sock
IMPORT_STATUS=$REAL_NODE_DIR/images-import.status
CGROUP_ROOT=easyai$REAL_NODE_SLOT
# What the kubelet sets on the host when it starts, restored by down.
SYSCTLS=(vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys kernel.keys.root_maxbytes)

ctr() { command ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }

# cgroup_dirs: the cluster's cgroup in every hierarchy (cgroup v1), or in the
# unified one (v2). (On a hybrid host the kubelet also makes one in the v1
# hierarchies' unified companion, which down removes.)
cgroup_dirs() {
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    echo "/sys/fs/cgroup/$CGROUP_ROOT"
    return
  fi
  local d
  for d in /sys/fs/cgroup/*/; do
    d=${d%/}
    case "$(basename "$d")" in unified) continue ;; esac
    [ -d "$d" ] && [ ! -L "$d" ] && echo "$d/$CGROUP_ROOT"
  done
}

# preflight: one line naming what this machine lacks for the real node.
preflight() {
  local missing=() cmd
  [ "$(id -u)" = 0 ] || die "the real node needs root (containers, mounts, a bridge); EASYAI_REAL_NODE=0 leaves it out"
  for cmd in containerd ctr runc ip mount umount; do command -v "$cmd" >/dev/null || missing+=("$cmd"); done
  [ -x /usr/lib/cni/bridge ] && [ -x /usr/lib/cni/host-local ] && [ -x /usr/lib/cni/loopback ] || missing+=("CNI plugins")
  [ ${#missing[@]} = 0 ] || die "the real node needs ${missing[*]}: apt-get install containerd runc containernetworking-plugins iproute2 (or EASYAI_REAL_NODE=0)"
  grep -qw overlay /proc/filesystems || modprobe overlay 2>/dev/null || die "the real node needs overlayfs (modprobe overlay), or EASYAI_REAL_NODE=0"
  [ -f "$(images_archive)" ] || die "the real node's images are not built: hack/cluster/build.sh builds them"
  # A nearly full disk makes its kubelet report DiskPressure: it refuses pods
  # and deletes the imported images (pause included), which no registry can
  # give back.
  local free_kb
  free_kb=$(df -Pk "$EASYAI_CLUSTER_DIR" | awk 'NR == 2 {print $4}')
  [ "${free_kb:-0}" -ge $((5 * 1024 * 1024)) ] ||
    die "the real node needs 5 GiB free on the disk of $EASYAI_CLUSTER_DIR ($((${free_kb:-0} / 1024 / 1024)) GiB free): free some (go clean -cache empties Go's build cache), or EASYAI_REAL_NODE=0"
}

save_sysctls() {
  local key
  [ -f "$REAL_NODE_DIR/sysctls" ] && return
  for key in "${SYSCTLS[@]}"; do echo "$key=$(sysctl -n "$key")"; done >"$REAL_NODE_DIR/sysctls"
}

restore_sysctls() {
  [ -f "$REAL_NODE_DIR/sysctls" ] || return 0
  local line
  while IFS= read -r line; do sysctl -qw "$line" >/dev/null || log "could not restore $line"; done <"$REAL_NODE_DIR/sysctls"
  rm -f "$REAL_NODE_DIR/sysctls"
}

make_bridge() {
  ip link show "$REAL_NODE_BRIDGE" >/dev/null 2>&1 && ip link delete "$REAL_NODE_BRIDGE"
  ip link add "$REAL_NODE_BRIDGE" type bridge
  ip addr add "$REAL_NODE_HOST_IP/24" dev "$REAL_NODE_BRIDGE"
  ip link set "$REAL_NODE_BRIDGE" up
}

make_cgroups() {
  local dir parent
  while IFS= read -r dir; do
    mkdir -p "$dir"
    parent=$(dirname "$dir")
    # A new cpuset cgroup has no CPUs until given its parent's.
    if [ -f "$dir/cpuset.cpus" ] && [ -z "$(cat "$dir/cpuset.cpus")" ]; then
      cat "$parent/cpuset.cpus" >"$dir/cpuset.cpus"
      cat "$parent/cpuset.mems" >"$dir/cpuset.mems"
    fi
  done < <(cgroup_dirs)
  if [ -f /sys/fs/cgroup/cgroup.controllers ]; then
    log "cgroup v2: untested for the real node"
    local c
    for c in $(cat /sys/fs/cgroup/cgroup.controllers); do echo "+$c" >/sys/fs/cgroup/cgroup.subtree_control 2>/dev/null || true; done
    for c in $(cat "/sys/fs/cgroup/$CGROUP_ROOT/cgroup.controllers"); do echo "+$c" >"/sys/fs/cgroup/$CGROUP_ROOT/cgroup.subtree_control" 2>/dev/null || true; done
  fi
}

write_configs() {
  mkdir -p "$REAL_NODE_DIR"/{containerd/root,containerd/state,cni/net.d,cni/networks,kubelet,pod-logs}
  cat >"$REAL_NODE_DIR/containerd.toml" <<EOF
version = 2
root = "$REAL_NODE_DIR/containerd/root"
state = "$REAL_NODE_DIR/containerd/state"
disabled_plugins = ["io.containerd.snapshotter.v1.btrfs", "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper", "io.containerd.snapshotter.v1.aufs", "io.containerd.internal.v1.tracing"]
[grpc]
  address = "$CONTAINERD_SOCK"
[ttrpc]
  address = "$CONTAINERD_SOCK.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$REAL_NODE_DIR/containerd/opt"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "$IMAGE_PAUSE"
  # Without CAP_SYS_RESOURCE a Guaranteed pod's oom_score_adj (-997) cannot be written.
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$REAL_NODE_DIR/cni/net.d"
EOF
  # No gateway and no masquerade: pods reach each other and the host's
  # address on the bridge, nothing beyond.
  cat >"$REAL_NODE_DIR/cni/net.d/10-easyai.conflist" <<EOF
{
  "cniVersion": "0.4.0",
  "name": "easyai-real-node",
  "plugins": [{
    "type": "bridge", "bridge": "$REAL_NODE_BRIDGE", "isGateway": false, "ipMasq": false, "hairpinMode": true,
    "ipam": {"type": "host-local", "dataDir": "$REAL_NODE_DIR/cni/networks",
             "ranges": [[{"subnet": "$REAL_NODE_SUBNET", "rangeStart": "${REAL_NODE_HOST_IP%.1}.10"}]]}
  }]
}
EOF
  cat >"$REAL_NODE_DIR/Corefile" <<EOF
cluster.local:53 {
    bind $REAL_NODE_HOST_IP
    ready $HOST:$COREDNS_READY_PORT
    errors
    cache 5
    kubernetes cluster.local {
        kubeconfig $KUBECONFIG_FILE easyai-dev
    }
}
EOF
  # The pods' resolver: the cluster's search domains only, not the host's.
  echo "# no host search domains or servers for the real node's pods" >"$REAL_NODE_DIR/resolv.conf"
  cat >"$REAL_NODE_DIR/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# The kubelet's address is its node's: the bridge's (a loopback node IP is refused).
address: $REAL_NODE_HOST_IP
port: $KUBELET_PORT
readOnlyPort: 0
healthzBindAddress: $HOST
healthzPort: $KUBELET_HEALTHZ_PORT
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $PKI_DIR/ca.crt}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
cgroupDriver: cgroupfs
cgroupRoot: /$CGROUP_ROOT
failCgroupV1: false
failSwapOn: false
# Not the host's iptables: KUBE-FIREWALL would drop the rest of the local
# cluster's loopback traffic.
makeIPTablesUtilChains: false
clusterDNS: [$REAL_NODE_HOST_IP]
clusterDomain: cluster.local
resolvConf: $REAL_NODE_DIR/resolv.conf
podLogsDir: $REAL_NODE_DIR/pod-logs
# The imported images are never collected, and a full host disk does not evict.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, nodefs.inodesFree: 1%, imagefs.available: 1%}
serializeImagePulls: false
maxPods: 40
registerWithTaints:
- {key: easyai.io/real-node, value: "true", effect: NoSchedule}
EOF
}

up() {
  preflight
  mkdir -p "$REAL_NODE_DIR"
  save_sysctls
  write_configs
  make_bridge
  make_cgroups

  log "real node: starting containerd"
  start containerd containerd --config "$REAL_NODE_DIR/containerd.toml"
  wait_for containerd 30 ctr version
  # The images' import (about a minute) runs in the background while the
  # rest of the cluster starts; wait_ready waits for it.
  touch "$(images_archive)" # in use: images.sh keeps it
  rm -f "$IMPORT_STATUS"
  log "real node: importing the images in the background"
  (
    start=$SECONDS status=0
    ctr images import "$(images_archive)" >"$LOG_DIR/images-import.log" 2>&1 || status=$?
    echo "$status $((SECONDS - start))" >"$IMPORT_STATUS"
  ) </dev/null >/dev/null 2>&1 &

  log "real node: starting CoreDNS on $REAL_NODE_HOST_IP"
  start coredns "$(coredns_bin_dir)/coredns" -conf "$REAL_NODE_DIR/Corefile"
  # No kube-proxy: the API server is reached at the bridge's address, passed
  # on to its own (its certificate names that address too).
  start apiproxy "$(nodetools_bin_dir)/apiproxy" -listen "$REAL_NODE_HOST_IP:$APISERVER_PORT" -to "$HOST:$APISERVER_PORT"
  log "real node: starting the kubelet ($REAL_NODE_NAME)"
  start kubelet "$(kubelet_bin_dir)/kubelet" --config "$REAL_NODE_DIR/kubelet.yaml" \
    --kubeconfig "$KUBECONFIG_FILE" --root-dir "$REAL_NODE_DIR/kubelet" --cert-dir "$REAL_NODE_DIR/kubelet/pki" \
    --hostname-override "$REAL_NODE_NAME" --node-ip "$REAL_NODE_HOST_IP" --node-labels easyai.io/real-node=true --v 2
}

# wait_ready: after the control plane is up (the node's status needs it).
wait_ready() {
  local waited=0
  until [ -s "$IMPORT_STATUS" ]; do
    [ $waited -lt 1200 ] || die "the real node's images were not imported in 10 min; see $LOG_DIR/images-import.log"
    sleep 0.5
    waited=$((waited + 1))
  done
  local status seconds image images
  read -r status seconds <"$IMPORT_STATUS"
  [ "$status" = 0 ] || { cat "$LOG_DIR/images-import.log" >&2; die "importing the real node's images failed"; }
  images=$(ctr images ls -q)
  for image in "$IMAGE_DEBIAN" "$IMAGE_PYTORCH_INIT" "$IMAGE_BUSYBOX" "$IMAGE_GIT" "$IMAGE_PAUSE" "$IMAGE_KUBECTL_DELIVERY"; do
    grep -qx "$image" <<<"$images" || die "image $image missing after the import"
  done
  log "real node: images imported in ${seconds}s"
  wait_for coredns 60 curl -fsS --max-time 2 "http://$HOST:$COREDNS_READY_PORT/ready"
  wait_for kubelet 90 kubectl get node "$REAL_NODE_NAME"
  kubectl wait --for condition=Ready --timeout 90s node "$REAL_NODE_NAME" >/dev/null ||
    die "the real node is not Ready; see $LOG_DIR/kubelet.log"
}

# netns_of_containers: the network namespaces of the node's pod sandboxes.
netns_of_containers() {
  local id
  for id in $(ctr containers ls -q 2>/dev/null); do
    ctr containers info "$id" 2>/dev/null | grep -o '"path": *"/[^"]*netns/[^"]*"' | sed 's/.*"\(\/[^"]*\)"$/\1/'
  done | sort -u
}

# unmount_under DIR: every mount below DIR, deepest first.
unmount_under() {
  local m
  awk -v d="$1/" 'index($5, d) == 1 { print $5 }' /proc/self/mountinfo | sort -r | while IFS= read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || log "could not unmount $m"
  done
}

down() {
  [ -d "$REAL_NODE_DIR" ] || return 0
  # Every step is tried, whatever an earlier one left undone.
  set +e
  stop kubelet coredns apiproxy
  local netns=() id
  if [ -S "$CONTAINERD_SOCK" ] && pid_alive "$(cat "$PID_DIR/containerd.pid" 2>/dev/null)"; then
    mapfile -t netns < <(netns_of_containers)
    for id in $(ctr tasks ls -q 2>/dev/null); do ctr tasks kill -s KILL "$id" >/dev/null 2>&1 || true; done
    for _ in $(seq 1 40); do
      ctr tasks ls 2>/dev/null | awk 'NR > 1 && $3 == "RUNNING"' | grep -q . || break
      sleep 0.25
    done
    for id in $(ctr tasks ls -q 2>/dev/null); do ctr tasks delete -f "$id" >/dev/null 2>&1 || true; done
    for id in $(ctr containers ls -q 2>/dev/null); do ctr containers delete "$id" >/dev/null 2>&1 || true; done
  fi
  stop containerd
  # The shims live in sessions of their own; any left serve this containerd only.
  pkill -KILL -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" 2>/dev/null || true
  local ns
  for ns in "${netns[@]}"; do umount "$ns" 2>/dev/null; rm -f "$ns"; done
  unmount_under "$REAL_NODE_DIR"
  # Cgroups, deepest first: a cgroup goes once its processes (the pods',
  # killed above, may still be exiting) and children have.
  local dir try
  for try in $(seq 1 20); do
    while IFS= read -r dir; do
      [ ! -d "$dir" ] || find "$dir" -depth -type d -exec rmdir {} + 2>/dev/null
    done < <(cgroup_dirs; [ ! -d /sys/fs/cgroup/unified ] || echo "/sys/fs/cgroup/unified/$CGROUP_ROOT")
    [ -n "$(ls -d /sys/fs/cgroup/*/"$CGROUP_ROOT" 2>/dev/null)" ] || break
    sleep 0.25
  done
  for dir in /sys/fs/cgroup/*/"$CGROUP_ROOT"; do
    [ ! -d "$dir" ] || log "could not remove the cgroup $dir: $(cat "$dir"/cgroup.procs 2>/dev/null | wc -l) processes left in it"
  done
  ip link delete "$REAL_NODE_BRIDGE" 2>/dev/null || true
  restore_sysctls
}

# import_image NAME DIR ENTRYPOINT: packs the directory DIR into the image
# NAME (one layer, ENTRYPOINT its entrypoint) and imports it into the real
# node's containerd, for a test that runs something of its own build there
# (the easyai binary of a schedule's launcher).
import_image() {
  local name=$1 dir=$2 entrypoint=$3 archive
  [ -d "$dir" ] || die "import: no directory $dir"
  archive=$(mktemp "${TMPDIR:-/tmp}/realnode-image-XXXXXX.tar")
  "$(nodetools_bin_dir)/imagepack" -out "$archive" -image "$name=$dir" -entrypoint "$name=$entrypoint" &&
    ctr images import "$archive" >/dev/null
  local status=$?
  rm -f "$archive"
  return $status
}

case "${1:-}" in
  up) up ;;
  wait) wait_ready ;;
  down) down ;;
  import) shift; import_image "$@" ;;
  *) echo "usage: $0 up|wait|down|import NAME DIR ENTRYPOINT" >&2; exit 2 ;;
esac
