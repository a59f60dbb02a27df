package records

import (
	"testing"

	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// SetEnergy gives each timed record its request's share.
func TestSetEnergy(t *testing.T) {
	e := &stats.Energy{Shares: [][]*stats.RequestEnergy{{{PrefillJ: 1, DecodeJ: 2}, nil}}}
	recs := [][]Record{{{}, {}}}
	SetEnergy(recs, e)
	require.NotNil(t, recs[0][0].EnergyJ)
	assert.Equal(t, 3.0, *recs[0][0].EnergyJ)
	assert.Equal(t, 1.0, *recs[0][0].PrefillEnergyJ)
	assert.Equal(t, 2.0, *recs[0][0].DecodeEnergyJ)
	assert.Nil(t, recs[0][1].EnergyJ)
	SetEnergy(recs, nil) // nothing to set: no panic
}
