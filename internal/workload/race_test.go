//go:build race

package workload

// raceEnabled: the race detector is on, and every copy slower: the
// performance tests build fewer texts, and the timing test does not run.
const raceEnabled = true
