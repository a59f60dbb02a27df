package sim

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"time"

	"github.com/caarlos0/env/v11"

	"github.com/inferencebench/inferencebench/internal/envvar"
)

const (
	// Version is what GET /api/version and GET /version report.
	Version = "sim-1"
	// Model is the one model the simulator lists, and the model it reports
	// when a request names none.
	Model = "sim-model"
	// DefaultMaxTokens is n when a request asks for no length (or <= 0).
	DefaultMaxTokens = 128
	// ContextLength is the context length the metadata endpoints report.
	ContextLength = 8192
)

// Config is the simulated schedule.
type Config struct {
	TTFT         time.Duration `env:"SIM_TTFT" envDefault:"50ms"`          // request received -> first token chunk
	TokensPerSec float64       `env:"SIM_TOKENS_PER_SEC" envDefault:"400"` // decode rate after the first token
}

// DefaultConfig is the Config ConfigFromEnv returns with no variables set.
func DefaultConfig() Config {
	return Config{TTFT: 50 * time.Millisecond, TokensPerSec: 400}
}

// ConfigFromEnv reads SIM_TTFT (a Go duration, e.g. 50ms) and
// SIM_TOKENS_PER_SEC (a number) and validates them. An empty variable counts
// as unset.
func ConfigFromEnv() (Config, error) {
	var c Config
	err := envvar.Parse(&c, env.Options{FuncMap: map[reflect.Type]env.ParserFunc{
		reflect.TypeFor[float64](): func(v string) (any, error) {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, errors.New("not a number")
			}
			if math.IsInf(f, 0) || math.IsNaN(f) {
				return nil, errors.New("not a finite number")
			}
			return f, nil
		},
		reflect.TypeFor[time.Duration](): func(v string) (any, error) {
			d, err := time.ParseDuration(v)
			if err != nil {
				return nil, errors.New("not a duration (want e.g. 50ms)")
			}
			return d, nil
		},
	}})
	if err != nil {
		return Config{}, err
	}
	return c, c.Validate()
}

// Validate checks TTFT >= 0 and 0 < TokensPerSec < +Inf. Its errors name
// the environment variable, e.g. `SIM_TOKENS_PER_SEC=0: must be > 0`.
func (c Config) Validate() error {
	var errs []error
	if c.TTFT < 0 {
		errs = append(errs, fmt.Errorf("SIM_TTFT=%v: must be >= 0", c.TTFT))
	}
	switch tps := strconv.FormatFloat(c.TokensPerSec, 'g', -1, 64); {
	case math.IsNaN(c.TokensPerSec):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: not a number", tps))
	case !(c.TokensPerSec > 0):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: must be > 0", tps))
	case math.IsInf(c.TokensPerSec, 0):
		errs = append(errs, fmt.Errorf("SIM_TOKENS_PER_SEC=%s: must be finite", tps))
	}
	return errors.Join(errs...)
}

// maxOffset bounds Offset so that time arithmetic cannot overflow (about
// 146 years).
const maxOffset = time.Duration(math.MaxInt64 / 2)

// Offset is when, after t0, token i is written; Offset(n) is when the
// final chunk(s) of an n-token response are written. It is
// TTFT + i/TokensPerSec, rounded to the nanosecond.
func (c Config) Offset(i int) time.Duration {
	d := c.TTFT + c.decode(i)
	if d < c.TTFT { // overflow
		return math.MaxInt64
	}
	return d
}

// decode is i/TokensPerSec.
func (c Config) decode(i int) time.Duration {
	d := math.Round(float64(i) * 1e9 / c.TokensPerSec)
	if !(d < float64(maxOffset)) { // also catches NaN
		return maxOffset
	}
	return time.Duration(d)
}
