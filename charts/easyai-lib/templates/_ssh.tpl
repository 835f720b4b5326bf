{{- /*
An sshd beside the command (docs/ssh.md): devtools.ssh. Every replica's
command runs under easyai-lib.sshScript, which starts an sshd listening on
port 2222 (a port a non-root user may listen on) and then runs the command.
The sshd is the image's own (/usr/sbin/sshd, ...), or with devtools.ssh.image
a static one that an init container copies from that image's /sshd. It lets
in the keys of authorized_keys of the Secret devtools.ssh.secret (which
submit creates beside the job), with the job's host key from the same
Secret; password login is off. An image without an sshd runs its command as
usual, saying so on stderr: easyai ssh then attaches instead.
*/ -}}

{{- /* The port sshd listens on (pkg/submit's SSHPort agrees). */ -}}
{{- define "easyai-lib.sshPort" -}}2222{{- end -}}

{{- /* easyai-lib.checkSSH: checks devtools.ssh. Args: ctx, kind. */ -}}
{{- define "easyai-lib.checkSSH" -}}
{{- $s := (.ctx.Values.devtools | default dict).ssh | default dict -}}
{{- $secret := include "easyai-lib.string" (dict "path" "devtools.ssh.secret" "value" $s.secret) -}}
{{- $_ := include "easyai-lib.string" (dict "path" "devtools.ssh.image" "value" $s.image) -}}
{{- if $s.enabled -}}
{{- if eq .kind.kind "TrainJob" -}}
{{- fail "devtools.ssh: a TrainJob cannot run it: its pods are its runtime's" -}}
{{- end -}}
{{- if not $secret -}}
{{- fail "devtools.ssh.secret: required (easyai submit creates it beside the job)" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- /*
easyai-lib.sshScript: starts sshd, then runs "$@". EASYAI_SSH_DIR (the
Secret's mount) and EASYAI_SSH_PORT may be set otherwise for a test.
*/ -}}
{{- define "easyai-lib.sshScript" -}}
k="${EASYAI_SSH_DIR:-/etc/easyai-ssh}"
p="${EASYAI_SSH_PORT:-2222}"
sshd=
for s in /opt/easyai-ssh/sshd /usr/sbin/sshd /usr/local/sbin/sshd /sbin/sshd; do
  if [ -x "$s" ]; then sshd=$s; break; fi
done
d=
if [ -n "$sshd" ]; then
  d=$(mktemp -d "${TMPDIR:-/tmp}/easyai-ssh.XXXXXX") &&
  cp "$k/authorized_keys" "$k/ssh_host_ed25519_key" "$d/" &&
  chmod 700 "$d" && chmod 600 "$d/authorized_keys" "$d/ssh_host_ed25519_key" || d=
fi
if [ -n "$d" ]; then
  if [ "$(id -u)" = 0 ]; then mkdir -p /run/sshd && chmod 755 /run/sshd; fi
  printf '%s\n' "Port $p" "HostKey $d/ssh_host_ed25519_key" "AuthorizedKeysFile $d/authorized_keys" \
    "PasswordAuthentication no" "ChallengeResponseAuthentication no" "PermitRootLogin prohibit-password" \
    "StrictModes no" "PidFile $d/sshd.pid" "Subsystem sftp internal-sftp" > "$d/sshd_config"
  if "$sshd" -f "$d/sshd_config" -E "$d/sshd.log"; then
    echo "easyai: sshd listens on port $p (easyai ssh)" >&2
  else
    echo "easyai: sshd did not start (its log: $d/sshd.log): easyai ssh attaches instead" >&2
  fi
else
  echo "easyai: no sshd in this image: easyai ssh attaches instead" >&2
fi
exec "$@"
{{- end -}}

{{- /* easyai-lib.sshPod: see easyai-lib.devtools. Args: ctx, kind, role, replicas, command. */ -}}
{{- define "easyai-lib.sshPod" -}}
{{- $s := (.ctx.Values.devtools | default dict).ssh | default dict -}}
{{- if and $s.enabled .command -}}
{{- $out := dict
    "volumes" (list (dict "name" "easyai-ssh" "source" (dict "secret" (dict "secretName" (toString $s.secret) "defaultMode" 292))))
    "mounts" (list (dict "name" "easyai-ssh" "mountPath" "/etc/easyai-ssh" "readOnly" true))
    "ports" (list (dict "name" "ssh" "containerPort" 2222))
    "command" (concat (list "/bin/sh" "-c" (include "easyai-lib.sshScript" .) "easyai-sshd") .command) -}}
{{- with $s.image -}}
{{- $_ := set $out "volumes" (append $out.volumes (dict "name" "easyai-ssh-bin" "source" (dict "emptyDir" dict))) -}}
{{- $_ = set $out "mounts" (append $out.mounts (dict "name" "easyai-ssh-bin" "mountPath" "/opt/easyai-ssh")) -}}
{{- $_ = set $out "initContainers" (list (dict "name" "easyai-sshd" "image" (toString .) "command" (list "/bin/sh" "-c" "cp /sshd /opt/easyai-ssh/sshd && chmod 755 /opt/easyai-ssh/sshd")
    "volumeMounts" (list (dict "name" "easyai-ssh-bin" "mountPath" "/opt/easyai-ssh")))) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}
{{- end -}}
