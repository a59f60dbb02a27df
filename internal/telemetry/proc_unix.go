//go:build unix

package telemetry

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts macmon (or a script standing in for it) in a
// process group of its own, so that Close reaches its children too and a
// Ctrl-C meant for the benchmark does not.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// terminate signals macmon's process group: SIGTERM, or SIGKILL if kill.
// Close calls it only before it has seen macmon exit, while the group
// still exists.
func terminate(cmd *exec.Cmd, kill bool) {
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	if err := syscall.Kill(-cmd.Process.Pid, sig); err != nil {
		_ = cmd.Process.Signal(sig)
	}
}
