//go:build race

package sim_test

// raceEnabled: the race detector slows every chunk (client and server) many
// times over, so the tests that measure lateness under load only log it.
const raceEnabled = true
