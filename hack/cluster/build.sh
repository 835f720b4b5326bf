#!/usr/bin/env bash
# Builds the local cluster's binaries from Go modules into the cache, once per
# version: etcd, kube-apiserver/-controller-manager/-scheduler and kubectl,
# kwok, the training-operator, Kubeflow Trainer v2 with JobSet (those of
# EASYAI_CLUSTER_COMPONENTS) and Volcano. A warm cache makes this a no-op.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

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

# build NAME BINDIR LDFLAGS PKG...: go build the packages' commands into BINDIR
# unless every one is already there.
build() {
  local name=$1 dir=$2 ldflags=$3; shift 3
  local pkg missing=0
  for pkg in "$@"; do [ -x "$dir/$(command_name "$name" "$pkg")" ] || missing=1; done
  if [ $missing = 0 ]; then log "$name: cached in ${dir#"$REPO_ROOT"/}"; return; fi
  log "$name: building (the first build takes minutes)"
  local start=$SECONDS tmp="$dir.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$TOOLS_DIR/$name" && CGO_ENABLED=0 GOFLAGS="${GOFLAGS:-} ${BUILD_GOFLAGS:-}" go build -trimpath -ldflags "$ldflags" -o "$tmp/" "$@") \
    || { rm -rf "$tmp"; die "$name: build failed"; }
  rm -rf "$dir" && mv "$tmp" "$dir"
  log "$name: built in $((SECONDS - start))s"
  # Builds of other versions of the component are not needed any more.
  local old
  for old in "$BIN_CACHE/$name"-*; do
    [ "$old" = "$dir" ] || [ ! -d "$old" ] || running_from "$old" || rm -rf "$old"
  done
}

kube_version=$(module_version "$TOOLS_DIR/kube" k8s.io/kubernetes)
# Kubernetes binaries built as a module report v0.0.0 unless stamped.
kube_ldflags="-s -w"
for v in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  kube_ldflags+=" -X $v.gitVersion=$kube_version -X $v.gitMajor=1 -X $v.gitMinor=$(cut -d. -f2 <<<"$kube_version")"
  kube_ldflags+=" -X $v.gitTreeState=clean -X $v.buildDate=1970-01-01T00:00:00Z"
done

build etcd "$(etcd_bin_dir)" "-s -w" go.etcd.io/etcd/server/v3
build kube "$(kube_bin_dir)" "$kube_ldflags" \
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
# patched_kwok DIR: a copy of kwok's module source in DIR with the project's
# exit-code fix (tools/kwok/exitcode_patch.go), and a go.mod beside the
# wrapper's that builds kwok from it. Prints the go.mod's path.
patched_kwok() {
  local dir=$1 version src
  version=$(module_version "$TOOLS_DIR/kwok" sigs.k8s.io/kwok)
  src=$(cd "$TOOLS_DIR/kwok" && go mod download -json "sigs.k8s.io/kwok@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  [ -d "$src" ] || die "kwok: no module source for $version"
  rm -rf "$dir" && mkdir -p "$dir"
  cp -R "$src" "$dir/kwok" && chmod -R u+w "$dir/kwok"
  local server=$dir/kwok/pkg/kwok/server
  grep -v '^//go:build easyai_kwok_patch' "$TOOLS_DIR/kwok/exitcode_patch.go" >"$server/zz_easyai_exitcode.go"
  local call='utilsexec\.Exec(ctx, cmd\[0\], cmd\[1:\]\.\.\.)'
  [ "$(cat "$server/debugging_exec.go" "$server/debugging_exec_other.go" | grep -c "$call")" = 2 ] \
    || die "kwok $version: the exec calls to patch are not where they were in v0.8.0"
  sed -i "s/$call/exitCodeError(&)/" "$server/debugging_exec.go" "$server/debugging_exec_other.go"
  cp "$TOOLS_DIR/kwok/go.mod" "$TOOLS_DIR/kwok/go.sum" "$dir/"
  printf '\nreplace sigs.k8s.io/kwok => %s\n' "$dir/kwok" >>"$dir/go.mod"
  echo "$dir/go.mod"
}

kwok_dir=$(kwok_bin_dir)
if [ -x "$kwok_dir/kwok" ]; then
  build kwok "$kwok_dir" "-s -w" sigs.k8s.io/kwok/cmd/kwok
else
  kwok_src=$EASYAI_CACHE_DIR/src/kwok
  kwok_modfile=$(patched_kwok "$kwok_src") || exit 1
  BUILD_GOFLAGS="-modfile=$kwok_modfile" build kwok "$kwok_dir" "-s -w" sigs.k8s.io/kwok/cmd/kwok
  rm -rf "$kwok_src"
fi
if has_component training-operator; then
  build training-operator "$(training_operator_bin_dir)" "-s -w" .
fi
if has_component trainer; then
  build trainer "$(trainer_bin_dir)" "-s -w" sigs.k8s.io/jobset github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager
fi
build volcano "$(volcano_bin_dir)" "-s -w" \
  volcano.sh/volcano/cmd/scheduler volcano.sh/volcano/cmd/controller-manager volcano.sh/volcano/cmd/webhook-manager
