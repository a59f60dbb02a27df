//go:build race

package runtimes_test

const raceEnabled = true
