{{- /*
Checks of the values contract. Each fails rendering with a message that starts
with the path of the offending value ("roles.worker.replicas: ..."), so that a
typo in -f, --set or a flag is reported instead of silently ignored.

A job chart describes its kind in a dict and checks its values first:

  {{- $kind := dict "kind" "TFJob" "container" "tensorflow"
        "roles" (dict "ps" "PS" "worker" "Worker")
        "values" (list "successPolicy") }}
  {{- include "easyai-lib.validate" (dict "ctx" . "kind" $kind) }}

  kind       the API kind
  container  the name the operator requires of the training container
  roles      role key in .Values.roles -> replica type in the job's spec
  values     the kind's own top-level values (the chart checks them itself)
  rolesKey   the values key of the roles (default "roles"; Volcano: "tasks")
  roleValues the kind's own values of a role (the chart checks them itself)
  podRestartPolicy  true: restartPolicy goes into the pod template's spec
             (Volcano tasks) instead of the replica spec (training-operator)
*/ -}}

{{- /* easyai-lib.string: the value as a string ("" when unset); fails on a map or a list. Args: path, value. */ -}}
{{- define "easyai-lib.string" -}}
{{- if or (kindIs "map" .value) (kindIs "slice" .value) -}}
{{- fail (printf "%s: must be a string, got %s" .path (toJson .value)) -}}
{{- else if not (kindIs "invalid" .value) -}}
{{- toString .value -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkInt: unset, or a whole number (at least min when given). Args: path, value, min. */ -}}
{{- define "easyai-lib.checkInt" -}}
{{- $v := .value -}}
{{- if not (kindIs "invalid" $v) -}}
{{- if not (or (kindIs "int" $v) (kindIs "int64" $v) (and (kindIs "float64" $v) (eq $v (floor $v)))) -}}
{{- fail (printf "%s: must be a whole number, got %s" .path (toJson $v)) -}}
{{- end -}}
{{- if and (hasKey . "min") (lt (int64 $v) (int64 .min)) -}}
{{- fail (printf "%s: must be %d or more, got %d" .path (int64 .min) (int64 $v)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkQuantity: unset, "", or a Kubernetes quantity (2, 500m, 16Gi, 1e3). Args: path, value. */ -}}
{{- define "easyai-lib.checkQuantity" -}}
{{- $s := include "easyai-lib.string" . -}}
{{- if and $s (not (regexMatch "^[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+|[numkMGTPE]|[KMGTPE]i)?$" $s)) -}}
{{- fail (printf "%s: not a quantity (e.g. 2, 500m, 16Gi), got %q" .path $s) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkKind: unset, or of the given kind (map, slice or bool). Args: path, value, kind. */ -}}
{{- define "easyai-lib.checkKind" -}}
{{- if not (or (kindIs "invalid" .value) (kindIs .kind .value)) -}}
{{- $what := get (dict "map" "a map" "slice" "a list" "bool" "true or false") .kind -}}
{{- fail (printf "%s: must be %s, got %s" .path $what (toJson .value)) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkEnum: unset, "", or one of allowed. Args: path, value, allowed. */ -}}
{{- define "easyai-lib.checkEnum" -}}
{{- $s := include "easyai-lib.string" . -}}
{{- if and $s (not (has $s .allowed)) -}}
{{- fail (printf "%s: must be one of %s, got %q" .path (join ", " .allowed) $s) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkKeys: unset, or a map whose keys are all known. Args: prefix ("runPolicy."), value, known. */ -}}
{{- define "easyai-lib.checkKeys" -}}
{{- include "easyai-lib.checkKind" (dict "path" (trimSuffix "." .prefix) "value" .value "kind" "map") -}}
{{- range $k, $_ := .value -}}
{{- if not (has $k $.known) -}}
{{- fail (printf "%s%s: unknown field (known: %s)" $.prefix $k (join ", " (sortAlpha $.known))) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkStringMap: unset, or a map of strings (labels, annotations, nodeSelector). Args: path, value. */ -}}
{{- define "easyai-lib.checkStringMap" -}}
{{- include "easyai-lib.checkKind" (dict "path" .path "value" .value "kind" "map") -}}
{{- range $k, $v := .value -}}
{{- $_ := include "easyai-lib.string" (dict "path" (printf "%s.%s" $.path $k) "value" $v) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.checkStringList: unset, or a list of strings (command, imagePullSecrets). Args: path, value. */ -}}
{{- define "easyai-lib.checkStringList" -}}
{{- include "easyai-lib.checkKind" (dict "path" .path "value" .value "kind" "slice") -}}
{{- range $i, $v := .value -}}
{{- $_ := include "easyai-lib.string" (dict "path" (printf "%s[%d]" $.path $i) "value" $v) -}}
{{- end -}}
{{- end -}}

{{- /*
easyai-lib.checkContainer: the values a role may set for itself, at the top
level (prefix "") or in a role (prefix "roles.worker."). Args: prefix, value.
*/ -}}
{{- define "easyai-lib.checkContainer" -}}
{{- $p := .prefix -}}
{{- $v := .value -}}
{{- $_ := include "easyai-lib.string" (dict "path" (print $p "image") "value" (index $v "image")) -}}
{{- $_ = include "easyai-lib.string" (dict "path" (print $p "workingDir") "value" (index $v "workingDir")) -}}
{{- include "easyai-lib.checkStringList" (dict "path" (print $p "command") "value" (index $v "command")) -}}
{{- include "easyai-lib.checkEnum" (dict "path" (print $p "restartPolicy") "value" (index $v "restartPolicy") "allowed" (list "Never" "OnFailure" "Always" "ExitCode")) -}}
{{- include "easyai-lib.checkKind" (dict "path" (print $p "env") "value" (index $v "env") "kind" "slice") -}}
{{- range $i, $e := index $v "env" -}}
{{- $path := printf "%senv[%d]" $p $i -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $path ".") "value" $e "known" (list "name" "value" "valueFrom")) -}}
{{- if not $e -}}
{{- fail (printf "%s: must be a {name, value} map" $path) -}}
{{- end -}}
{{- if not (include "easyai-lib.string" (dict "path" (print $path ".name") "value" $e.name)) -}}
{{- fail (printf "%s.name: required" $path) -}}
{{- end -}}
{{- $_ = include "easyai-lib.string" (dict "path" (print $path ".value") "value" $e.value) -}}
{{- include "easyai-lib.checkKind" (dict "path" (print $path ".valueFrom") "value" $e.valueFrom "kind" "map") -}}
{{- end -}}
{{- $res := index $v "resources" -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $p "resources.") "value" $res "known" (list "cpu" "memory" "gpus" "requests")) -}}
{{- if $res -}}
{{- include "easyai-lib.checkKind" (dict "path" (print $p "resources.requests") "value" $res.requests "kind" "map") -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $p "resources.requests.") "value" $res.requests "known" (list "cpu" "memory")) -}}
{{- with $res.requests -}}
{{- include "easyai-lib.checkQuantity" (dict "path" (print $p "resources.requests.cpu") "value" .cpu) -}}
{{- include "easyai-lib.checkQuantity" (dict "path" (print $p "resources.requests.memory") "value" .memory) -}}
{{- end -}}
{{- include "easyai-lib.checkQuantity" (dict "path" (print $p "resources.cpu") "value" $res.cpu) -}}
{{- include "easyai-lib.checkQuantity" (dict "path" (print $p "resources.memory") "value" $res.memory) -}}
{{- include "easyai-lib.checkInt" (dict "path" (print $p "resources.gpus") "value" $res.gpus "min" 0) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.validate: checks the common values and the roles of the kind. Args: ctx, kind. */ -}}
{{- define "easyai-lib.validate" -}}
{{- $v := .ctx.Values -}}
{{- $kind := .kind -}}
{{- $roleKeys := keys $kind.roles | sortAlpha -}}
{{- if not (include "easyai-lib.string" (dict "path" "name" "value" $v.name)) -}}
{{- fail "name: required: the job's name (metadata.name)" -}}
{{- end -}}
{{- $known := list "name" "image" "imagePullPolicy" "imagePullSecrets" "command" "workingDir" "env" "resources" "gpuResource" "shmSize" "nodeSelector" "tolerations" "priorityClassName" "restartPolicy" "labels" "annotations" "podAnnotations" "data" "storage" "code" "devtools" "runPolicy" "roles" "global" "kind" -}}
{{- $rk := $kind.rolesKey | default "roles" -}}
{{- if ne $rk "roles" -}}
{{- $known = append (without $known "roles") $rk -}}
{{- end -}}
{{- $known = concat $known ($kind.values | default list) -}}
{{- range .ctx.Chart.Dependencies -}}
{{- $known = append $known (.Alias | default .Name) -}}
{{- end -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "" "value" $v "known" $known) -}}
{{- include "easyai-lib.checkContainer" (dict "prefix" "" "value" $v) -}}
{{- include "easyai-lib.checkEnum" (dict "path" "imagePullPolicy" "value" $v.imagePullPolicy "allowed" (list "IfNotPresent" "Always" "Never")) -}}
{{- include "easyai-lib.checkStringList" (dict "path" "imagePullSecrets" "value" $v.imagePullSecrets) -}}
{{- include "easyai-lib.checkQuantity" (dict "path" "shmSize" "value" $v.shmSize) -}}
{{- range $k := list "gpuResource" "priorityClassName" -}}
{{- $_ := include "easyai-lib.string" (dict "path" $k "value" (index $v $k)) -}}
{{- end -}}
{{- range $k := list "nodeSelector" "labels" "annotations" "podAnnotations" -}}
{{- include "easyai-lib.checkStringMap" (dict "path" $k "value" (index $v $k)) -}}
{{- end -}}
{{- include "easyai-lib.checkKind" (dict "path" "tolerations" "value" $v.tolerations "kind" "slice") -}}
{{- range $i, $t := $v.tolerations -}}
{{- include "easyai-lib.checkKind" (dict "path" (printf "tolerations[%d]" $i) "value" $t "kind" "map") -}}
{{- end -}}
{{- include "easyai-lib.checkKind" (dict "path" "data" "value" $v.data "kind" "slice") -}}
{{- range $i, $d := $v.data -}}
{{- $path := printf "data[%d]" $i -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $path ".") "value" $d "known" (list "claim" "mountPath" "readOnly" "subPath")) -}}
{{- range $k := list "claim" "mountPath" -}}
{{- if not (include "easyai-lib.string" (dict "path" (printf "%s.%s" $path $k) "value" (index ($d | default dict) $k))) -}}
{{- fail (printf "%s.%s: required" $path $k) -}}
{{- end -}}
{{- end -}}
{{- $_ := include "easyai-lib.string" (dict "path" (print $path ".subPath") "value" $d.subPath) -}}
{{- include "easyai-lib.checkKind" (dict "path" (print $path ".readOnly") "value" $d.readOnly "kind" "bool") -}}
{{- end -}}
{{- include "easyai-lib.checkStorage" $v -}}
{{- include "easyai-lib.checkDevtools" (dict "ctx" .ctx "kind" .kind) -}}
{{- $rp := $v.runPolicy -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "runPolicy." "value" $rp "known" (list "gang" "queue" "minAvailable" "backoffLimit" "activeDeadlineSeconds" "ttlSecondsAfterFinished" "cleanPodPolicy")) -}}
{{- if $rp -}}
{{- include "easyai-lib.checkKind" (dict "path" "runPolicy.gang" "value" $rp.gang "kind" "bool") -}}
{{- $_ := include "easyai-lib.string" (dict "path" "runPolicy.queue" "value" $rp.queue) -}}
{{- include "easyai-lib.checkInt" (dict "path" "runPolicy.minAvailable" "value" $rp.minAvailable "min" 1) -}}
{{- range $k := list "backoffLimit" "activeDeadlineSeconds" "ttlSecondsAfterFinished" -}}
{{- include "easyai-lib.checkInt" (dict "path" (print "runPolicy." $k) "value" (index $rp $k) "min" 0) -}}
{{- end -}}
{{- include "easyai-lib.checkEnum" (dict "path" "runPolicy.cleanPodPolicy" "value" $rp.cleanPodPolicy "allowed" (list "None" "Running" "All")) -}}
{{- end -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $rk ".") "value" (index $v $rk) "known" $roleKeys) -}}
{{- range $role, $r := index $v $rk -}}
{{- $prefix := printf "%s.%s." $rk $role -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" $prefix "value" $r "known" (concat (list "replicas" "image" "command" "workingDir" "env" "resources" "restartPolicy") ($kind.roleValues | default list))) -}}
{{- if $r -}}
{{- include "easyai-lib.checkInt" (dict "path" (print $prefix "replicas") "value" $r.replicas "min" 0) -}}
{{- include "easyai-lib.checkContainer" (dict "prefix" $prefix "value" $r) -}}
{{- end -}}
{{- end -}}
{{- if eq (include "easyai-lib.totalReplicas" .) "0" -}}
{{- fail (printf "%s: no replicas: set the replicas of at least one of the %s %s (%s)" $rk $kind.kind $rk (join ", " $roleKeys)) -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.replicas: the replicas of one role (0 when unset). Args: ctx, role, kind (optional). */ -}}
{{- define "easyai-lib.replicas" -}}
{{- $rk := (.kind | default dict).rolesKey | default "roles" -}}
{{- $role := index ((index .ctx.Values $rk) | default dict) .role | default dict -}}
{{- int64 ($role.replicas | default 0) -}}
{{- end -}}

{{- /* easyai-lib.totalReplicas: the replicas of all the kind's roles. Args: ctx, kind. */ -}}
{{- define "easyai-lib.totalReplicas" -}}
{{- $n := 0 -}}
{{- range $role, $_ := .kind.roles -}}
{{- $n = add $n (include "easyai-lib.replicas" (dict "ctx" $.ctx "kind" $.kind "role" $role)) -}}
{{- end -}}
{{- $n -}}
{{- end -}}
