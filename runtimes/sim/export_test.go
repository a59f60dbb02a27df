package sim

// The SIM_ variables are read by internal/config (LoadSimFrom,
// SimVariables), which imports this package: its own tests cannot import
// it back, so loader_test.go, of package sim_test, hands them over.
var (
	load      func(environ map[string]string) (Config, error)
	variables func() []string
)

// UseLoader gives this package's own tests internal/config's loader of the
// SIM_ variables and its list of them.
func UseLoader(loadFrom func(map[string]string) (Config, error), vars func() []string) {
	load, variables = loadFrom, vars
}
