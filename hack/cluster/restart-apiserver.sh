#!/usr/bin/env bash
# Restarts the kube-apiserver of the running local cluster with the flags it
# was started with, and waits until it is ready again; SECONDS_DOWN (default
# 0) keeps it stopped that long first. Clients' watches then end with 410 Gone,
# as after a control-plane upgrade. For the end-to-end tests that restart it
# (test/e2e/disruptive); $EASYAI_CLUSTER_DIR names the cluster.
#   EASYAI_CLUSTER_DIR=/path/to/cluster hack/cluster/restart-apiserver.sh [SECONDS_DOWN]
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

down_for=${1:-0}
[[ $down_for =~ ^[0-9]+$ ]] || die "usage: $0 [SECONDS_DOWN]"
cluster_running || die "the cluster in $EASYAI_CLUSTER_DIR is not running"
pid=$(cat "$PID_DIR/kube-apiserver.pid")
ours "$pid" || die "process $pid is not the cluster's kube-apiserver"

# The same command line: read back from the running process.
mapfile -d '' -t args <"/proc/$pid/cmdline"
port='' address=''
for i in "${!args[@]}"; do
  case "${args[$i]}" in
    --secure-port) port=${args[$((i + 1))]} ;;
    --secure-port=*) port=${args[$i]#*=} ;;
    --bind-address) address=${args[$((i + 1))]} ;;
    --bind-address=*) address=${args[$i]#*=} ;;
  esac
done
[ -n "$port" ] && [ -n "$address" ] || die "no --secure-port or --bind-address in kube-apiserver's command line"

log "stopping kube-apiserver (pid $pid)"
stop kube-apiserver
if [ "$down_for" -gt 0 ]; then sleep "$down_for"; fi
log "starting kube-apiserver again"
echo "----- restarted $(date -u +%FT%TZ)" >>"$LOG_DIR/kube-apiserver.log"
start kube-apiserver "${args[@]}"
wait_for kube-apiserver 60 https_ok "https://$address:$port/readyz"
log "kube-apiserver ready again (pid $(cat "$PID_DIR/kube-apiserver.pid"))"
