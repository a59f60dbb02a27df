package main

import (
	"fmt"

	"github.com/inferencebench/inferencebench/internal/summary"
)

// disturbedOf says how row's leaf runs ran disturbed, "" if none did.
func disturbedOf(row *summary.Row) string {
	n, most, cores := row.Disturbance()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("during %d of %d leaf runs other processes used up to %.2f of %d cores", n, len(row.LeafRuns), most, cores)
}
