#!/usr/bin/env bash
# make demo-real: brings the local cluster up if needed and runs the PyTorch
# DDP example (examples/pytorch-ddp) on its real node: real containers, the
# training-operator's PyTorchJob, two ranks training over gloo. Streams both
# ranks' loss, downloads the model rank 0 saved, and shows the job Succeeded.
# The cluster is left running.
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
cd "$REPO_ROOT"

real_node || die "make demo-real runs on the real node, which EASYAI_REAL_NODE=0 leaves out"
"$REPO_ROOT/hack/prerequisites.sh" check || exit 1
"$CLUSTER_HACK_DIR/up.sh"
export KUBECONFIG=$KUBECONFIG_FILE
kubectl get node "$REAL_NODE_NAME" >/dev/null 2>&1 ||
  die "the running cluster has no real node (started with EASYAI_REAL_NODE=0?): make cluster-down, then again"
ns=easyai-demo-real
job=ddp
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

kubectl delete namespace "$ns" --ignore-not-found --wait >/dev/null
kubectl create namespace "$ns" >/dev/null
until kubectl -n "$ns" get serviceaccount default >/dev/null 2>&1; do sleep 0.2; done

say "building easyai"
go build -o "$EASYAI_CACHE_DIR/easyai" ./cmd/easyai
easyai() { "$EASYAI_CACHE_DIR/easyai" -n "$ns" "$@"; }

say "easyai submit pytorch --workers 2 ... -- python3 -c \"\$(cat examples/pytorch-ddp/train.py)\""
easyai submit pytorch --name "$job" --workers 2 --env HOLD_SECONDS=120 \
  --node-selector easyai.io/real-node=true --toleration easyai.io/real-node=true:NoSchedule \
  --image "$IMAGE_DEBIAN" -- python3 -c "$(cat examples/pytorch-ddp/train.py)"

say "easyai logs -f $job: both ranks as they train (stops when rank 0 has saved the model)"
exec 3< <(easyai logs -f "$job")
follower=$!
while IFS= read -r line <&3; do
  printf '%s\n' "$line"
  case "$line" in "[master-0] training "*) break ;; esac
done
kill "$follower" 2>/dev/null || true
exec 3<&-

say "easyai download $job /tmp/out"
out=$EASYAI_CACHE_DIR/demo-real
rm -rf "$out"
easyai download "$job" /tmp/out "$out"
ls -l "$out/out"

say "easyai exec $job --all -- touch /tmp/release; easyai wait $job"
easyai exec "$job" --all -- touch /tmp/release
easyai wait "$job"
easyai get "$job"
echo >&2
echo "The cluster keeps running: eval \"\$(make -s cluster-env)\" to look around, make cluster-down to stop it." >&2
