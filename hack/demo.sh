#!/usr/bin/env bash
# make demo: brings the local cluster up if needed, submits the TF example
# (1 PS + 2 GPU workers), shows it running with each replica's state, streams
# the workers' logs and shows it Succeeded. The cluster is left running.
#
# The pods run on kwok's fake nodes: what each replica prints is simulated by
# writing lines into the log files kwok serves for them.
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
cd "$REPO_ROOT"

"$REPO_ROOT/hack/prerequisites.sh" check || exit 1
"$CLUSTER_HACK_DIR/up.sh"
export KUBECONFIG=$KUBECONFIG_FILE
ns=easyai-demo
job=tf-mnist
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }

kubectl delete namespace "$ns" --ignore-not-found --wait >/dev/null
kubectl create namespace "$ns" >/dev/null
until kubectl -n "$ns" get serviceaccount default >/dev/null 2>&1; do sleep 0.2; done

# Each replica's log is a file kwok serves (CRI format), fed while it "trains".
logs_dir=$KWOK_FILES_DIR/demo
mkdir -p "$logs_dir"
for replica in ps-0 worker-0 worker-1; do
  : >"$logs_dir/$replica.log"
  kubectl apply -f - >/dev/null <<LOGS
apiVersion: kwok.x-k8s.io/v1alpha1
kind: Logs
metadata: {name: $job-$replica, namespace: $ns}
spec:
  logs:
  - logsFile: $logs_dir/$replica.log
    follow: true
LOGS
done
print_line() { printf '%s stdout F %s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)" "$2" >>"$logs_dir/$1.log"; }
train() {
  local replica=$1 step
  print_line "$replica" "TF_CONFIG task: $replica; connecting to ps-0"
  for step in 100 200 300 400 500 600 700 800 900 1000; do
    sleep 1.2
    print_line "$replica" "step $step: loss $(awk -v s="$step" 'BEGIN{printf "%.4f", 2.3/(1+s/150)}')"
  done
  print_line "$replica" "training done, model saved"
}

say "building easyai"
go build -o "$EASYAI_CACHE_DIR/easyai" ./cmd/easyai
easyai() { "$EASYAI_CACHE_DIR/easyai" -n "$ns" "$@"; }

say "easyai submit -f examples/tf-mnist/job.yaml"
easyai submit -f examples/tf-mnist/job.yaml -f hack/demo-values.yaml
kubectl -n "$ns" wait --for condition=Running --timeout 60s "tfjob/$job" >/dev/null
print_line ps-0 "parameter server listening on :2222"
train worker-0 & train worker-1 &

say "easyai get $job: running, one line per replica"
easyai get "$job"

say "easyai logs -f $job: every replica, until the job ends"
easyai logs -f "$job"

say "easyai list, then easyai get $job: finished"
easyai list
echo
easyai get "$job"
echo >&2
echo "The cluster keeps running: eval \"\$(make -s cluster-env)\" to look around, make cluster-down to stop it." >&2
