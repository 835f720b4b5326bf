{{- /* easyai-lib.stringMap: a map's entries as YAML, every value a string (labels, annotations, nodeSelector). */ -}}
{{- define "easyai-lib.stringMap" -}}
{{- $m := dict -}}
{{- range $k, $v := . -}}
{{- if not (kindIs "invalid" $v) -}}
{{- $_ := set $m $k (toString $v) -}}
{{- end -}}
{{- end -}}
{{- toYaml $m -}}
{{- end -}}

{{- /*
easyai-lib.metadata: the job's metadata: its name, .Values.labels (also on
every pod template) and .Values.annotations (the job only). No namespace: the
CLI sets it. Args: the chart's root context.
*/ -}}
{{- define "easyai-lib.metadata" -}}
name: {{ include "easyai-lib.string" (dict "path" "name" "value" .Values.name) | toJson }}
{{- with .Values.labels }}
labels:
  {{- include "easyai-lib.stringMap" . | nindent 2 }}
{{- end }}
{{- with .Values.annotations }}
annotations:
  {{- include "easyai-lib.stringMap" . | nindent 2 }}
{{- end }}
{{- end -}}

{{- /*
easyai-lib.runPolicy: the fields of the training-operator's spec.runPolicy
that .Values.runPolicy sets, or nothing. gang, queue and minAvailable make its
schedulingPolicy: minAvailable defaults to all the job's replicas when gang is
on, and a gang also gets priorityClassName as its priorityClass.
Args: ctx, kind.
*/ -}}
{{- define "easyai-lib.runPolicy" -}}
{{- $v := .ctx.Values -}}
{{- $rp := $v.runPolicy | default dict -}}
{{- $out := dict -}}
{{- with include "easyai-lib.string" (dict "path" "runPolicy.cleanPodPolicy" "value" $rp.cleanPodPolicy) -}}
{{- $_ := set $out "cleanPodPolicy" . -}}
{{- end -}}
{{- range $k := list "backoffLimit" "activeDeadlineSeconds" "ttlSecondsAfterFinished" -}}
{{- if not (kindIs "invalid" (index $rp $k)) -}}
{{- $_ := set $out $k (int64 (index $rp $k)) -}}
{{- end -}}
{{- end -}}
{{- $sched := dict -}}
{{- with include "easyai-lib.string" (dict "path" "runPolicy.queue" "value" $rp.queue) -}}
{{- $_ := set $sched "queue" . -}}
{{- end -}}
{{- if not (kindIs "invalid" $rp.minAvailable) -}}
{{- $_ := set $sched "minAvailable" (int64 $rp.minAvailable) -}}
{{- else if $rp.gang -}}
{{- $_ := set $sched "minAvailable" (include "easyai-lib.totalReplicas" . | int64) -}}
{{- end -}}
{{- if $rp.gang -}}
{{- with include "easyai-lib.string" (dict "path" "priorityClassName" "value" $v.priorityClassName) -}}
{{- $_ := set $sched "priorityClass" . -}}
{{- end -}}
{{- end -}}
{{- if $sched -}}
{{- $_ := set $out "schedulingPolicy" $sched -}}
{{- end -}}
{{- if $out -}}
{{- toYaml $out -}}
{{- end -}}
{{- end -}}
