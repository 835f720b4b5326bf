package sshaccess

import (
	"os"
	"path/filepath"

	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// ProxyOf is how an ssh ProxyCommand runs this easyai: its absolute path,
// and the kubeconfig and context of the run's connection flags (nil: none),
// pinned (a later change of the current context must not send a
// connection elsewhere).
func ProxyOf(cf *genericclioptions.ConfigFlags) (Proxy, error) {
	exe, err := os.Executable()
	if err != nil {
		return Proxy{}, err
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	p := Proxy{Executable: exe}
	if cf == nil {
		return p, nil
	}
	if cf.KubeConfig != nil && *cf.KubeConfig != "" {
		p.Kubeconfig, _ = filepath.Abs(*cf.KubeConfig)
	} else if env := os.Getenv("KUBECONFIG"); env != "" && filepath.SplitList(env)[0] == env {
		p.Kubeconfig, _ = filepath.Abs(env)
	}
	if cf.Context != nil && *cf.Context != "" {
		p.Context = *cf.Context
	} else if raw, err := cf.ToRawKubeConfigLoader().RawConfig(); err == nil {
		p.Context = raw.CurrentContext
	}
	return p, nil
}

// KnownHostsDir is where easyai keeps the known hosts of the jobs' sshd:
// $XDG_CONFIG_HOME/easyai/ssh (~/.config/easyai/ssh).
func KnownHostsDir() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "easyai", "ssh"), nil
}
