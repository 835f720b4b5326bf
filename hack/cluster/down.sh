#!/usr/bin/env bash
# Stops the local cluster: ends exactly the processes up.sh started (each with
# the children it spawned, e.g. commands kwok runs for exec), newest first.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ -d "$PID_DIR" ] || { log "not running"; exit 0; }

# Reverse start order: the operators go before the API server they talk to.
order=(training-operator vc-controller-manager vc-scheduler kwok kube-scheduler kube-controller-manager kube-apiserver etcd)

# ours PID: the process still runs one of the cache's binaries (a PID file can
# outlive its process, and the number be reused by another one).
ours() {
  local exe; exe=$(readlink "/proc/$1/exe" 2>/dev/null) || return 1
  case "$exe" in "$BIN_CACHE"/*) return 0 ;; *) return 1 ;; esac
}

stop() {
  local name=$1 file="$PID_DIR/$1.pid" pid
  [ -f "$file" ] || return 0
  pid=$(cat "$file")
  if pid_alive "$pid" && ours "$pid"; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do pid_alive "$pid" || break; sleep 0.25; done
    if pid_alive "$pid"; then
      log "$name did not stop in 10s; killing it"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  # Children of the session (kwok's exec commands) go too.
  kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$file"
}

for name in "${order[@]}"; do stop "$name"; done
for file in "$PID_DIR"/*.pid; do [ -e "$file" ] && stop "$(basename "$file" .pid)"; done
rmdir "$PID_DIR" 2>/dev/null || true
log "stopped (logs kept in $LOG_DIR)"
