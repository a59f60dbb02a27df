// Package envvar reads settings from the environment with caarlos0/env and
// makes its errors speak of variables: they name the variable and the value
// as the user wrote it, not the Go field it fills.
package envvar

import (
	"errors"
	"fmt"
	"os"
	"reflect"
	"strconv"

	"github.com/caarlos0/env/v11"
)

// Parse fills the struct v points to from the environment, as
// env.ParseWithOptions does.
func Parse(v any, opts env.Options) error {
	err := env.ParseWithOptions(v, opts)
	if err == nil {
		return nil
	}
	var agg env.AggregateError
	if !errors.As(err, &agg) {
		return err
	}
	t := reflect.TypeOf(v).Elem()
	var errs []error
	for _, e := range agg.Errors {
		var pe env.ParseError
		if errors.As(e, &pe) {
			if f, ok := t.FieldByName(pe.Name); ok {
				key := opts.Prefix + f.Tag.Get("env")
				errs = append(errs, fmt.Errorf("%s=%q: %s", key, Get(opts.Environment, key), cause(pe.Err)))
				continue
			}
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// Get returns key's value in environ, or in the process's environment
// when environ is nil (as env.Options.Environment reads).
func Get(environ map[string]string, key string) string {
	if environ == nil {
		return os.Getenv(key)
	}
	return environ[key]
}

// cause strips strconv's wrapping ("strconv.ParseInt: parsing "x": invalid
// syntax") down to what a user needs.
func cause(err error) string {
	var ne *strconv.NumError
	if errors.As(err, &ne) {
		if ne.Func == "ParseBool" {
			return "not a boolean (use 1 or 0, true or false)"
		}
		switch ne.Err {
		case strconv.ErrSyntax:
			return "not a number"
		case strconv.ErrRange:
			return "out of range"
		}
	}
	return err.Error()
}
