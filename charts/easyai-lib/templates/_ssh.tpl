{{- /* An sshd beside the command (docs/ssh.md): devtools.ssh. */ -}}

{{- /* easyai-lib.checkSSH: checks devtools.ssh. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkSSH" -}}
{{- end -}}

{{- /* easyai-lib.sshPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.sshPod" -}}
{{- end -}}
