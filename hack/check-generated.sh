#!/usr/bin/env bash
# Fails when a generated or formatted file is stale: docs/cli, docs/man and
# completions/ (regenerated from the command tree), the man pages the Homebrew
# cask installs (.goreleaser.yaml), gofmt, go.mod/go.sum (go mod tidy); or
# when LICENSE is not the Apache License 2.0 text, or pairs of the local
# cluster's tool modules that share a build cache require different versions.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

go run ./hack/gendocs docs "$tmp/docs"
go run ./hack/gendocs man "$tmp/man"
go run ./hack/gendocs completions "$tmp/completions"
diff -r "$tmp/docs" docs/cli >/dev/null || { echo "docs/cli is stale: run make docs" >&2; status=1; }
diff -r "$tmp/man" docs/man >/dev/null || { echo "docs/man is stale: run make man" >&2; status=1; }
diff -r "$tmp/completions" completions >/dev/null || { echo "completions/ is stale: run make completions" >&2; status=1; }

# The cask names each man page it installs (Homebrew takes no pattern).
listed=$(sed -n 's|^ *- docs/man/\(.*\.1\)$|\1|p' .goreleaser.yaml | sort)
generated=$(cd "$tmp/man" && ls -- *.1 | sort)
[ "$listed" = "$generated" ] || {
  echo ".goreleaser.yaml: homebrew_casks.manpages must list every page of docs/man:" >&2
  diff <(echo "$listed") <(echo "$generated") >&2
  status=1
}

# The release configuration's check reads it with the pinned GoReleaser's types.
pinned=$(sed -n 's/^GORELEASER_VERSION := //p' Makefile)
grep -q "^require github.com/goreleaser/goreleaser/v2 $pinned\$" hack/tools/releaseconfig/go.mod || {
  echo "hack/tools/releaseconfig/go.mod must require github.com/goreleaser/goreleaser/v2 $pinned (GORELEASER_VERSION)" >&2
  status=1
}

# The Apache License 2.0, as published (https://www.apache.org/licenses/LICENSE-2.0.txt).
apache2=cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30
[ "$(sha256sum <LICENSE 2>/dev/null | cut -d' ' -f1)" = "$apache2" ] ||
  { echo "LICENSE is missing or not the Apache License 2.0 text" >&2; status=1; }

# The local cluster's tool modules that build many of the same packages
# (etcd and kube: grpc, otel, etcd's client; kwok and Trainer: client-go,
# apiserver, grpc... at k8s 0.36; CoreDNS and Kueue at k8s 0.35) require the
# same version of every module both name: the build cache then compiles
# those packages once for both (hack/cluster/build.sh).
requires() { awk '/^require \(/ { r = 1; next } r && /^\)/ { r = 0 } r { print $1, $2 } /^require [^(]/ { print $2, $3 }' "hack/cluster/tools/$1/go.mod" | sort; }
for pair in etcd:kube kwok:trainer coredns:kueue; do
  a=${pair%:*} b=${pair#*:}
  differ=$(join <(requires "$a") <(requires "$b") | awk '$2 != $3 { print "  " $1 ": " $2 " in " a ", " $3 " in " b }' a="$a" b="$b")
  [ -z "$differ" ] || {
    echo "hack/cluster/tools/$a and $b must require the same versions (the build cache shares their packages then); they differ in:" >&2
    echo "$differ" >&2
    status=1
  }
done

unformatted=$(gofmt -l $(git ls-files '*.go'))
[ -z "$unformatted" ] || { echo "gofmt would change: $unformatted" >&2; status=1; }

cp go.mod "$tmp/go.mod"; cp go.sum "$tmp/go.sum"
go mod tidy
if ! diff -q go.mod "$tmp/go.mod" >/dev/null || ! diff -q go.sum "$tmp/go.sum" >/dev/null; then
  echo "go.mod/go.sum are not tidy: run go mod tidy" >&2
  cp "$tmp/go.mod" go.mod; cp "$tmp/go.sum" go.sum
  status=1
fi
exit $status
