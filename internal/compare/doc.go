// Package compare holds the tests of scripts/compare.sh, which compares
// saved benchmark runs with go tool benchstat, and the generator of their
// fixtures in scripts/testdata (go test ./internal/compare -update).
//
// The fixtures are two nightly runs of one setup on a Mac, a day apart, in
// which only vllm-metal's version changed (0.28.0+cpu to 0.29.1, decoding
// about 10% faster): their summary JSON files differ in run_id, created_at,
// completed_at, versions and the figures, their benchstat files only in the
// numbers, as the suite writes them.
package compare
