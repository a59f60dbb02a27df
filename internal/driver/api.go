package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
)

// BENCH_API: the API every request goes through. The chat needs nothing
// more; another one is asked of every runtime at setup, so that a server
// that does not serve it is refused before any request, naming it.

// api is the run's API, as runtimes names it (the chat for Settings
// made without Load, whose API is empty).
func (d *Driver) api() runtimes.API {
	if d.Settings.API == "" {
		return runtimes.APIChat
	}
	return runtimes.API(d.Settings.API)
}

// checkAPI asks every runtime that answered whether it serves the run's
// API (runtimes.Runtime.CheckAPI), and refuses the run if one does not.
func (d *Driver) checkAPI(ctx context.Context) error {
	api := d.api()
	if api == runtimes.APIChat {
		return nil
	}
	var errs []error
	for _, rt := range d.Runtimes {
		if d.unavailable[rt.Name] != nil {
			continue
		}
		if err := rt.CheckAPI(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: %w", config.Var("API"), api, err))
		}
	}
	if len(errs) > 0 {
		errs = append(errs, fmt.Errorf("%s=chat (the default) benchmarks the chat, which every runtime serves", config.Var("API")))
	}
	return errors.Join(errs...)
}
