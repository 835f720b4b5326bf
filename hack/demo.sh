#!/usr/bin/env bash
# make demo: brings the local cluster up if needed, submits the TF example
# (1 PS + 2 GPU workers), shows it running with each replica's state, streams
# the workers' logs and shows it Succeeded. The cluster is left running.
#
# The pods run on kwok's fake nodes: what each replica prints is simulated by
# writing lines into the log files kwok serves for them.
#
# When no cluster runs and the cache lacks some of the whole cluster's
# binaries (a first run), it builds only what the demo needs (etcd, kube,
# kwok, the training-operator: no Volcano, Trainer or real node), then easyai,
# starts that cluster, and builds the rest in the background at the lowest
# priority (output in .cache/cluster-build.log), for make cluster-up and make
# test. It ends by saying how long the user waited for the job's logs, and
# for what.
source "$(dirname "${BASH_SOURCE[0]}")/cluster/lib.sh"
cd "$REPO_ROOT"

"$REPO_ROOT/hack/prerequisites.sh" check || exit 1
ns=easyai-demo
job=tf-mnist
say() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }
clock() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }
# and_list WORD...: "a, b and c".
and_list() {
  [ $# -gt 0 ] || return 0
  local out=$1; shift
  while [ $# -gt 1 ]; do out+=", $1"; shift; done
  [ $# = 0 ] || out+=" and $1"
  echo "$out"
}

# The demo's cluster: no Volcano (its TFJob asks for no gang and no queue),
# only the training-operator, no real node.
demo_env=(EASYAI_CLUSTER_VOLCANO=0 EASYAI_CLUSTER_COMPONENTS=training-operator EASYAI_REAL_NODE=0)
waited_start=$SECONDS
building=() later=() partial=0 started=0
if ! cluster_running; then
  started=1
  mapfile -t rest < <("$CLUSTER_HACK_DIR/build.sh" --missing)
  if [ ${#rest[@]} -gt 0 ]; then
    partial=1
    mapfile -t building < <(env "${demo_env[@]}" "$CLUSTER_HACK_DIR/build.sh" --missing)
    for part in "${rest[@]}"; do [[ " ${building[*]} " == *" $part "* ]] || later+=("$part"); done
    # (Nothing else to build: the whole cluster starts.)
    [ ${#later[@]} -gt 0 ] || partial=0
    if [ ${#building[@]} -gt 0 ]; then
      say "building $(and_list "${building[@]}") for the demo$([ $partial = 0 ] || echo " (the rest of the cluster builds behind it)")"
    fi
    env "${demo_env[@]}" "$CLUSTER_HACK_DIR/build.sh"
  fi
fi

say "building easyai"
go build -o "$EASYAI_CACHE_DIR/easyai" ./cmd/easyai
building+=(easyai)
easyai() { "$EASYAI_CACHE_DIR/easyai" -n "$ns" "$@"; }
built_at=$SECONDS

build_log=$EASYAI_CACHE_DIR/cluster-build.log build_pid_file=$EASYAI_CACHE_DIR/cluster-build.pid
if [ $partial = 1 ]; then
  env "${demo_env[@]}" "$CLUSTER_HACK_DIR/up.sh"
  # The rest (Volcano, Trainer, the real node...) for make cluster-up and
  # make test, at the lowest priority, in a session of its own (so that it
  # outlives the demo, and stops with all its go builds), unless an earlier
  # demo's still runs.
  if ! { [ -f "$build_pid_file" ] && pid_alive "$(cat "$build_pid_file")"; }; then
    background_session 19 "$CLUSTER_HACK_DIR/build.sh" >"$build_log" 2>&1 </dev/null
    echo $! >"$build_pid_file"
  fi
  log "building the rest of the cluster in the background ($(and_list "${later[@]}"); output: ${build_log#"$REPO_ROOT"/})"
elif [ $started = 1 ]; then
  "$CLUSTER_HACK_DIR/up.sh"
fi
export KUBECONFIG=$KUBECONFIG_FILE
up_at=$SECONDS

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

say "easyai submit -f examples/tf-mnist/job.yaml"
easyai submit -f examples/tf-mnist/job.yaml -f hack/demo-values.yaml
kubectl -n "$ns" wait --for condition=Running --timeout 60s "tfjob/$job" >/dev/null
print_line ps-0 "parameter server listening on :2222"
train worker-0 & train worker-1 &

say "easyai get $job: running, one line per replica"
easyai get "$job"

say "easyai logs -f $job: every replica, until the job ends"
# (Its lines are written already: they show as it starts.)
logs_at=$SECONDS
easyai logs -f "$job"

say "easyai list, then easyai get $job: finished"
easyai list
echo
easyai get "$job"
echo >&2
echo "The cluster keeps running: eval \"\$(make -s cluster-env)\" to look around, make cluster-down to stop it." >&2
if [ $partial = 1 ]; then
  mapfile -t missing < <(missing_parts | tr ' ' '\n' | sed 's/^volcano$/Volcano/; s/^trainer$/Trainer/; s/^real-node$/the real node/')
  echo "It runs without $(and_list "${missing[@]}"), which build in the background (${build_log#"$REPO_ROOT"/}); make test replaces it with the whole cluster, as make cluster-down then make cluster-up does." >&2
fi
parts=("$(clock $((built_at - waited_start))) building $(and_list "${building[@]}")")
[ $started = 0 ] || parts+=("$(clock $((up_at - built_at))) starting the cluster")
parts+=("$(clock $((logs_at - up_at))) submitting the job until it ran")
echo "Waited $(clock $((logs_at - waited_start))) for the first line of the job's logs: $(and_list "${parts[@]}")." >&2
