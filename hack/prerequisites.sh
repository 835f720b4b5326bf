#!/usr/bin/env bash
# What make test, make demo and CI need on the machine besides Go: one list,
# a command (or file) and the Debian package that gives it. The README's
# install line names exactly these packages (hack/prerequisites_test.go
# checks it).
#   hack/prerequisites.sh check     print, in one line, what is missing and
#                                   the command that installs it; exit 1
#   hack/prerequisites.sh install   install what is missing (CI)
# The real node's part (containerd and the rest) is needed only unless
# EASYAI_REAL_NODE=0.
set -euo pipefail

PREREQUISITES=(
  openssl:openssl
  curl:curl
  envsubst:gettext-base
  make:make
  git:git
  ssh:openssh-client
  scp:openssh-client
  sshd:openssh-server
  busybox:busybox
)
REAL_NODE_PREREQUISITES=(
  containerd:containerd
  runc:runc
  /usr/lib/cni/bridge:containernetworking-plugins
  debootstrap:debootstrap
  ip:iproute2
)
GO_VERSION=1.26

# missing_packages: the packages of the commands this machine lacks, once each.
missing_packages() {
  local entry cmd pkg list=("${PREREQUISITES[@]}") seen=" "
  [ "${EASYAI_REAL_NODE:-1}" = 0 ] || list+=("${REAL_NODE_PREREQUISITES[@]}")
  for entry in "${list[@]}"; do
    cmd=${entry%%:*} pkg=${entry#*:}
    case "$cmd" in
      /*) [ -e "$cmd" ] && continue ;;
      *) PATH=$PATH:/usr/sbin:/sbin command -v "$cmd" >/dev/null && continue ;;
    esac
    [[ "$seen" == *" $pkg "* ]] || { echo "$pkg"; seen+="$pkg "; }
  done
}

# go_problem: what is wrong with the Go toolchain, if anything.
go_problem() {
  command -v go >/dev/null || { echo "Go $GO_VERSION or newer is not installed (https://go.dev/doc/install)"; return; }
  local v; v=$(go env GOVERSION 2>/dev/null | sed 's/^go//')
  [ "$(printf '%s\n' "$GO_VERSION" "$v" | sort -V | head -n1)" = "$GO_VERSION" ] ||
    echo "Go $v is older than $GO_VERSION (https://go.dev/doc/install)"
}

case "${1:-check}" in
  check)
    mapfile -t missing < <(missing_packages)
    problem=$(go_problem)
    if [ ${#missing[@]} -gt 0 ]; then
      sudo=; [ "$(id -u)" = 0 ] || sudo="sudo "
      echo "missing: ${missing[*]}; install with: ${sudo}apt-get install -y ${missing[*]}$([ "${EASYAI_REAL_NODE:-1}" = 0 ] || echo " (or EASYAI_REAL_NODE=0 to leave the real node out)")${problem:+; and $problem}" >&2
      exit 1
    fi
    [ -z "$problem" ] || { echo "$problem" >&2; exit 1; }
    ;;
  install)
    mapfile -t missing < <(missing_packages)
    if [ ${#missing[@]} -gt 0 ]; then
      echo "=== installing ${missing[*]}" >&2
      export DEBIAN_FRONTEND=noninteractive
      apt-get update -qq
      apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    fi
    problem=$(go_problem)
    [ -z "$problem" ] || { echo "$problem" >&2; exit 1; }
    ;;
  packages)
    # Every package of the list, in order, once: the README's install line.
    for entry in "${PREREQUISITES[@]}" "${REAL_NODE_PREREQUISITES[@]}"; do echo "${entry#*:}"; done | awk '!seen[$0]++' | paste -sd' '
    ;;
  *) echo "usage: $0 check|install|packages" >&2; exit 2 ;;
esac
