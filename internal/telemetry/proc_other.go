//go:build !unix

package telemetry

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

// terminate kills macmon: without process groups there is no gentler way.
func terminate(cmd *exec.Cmd, _ bool) { _ = cmd.Process.Kill() }
