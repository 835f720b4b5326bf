{{- /*
Jupyter Lab and code-server beside the command (docs/debug.md):
devtools.jupyter and devtools.codeServer. Each is a native sidecar of the
role of devtools.TOOL.task (ROLE-INDEX, which submit sets to the job's
first replica: chief, master, launcher, else worker-0). It runs in the
replica of index 0 of that role; in the role's other replicas it only
waits. It sees what the main container sees: the same mounts, env and
working directory, and (Jupyter, unless devtools.jupyter.image) the same
image. Its login token comes from the key "token" of devtools.TOOL.tokenSecret,
a Secret submit creates beside the job, through a secretKeyRef: never in
the pod's spec. devtools.tensorboard renders nothing here: submit creates
TensorBoard's Deployment and Service beside the job.
*/ -}}

{{- /* The port and the name of each tool's container (pkg/submit's webTools agree). */ -}}
{{- define "easyai-lib.webToolsTable" -}}
jupyter: {container: easyai-jupyter, port: 8888, tokenEnv: JUPYTER_TOKEN}
codeServer: {container: easyai-code-server, port: 13337, tokenEnv: PASSWORD}
{{- end -}}

{{- /* easyai-lib.checkWebTools: checks devtools.tensorboard, jupyter and codeServer. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkWebTools" -}}
{{- $d := .ctx.Values.devtools -}}
{{- $_ := include "easyai-lib.string" (dict "path" "devtools.tensorboard.image" "value" (($d.tensorboard | default dict).image)) -}}
{{- range $tool := list "jupyter" "codeServer" -}}
{{- $t := (index $d $tool) | default dict -}}
{{- range $k := list "image" "tokenSecret" "task" -}}
{{- $_ := include "easyai-lib.string" (dict "path" (printf "devtools.%s.%s" $tool $k) "value" (index $t $k)) -}}
{{- end -}}
{{- if $t.enabled -}}
{{- if eq $.kind.kind "TrainJob" -}}
{{- fail (printf "devtools.%s: a TrainJob cannot run it: its pods are its runtime's" $tool) -}}
{{- end -}}
{{- if not $t.tokenSecret -}}
{{- fail (printf "devtools.%s.tokenSecret: required (easyai submit creates it beside the job)" $tool) -}}
{{- end -}}
{{- if not (regexMatch "^[a-z][a-z0-9]*(-[a-z0-9]+)*-[0-9]+$" (toString $t.task)) -}}
{{- fail (printf "devtools.%s.task: %q is not a replica's name, ROLE-INDEX such as master-0 (easyai submit sets it)" $tool (toString $t.task)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.webToolScript: runs the tool ("$@") in the replica of index 0, waits in the others. */ -}}
{{- define "easyai-lib.webToolScript" -}}
if [ "${EASYAI_TASK_INDEX:-0}" = 0 ]; then exec "$@"; fi
{{ include "easyai-lib.waitScript" . }}
{{- end -}}

{{- /*
easyai-lib.webToolPod: the sidecar of one web tool, or nothing when it is
off or the role is not its task's. Args: those of easyai-lib.devtools, and
tool (jupyter, codeServer), image (its own image, "" for the job's) and
command (the tool's command line).
*/ -}}
{{- define "easyai-lib.webToolPod" -}}
{{- $t := (index ((.ctx.Values.devtools | default dict)) .tool) | default dict -}}
{{- $table := include "easyai-lib.webToolsTable" . | fromYaml -}}
{{- $w := index $table .tool -}}
{{- if and $t.enabled (eq (regexReplaceAll "-[0-9]+$" (toString $t.task) "") .role) -}}
{{- $env := concat .env (list (dict "name" $w.tokenEnv "valueFrom" (dict "secretKeyRef" (dict "name" (toString $t.tokenSecret) "key" "token")))) -}}
{{- $c := dict "name" $w.container "image" (.toolImage | default .image) "restartPolicy" "Always"
    "command" (concat (list "/bin/sh" "-c" (include "easyai-lib.webToolScript" .) $w.container) .toolCommand)
    "ports" (list (dict "name" (regexReplaceAll "^easyai-" $w.container "") "containerPort" $w.port))
    "env" $env -}}
{{- with .workingDir -}}
{{- $_ := set $c "workingDir" . -}}
{{- end -}}
{{- with .mounts -}}
{{- $_ := set $c "volumeMounts" . -}}
{{- end -}}
{{- toYaml (dict "sidecars" (list $c)) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.jupyterPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command, image, workingDir, env, mounts. */ -}}
{{- define "easyai-lib.jupyterPod" -}}
{{- $t := (.ctx.Values.devtools | default dict).jupyter | default dict -}}
{{- include "easyai-lib.webToolPod" (merge (dict "tool" "jupyter" "toolImage" (toString ($t.image | default "")) "toolCommand" (list "jupyter" "lab" "--ip=0.0.0.0" "--port=8888" "--no-browser" "--allow-root")) .) -}}
{{- end -}}

{{- /* easyai-lib.codeServerPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command, image, workingDir, env, mounts. */ -}}
{{- define "easyai-lib.codeServerPod" -}}
{{- $t := (.ctx.Values.devtools | default dict).codeServer | default dict -}}
{{- include "easyai-lib.webToolPod" (merge (dict "tool" "codeServer" "toolImage" (toString ($t.image | default "codercom/code-server:4.96.4")) "toolCommand" (list "code-server" "--bind-addr=0.0.0.0:13337" "--auth=password" "--disable-telemetry" "--disable-update-check" (.workingDir | default "/"))) .) -}}
{{- end -}}
