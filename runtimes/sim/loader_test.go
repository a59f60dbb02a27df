package sim_test

import (
	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes/sim"
)

func init() { sim.UseLoader(config.LoadSimFrom, config.SimVariables) }
