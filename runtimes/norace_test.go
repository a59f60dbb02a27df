//go:build timing && !race

package runtimes_test

const raceEnabled = false

const slack = 1.0
