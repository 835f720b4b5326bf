#!/usr/bin/env bash
# Stops the local cluster: ends exactly the processes up.sh started (each with
# the children it spawned, e.g. commands kwok runs for exec), newest first.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -d "$PID_DIR" ] || { log "not running"; exit 0; }

# Reverse start order: the operators go before the API server they talk to.
order=(training-operator vc-webhook-manager vc-controller-manager vc-scheduler kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

# ours PID: the process still runs one of the cache's binaries (a PID file can
# outlive its process, and the number be reused by another one).
ours() {
  local exe; exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  case "$exe" in "$BIN_CACHE"/*) return 0 ;; *) return 1 ;; esac
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

# The clients of the API server together, then the API server, then etcd.
stop "${order[@]:0:6}"
stop kube-apiserver
stop etcd
for file in "$PID_DIR"/*.pid; do [ -e "$file" ] && stop "$(basename "$file" .pid)"; done
rmdir "$PID_DIR" 2>/dev/null || true
log "stopped (logs kept in $LOG_DIR)"
