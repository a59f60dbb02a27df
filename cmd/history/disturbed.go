package main

import (
	"github.com/inferencebench/inferencebench/internal/summary"
)

// disturbedOf says how row's leaf runs were not clean samples (other
// processes' CPU, a throttled or swapping machine: summary.Row.Unclean),
// "" if all were.
func disturbedOf(row *summary.Row) string {
	return row.Unclean("")
}
