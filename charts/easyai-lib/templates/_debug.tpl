{{- /*
Debug mode (docs/debug.md): devtools.debug. The chosen replicas (every one,
or those whose EASYAI_TASK is in devtools.debug.tasks) start with a wait in
place of their command; the others run it. The command the wait replaces
(after the storage's log copy, so that "easyai run" starts the same) is
kept, shell-quoted, in the env EASYAI_COMMAND, which "easyai run" reads from
the pod's spec; the pods get activeDeadlineSeconds.
A kind with a debug mode of its own (kind.ownDebug: ColossalAI) uses that
one instead, for every replica (no tasks), and gets the deadline only.
*/ -}}

{{- /* easyai-lib.checkDebug: checks devtools.debug. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkDebug" -}}
{{- $d := (.ctx.Values.devtools | default dict).debug | default dict -}}
{{- include "easyai-lib.checkStringList" (dict "path" "devtools.debug.tasks" "value" $d.tasks) -}}
{{- range $i, $t := $d.tasks -}}
{{- if not (regexMatch "^[a-z][a-z0-9]*(-[a-z0-9]+)*-[0-9]+$" (toString $t)) -}}
{{- fail (printf "devtools.debug.tasks[%d]: %q is not a replica's name, ROLE-INDEX such as worker-0" $i (toString $t)) -}}
{{- end -}}
{{- end -}}
{{- include "easyai-lib.checkInt" (dict "path" "devtools.debug.timeoutSeconds" "value" $d.timeoutSeconds "min" 1) -}}
{{- if and .kind.ownDebug $d.enabled $d.tasks -}}
{{- fail "devtools.debug.tasks (--debug-task): this kind's own debug mode stops every replica, not chosen ones: use --debug alone" -}}
{{- end -}}
{{- end -}}

{{- /* easyai-lib.shellQuote: a list of words as one shell-quoted string. */ -}}
{{- define "easyai-lib.shellQuote" -}}
{{- $words := list -}}
{{- range . -}}
{{- $words = append $words (printf "'%s'" (replace "'" "'\\''" (toString .))) -}}
{{- end -}}
{{- join " " $words -}}
{{- end -}}

{{- /* easyai-lib.debugEnv: the env of debug mode, as a YAML list. Args: ctx, command. */ -}}
{{- define "easyai-lib.debugEnv" -}}
{{- $d := .ctx.Values.devtools.debug -}}
{{- $env := list (dict "name" "EASYAI_COMMAND" "value" (include "easyai-lib.shellQuote" (.command | default list))) (dict "name" "EASYAI_JOB" "value" (toString .ctx.Values.name)) -}}
{{- with $d.tasks -}}
{{- $env = append $env (dict "name" "EASYAI_DEBUG_TASKS" "value" (join " " .)) -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{- /*
easyai-lib.debugScript: waits in place of "$@" on the chosen replicas, runs
"$@" on the others (the wait: easyai-lib.waitScript).
*/ -}}
{{- define "easyai-lib.debugScript" -}}
chosen=
if [ -z "${EASYAI_DEBUG_TASKS:-}" ]; then chosen=1; fi
for t in ${EASYAI_DEBUG_TASKS:-}; do
  if [ "$t" = "$EASYAI_TASK" ]; then chosen=1; fi
done
if [ -z "$chosen" ]; then exec "$@"; fi
{{ include "easyai-lib.waitTrap" . }}
echo "easyai: debug mode: $EASYAI_TASK waits instead of running its command; start it with: easyai run $EASYAI_JOB --task $EASYAI_TASK"
{{ include "easyai-lib.waitLoop" . }}
{{- end -}}

{{- /*
easyai-lib.waitScript: waits until TERM, INT or HUP, then exits 0. Its sleep
holds none of the container's output, so that a sleep left behind (a signal
before $s is set) keeps nothing open.
*/ -}}
{{- define "easyai-lib.waitScript" -}}
{{ include "easyai-lib.waitTrap" . }}
{{ include "easyai-lib.waitLoop" . }}
{{- end -}}

{{- /*
easyai-lib.waitTrap: the first half of easyai-lib.waitScript, which anything
that announces the wait prints after, so that a TERM sent on seeing the
announcement finds the trap in place.
*/ -}}
{{- define "easyai-lib.waitTrap" -}}
s=
trap 'kill $s 2>/dev/null; exit 0' TERM INT HUP
{{- end -}}

{{- /* easyai-lib.waitLoop: the second half of easyai-lib.waitScript. */ -}}
{{- define "easyai-lib.waitLoop" -}}
while :; do
  sleep 60 </dev/null >/dev/null 2>&1 &
  s=$!
  wait $s
done
{{- end -}}

{{- /* easyai-lib.debugPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.debugPod" -}}
{{- $d := (.ctx.Values.devtools | default dict).debug | default dict -}}
{{- if $d.enabled -}}
{{- $out := dict "podSpec" (dict "activeDeadlineSeconds" (int64 ($d.timeoutSeconds | default 28800))) -}}
{{- if not .kind.ownDebug -}}
{{- $_ := set $out "env" (include "easyai-lib.debugEnv" . | fromYamlArray) -}}
{{- $_ = set $out "command" (concat (list "/bin/sh" "-c" (include "easyai-lib.debugScript" .) "easyai-debug") (.command | default list)) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
{{- end -}}
