//go:build timing && race

package runtimes_test

const raceEnabled = true

// slack widens timing bounds under the race detector, which slows every
// request and chunk several times over: the race run is there to find data
// races; the plain run holds the client to the real bounds.
const slack = 5.0
