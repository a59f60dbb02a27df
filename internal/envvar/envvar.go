// Package envvar reads settings from the environment with caarlos0/env and
// makes its errors speak of variables: they name the variable and the value
// as the user wrote it, not the Go field it fills.
package envvar

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/caarlos0/env/v11"
)

// Parse fills the struct v points to from the environment, as
// env.ParseWithOptions does, reading a bool as a switch (ParseSwitch: on
// or off, or as before 1/0, true/false) unless opts.FuncMap has a parser
// of its own for bool.
func Parse(v any, opts env.Options) error {
	if _, ok := opts.FuncMap[reflect.TypeFor[bool]()]; !ok {
		funcs := map[reflect.Type]env.ParserFunc{reflect.TypeFor[bool](): ParseSwitch}
		maps.Copy(funcs, opts.FuncMap)
		opts.FuncMap = funcs
	}
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
				v := Get(opts.Environment, key)
				errs = append(errs, fmt.Errorf("%s=%q: %s", key, v, unquote(cause(pe.Err), v)))
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

// unquote leaves out of msg the value v it names again after
// "VARIABLE=v: ": a leading quote of v ("\"128tok\": "), as often as it
// comes, and its quote before " is …", so that the message names the
// value once: BENCH_MAX_TOKENS="128tok": not a whole number of tokens.
func unquote(msg, v string) string {
	q := strconv.Quote(v)
	for strings.HasPrefix(msg, q+": ") {
		msg = strings.TrimPrefix(msg, q+": ")
	}
	if rest, ok := strings.CutPrefix(msg, q+" is "); ok {
		return rest
	}
	return msg
}

// cause strips strconv's wrapping ("strconv.ParseInt: parsing "x": invalid
// syntax") down to what a user needs.
func cause(err error) string {
	if errors.Is(err, ErrSwitch) {
		return "not on or off"
	}
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

// Names are the variables Parse reads into the struct v points to with
// opts.Prefix: its fields' env tags, the prefix before each, in the
// fields' order. It is the one list of a settings struct's variables, for
// checks of the names a user set (see Closest).
func Names(v any, prefix string) []string {
	params, err := env.GetFieldParamsWithOptions(v, env.Options{Prefix: prefix})
	if err != nil {
		panic(fmt.Sprintf("envvar: the env tags of %T: %v", v, err))
	}
	names := make([]string, 0, len(params))
	for _, p := range params {
		names = append(names, p.Key)
	}
	return names
}

// Closest returns the name of names nearest to name and its distance: the
// fewest letters added, removed, replaced or swapped with a neighbour that
// make one into the other (the optimal string alignment distance). Of
// names at the same distance, the first wins; with no names, it returns
// "" and -1.
func Closest(name string, names []string) (string, int) {
	best, dist := "", -1
	for _, n := range names {
		if d := Distance(name, n); dist < 0 || d < dist {
			best, dist = n, d
		}
	}
	return best, dist
}

// Distance is the optimal string alignment distance between a and b, in
// bytes: how many insertions, deletions, substitutions and transpositions
// of two neighbours turn a into b (CONCURENCY is 1 from CONCURRENCY,
// OLLAMA_MODLE 1 from OLLAMA_MODEL).
func Distance(a, b string) int {
	// d[i][j] is the distance between a[:i] and b[:j].
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// Var is the variable Parse reads into the field named field of the
// struct v points to: its env tag. It panics on a field without one, a
// mistake of the caller's code.
func Var(v any, field string) string {
	f, ok := reflect.TypeOf(v).Elem().FieldByName(field)
	name := f.Tag.Get("env")
	if !ok || name == "" {
		panic(fmt.Sprintf("envvar: %T has no field %s with an env tag", v, field))
	}
	return name
}
