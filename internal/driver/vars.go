package driver

import "github.com/inferencebench/inferencebench/internal/config"

// The settings the driver's messages name, each read from its config
// field's env tag (config.Var), so that a message never spells a
// variable the suite does not read.
var (
	envControlMax      = config.Var("ControlMax")
	envCooldown        = config.Var("Cooldown")
	envFresh           = config.Var("Fresh")
	envIdlePowerS      = config.Var("IdlePowerS")
	envImages          = config.Var("Images")
	envInputTokens     = config.Var("InputLengths")
	envMacmon          = config.Var("Macmon")
	envMaxFailures     = config.Var("MaxFailures")
	envMaxTokens       = config.Var("MaxTokensDist")
	envMetricsInterval = config.Var("MetricsInterval")
	envOrder           = config.Var("Order")
	envOutputDir       = config.Var("OutputDir")
	envPower           = config.Var("Power")
	envPowerInterval   = config.Var("PowerInterval")
	envProgress        = config.Var("Progress")
	envPrompts         = config.Var("Prompts")
	envPromptsDir      = config.Var("PromptsDir")
	envRuntimes        = config.Var("Runtimes")
	envSharedPrefix    = config.Var("SharedPrefix")
	envSkipUnreachable = config.Var("SkipUnreachable")
	envTools           = config.Var("Tools")
	envTurns           = config.Var("Turns")
	envWorkload        = config.Var("Workload")
	envWorkloadN       = config.Var("WorkloadN")
)
