{{- /* Debug mode (docs/debug.md): devtools.debug. */ -}}

{{- /* easyai-lib.checkDebug: checks devtools.debug. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkDebug" -}}
{{- end -}}

{{- /* easyai-lib.debugPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.debugPod" -}}
{{- end -}}
