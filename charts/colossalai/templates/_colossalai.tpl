{{- /*
The values contract of a ColossalAI job, shared by the charts colossalai (T9k)
and colossalai-volcano: both hold this file, the same (a test keeps it so).
*/ -}}

{{- /* colossalai.kind: the easyai-lib kind of a ColossalAI job, as JSON. Args: the API kind. */ -}}
{{- define "colossalai.kind" -}}
{{- dict "kind" . "container" "worker" "roles" (dict "launcher" "launcher" "worker" "worker") "podRestartPolicy" true "ownDebug" true "values" (list "nprocPerNode" "torchArgs" "sshdPath" "sshAuthMountPath" "cleanUpWorkers" "debug" "schedulerPriority" "sshWaitSeconds") "taskIndex" (ternary "metadata.annotations['volcano.sh/task-index']" "pod" (eq . "Job")) | toJson -}}
{{- end -}}

{{- /* colossalai.validate: checks the values. Args: ctx, kind, backend ("T9k" or "Volcano"). */ -}}
{{- define "colossalai.validate" -}}
{{- $v := .ctx.Values -}}
{{- include "easyai-lib.validate" (dict "ctx" .ctx "kind" .kind) -}}
{{- $launchers := include "easyai-lib.replicas" (dict "ctx" .ctx "role" "launcher") | int -}}
{{- if ne $launchers 1 -}}
{{- fail (printf "roles.launcher.replicas: a ColossalAI job has exactly 1 launcher, got %d" $launchers) -}}
{{- end -}}
{{- if lt (include "easyai-lib.replicas" (dict "ctx" .ctx "role" "worker") | int) 1 -}}
{{- fail "roles.worker.replicas: a ColossalAI job needs at least 1 worker" -}}
{{- end -}}
{{- $roles := $v.roles | default dict -}}
{{- $launcher := $roles.launcher | default dict -}}
{{- $worker := $roles.worker | default dict -}}
{{- if $launcher.command -}}
{{- fail "roles.launcher.command: the launcher runs \"colossalai run\": give the training script as the (top-level) command" -}}
{{- end -}}
{{- if $launcher.restartPolicy -}}
{{- fail "roles.launcher.restartPolicy: the launcher is never restarted" -}}
{{- end -}}
{{- if $worker.command -}}
{{- fail "roles.worker.command: the workers run sshd: give the training script as the (top-level) command, which \"colossalai run\" starts on them" -}}
{{- end -}}
{{- include "easyai-lib.checkEnum" (dict "path" "restartPolicy" "value" $v.restartPolicy "allowed" (list "Never" "OnFailure")) -}}
{{- include "easyai-lib.checkEnum" (dict "path" "roles.worker.restartPolicy" "value" $worker.restartPolicy "allowed" (list "Never" "OnFailure")) -}}
{{- $rp := $v.runPolicy | default dict -}}
{{- range $k := list "minAvailable" "backoffLimit" "activeDeadlineSeconds" -}}
{{- if not (kindIs "invalid" (index $rp $k)) -}}
{{- fail (printf "runPolicy.%s: a ColossalAI job has no such setting (it is never restarted, nor timed out, and its gang is every pod)" $k) -}}
{{- end -}}
{{- end -}}
{{- if $rp.cleanPodPolicy -}}
{{- fail "runPolicy.cleanPodPolicy: a ColossalAI job has none: cleanUpWorkers deletes the workers when the launcher ends" -}}
{{- end -}}
{{- if and (eq .backend "T9k") (not (kindIs "invalid" $rp.ttlSecondsAfterFinished)) -}}
{{- fail "runPolicy.ttlSecondsAfterFinished: T9k's ColossalAIJob has no such setting (--ttl-after-finished works on the Volcano backend only)" -}}
{{- end -}}
{{- if not $v.command -}}
{{- fail "command: required: the training script and its arguments ([train.py, --epochs=10]), which \"colossalai run\" starts on every worker" -}}
{{- end -}}
{{- include "easyai-lib.checkInt" (dict "path" "nprocPerNode" "value" $v.nprocPerNode "min" 1) -}}
{{- if kindIs "invalid" $v.nprocPerNode -}}
{{- fail "nprocPerNode: required: training processes per worker (1 or more)" -}}
{{- end -}}
{{- include "easyai-lib.checkStringList" (dict "path" "torchArgs" "value" $v.torchArgs) -}}
{{- range $i, $a := $v.torchArgs -}}
{{- if not (regexMatch "^--?[A-Za-z0-9_][-A-Za-z0-9_.=:/]*$" (toString $a)) -}}
{{- fail (printf "torchArgs[%d]: %q is not a torchrun option like --max_restarts=0 (letters, digits and _-.=:/ only)" $i (toString $a)) -}}
{{- end -}}
{{- end -}}
{{- range $k := list "sshdPath" "sshAuthMountPath" -}}
{{- $p := include "easyai-lib.string" (dict "path" $k "value" (index $v $k)) -}}
{{- if not (regexMatch "^/[-A-Za-z0-9_./]*$" $p) -}}
{{- fail (printf "%s: must be an absolute path (letters, digits and -_./ only), got %q" $k $p) -}}
{{- end -}}
{{- end -}}
{{- include "easyai-lib.checkKind" (dict "path" "cleanUpWorkers" "value" $v.cleanUpWorkers "kind" "bool") -}}
{{- include "easyai-lib.checkKind" (dict "path" "debug" "value" $v.debug "kind" "bool") -}}
{{- include "easyai-lib.checkInt" (dict "path" "schedulerPriority" "value" $v.schedulerPriority) -}}
{{- include "easyai-lib.checkInt" (dict "path" "sshWaitSeconds" "value" $v.sshWaitSeconds "min" 1) -}}
{{- if eq .backend "Volcano" -}}
{{- if and (not (kindIs "invalid" $v.cleanUpWorkers)) (not $v.cleanUpWorkers) -}}
{{- fail "cleanUpWorkers: on Volcano the workers always end with the launcher (a policy completes the job then): it cannot be false" -}}
{{- end -}}
{{- if not (kindIs "invalid" $v.schedulerPriority) -}}
{{- fail "schedulerPriority: a T9k Scheduler setting: on Volcano, give a PriorityClass (priorityClassName, --priority)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* colossalai.role: the pod template of a role rendered by easyai-lib, as JSON ({} when none). Args: ctx, kind, role. */ -}}
{{- define "colossalai.role" -}}
{{- $kind := merge (dict "container" .role) .kind -}}
{{- with include "easyai-lib.replicaSpec" (dict "ctx" .ctx "kind" $kind "role" .role) -}}
{{- fromYaml . | toJson -}}
{{- else -}}
{}
{{- end -}}
{{- end -}}
