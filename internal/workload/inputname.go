package workload

import (
	"strings"

	"github.com/inferencebench/inferencebench/prompts"
)

// The one naming rule of the prompts of a chosen input length
// (BENCH_INPUT_TOKENS): "in" and the length, "in8192" for one length
// (prompts.InputName), "in-normal-1024-256" and "in-uniform-128-2048" for
// a distribution, whose every request draws its own. config names its
// prompts by it, the driver makes them, and a workload file may not take
// such a name (Name).

// InputName is the prompt name of input lengths d: in<N> for a fixed
// length, in-<kind>-<its numbers> for a distribution.
func InputName(d Distribution) string {
	if d.kind == "fixed" {
		return prompts.InputName(d.Bound())
	}
	return prompts.InputPrefix + "-" + distNamer.Replace(d.String())
}

var distNamer = strings.NewReplacer(":", "-", ",", "-")

// ParseInputName returns the input lengths that name is the prompt of
// (InputName), or false: "in512" is 512 tokens, "in-uniform-128-2048"
// the uniform distribution. Only InputName's own spelling is one.
func ParseInputName(name string) (Distribution, bool) {
	if n, ok := prompts.ParseInputName(name); ok {
		return Fixed(n), true
	}
	rest, ok := strings.CutPrefix(name, prompts.InputPrefix+"-")
	if !ok {
		return Distribution{}, false
	}
	kind, args, _ := strings.Cut(rest, "-")
	var spec string
	switch kind {
	case "normal":
		mean, sd, _ := strings.Cut(args, "-")
		spec = "normal:" + mean + "," + sd
	case "uniform":
		spec = "uniform:" + args
	default:
		return Distribution{}, false
	}
	d, err := ParseDistribution(spec)
	if err != nil || InputName(d) != name {
		return Distribution{}, false
	}
	return d, true
}
