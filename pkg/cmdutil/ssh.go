package cmdutil

import (
	"os"
	"path/filepath"

	"github.com/easyai-dev/easyai/pkg/sshaccess"
)

// SSHProxy is how an ssh ProxyCommand runs this easyai: its absolute path,
// and the kubeconfig and context of this run, pinned (a later change of
// the current context must not send a connection elsewhere).
func SSHProxy(f *Factory) (sshaccess.Proxy, error) {
	exe, err := os.Executable()
	if err != nil {
		return sshaccess.Proxy{}, err
	}
	if abs, err := filepath.EvalSymlinks(exe); err == nil {
		exe = abs
	}
	p := sshaccess.Proxy{Executable: exe}
	cf := f.ConfigFlags
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

// SSHDir is where easyai keeps the known hosts of the jobs' sshd:
// $XDG_CONFIG_HOME/easyai/ssh (~/.config/easyai/ssh).
func SSHDir() (string, error) {
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
