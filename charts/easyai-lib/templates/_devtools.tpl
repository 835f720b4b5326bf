{{- /*
Develop and debug inside the cluster (docs/debug.md): .Values.devtools turns
on debug mode, Jupyter Lab, code-server and an sshd in the job's pods (and
TensorBoard, which submit creates beside the job: nothing in the pods).

Each tool adds to one role's pod what easyai-lib.devtools collects, in the
shape of easyai-lib.storage, plus:

  command    the container's command, replacing the one given (absent: kept)
  podSpec    fields of the pod's spec (activeDeadlineSeconds)
  ports      container ports of the main container
  sidecars   native sidecars (initContainers with restartPolicy Always),
             placed after the other init containers

The tools run in this order, each given the command the one before left:
debug (the wait), ssh (sshd, then the command), jupyter, codeServer.
*/ -}}

{{- /* easyai-lib.checkDevtools: checks .Values.devtools. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkDevtools" -}}
{{- $d := .ctx.Values.devtools -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools." "value" $d "known" (list "debug" "tensorboard" "jupyter" "codeServer" "ssh")) -}}
{{- if $d -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools.debug." "value" $d.debug "known" (list "enabled" "tasks" "timeoutSeconds")) -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools.tensorboard." "value" $d.tensorboard "known" (list "enabled" "image")) -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools.jupyter." "value" $d.jupyter "known" (list "enabled" "image" "tokenSecret" "task")) -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools.codeServer." "value" $d.codeServer "known" (list "enabled" "image" "tokenSecret" "task")) -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "devtools.ssh." "value" $d.ssh "known" (list "enabled" "secret" "image")) -}}
{{- range $tool := list "debug" "tensorboard" "jupyter" "codeServer" "ssh" -}}
{{- include "easyai-lib.checkKind" (dict "path" (printf "devtools.%s.enabled" $tool) "value" (index ((index $d $tool) | default dict) "enabled") "kind" "bool") -}}
{{- end -}}
{{- include "easyai-lib.checkDebug" . -}}
{{- include "easyai-lib.checkWebTools" . -}}
{{- include "easyai-lib.checkSSH" . -}}
{{- end -}}
{{- end -}}

{{- /*
easyai-lib.devtools: what the devtools add to one role's pod, as YAML (see
above), or nothing. Args: ctx, kind, role, replicas (of the role), command
(the container's command so far, after the storage's log copy), and the main
container's image, workingDir, env and mounts (for the sidecars).
*/ -}}
{{- define "easyai-lib.devtools" -}}
{{- $v := .ctx.Values -}}
{{- $d := $v.devtools | default dict -}}
{{- $on := false -}}
{{- range $tool := list "debug" "jupyter" "codeServer" "ssh" -}}
{{- if (index ((index $d $tool) | default dict) "enabled") -}}
{{- $on = true -}}
{{- end -}}
{{- end -}}
{{- if $on -}}
{{- $out := dict "volumes" list "mounts" list "env" list "initContainers" list "sidecars" list "ports" list "podSpec" dict -}}
{{- $s := $v.storage | default dict -}}
{{- if not (or $s.claim ($s.nfs | default dict).server) -}}
{{- /* Without a storage nothing else names the replica: the tools need it. */ -}}
{{- $_ := set $out "env" (include "easyai-lib.taskEnv" . | fromYamlArray) -}}
{{- end -}}
{{- /* The sidecars see what the main container sees: its image, mounts, env (with EASYAI_TASK) and working directory. */ -}}
{{- $args := dict "ctx" .ctx "kind" .kind "role" .role "replicas" .replicas "command" .command "image" .image "workingDir" .workingDir "mounts" (.mounts | default list) "env" (concat $out.env (.env | default list)) -}}
{{- range $tool := list "easyai-lib.debugPod" "easyai-lib.sshPod" "easyai-lib.jupyterPod" "easyai-lib.codeServerPod" -}}
{{- $r := include $tool $args | fromYaml -}}
{{- if $r -}}
{{- range $k := list "volumes" "mounts" "env" "initContainers" "sidecars" "ports" -}}
{{- $_ := set $out $k (concat (index $out $k) ((index $r $k) | default list)) -}}
{{- end -}}
{{- $_ := set $out "podSpec" (merge ($r.podSpec | default dict) $out.podSpec) -}}
{{- if hasKey $r "command" -}}
{{- $_ := set $out "command" $r.command -}}
{{- $_ = set $args "command" $r.command -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $k := list "volumes" "mounts" "env" "initContainers" "sidecars" "ports" -}}
{{- if not (index $out $k) -}}
{{- $_ := set $out $k list -}}
{{- end -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
{{- end -}}
