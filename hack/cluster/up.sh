#!/usr/bin/env bash
# Starts the local development cluster: etcd, kube-apiserver, controller-manager,
# scheduler, kwok with fake GPU nodes, Volcano, the training-operator,
# Kubeflow Trainer v2 with JobSet and KServe (EASYAI_CLUSTER_COMPONENTS), and a real
# node that runs containers (realnode.sh; EASYAI_REAL_NODE=0 leaves it out),
# all as processes whose PIDs are recorded for down.sh, and what runs
# (cluster_parts) in $EASYAI_CLUSTER_DIR/parts. Builds whatever binary the
# cache lacks first. Does nothing when the cluster already runs, and refuses
# when it runs without a part asked for (make demo's, without Volcano).
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if cluster_running; then
  missing=$(missing_parts)
  [ -z "$missing" ] || die "the running cluster has no ${missing// /, } (make demo starts one without them): make cluster-down first, then make cluster-up"
  log "already running; KUBECONFIG=$KUBECONFIG_FILE"
  exit 0
fi
if [ -d "$PID_DIR" ]; then
  log "a previous cluster is partly running; stopping it first"
  "$CLUSTER_HACK_DIR/down.sh"
fi

command -v openssl >/dev/null || die "openssl is needed (apt-get install openssl)"
command -v curl >/dev/null || die "curl is needed (apt-get install curl)"

"$CLUSTER_HACK_DIR/build.sh"
start_all=$SECONDS

KUBE_BIN=$(kube_bin_dir)
ETCD_BIN=$(etcd_bin_dir)
KWOK_BIN=$(kwok_bin_dir)
if volcano_on; then VOLCANO_BIN=$(volcano_bin_dir); fi
TRAINING_OPERATOR_BIN=$(training_operator_bin_dir)
if has_component trainer; then TRAINER_BIN=$(trainer_bin_dir); fi
if has_component kserve; then KSERVE_BIN=$(kserve_bin_dir); fi
if has_component kueue; then KUEUE_BIN=$(kueue_bin_dir); fi
KWOK_SRC=$(module_dir "$TOOLS_DIR/kwok" sigs.k8s.io/kwok)
TRAINING_OPERATOR_SRC=$(module_dir "$TOOLS_DIR/training-operator" github.com/kubeflow/training-operator)
if volcano_on; then VOLCANO_SRC=$(module_dir "$TOOLS_DIR/volcano" volcano.sh/volcano); fi
if has_component trainer; then
  TRAINER_SRC=$(module_dir "$TOOLS_DIR/trainer" github.com/kubeflow/trainer/v2)
  JOBSET_SRC=$(module_dir "$TOOLS_DIR/trainer" sigs.k8s.io/jobset)
fi
if has_component kserve; then KSERVE_SRC=$(module_dir "$TOOLS_DIR/kserve" github.com/kserve/kserve); fi
if has_component kueue; then KUEUE_SRC=$(module_dir "$TOOLS_DIR/kueue" sigs.k8s.io/kueue); fi

rm -rf "$EASYAI_CLUSTER_DIR"
mkdir -p "$LOG_DIR" "$PID_DIR" "$KWOK_FILES_DIR"
cluster_parts >"$PARTS_FILE"
"$CLUSTER_HACK_DIR/pki.sh"

# A failed start leaves nothing running behind it.
trap 'status=$?; if [ $status != 0 ]; then log "start failed; logs are in $LOG_DIR"; "$CLUSTER_HACK_DIR/down.sh"; fi' EXIT

http_ok() { curl -fsS --max-time 2 "$1"; }
insecure_ok() { curl -fsSk --max-time 2 "$1"; }
# answers URL: a TLS server answers there, with any HTTP status.
answers() { curl -sk -o /dev/null --max-time 2 "$1"; }

cat >"$KUBECONFIG_FILE" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters:
- name: easyai-dev
  cluster:
    server: https://$HOST:$APISERVER_PORT
    certificate-authority: $PKI_DIR/ca.crt
users:
- name: easyai-dev-admin
  user:
    client-certificate: $PKI_DIR/admin.crt
    client-key: $PKI_DIR/admin.key
contexts:
- name: easyai-dev
  context:
    cluster: easyai-dev
    user: easyai-dev-admin
    namespace: default
current-context: easyai-dev
KUBECONFIG

log "starting etcd"
start etcd "$ETCD_BIN/server" \
  --name easyai-dev --data-dir "$EASYAI_CLUSTER_DIR/etcd" \
  --listen-client-urls "http://$HOST:$ETCD_CLIENT_PORT" --advertise-client-urls "http://$HOST:$ETCD_CLIENT_PORT" \
  --listen-peer-urls "http://$HOST:$ETCD_PEER_PORT" --initial-advertise-peer-urls "http://$HOST:$ETCD_PEER_PORT" \
  --initial-cluster "easyai-dev=http://$HOST:$ETCD_PEER_PORT" \
  --unsafe-no-fsync --log-level warn
wait_for etcd 30 http_ok "http://$HOST:$ETCD_CLIENT_PORT/health"

log "starting kube-apiserver"
start kube-apiserver "$KUBE_BIN/kube-apiserver" \
  --etcd-servers "http://$HOST:$ETCD_CLIENT_PORT" \
  --bind-address "$HOST" --advertise-address "$HOST" --secure-port "$APISERVER_PORT" \
  --endpoint-reconciler-type none \
  --tls-cert-file "$PKI_DIR/apiserver.crt" --tls-private-key-file "$PKI_DIR/apiserver.key" \
  --client-ca-file "$PKI_DIR/ca.crt" \
  --authorization-mode RBAC \
  --service-account-key-file "$PKI_DIR/sa.pub" --service-account-signing-key-file "$PKI_DIR/sa.key" \
  --service-account-issuer https://kubernetes.default.svc \
  --service-cluster-ip-range 10.96.0.0/16 \
  --kubelet-client-certificate "$PKI_DIR/admin.crt" --kubelet-client-key "$PKI_DIR/admin.key" \
  --kubelet-preferred-address-types InternalIP \
  --allow-privileged=true --profiling=false
wait_for kube-apiserver 60 https_ok "https://$HOST:$APISERVER_PORT/readyz"

if real_node; then "$CLUSTER_HACK_DIR/realnode.sh" up; fi

log "installing CRDs (kwok, $(volcano_on && echo "Volcano, ")$EASYAI_CLUSTER_COMPONENTS) and webhook configurations"
# (Server-side: the CRDs are too large for the last-applied annotation.)
apply_files() { local args=() f; for f in "$@"; do args+=(-f "$f"); done; kubectl apply --server-side "${args[@]}" >/dev/null; }
crds=("$KWOK_SRC"/kustomize/crd/bases/kwok.x-k8s.io_*.yaml)
if volcano_on; then
  crds+=("$VOLCANO_SRC"/config/crd/volcano/bases/*.volcano.sh_*.yaml "$VOLCANO_SRC"/config/crd/jobflow/bases/flow.volcano.sh_*.yaml
    # Volcano 1.13's CronJob API, with no controller behind it (build.sh).
    "$(volcanocron_bin_dir)"/batch.volcano.sh_cronjobs.yaml)
fi
if has_component training-operator; then crds+=("$TRAINING_OPERATOR_SRC"/manifests/base/crds/kubeflow.org_*.yaml); fi
if has_component trainer; then
  crds+=("$TRAINER_SRC"/manifests/base/crds/trainer.kubeflow.org_*.yaml "$JOBSET_SRC"/config/components/crd/bases/jobset.x-k8s.io_jobsets.yaml)
fi
# KServe: every CRD of its config/crd (the manager watches InferenceServices,
# TrainedModels and InferenceGraphs, and its webhooks and pod mutator read
# the runtimes, storage containers and local model caches).
if has_component kserve; then crds+=("$KSERVE_SRC"/config/crd/full/serving.kserve.io_*.yaml); fi
if has_component kueue; then crds+=("$KUEUE_SRC"/config/components/crd/bases/kueue.x-k8s.io_*.yaml); fi
apply_files "${crds[@]}"
CA_BUNDLE=$(base64 -w0 <"$PKI_DIR/ca.crt")
export CA_BUNDLE TRAINING_OPERATOR_WEBHOOK_PORT VOLCANO_WEBHOOK_PORT TRAINER_WEBHOOK_PORT JOBSET_WEBHOOK_PORT KSERVE_WEBHOOK_PORT
if [ "$EASYAI_CLUSTER_OPERATORS" != none ]; then
  if has_component training-operator; then
    envsubst <"$MANIFESTS_DIR/training-operator-webhooks.yaml" | kubectl apply -f - >/dev/null
  fi
  if has_component trainer; then
    envsubst <"$MANIFESTS_DIR/trainer-webhooks.yaml" | kubectl apply -f - >/dev/null
  fi
  if has_component kueue; then
    "$CLUSTER_HACK_DIR/kueue-webhooks.sh" "$KUEUE_SRC/config/components/webhook/manifests.yaml" \
      "https://127.0.0.1:$KUEUE_WEBHOOK_PORT" "$CA_BUNDLE" | kubectl apply -f - >/dev/null
  fi
  if has_component kserve; then
    envsubst <"$MANIFESTS_DIR/kserve-webhooks.yaml" | kubectl apply -f - >/dev/null
  fi
  if volcano_on; then envsubst <"$MANIFESTS_DIR/volcano-webhooks.yaml" | kubectl apply -f - >/dev/null; fi
fi
kubectl wait --for condition=Established --timeout 60s crd --all >/dev/null

log "starting kube-controller-manager and kube-scheduler"
start kube-controller-manager "$KUBE_BIN/kube-controller-manager" \
  --kubeconfig "$KUBECONFIG_FILE" --authentication-kubeconfig "$KUBECONFIG_FILE" --authorization-kubeconfig "$KUBECONFIG_FILE" \
  --bind-address "$HOST" --secure-port "$KCM_PORT" --leader-elect=false \
  --service-account-private-key-file "$PKI_DIR/sa.key" --root-ca-file "$PKI_DIR/ca.crt" \
  --use-service-account-credentials=false --profiling=false \
  --cluster-signing-cert-file "$PKI_DIR/ca.crt" --cluster-signing-key-file "$PKI_DIR/ca.key"
start kube-scheduler "$KUBE_BIN/kube-scheduler" \
  --kubeconfig "$KUBECONFIG_FILE" --authentication-kubeconfig "$KUBECONFIG_FILE" --authorization-kubeconfig "$KUBECONFIG_FILE" \
  --bind-address "$HOST" --secure-port "$SCHEDULER_PORT" --leader-elect=false --profiling=false

log "starting kwok with $FAKE_NODES fake nodes of $FAKE_NODE_GPUS GPUs each"
export KWOK_PORT
envsubst <"$MANIFESTS_DIR/kwok.yaml" >"$EASYAI_CLUSTER_DIR/kwok.yaml"
kubectl apply -f "$KWOK_SRC/kustomize/stage/node/fast/node-initialize.yaml" \
  -f "$KWOK_SRC/kustomize/stage/node/heartbeat-with-lease/node-heartbeat-with-lease.yaml" \
  -f "$KWOK_SRC/kustomize/stage/pod/fast/pod-ready.yaml" \
  -f "$KWOK_SRC/kustomize/stage/pod/fast/pod-delete.yaml" \
  -f "$MANIFESTS_DIR/stages.yaml" >/dev/null
start kwok "$KWOK_BIN/kwok" --kubeconfig "$KUBECONFIG_FILE" --config "$EASYAI_CLUSTER_DIR/kwok.yaml"
export NODE_CPU=$FAKE_NODE_CPU NODE_MEMORY=$FAKE_NODE_MEMORY NODE_GPUS=$FAKE_NODE_GPUS
for i in $(seq 0 $((FAKE_NODES - 1))); do
  NODE_NAME=kwok-node-$i envsubst <"$MANIFESTS_DIR/node.yaml"
  echo "---"
done | kubectl apply -f - >/dev/null

if [ "$EASYAI_CLUSTER_OPERATORS" != none ] && volcano_on; then
  log "starting Volcano scheduler and controller-manager"
  start vc-scheduler "$VOLCANO_BIN/scheduler" \
    --kubeconfig "$KUBECONFIG_FILE" --scheduler-conf "$MANIFESTS_DIR/volcano-scheduler.conf" \
    --listen-address "$HOST:$VOLCANO_SCHEDULER_METRICS_PORT" \
    --enable-healthz --healthz-address "$HOST:$VOLCANO_SCHEDULER_HEALTH_PORT" \
    --leader-elect=false --schedule-period 500ms --cache-dumper=false --logtostderr -v 2
  start vc-controller-manager "$VOLCANO_BIN/controller-manager" \
    --kubeconfig "$KUBECONFIG_FILE" --enable-healthz --healthz-address "$HOST:$VOLCANO_CONTROLLER_HEALTH_PORT" \
    --leader-elect=false --logtostderr -v 2
  start vc-webhook-manager "$VOLCANO_BIN/webhook-manager" \
    --kubeconfig "$KUBECONFIG_FILE" --listen-address "$HOST" --port "$VOLCANO_WEBHOOK_PORT" \
    --tls-cert-file "$PKI_DIR/webhook.crt" --tls-private-key-file "$PKI_DIR/webhook.key" --ca-cert-file "$PKI_DIR/ca.crt" \
    --webhook-url "https://$HOST:$VOLCANO_WEBHOOK_PORT" --enabled-admission /jobs/mutate,/jobs/validate \
    --enable-healthz --healthz-address "$HOST:$VOLCANO_WEBHOOK_HEALTH_PORT" --logtostderr -v 2
fi
if [ "$EASYAI_CLUSTER_OPERATORS" != none ]; then
  if has_component training-operator; then
    # (Without Volcano, no gangs: with a gang scheduler named, the operator
    # makes a PodGroup of every job and gives its pods that scheduler.)
    gang=()
    if volcano_on; then gang=(--gang-scheduler-name volcano); fi
    log "starting the training-operator ($(volcano_on && echo "gang scheduling through Volcano" || echo "no gang scheduling: no Volcano"))"
    start training-operator "$TRAINING_OPERATOR_BIN/training-operator" \
      --kubeconfig "$KUBECONFIG_FILE" \
      --health-probe-bind-address "$HOST:$TRAINING_OPERATOR_PROBE_PORT" \
      --webhook-port "$TRAINING_OPERATOR_WEBHOOK_PORT" --webhook-cert-dir "$PKI_DIR/webhook-certs" \
      "${gang[@]}"
  fi
  if has_component trainer; then
    log "starting the JobSet controller and Kubeflow Trainer v2"
    export TRAINER_PROBE_PORT TRAINER_METRICS_PORT TRAINER_STATUS_PORT JOBSET_PROBE_PORT JOBSET_METRICS_PORT PKI_DIR
    envsubst <"$MANIFESTS_DIR/jobset-config.yaml" >"$EASYAI_CLUSTER_DIR/jobset-config.yaml"
    envsubst <"$MANIFESTS_DIR/trainer-config.yaml" >"$EASYAI_CLUSTER_DIR/trainer-config.yaml"
    KUBECONFIG=$KUBECONFIG_FILE start jobset "$TRAINER_BIN/jobset" --config "$EASYAI_CLUSTER_DIR/jobset-config.yaml"
    # The trainer reads its serving certificate from TMPDIR/k8s-webhook-server/serving-certs:
    # a TMPDIR of this cluster's own.
    trainer_tmp=$EASYAI_CLUSTER_DIR/trainer-tmp
    mkdir -p "$trainer_tmp/k8s-webhook-server" && cp -R "$PKI_DIR/webhook-certs" "$trainer_tmp/k8s-webhook-server/serving-certs"
    KUBECONFIG=$KUBECONFIG_FILE TMPDIR=$trainer_tmp start trainer "$TRAINER_BIN/trainer-controller-manager" \
      --config "$EASYAI_CLUSTER_DIR/trainer-config.yaml"
  fi
  if has_component kserve; then
    log "starting the KServe controller manager (RawDeployment mode)"
    # It reads its configuration from the ConfigMap at start and exits without it.
    kubectl apply -f "$MANIFESTS_DIR/kserve-config.yaml" >/dev/null
    # Like the trainer's, its webhook server reads the serving certificate from
    # TMPDIR/k8s-webhook-server/serving-certs (it has no flag for a directory,
    # nor one for the address: it listens on every interface at that port).
    kserve_tmp=$EASYAI_CLUSTER_DIR/kserve-tmp
    mkdir -p "$kserve_tmp/k8s-webhook-server" && cp -R "$PKI_DIR/webhook-certs" "$kserve_tmp/k8s-webhook-server/serving-certs"
    KUBECONFIG=$KUBECONFIG_FILE TMPDIR=$kserve_tmp POD_NAMESPACE=kserve start kserve "$KSERVE_BIN/manager" \
      --metrics-addr "$HOST:$KSERVE_METRICS_PORT" --health-probe-addr "$HOST:$KSERVE_PROBE_PORT" \
      --webhook-port "$KSERVE_WEBHOOK_PORT" --leader-elect=false
  fi
  if has_component kueue; then
    log "starting Kueue's controller manager"
    export KUEUE_PROBE_PORT KUEUE_METRICS_PORT KUEUE_WEBHOOK_PORT PKI_DIR
    envsubst <"$MANIFESTS_DIR/kueue-config.yaml" >"$EASYAI_CLUSTER_DIR/kueue-config.yaml"
    kubectl create namespace kueue-system >/dev/null
    # Its visibility API (pending workloads in order) would need the API
    # server's aggregation layer: off; easyai orders the Workloads itself.
    # (Its metrics certificate: build.sh makes it read this directory.)
    KUBECONFIG=$KUBECONFIG_FILE EASYAI_KUEUE_METRICS_CERTS=$PKI_DIR/webhook-certs start kueue "$KUEUE_BIN/kueue" --config "$EASYAI_CLUSTER_DIR/kueue-config.yaml" \
      --feature-gates VisibilityOnDemand=false
  fi

fi

log "waiting for the components to be ready"
wait_for kube-controller-manager 60 insecure_ok "https://$HOST:$KCM_PORT/healthz"
wait_for kube-scheduler 60 insecure_ok "https://$HOST:$SCHEDULER_PORT/healthz"
if [ "$EASYAI_CLUSTER_OPERATORS" != none ]; then
  if volcano_on; then
    wait_for vc-scheduler 60 http_ok "http://$HOST:$VOLCANO_SCHEDULER_HEALTH_PORT/healthz"
    wait_for vc-controller-manager 60 http_ok "http://$HOST:$VOLCANO_CONTROLLER_HEALTH_PORT/healthz"
    wait_for vc-webhook-manager 60 answers "https://$HOST:$VOLCANO_WEBHOOK_PORT/jobs/validate"
  fi
  if has_component training-operator; then
    wait_for training-operator 60 http_ok "http://$HOST:$TRAINING_OPERATOR_PROBE_PORT/readyz"
  fi
  if has_component trainer; then
    wait_for jobset 60 http_ok "http://$HOST:$JOBSET_PROBE_PORT/readyz"
    wait_for trainer 60 http_ok "http://$HOST:$TRAINER_PROBE_PORT/readyz"
    wait_for "trainer webhook" 60 answers "https://$HOST:$TRAINER_WEBHOOK_PORT/"
    # The default runtimes, as the trainer's manifests install them.
    wait_for "ClusterTrainingRuntimes" 60 kubectl apply -f "$TRAINER_SRC/manifests/base/runtimes/torch_distributed.yaml" \
      -f "$TRAINER_SRC/manifests/base/runtimes/deepspeed_distributed.yaml" -f "$TRAINER_SRC/manifests/base/runtimes/jax_distributed.yaml" \
      -f "$TRAINER_SRC/manifests/base/runtimes/xgboost_distributed.yaml" -f "$TRAINER_SRC/manifests/base/runtimes/mlx_distributed.yaml"
  fi
  if has_component kueue; then
    wait_for kueue 60 http_ok "http://$HOST:$KUEUE_PROBE_PORT/readyz"
    wait_for "kueue webhook" 60 answers "https://$HOST:$KUEUE_WEBHOOK_PORT/"
  fi
  if has_component kserve; then
    wait_for kserve 60 http_ok "http://$HOST:$KSERVE_PROBE_PORT/readyz"
    wait_for "kserve webhook" 60 answers "https://$HOST:$KSERVE_WEBHOOK_PORT/"
  fi
  if volcano_on; then wait_for "volcano default queue" 60 kubectl get queue default; fi
fi
kubectl wait --for condition=Ready --timeout 60s $(for i in $(seq 0 $((FAKE_NODES - 1))); do echo node/kwok-node-$i; done) >/dev/null
if real_node; then "$CLUSTER_HACK_DIR/realnode.sh" wait; fi
wait_for "default service account" 60 kubectl -n default get serviceaccount default

for f in "$PID_DIR"/*.pid; do
  pid_alive "$(cat "$f")" || die "$(basename "$f" .pid) exited; see $LOG_DIR/$(basename "$f" .pid).log"
done
log "ready in $((SECONDS - start_all))s: export KUBECONFIG=$KUBECONFIG_FILE"
