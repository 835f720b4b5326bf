#!/usr/bin/env bash
# Stops the local cluster: ends exactly the processes up.sh started (each with
# the children it spawned, e.g. commands kwok runs for exec), newest first.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -d "$PID_DIR" ] || { log "not running"; exit 0; }

# The real node first: its containers, kubelet, CoreDNS and containerd, and
# what they changed on the host.
"$CLUSTER_HACK_DIR/realnode.sh" down

# Reverse start order: the operators go before the API server they talk to.
order=(kserve training-operator vc-webhook-manager vc-controller-manager vc-scheduler kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

# The clients of the API server together, then the API server, then etcd.
stop "${order[@]:0:7}"
stop kube-apiserver
stop etcd
for file in "$PID_DIR"/*.pid; do [ -e "$file" ] && stop "$(basename "$file" .pid)"; done
rmdir "$PID_DIR" 2>/dev/null || true
log "stopped (logs kept in $LOG_DIR)"
