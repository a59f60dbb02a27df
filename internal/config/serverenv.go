package config

import (
	"fmt"
	"regexp"
	"strings"
)

// NAME_SERVER_ENV is what the user states of a runtime's server's own
// settings that change its results and that no endpoint of it states
// (Ollama's OLLAMA_NUM_PARALLEL, OLLAMA_FLASH_ATTENTION,
// OLLAMA_KV_CACHE_TYPE): KEY=VALUE pairs, space apart, as the server was
// started with them. The suite sends none of them anywhere: it keeps them
// in the summary (runtimes[].server_env), where two runs whose stated
// settings differ are not comparable. Never a secret: a key that names one
// (a TOKEN, KEY, SECRET, PASSWORD, AUTH or CREDENTIAL part) or a value
// that is a URL with a password is refused.

// serverEnvKey is a variable's name, as a shell takes it.
var serverEnvKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// urlPassword is a URL whose user part has a password (user:pass@).
var urlPassword = regexp.MustCompile(`://[^/@\s]*:[^/@\s]*@`)

// secretParts are the parts of a key (between '_') that name a secret.
var secretParts = []string{"TOKEN", "KEY", "APIKEY", "SECRET", "PASSWORD", "PASSWD", "PASS", "PWD", "AUTH", "CREDENTIAL", "CREDENTIALS", "COOKIE", "PRIVATE"}

// maxServerEnvValue bounds a value's length.
const maxServerEnvValue = 200

// parseServerEnv reads NAME_SERVER_ENV's value raw (variable is its
// name, for messages): nil for none.
func parseServerEnv(variable, raw string) (map[string]string, error) {
	fields := strings.Fields(raw)
	if len(fields) == 0 {
		return nil, nil
	}
	env := map[string]string{}
	for i, f := range fields {
		k, v, ok := strings.Cut(f, "=")
		switch {
		case !ok || v == "":
			// Shown where it is a name: a word of another kind may be
			// a secret pasted alone.
			item := fmt.Sprintf("item %d", i+1)
			if serverEnvKey.MatchString(k) && !secretKey(k) {
				item = fmt.Sprintf("%q", f)
			}
			return nil, fmt.Errorf("%s: %s is not KEY=VALUE: write the server's settings as it was started with them, space apart (OLLAMA_NUM_PARALLEL=4 OLLAMA_FLASH_ATTENTION=1)", variable, item)
		case !serverEnvKey.MatchString(k):
			return nil, fmt.Errorf("%s: %q is not a variable's name (letters, digits and _)", variable, k)
		case secretKey(k):
			return nil, fmt.Errorf("%s: %s looks like a secret, and the settings are written to the summary: leave it out (it does not change the results)", variable, k)
		case urlPassword.MatchString(v):
			return nil, fmt.Errorf("%s: %s is a URL with a password, and the settings are written to the summary: leave it out", variable, k)
		case len(v) > maxServerEnvValue:
			return nil, fmt.Errorf("%s: %s's value is %d characters, more than %d", variable, k, len(v), maxServerEnvValue)
		}
		if _, dup := env[k]; dup {
			return nil, fmt.Errorf("%s: %s is given twice", variable, k)
		}
		env[k] = v
	}
	return env, nil
}

// secretKey reports whether a key names a secret by one of its parts.
func secretKey(k string) bool {
	for _, part := range strings.Split(strings.ToUpper(k), "_") {
		for _, s := range secretParts {
			if part == s {
				return true
			}
		}
	}
	return false
}
