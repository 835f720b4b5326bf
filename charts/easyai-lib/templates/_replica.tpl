{{- /*
easyai-lib.replicaSpec: the replica spec of one role of a training-operator job
(replicas, restartPolicy and the pod template), or nothing when the role has 0
replicas. Every role of every kind renders with it:

  {{- range $role, $type := $kind.roles }}
  {{- with include "easyai-lib.replicaSpec" (dict "ctx" $ "kind" $kind "role" $role) }}
  {{ $type }}:
    {{- . | nindent 4 }}
  {{- end }}
  {{- end }}

Args: ctx (the chart's root context), kind (see _checks.tpl), role (key in
.Values.roles). A role's own image, command, workingDir, env, restartPolicy
and resources.cpu/memory/gpus, when it has them (even 0 or ""), win over the
top-level ones; the rest of the pod (volumes, scheduling, labels) is the job's.
*/ -}}
{{- define "easyai-lib.replicaSpec" -}}
{{- $args := . -}}
{{- $v := .ctx.Values -}}
{{- $rk := .kind.rolesKey | default "roles" -}}
{{- $role := index ((index $v $rk) | default dict) .role | default dict -}}
{{- $replicas := include "easyai-lib.replicas" . | int64 -}}
{{- if gt $replicas 0 -}}

{{- /* Helm's merge functions skip zero values: look the role's own up with hasKey. */ -}}
{{- $c := dict -}}
{{- range $k := list "image" "command" "workingDir" "env" "restartPolicy" -}}
{{- $_ := set $c $k (index $v $k) -}}
{{- if and (hasKey $role $k) (not (kindIs "invalid" (index $role $k))) -}}
{{- $_ = set $c $k (index $role $k) -}}
{{- end -}}
{{- end -}}
{{- $res := dict -}}
{{- $topRes := $v.resources | default dict -}}
{{- $roleRes := $role.resources | default dict -}}
{{- range $k := list "cpu" "memory" "gpus" -}}
{{- $_ := set $res $k (index $topRes $k) -}}
{{- if and (hasKey $roleRes $k) (not (kindIs "invalid" (index $roleRes $k))) -}}
{{- $_ = set $res $k (index $roleRes $k) -}}
{{- end -}}
{{- end -}}

{{- $image := include "easyai-lib.string" (dict "path" "image" "value" $c.image) -}}
{{- if not $image -}}
{{- fail (printf "image: required: set image, or %s.%s.image for the %s replicas" $rk .role (index .kind.roles .role)) -}}
{{- end -}}

{{- /* cpu and memory are requested and limited alike; GPUs, an extended resource, are limits only. */ -}}
{{- $requests := dict -}}
{{- $limits := dict -}}
{{- range $k := list "cpu" "memory" -}}
{{- $q := include "easyai-lib.string" (dict "path" (print "resources." $k) "value" (index $res $k)) -}}
{{- if $q -}}
{{- $_ := set $requests $k $q -}}
{{- $_ = set $limits $k $q -}}
{{- end -}}
{{- end -}}
{{- /* resources.requests (the role's over the job's): cpu and memory requested below their limits (a notebook's overcommit). */ -}}
{{- $asked := merge (dict) (($roleRes.requests | default dict)) (($topRes.requests | default dict)) -}}
{{- range $k := list "cpu" "memory" -}}
{{- with include "easyai-lib.string" (dict "path" (print "resources.requests." $k) "value" (index $asked $k)) -}}
{{- $_ := set $requests $k . -}}
{{- end -}}
{{- end -}}
{{- $gpus := int64 ($res.gpus | default 0) -}}
{{- if gt $gpus 0 -}}
{{- $gpuResource := include "easyai-lib.string" (dict "path" "gpuResource" "value" $v.gpuResource) | default "nvidia.com/gpu" -}}
{{- $_ := set $limits $gpuResource $gpus -}}
{{- end -}}

{{- $env := list -}}
{{- range $e := $c.env -}}
{{- $item := dict "name" (toString $e.name) -}}
{{- if $e.valueFrom -}}
{{- $_ := set $item "valueFrom" $e.valueFrom -}}
{{- else if not (kindIs "invalid" $e.value) -}}
{{- $_ := set $item "value" (toString $e.value) -}}
{{- end -}}
{{- $env = append $env $item -}}
{{- end -}}

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

{{- $command := $c.command -}}
{{- $init := list -}}
{{- with include "easyai-lib.storage" (dict "ctx" .ctx "kind" .kind "role" .role "replicas" $replicas) | fromYaml -}}
{{- range .volumes -}}
{{- $volumes = append $volumes (merge (dict "name" .name) .source) -}}
{{- end -}}
{{- $mounts = concat $mounts .mounts -}}
{{- $env = concat .env $env -}}
{{- $init = .initContainers -}}
{{- if and .persistLogs $command -}}
{{- $command = concat (list "/bin/sh" "-c" (include "easyai-lib.teeScript" $) "easyai-tee") $command -}}
{{- end -}}
{{- end -}}

{{- $sidecars := list -}}
{{- $ports := list -}}
{{- $podSpec := dict -}}
{{- with include "easyai-lib.devtools" (dict "ctx" .ctx "kind" .kind "role" .role "replicas" $replicas "command" $command "image" $image "workingDir" (include "easyai-lib.string" (dict "path" "workingDir" "value" $c.workingDir)) "env" $env "mounts" $mounts) | fromYaml -}}
{{- range .volumes -}}
{{- $volumes = append $volumes (merge (dict "name" .name) .source) -}}
{{- end -}}
{{- $mounts = concat $mounts .mounts -}}
{{- $env = concat .env $env -}}
{{- $init = concat $init .initContainers -}}
{{- $sidecars = .sidecars -}}
{{- $ports = .ports -}}
{{- $podSpec = .podSpec -}}
{{- if hasKey . "command" -}}
{{- $command = .command -}}
{{- end -}}
{{- end -}}
{{- $init = concat $init $sidecars -}}

{{- $restartPolicy := include "easyai-lib.string" (dict "path" "restartPolicy" "value" $c.restartPolicy) -}}
replicas: {{ $replicas }}
{{- if and $restartPolicy (not .kind.podRestartPolicy) }}
restartPolicy: {{ $restartPolicy }}
{{- end }}
template:
  {{- if or $v.labels $v.podAnnotations }}
  metadata:
    {{- with $v.labels }}
    labels:
      {{- include "easyai-lib.stringMap" . | nindent 6 }}
    {{- end }}
    {{- with $v.podAnnotations }}
    annotations:
      {{- include "easyai-lib.stringMap" . | nindent 6 }}
    {{- end }}
  {{- end }}
  spec:
    {{- if and $restartPolicy .kind.podRestartPolicy }}
    restartPolicy: {{ $restartPolicy }}
    {{- end }}
    {{- with $podSpec }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
    {{- with $init }}
    initContainers:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    containers:
      - name: {{ $args.kind.container }}
        image: {{ toJson $image }}
        {{- with include "easyai-lib.string" (dict "path" "imagePullPolicy" "value" $v.imagePullPolicy) }}
        imagePullPolicy: {{ . }}
        {{- end }}
        {{- with $command }}
        command:
          {{- range . }}
          - {{ toString . | toJson }}
          {{- end }}
        {{- end }}
        {{- with include "easyai-lib.string" (dict "path" "workingDir" "value" $c.workingDir) }}
        workingDir: {{ toJson . }}
        {{- end }}
        {{- with $ports }}
        ports:
          {{- toYaml . | nindent 10 }}
        {{- end }}
        {{- with $env }}
        env:
          {{- toYaml . | nindent 10 }}
        {{- end }}
        {{- if $limits }}
        resources:
          limits:
            {{- toYaml $limits | nindent 12 }}
          {{- with $requests }}
          requests:
            {{- toYaml . | nindent 12 }}
          {{- end }}
        {{- end }}
        {{- with $mounts }}
        volumeMounts:
          {{- toYaml . | nindent 10 }}
        {{- end }}
    {{- with $v.imagePullSecrets }}
    imagePullSecrets:
      {{- range . }}
      - name: {{ toString . | toJson }}
      {{- end }}
    {{- end }}
    {{- with $v.nodeSelector }}
    nodeSelector:
      {{- include "easyai-lib.stringMap" . | nindent 6 }}
    {{- end }}
    {{- with $v.tolerations }}
    tolerations:
      {{- toYaml . | nindent 6 }}
    {{- end }}
    {{- with include "easyai-lib.string" (dict "path" "priorityClassName" "value" $v.priorityClassName) }}
    priorityClassName: {{ toJson . }}
    {{- end }}
    {{- with $volumes }}
    volumes:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end -}}
{{- end -}}
