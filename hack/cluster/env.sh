#!/usr/bin/env bash
# Prints the shell line that points kubectl and easyai at the local cluster:
#   eval "$(make -s cluster-env)"
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cluster_running || log "warning: the local cluster is not running (make cluster-up)"
printf 'export KUBECONFIG=%q\n' "$KUBECONFIG_FILE"
