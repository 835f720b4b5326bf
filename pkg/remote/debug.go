package remote

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// CommandEnv is the env of a debugged replica's container that holds its
// command, shell-quoted (charts/easyai-lib/templates/_debug.tpl).
const CommandEnv = "EASYAI_COMMAND"

// debugTasksEnv names the replicas that wait, when not every one does.
const debugTasksEnv = "EASYAI_DEBUG_TASKS"

// Shell is the exec command that runs a shell-quoted command line.
func Shell(command string) []string { return []string{"/bin/sh", "-c", command} }

// Waiting maps each replica of the job that waits in debug mode to its
// command: every replica whose pod's container keeps EASYAI_COMMAND, and
// that EASYAI_DEBUG_TASKS names when it names some. Replicas without a pod
// yet are left out.
func Waiting(j *Job) map[string]string {
	pods := map[string]*corev1.Pod{}
	for i := range j.Pods {
		pods[j.Pods[i].Name] = &j.Pods[i]
	}
	out := map[string]string{}
	for _, r := range j.Replicas {
		p := pods[r.Pod]
		if p == nil {
			continue
		}
		for _, c := range p.Spec.Containers {
			env := map[string]string{}
			for _, e := range c.Env {
				if e.ValueFrom == nil {
					env[e.Name] = e.Value
				}
			}
			command, ok := env[CommandEnv]
			if !ok {
				continue
			}
			if tasks := strings.Fields(env[debugTasksEnv]); len(tasks) > 0 && !contains(tasks, r.Task) {
				break
			}
			out[r.Task] = command
			break
		}
	}
	return out
}

// KeepsCommand says whether a pod of the job keeps a command for "easyai
// run": false for a job in its kind's own debug mode (ColossalAI), whose
// pods run no wait of easyai's, and for one whose pods are not made yet.
func KeepsCommand(j *Job) bool {
	for _, p := range j.Pods {
		for _, c := range p.Spec.Containers {
			for _, e := range c.Env {
				if e.Name == CommandEnv {
					return true
				}
			}
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
