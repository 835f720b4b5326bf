#!/usr/bin/env bash
# Builds the images the real node runs, from Debian's packages, into one
# archive that containerd imports (nothing is ever pulled from a registry):
#   localhost/easyai-e2e/debian:1   a Debian root file system (debootstrap,
#                                   minbase) with Python, PyTorch, git, sshd,
#                                   busybox and Jupyter Server, and torchrun
#                                   and jupyter (images/): the tests'
#                                   training image
#   docker.io/library/alpine:3.10   the same layer and a static nslookup: the
#                                   image of the training-operator's PyTorch
#                                   init container, under the name it uses
#   docker.io/alpine/git:2.47.2     the Debian image again, under the name of
#                                   the image that clones --code git:
#   docker.io/library/busybox:1.36  Debian's static busybox: the image of
#                                   easyai's fetcher and uploader pods
#   localhost/easyai-e2e/pause:1    the pod sandbox's pause process
# The root file system is cached by a hash of its suite and packages, the
# archive by a hash of its whole recipe: a second run, in any checkout, is a
# no-op. Prints nothing
# on stdout; hack/cluster/realnode.sh imports it.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

[ "$(id -u)" = 0 ] || die "building the real node's images needs root (debootstrap); EASYAI_REAL_NODE=0 leaves the node out"
command -v debootstrap >/dev/null || die "debootstrap is needed: apt-get install debootstrap"

nodetools=$(nodetools_bin_dir)
[ -x "$nodetools/imagepack" ] || die "the node tools are not built (hack/cluster/build.sh builds them)"
archive=$(images_archive)
# One build at a time (make demo's in the background, make test's): the
# second waits, then finds the archive.
mkdir -p "$IMAGE_CACHE"
if command -v flock >/dev/null; then
  exec {lock}>>"$IMAGE_CACHE/.lock"
  flock -n "$lock" || { log "images: another build of them runs; waiting for it"; flock "$lock"; }
fi
if [ -f "$archive" ]; then
  log "images: cached in $archive"
  touch "$archive"
  exit 0
fi

rootfs=$(rootfs_tar)
start=$SECONDS
work=$(mktemp -d "$IMAGE_CACHE/.build-XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -f "$rootfs" ]; then
  log "images: the root file system is cached in $rootfs"
  touch "$rootfs"
else
  # debootstrap fetches from the Debian mirror this machine's apt uses.
  mirror=$(apt_mirror) || die "no Debian mirror for $IMAGE_SUITE in /etc/apt/sources.list(.d): debootstrap needs one"
  root=$work/rootfs
  log "images: debootstrap of $IMAGE_SUITE with ${IMAGE_PACKAGES[*]} (about 3 min)"
  if ! debootstrap --variant=minbase --components=main --include="$(IFS=,; echo "${IMAGE_PACKAGES[*]}")" \
    "$IMAGE_SUITE" "$root" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    [ ! -f "$root/debootstrap/debootstrap.log" ] || tail -n 30 "$root/debootstrap/debootstrap.log" >&2
    die "images: debootstrap failed"
  fi
  log "images: debootstrap took $((SECONDS - start))s"
  # What only the build needed: package downloads and lists.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/debootstrap
  tar --numeric-owner --xattrs --xattrs-include='*' -C "$root" -cf "$work/rootfs.tar" .
  rm -rf "$root"
  mv "$work/rootfs.tar" "$rootfs"
fi

# The layers above it: the project's own files for the image
# (hack/cluster/images/: torchrun, jupyter), and the static nslookup.
mkdir -p "$work/tools/usr/local/bin" "$work/nslookup/usr/local/bin" "$work/pause" "$work/busybox/bin" "$work/delivery/bin"
# busybox, as its image has it: the static binary of Debian's busybox-static
# and a link for each applet (easyai's fetcher and uploader run in it).
tar -xOf "$rootfs" ./usr/bin/busybox >"$work/busybox/bin/busybox"
chmod 755 "$work/busybox/bin/busybox"
for applet in $("$work/busybox/bin/busybox" --list); do
  [ "$applet" = busybox ] || ln -s busybox "$work/busybox/bin/$applet"
done
cp "$CLUSTER_HACK_DIR/images/torchrun" "$CLUSTER_HACK_DIR/images/jupyter" "$work/tools/usr/local/bin/"
cp "$nodetools/nslookup" "$work/nslookup/usr/local/bin/nslookup"
cp "$nodetools/pause" "$work/pause/pause"
kubectl=$(kube_bin_dir)/kubectl
[ -x "$kubectl" ] || die "images: no kubectl in $(kube_bin_dir) (hack/cluster/build.sh builds it)"
cp "$kubectl" "$work/delivery/bin/kubectl"
cp "$CLUSTER_HACK_DIR/images/kubectl-delivery" "$work/delivery/deliver"
"$nodetools/imagepack" -out "$work/images.tar" \
  -image "$IMAGE_DEBIAN=$rootfs+$work/tools" \
  -image "$IMAGE_GIT=$rootfs+$work/tools" \
  -image "$IMAGE_PYTORCH_INIT=$rootfs+$work/nslookup" \
  -image "$IMAGE_BUSYBOX=$work/busybox" \
  -image "$IMAGE_KUBECTL_DELIVERY=$work/busybox+$work/delivery" -entrypoint "$IMAGE_KUBECTL_DELIVERY=/deliver" \
  -image "$IMAGE_PAUSE=$work/pause" -entrypoint "$IMAGE_PAUSE=/pause"
mv "$work/images.tar" "$archive"
# Those of other recipes go once unused for a week (another checkout, at
# another commit, may use one: each use touches it).
find "$IMAGE_CACHE" -maxdepth 1 \( -name 'e2e-images-*.tar' -o -name 'rootfs-*.tar' \) \
  ! -path "$archive" ! -path "$rootfs" -mtime +7 -delete
log "images: built in $((SECONDS - start))s ($(du -h "$archive" | cut -f1))"
