{{- /*
The team's shared storage (docs/storage.md): .Values.storage names one volume
(claim, or nfs.server and nfs.path) and the job's directories on it, relative
to its prefix; every replica gets them mounted at fixed paths and named by
environment variables of the same name:

  summary_dir    /summary_dir    prefix/jobDir/{task}/summary_dir
  model_dir      /model_dir      prefix/jobDir/model_dir
  log_dir        /log_dir        prefix/jobDir/log_dir
  data_dir       /data_dir (ro)  prefix/dataDir
  pre_model_dir  /pre_model_dir (ro, with preJobDir)  prefix/preJobDir/model_dir
  share_dir      /share_dir      prefix/jobDir/share_dir

storage.workspaces lists more directories of the volume ({sub, mountPath}:
prefix/sub at mountPath), a notebook's workspaces (docs/notebooks.md).

{task} is the replica, ROLE-INDEX (worker-0): EASYAI_TASK, whose index the
pod reads from the label or annotation its operator sets (kind.taskIndex, a
downward API field path; "pod": the task is the pod's name). pkg/storage
reads the same table back (TestChartMountsAreTheLayout).

With persistLogs the container's command runs under easyai-lib.teeScript,
which copies its output into log_dir/$EASYAI_TASK.log.
*/ -}}

{{- /*
easyai-lib.taskEnv: the env naming the replica, as a YAML list: EASYAI_TASK
(ROLE-INDEX; the index from kind.taskIndex, a downward API field path, or
the pod's name when it is "pod") and EASYAI_TASK_INDEX. Args: kind, role,
replicas (of the role).
*/ -}}
{{- define "easyai-lib.taskEnv" -}}
{{- $env := list -}}
{{- $index := .kind.taskIndex | default "metadata.labels['training.kubeflow.org/replica-index']" -}}
{{- if eq $index "pod" -}}
{{- $env = append $env (dict "name" "EASYAI_TASK" "valueFrom" (dict "fieldRef" (dict "fieldPath" "metadata.name"))) -}}
{{- else -}}
{{- if eq (int64 .replicas) 1 -}}
{{- $env = append $env (dict "name" "EASYAI_TASK_INDEX" "value" "0") -}}
{{- else -}}
{{- $env = append $env (dict "name" "EASYAI_TASK_INDEX" "valueFrom" (dict "fieldRef" (dict "fieldPath" $index))) -}}
{{- end -}}
{{- $env = append $env (dict "name" "EASYAI_TASK" "value" (printf "%s-$(EASYAI_TASK_INDEX)" .role)) -}}
{{- end -}}
{{- toYaml $env -}}
{{- end -}}

{{- /* easyai-lib.checkStorage: checks .Values.storage and .Values.code. Args: the values. */ -}}
{{- define "easyai-lib.checkStorage" -}}
{{- $s := .storage -}}
{{- include "easyai-lib.checkKind" (dict "path" "storage" "value" $s "kind" "map") -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "storage." "value" $s "known" (list "claim" "nfs" "prefix" "jobDir" "dataDir" "preJobDir" "persistLogs" "workspaces")) -}}
{{- if $s -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "storage.nfs." "value" $s.nfs "known" (list "server" "path")) -}}
{{- include "easyai-lib.checkKind" (dict "path" "storage.persistLogs" "value" $s.persistLogs "kind" "bool") -}}
{{- $claim := include "easyai-lib.string" (dict "path" "storage.claim" "value" $s.claim) -}}
{{- $nfs := $s.nfs | default dict -}}
{{- $server := include "easyai-lib.string" (dict "path" "storage.nfs.server" "value" $nfs.server) -}}
{{- $export := include "easyai-lib.string" (dict "path" "storage.nfs.path" "value" $nfs.path) -}}
{{- if and $claim $server -}}
{{- fail "storage: give claim or nfs, not both" -}}
{{- end -}}
{{- if and $server (not (hasPrefix "/" $export)) -}}
{{- fail "storage.nfs.path: required: the absolute path the server exports" -}}
{{- end -}}
{{- if or $claim $server -}}
{{- range $k := list "prefix" "jobDir" "dataDir" "preJobDir" -}}
{{- $p := include "easyai-lib.string" (dict "path" (print "storage." $k) "value" (index $s $k)) -}}
{{- if or (hasPrefix "/" $p) (hasPrefix "../" $p) (eq $p "..") (contains "/../" $p) (hasSuffix "/.." $p) (contains "$" $p) -}}
{{- fail (printf "storage.%s: %q: must be a relative path that stays below the volume's root" $k $p) -}}
{{- end -}}
{{- end -}}
{{- include "easyai-lib.checkKind" (dict "path" "storage.workspaces" "value" $s.workspaces "kind" "slice") -}}
{{- range $i, $w := $s.workspaces -}}
{{- $wp := printf "storage.workspaces[%d]" $i -}}
{{- include "easyai-lib.checkKind" (dict "path" $wp "value" $w "kind" "map") -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" (print $wp ".") "value" $w "known" (list "sub" "mountPath")) -}}
{{- $sub := include "easyai-lib.string" (dict "path" (print $wp ".sub") "value" $w.sub) -}}
{{- if or (not $sub) (hasPrefix "/" $sub) (hasPrefix "../" $sub) (eq $sub "..") (contains "/../" $sub) (hasSuffix "/.." $sub) (contains "$" $sub) -}}
{{- fail (printf "%s.sub: %q: must be a relative path that stays below the volume's root" $wp $sub) -}}
{{- end -}}
{{- if not (hasPrefix "/" (include "easyai-lib.string" (dict "path" (print $wp ".mountPath") "value" $w.mountPath))) -}}
{{- fail (printf "%s.mountPath: required: an absolute path" $wp) -}}
{{- end -}}
{{- end -}}
{{- range $k := list "jobDir" "dataDir" -}}
{{- if not (index $s $k) -}}
{{- fail (printf "storage.%s: required with a storage (easyai submit sets it)" $k) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $code := .code -}}
{{- include "easyai-lib.checkKind" (dict "path" "code" "value" $code "kind" "map") -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "code." "value" $code "known" (list "git" "dir" "image")) -}}
{{- if $code -}}
{{- include "easyai-lib.checkKeys" (dict "prefix" "code.git." "value" $code.git "known" (list "url" "ref" "subdir" "secret")) -}}
{{- include "easyai-lib.checkKind" (dict "path" "code.dir" "value" $code.dir "kind" "bool") -}}
{{- $git := $code.git | default dict -}}
{{- $url := include "easyai-lib.string" (dict "path" "code.git.url" "value" $git.url) -}}
{{- if and $url $code.dir -}}
{{- fail "code: give git or dir, not both" -}}
{{- end -}}
{{- if and $code.dir (not (or ($s | default dict).claim (($s | default dict).nfs | default dict).server)) -}}
{{- fail "code.dir: needs a storage (the code is uploaded onto it)" -}}
{{- end -}}
{{- if and (or $url $code.dir) (not (include "easyai-lib.string" (dict "path" "workingDir" "value" .workingDir))) -}}
{{- fail "code: needs workingDir, where the code goes" -}}
{{- end -}}
{{- range $k := list "ref" "subdir" "secret" -}}
{{- $_ := include "easyai-lib.string" (dict "path" (print "code.git." $k) "value" (index $git $k)) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /*
easyai-lib.storage: what the storage and the code add to one role's pod, as
YAML {volumes, mounts, env, initContainers}, or nothing. Args: ctx, kind,
role (its name, literal in {task}), replicas (of the role).
*/ -}}
{{- define "easyai-lib.storage" -}}
{{- $v := .ctx.Values -}}
{{- $s := $v.storage | default dict -}}
{{- $out := dict "volumes" list "mounts" list "env" list "initContainers" list -}}
{{- $source := dict -}}
{{- if $s.claim -}}
{{- $source = dict "persistentVolumeClaim" (dict "claimName" (toString $s.claim)) -}}
{{- else if ($s.nfs | default dict).server -}}
{{- $source = dict "nfs" (dict "server" (toString $s.nfs.server) "path" (toString $s.nfs.path)) -}}
{{- end -}}
{{- if $source -}}
{{- $prefix := toString ($s.prefix | default "") -}}
{{- $job := toString $s.jobDir -}}
{{- $at := dict -}}
{{- $env := include "easyai-lib.taskEnv" . | fromYamlArray -}}
{{- $dirs := list
    (dict "env" "summary_dir" "sub" (printf "%s/$(EASYAI_TASK)/summary_dir" $job) "expr" true)
    (dict "env" "model_dir" "sub" (printf "%s/model_dir" $job))
    (dict "env" "log_dir" "sub" (printf "%s/log_dir" $job))
    (dict "env" "data_dir" "sub" (toString $s.dataDir) "ro" true) -}}
{{- with $s.preJobDir -}}
{{- $dirs = append $dirs (dict "env" "pre_model_dir" "sub" (printf "%s/model_dir" (toString .)) "ro" true) -}}
{{- end -}}
{{- $dirs = append $dirs (dict "env" "share_dir" "sub" (printf "%s/share_dir" $job)) -}}
{{- $mounts := list -}}
{{- /* storage.workspaces: more directories of the volume, at mount paths of their own (a notebook's). */ -}}
{{- range $s.workspaces -}}
{{- $sub := ternary (printf "%s/%s" $prefix (toString .sub)) (toString .sub) (ne $prefix "") -}}
{{- $mounts = append $mounts (dict "name" "easyai-storage" "mountPath" (toString .mountPath) "subPath" $sub) -}}
{{- end -}}
{{- range $dirs -}}
{{- $sub := ternary (printf "%s/%s" $prefix .sub) .sub (ne $prefix "") -}}
{{- $m := dict "name" "easyai-storage" "mountPath" (printf "/%s" .env) -}}
{{- if .expr -}}
{{- $_ := set $m "subPathExpr" $sub -}}
{{- else -}}
{{- $_ := set $m "subPath" $sub -}}
{{- end -}}
{{- if .ro -}}
{{- $_ := set $m "readOnly" true -}}
{{- end -}}
{{- $mounts = append $mounts $m -}}
{{- $env = append $env (dict "name" .env "value" (printf "/%s" .env)) -}}
{{- end -}}
{{- $_ := set $out "volumes" (list (dict "name" "easyai-storage" "source" $source)) -}}
{{- $_ = set $out "mounts" $mounts -}}
{{- $_ = set $out "env" $env -}}
{{- $_ = set $out "persistLogs" (and $s.persistLogs true) -}}
{{- end -}}
{{- with include "easyai-lib.code" .ctx | fromYaml -}}
{{- $_ := set $out "volumes" (concat $out.volumes .volumes) -}}
{{- $_ = set $out "mounts" (concat $out.mounts .mounts) -}}
{{- $_ = set $out "initContainers" .initContainers -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{- /*
easyai-lib.code: where the job's code comes from, as YAML {volumes, mounts,
initContainers}, or nothing. code.git: an init container clones url (at ref,
shallow) into an emptyDir at workingDir, or subdir of it; credentials come
only from the Secret code.git.secret (keys username and password, or
ssh-privatekey and known_hosts), mounted into the init container, never in
its arguments. code.dir: the code was uploaded to prefix/jobDir/code, which
is mounted at workingDir. Args: the chart's root context.
*/ -}}
{{- define "easyai-lib.code" -}}
{{- $v := .Values -}}
{{- $code := $v.code | default dict -}}
{{- $git := $code.git | default dict -}}
{{- $wd := toString ($v.workingDir | default "") -}}
{{- if $git.url -}}
{{- $env := list (dict "name" "EASYAI_GIT_URL" "value" (toString $git.url)) (dict "name" "EASYAI_GIT_DEST" "value" "/easyai-code") -}}
{{- with $git.ref -}}
{{- $env = append $env (dict "name" "EASYAI_GIT_REF" "value" (toString .)) -}}
{{- end -}}
{{- $mounts := list (dict "name" "easyai-code" "mountPath" "/easyai-code") -}}
{{- $volumes := list (dict "name" "easyai-code" "source" (dict "emptyDir" dict)) -}}
{{- with $git.secret -}}
{{- $volumes = append $volumes (dict "name" "easyai-code-secret" "source" (dict "secret" (dict "secretName" (toString .) "defaultMode" 256))) -}}
{{- $mounts = append $mounts (dict "name" "easyai-code-secret" "mountPath" "/easyai-code-secret" "readOnly" true) -}}
{{- $env = append $env (dict "name" "EASYAI_GIT_SECRET" "value" "/easyai-code-secret") -}}
{{- end -}}
{{- $init := dict "name" "easyai-code" "image" (toString ($code.image | default "alpine/git:2.47.2")) "command" (list "/bin/sh" "-c" (include "easyai-lib.gitScript" .)) "env" $env "volumeMounts" $mounts -}}
{{- $main := dict "name" "easyai-code" "mountPath" $wd -}}
{{- with $git.subdir -}}
{{- $_ := set $main "subPath" (toString .) -}}
{{- end -}}
{{- toYaml (dict "volumes" $volumes "mounts" (list $main) "initContainers" (list $init)) -}}
{{- else if $code.dir -}}
{{- $s := $v.storage -}}
{{- $prefix := toString ($s.prefix | default "") -}}
{{- $sub := printf "%s/code" (toString $s.jobDir) -}}
{{- $sub = ternary (printf "%s/%s" $prefix $sub) $sub (ne $prefix "") -}}
{{- toYaml (dict "volumes" list "mounts" (list (dict "name" "easyai-storage" "mountPath" $wd "subPath" $sub)) "initContainers" list) -}}
{{- end -}}
{{- end -}}

{{- /*
easyai-lib.gitScript: the init container's clone: shallow, at a branch or tag
(EASYAI_GIT_REF; a commit is fetched by itself), with the credentials of the
mounted Secret: a password through GIT_ASKPASS, a key through GIT_SSH_COMMAND.
*/ -}}
{{- define "easyai-lib.gitScript" -}}
set -eu
s="${EASYAI_GIT_SECRET:-}"
if [ -n "$s" ] && [ -f "$s/password" ]; then
  export GIT_ASKPASS=/tmp/easyai-askpass
  printf '#!/bin/sh\ncase "$1" in Username*) cat %s/username;; *) cat %s/password;; esac\n' "$s" "$s" >"$GIT_ASKPASS"
  chmod 700 "$GIT_ASKPASS"
fi
if [ -n "$s" ] && [ -f "$s/ssh-privatekey" ]; then
  hosts="-o StrictHostKeyChecking=accept-new"
  [ -f "$s/known_hosts" ] && hosts="-o UserKnownHostsFile=$s/known_hosts -o StrictHostKeyChecking=yes"
  export GIT_SSH_COMMAND="ssh -i $s/ssh-privatekey -o IdentitiesOnly=yes $hosts"
fi
export GIT_TERMINAL_PROMPT=0
d="$EASYAI_GIT_DEST"
git init -q "$d"
git -C "$d" remote add origin "$EASYAI_GIT_URL"
git -C "$d" fetch -q --depth 1 origin "${EASYAI_GIT_REF:-HEAD}"
git -C "$d" checkout -q FETCH_HEAD
echo "easyai: cloned ${EASYAI_GIT_REF:-the default branch} at $(git -C "$d" rev-parse --short HEAD)"
{{- end -}}

{{- /*
easyai-lib.teeScript: runs "$@" with its stdout and stderr also appended to
$log_dir/$EASYAI_TASK.log, line by line: awk copies each stream a whole line
at a time, so that a line of stdout and one of stderr never mix in the file
(a program writes a line in pieces: Python does, unbuffered, as the
training-operator runs it). The container's own streams get the same lines
as they come; its log is read by lines anyway. mawk (Debian's awk) reads a
pipe a block at a time unless "-W interactive"; busybox's and GNU awk read
lines as they come, and warn of -W, so the script asks awk first. The
command's exit code is the script's, a command killed by a signal exits
128+N as a shell reports it, and TERM, INT and HUP sent to the script are
passed to the command. When the log cannot be written the command runs as
it is, with one line on stderr. The log is on a volume others write too:
a log path that is a symbolic link is not written through, the file is
opened once (the awks write to that descriptor, /dev/fd/3), and the fifos
are in a directory of the container's own (mktemp -d), never on the
volume, where a replica restarted after a SIGKILL (pid 1 again) found the
last run's.
*/ -}}
{{- define "easyai-lib.teeScript" -}}
f="$log_dir/$EASYAI_TASK.log"
k='{ print; fflush(); print >> f; fflush(f) }'
a=awk
[ -n "$(awk -W interactive 'BEGIN { }' </dev/null 2>&1)" ] || a="awk -W interactive"
if [ -L "$f" ]; then
  echo "easyai: $f is a symbolic link: this replica's output is not kept" >&2
  exec "$@"
fi
p=$(mktemp -d 2>/dev/null)
o="$p/out"
e="$p/err"
if [ -z "$p" ] || ! mkfifo "$o" "$e" 2>/dev/null || ! true 2>/dev/null >>"$f" || ! command exec 3>>"$f"; then
  [ -z "$p" ] || rm -rf "$p"
  echo "easyai: cannot write $f: this replica's output is not kept" >&2
  exec "$@"
fi
$a -v f=/dev/fd/3 "$k" <"$o" &
t1=$!
$a -v f=/dev/fd/3 "$k" <"$e" >&2 &
t2=$!
exec 3>&-
"$@" >"$o" 2>"$e" &
c=$!
trap 'kill -TERM $c 2>/dev/null' TERM
trap 'kill -INT $c 2>/dev/null' INT
trap 'kill -HUP $c 2>/dev/null' HUP
while :; do
  wait $c
  s=$?
  kill -0 $c 2>/dev/null || break
done
wait $t1 $t2
rm -rf "$p"
exit $s
{{- end -}}
