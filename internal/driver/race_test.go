//go:build race

package driver

// raceEnabled is set under the race detector, whose bookkeeping a memory
// measure would count.
const raceEnabled = true
