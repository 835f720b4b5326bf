{{- /*
easyai-lib.trainJob: one TrainJob of Kubeflow Trainer v2
(trainer.kubeflow.org/v1alpha1) on a training runtime, from the common values.
The charts trainjob, deepspeed and mlx use it with their own values (runtime,
roles.node, nprocPerNode, initializer, suspend, podPatchJobs); the charts
pytorchjob-trainer, jaxjob-trainer and xgboostjob-trainer with the values of
the training-operator kind they stand in for, their nodes being the sum of the
roles' replicas.

What a TrainJob can say goes where the 2.3 API puts it:
  image, command, env, resources, nodes, nprocPerNode -> spec.trainer
  runPolicy.activeDeadlineSeconds -> spec.activeDeadlineSeconds (in debug
    mode at most devtools.debug.timeoutSeconds)
  suspend -> spec.suspend
  initializer.dataset|model -> spec.initializer (a Secret by name only)
  labels, podAnnotations, runPolicy.queue, imagePullSecrets, nodeSelector,
  tolerations, data, shmSize -> one runtimePatches entry (manager
  easyai.io/submit) on the replicated jobs podPatchJobs names
What it cannot say (the runtime's template decides it) fails rendering with
the value's path: workingDir, imagePullPolicy, priorityClassName, a role's
own container values, restartPolicy other than Never, and runPolicy's
backoffLimit, ttlSecondsAfterFinished, cleanPodPolicy and minAvailable.
runPolicy.gang renders nothing: the runtime's podGroupPolicy gang-schedules,
and submit checks that it has one.

Args: ctx (the chart's root context), kind (as for easyai-lib.validate:
kind "TrainJob", container "node", roles, values), runtime (dict name, kind),
nodes (numNodes), nproc ("" for the runtime's),
patchJobs (list), initializer (map or nil), suspend (bool or nil).
*/ -}}
{{- define "easyai-lib.trainJob" -}}
{{- $v := .ctx.Values -}}
{{- include "easyai-lib.validate" (dict "ctx" .ctx "kind" .kind) -}}
{{- $why := "a TrainJob cannot set it: its runtime's template decides" -}}
{{- range $k := list "workingDir" "imagePullPolicy" "priorityClassName" -}}
{{- if include "easyai-lib.string" (dict "path" $k "value" (index $v $k)) -}}
{{- fail (printf "%s: %s" $k $why) -}}
{{- end -}}
{{- end -}}
{{- $rp := $v.runPolicy | default dict -}}
{{- range $k := list "backoffLimit" "ttlSecondsAfterFinished" "minAvailable" -}}
{{- if not (kindIs "invalid" (index $rp $k)) -}}
{{- fail (printf "runPolicy.%s: %s" $k $why) -}}
{{- end -}}
{{- end -}}
{{- if $rp.cleanPodPolicy -}}
{{- fail (printf "runPolicy.cleanPodPolicy: %s" $why) -}}
{{- end -}}
{{- with include "easyai-lib.string" (dict "path" "restartPolicy" "value" $v.restartPolicy) -}}
{{- if ne . "Never" -}}
{{- fail (printf "restartPolicy: %s (its Jobs' backoffLimit restarts the pods)" $why) -}}
{{- end -}}
{{- end -}}
{{- range $role, $r := $v.roles -}}
{{- range $k := list "image" "command" "workingDir" "env" "resources" "restartPolicy" -}}
{{- if hasKey ($r | default dict) $k -}}
{{- fail (printf "roles.%s.%s: every node of a TrainJob runs the same container: set %s for all" $role $k $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- $image := include "easyai-lib.string" (dict "path" "image" "value" $v.image) -}}
{{- if not $image -}}
{{- fail "image: required: the image every node runs" -}}
{{- end -}}

{{- $trainer := dict "image" $image -}}
{{- with $v.command -}}
{{- $cmd := list -}}
{{- range . -}}
{{- $cmd = append $cmd (toString .) -}}
{{- end -}}
{{- $_ := set $trainer "command" $cmd -}}
{{- end -}}
{{- $env := list -}}
{{- range $e := $v.env -}}
{{- $item := dict "name" (toString $e.name) -}}
{{- if $e.valueFrom -}}
{{- $_ := set $item "valueFrom" $e.valueFrom -}}
{{- else if not (kindIs "invalid" $e.value) -}}
{{- $_ := set $item "value" (toString $e.value) -}}
{{- end -}}
{{- $env = append $env $item -}}
{{- end -}}
{{- with $v.code -}}
{{- if or (.git | default dict).url .dir -}}
{{- fail "code: a TrainJob's runtime decides its pods' working directory and init containers: put the code in the image, or on --storage (share_dir) and cd there" -}}
{{- end -}}
{{- end -}}
{{- $st := include "easyai-lib.storage" (dict "ctx" .ctx "kind" (dict "taskIndex" "metadata.annotations['batch.kubernetes.io/job-completion-index']") "role" "node" "replicas" (.nodes | default 1)) | fromYaml -}}
{{- $env = concat ($st.env | default list) $env -}}
{{- with $env -}}
{{- $_ := set $trainer "env" . -}}
{{- end -}}
{{- if and $st.persistLogs $trainer.command -}}
{{- $_ := set $trainer "command" (concat (list "/bin/sh" "-c" (include "easyai-lib.teeScript" .) "easyai-tee") $trainer.command) -}}
{{- end -}}
{{- $deadline := $rp.activeDeadlineSeconds -}}
{{- with include "easyai-lib.debugPod" (dict "ctx" .ctx "kind" dict "role" "node" "command" $trainer.command) | fromYaml -}}
{{- /* A debugged TrainJob's deadline is the job's: its pods' is the runtime's. */ -}}
{{- $debugDeadline := int64 .podSpec.activeDeadlineSeconds -}}
{{- if or (kindIs "invalid" $deadline) (lt $debugDeadline (int64 $deadline)) -}}
{{- $deadline = $debugDeadline -}}
{{- end -}}
{{- $debugEnv := .env -}}
{{- if not $st.env -}}
{{- $debugEnv = concat (include "easyai-lib.taskEnv" (dict "kind" (dict "taskIndex" "metadata.annotations['batch.kubernetes.io/job-completion-index']") "role" "node" "replicas" 2) | fromYamlArray) $debugEnv -}}
{{- end -}}
{{- $_ := set $trainer "env" (concat $debugEnv ($trainer.env | default list)) -}}
{{- $_ = set $trainer "command" .command -}}
{{- end -}}
{{- with .nodes -}}
{{- $_ := set $trainer "numNodes" (int64 .) -}}
{{- end -}}
{{- with .nproc -}}
{{- if not (regexMatch "^[1-9][0-9]*$" (toString .)) -}}
{{- fail (printf "nprocPerNode: a TrainJob takes a number of processes per node, got %q" (toString .)) -}}
{{- end -}}
{{- $_ := set $trainer "numProcPerNode" (int64 .) -}}
{{- end -}}
{{- $res := $v.resources | default dict -}}
{{- $requests := dict -}}
{{- $limits := dict -}}
{{- range $k := list "cpu" "memory" -}}
{{- $q := include "easyai-lib.string" (dict "path" (print "resources." $k) "value" (index $res $k)) -}}
{{- if $q -}}
{{- $_ := set $requests $k $q -}}
{{- $_ = set $limits $k $q -}}
{{- end -}}
{{- end -}}
{{- $gpus := int64 ($res.gpus | default 0) -}}
{{- if gt $gpus 0 -}}
{{- $gpuResource := include "easyai-lib.string" (dict "path" "gpuResource" "value" $v.gpuResource) | default "nvidia.com/gpu" -}}
{{- $_ := set $limits $gpuResource $gpus -}}
{{- end -}}
{{- if $limits -}}
{{- $rpn := dict "limits" $limits -}}
{{- with $requests -}}
{{- $_ := set $rpn "requests" . -}}
{{- end -}}
{{- $_ := set $trainer "resourcesPerNode" $rpn -}}
{{- end -}}

{{- $init := dict -}}
{{- range $k, $src := .initializer | default dict -}}
{{- if $src -}}
{{- $out := dict -}}
{{- with include "easyai-lib.string" (dict "path" (printf "initializer.%s.storageUri" $k) "value" $src.storageUri) -}}
{{- $_ := set $out "storageUri" . -}}
{{- end -}}
{{- with include "easyai-lib.string" (dict "path" (printf "initializer.%s.secret" $k) "value" $src.secret) -}}
{{- $_ := set $out "secretRef" (dict "name" .) -}}
{{- end -}}
{{- if $out -}}
{{- if not $out.storageUri -}}
{{- fail (printf "initializer.%s.storageUri: required with initializer.%s.secret (hf://... or s3://...)" $k $k) -}}
{{- end -}}
{{- $_ := set $init $k $out -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* What the pods of the patched jobs get, beyond spec.trainer. */ -}}
{{- $volumes := list -}}
{{- $mounts := list -}}
{{- with include "easyai-lib.string" (dict "path" "shmSize" "value" $v.shmSize) -}}
{{- $volumes = append $volumes (dict "name" "dshm" "emptyDir" (dict "medium" "Memory" "sizeLimit" .)) -}}
{{- $mounts = append $mounts (dict "name" "dshm" "mountPath" "/dev/shm") -}}
{{- end -}}
{{- range $i, $d := $v.data -}}
{{- $name := printf "data-%d" $i -}}
{{- $claim := dict "claimName" (toString $d.claim) -}}
{{- $mount := dict "name" $name "mountPath" (toString $d.mountPath) -}}
{{- if $d.readOnly -}}
{{- $_ := set $claim "readOnly" true -}}
{{- $_ = set $mount "readOnly" true -}}
{{- end -}}
{{- with $d.subPath -}}
{{- $_ := set $mount "subPath" (toString .) -}}
{{- end -}}
{{- $volumes = append $volumes (dict "name" $name "persistentVolumeClaim" $claim) -}}
{{- $mounts = append $mounts $mount -}}
{{- end -}}
{{- range $st.volumes -}}
{{- $volumes = append $volumes (merge (dict "name" .name) .source) -}}
{{- end -}}
{{- $mounts = concat $mounts ($st.mounts | default list) -}}
{{- $podSpec := dict -}}
{{- with $mounts -}}
{{- $_ := set $podSpec "containers" (list (dict "name" "node" "volumeMounts" .)) -}}
{{- $_ = set $podSpec "volumes" $volumes -}}
{{- end -}}
{{- with $v.imagePullSecrets -}}
{{- $secrets := list -}}
{{- range . -}}
{{- $secrets = append $secrets (dict "name" (toString .)) -}}
{{- end -}}
{{- $_ := set $podSpec "imagePullSecrets" $secrets -}}
{{- end -}}
{{- with $v.nodeSelector -}}
{{- $_ := set $podSpec "nodeSelector" (include "easyai-lib.stringMap" . | fromYaml) -}}
{{- end -}}
{{- with $v.tolerations -}}
{{- $_ := set $podSpec "tolerations" . -}}
{{- end -}}
{{- $podMeta := dict -}}
{{- with $v.labels -}}
{{- $_ := set $podMeta "labels" (include "easyai-lib.stringMap" . | fromYaml) -}}
{{- end -}}
{{- with $v.podAnnotations -}}
{{- $_ := set $podMeta "annotations" (include "easyai-lib.stringMap" . | fromYaml) -}}
{{- end -}}
{{- $pod := dict -}}
{{- with $podMeta -}}
{{- $_ := set $pod "metadata" . -}}
{{- end -}}
{{- with $podSpec -}}
{{- $_ := set $pod "spec" . -}}
{{- end -}}
{{- $jobs := list -}}
{{- if $pod -}}
{{- range .patchJobs -}}
{{- $jobs = append $jobs (dict "name" (toString .) "template" (dict "spec" (dict "template" $pod))) -}}
{{- end -}}
{{- end -}}
{{- $template := dict -}}
{{- with include "easyai-lib.string" (dict "path" "runPolicy.queue" "value" $rp.queue) -}}
{{- $_ := set $template "metadata" (dict "annotations" (dict "scheduling.volcano.sh/queue-name" .)) -}}
{{- end -}}
{{- with $jobs -}}
{{- $_ := set $template "spec" (dict "replicatedJobs" .) -}}
{{- end -}}

{{- $runtime := .runtime -}}
{{- if not $runtime.name -}}
{{- fail "runtime.name: required: the training runtime the job runs on (easyai runtimes lists them)" -}}
{{- end -}}
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata:
  {{- include "easyai-lib.metadata" .ctx | nindent 2 }}
spec:
  runtimeRef:
    apiGroup: trainer.kubeflow.org
    kind: {{ $runtime.kind | default "ClusterTrainingRuntime" }}
    name: {{ toJson $runtime.name }}
  {{- if .suspend }}
  suspend: true
  {{- end }}
  {{- if not (kindIs "invalid" $deadline) }}
  activeDeadlineSeconds: {{ int64 $deadline }}
  {{- end }}
  {{- with $init }}
  initializer:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  trainer:
    {{- toYaml $trainer | nindent 4 }}
  {{- with $template }}
  runtimePatches:
    - manager: easyai.io/submit
      trainingRuntimeSpec:
        template:
          {{- toYaml . | nindent 10 }}
  {{- end }}
{{- end -}}

{{- /*
easyai-lib.trainJobOnRuntime: the checks and arguments of the charts trainjob,
deepspeed and mlx, whose values name the runtime and the nodes themselves.
Args: the chart's root context.
*/ -}}
{{- define "easyai-lib.trainJobOnRuntime" -}}
{{- $v := .Values -}}
{{- $kind := dict "kind" "TrainJob" "container" "node" "roles" (dict "node" "node") "values" (list "runtime" "nprocPerNode" "initializer" "suspend" "podPatchJobs") -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "runtime." "value" $v.runtime "known" (list "name" "kind")) -}}
{{- $runtime := $v.runtime | default dict -}}
{{- $name := include "easyai-lib.string" (dict "path" "runtime.name" "value" $runtime.name) -}}
{{- $rkind := include "easyai-lib.string" (dict "path" "runtime.kind" "value" $runtime.kind) | default "ClusterTrainingRuntime" -}}
{{- include "easyai-lib.checkEnum" (dict "path" "runtime.kind" "value" $rkind "allowed" (list "ClusterTrainingRuntime" "TrainingRuntime")) -}}
{{- $nodes := include "easyai-lib.replicas" (dict "ctx" . "role" "node") | int64 -}}
{{- $nproc := "" -}}
{{- if not (kindIs "invalid" $v.nprocPerNode) -}}
{{- include "easyai-lib.checkInt" (dict "path" "nprocPerNode" "value" $v.nprocPerNode "min" 1) -}}
{{- $nproc = int64 $v.nprocPerNode -}}
{{- end -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "initializer." "value" $v.initializer "known" (list "dataset" "model")) -}}
{{- range $k, $src := $v.initializer | default dict -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (printf "initializer.%s." $k) "value" $src "known" (list "storageUri" "secret")) -}}
{{- end -}}
{{- include "easyai-lib.checkKind" (dict "path" "suspend" "value" $v.suspend "kind" "bool") -}}
{{- include "easyai-lib.checkStringList" (dict "path" "podPatchJobs" "value" $v.podPatchJobs) -}}
{{- include "easyai-lib.trainJob" (dict "ctx" . "kind" $kind "runtime" (dict "name" $name "kind" $rkind) "nodes" $nodes "nproc" $nproc "patchJobs" ($v.podPatchJobs | default (list "node")) "initializer" $v.initializer "suspend" $v.suspend) -}}
{{- end -}}

{{- /*
easyai-lib.trainJobForRoles: a training-operator kind's values rendered as a
TrainJob on a runtime of the cluster (--backend trainer): its nodes are the
sum of its roles' replicas. Args: ctx, kind (as for easyai-lib.validate, with
the roles of the v1 kind), runtime (the ClusterTrainingRuntime's name).
*/ -}}
{{- define "easyai-lib.trainJobForRoles" -}}
{{- $v := .ctx.Values -}}
{{- with $v.elastic -}}
{{- if or (not (kindIs "invalid" .minReplicas)) (not (kindIs "invalid" .maxReplicas)) -}}
{{- fail "elastic: a TrainJob is not elastic: its runtime's numNodes is fixed" -}}
{{- end -}}
{{- end -}}
{{- $nodes := include "easyai-lib.totalReplicas" (dict "ctx" .ctx "kind" .kind) | int64 -}}
{{- $nproc := include "easyai-lib.string" (dict "path" "nprocPerNode" "value" $v.nprocPerNode) -}}
{{- include "easyai-lib.trainJob" (dict "ctx" .ctx "kind" .kind "runtime" (dict "name" .runtime "kind" "ClusterTrainingRuntime") "nodes" $nodes "nproc" $nproc "patchJobs" (list "node") "initializer" nil "suspend" nil) -}}
{{- end -}}
