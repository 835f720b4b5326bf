{{- /* Jupyter Lab and code-server beside the command (docs/debug.md): devtools.jupyter, devtools.codeServer, devtools.tensorboard. */ -}}

{{- /* easyai-lib.checkWebTools: checks devtools.tensorboard, jupyter and codeServer. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkWebTools" -}}
{{- end -}}

{{- /* easyai-lib.jupyterPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.jupyterPod" -}}
{{- end -}}

{{- /* easyai-lib.codeServerPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.codeServerPod" -}}
{{- end -}}
