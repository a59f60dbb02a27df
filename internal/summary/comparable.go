package summary

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/workload"
	"github.com/inferencebench/inferencebench/runtimes"
)

// Which runs compare: the settings, recorded in a summary's "arguments"
// and "prompts", that decide what work each request was, so that two runs
// that differ in one did different work and their figures do not compare —
// a reply of 64 tokens is over sooner than one of 128, and the canary
// reply is cut shorter too. cmd/compare refuses such a pair; cmd/history
// starts a new series where one changes.
//
// The rule is settings, below: each one's key in "arguments", the
// config.Settings field that sets it (whose env tag, config.Var, is the
// variable) and the rows it shapes. A prompt's text (BENCH_PROMPTS_DIR, or
// the suite's own) is one more setting, for that prompt's rows.
//
// The server's own settings a run states (NAME_SERVER_ENV, kept as
// runtimes[].server_env: Ollama's OLLAMA_NUM_PARALLEL, …) shape its
// runtime's rows too: where both runs stated some, one that differs (or
// that one stated and the other left at its default) makes the runs not
// comparable, and a series of history is its runtime's with those
// settings.
//
// The workload keys — cache mode, turns, shared prefix — are settings of
// the same kind, but they are configuration lines of the benchstat file
// (Run.Workload), which compare checks there and history keeps in its
// series key; they are not repeated here. Which prompts, loads and
// runtimes ran makes other rows, not other figures; an in<N> prompt's
// length is in its name. Settings that change only how many samples there
// are (count, rounds, benchtime, warmups) or how long a request may take
// (timeout, idle_timeout) compare, as do the seed (the canary is at
// temperature 0), keep_alive, fresh, order, control, canary, power and the
// idle baseline. The SLO changes goodput alone, which history does not
// judge: compare says when it differs, and compares.
//
// A trace is replayed as an open loop at its recorded times: a run that
// replayed one (trace_speed above 0) ran an open loop even without
// BENCH_RATES, at the prompt named after arguments.workload, whose rows
// BENCH_BURSTINESS does not shape. One that replayed none writes
// trace_speed 0, which is read as a file without the key.

// setting is one of the arguments in the rule.
type setting struct {
	key string // in "arguments"
	// field is the config.Settings field that sets it, whose env tag
	// names its variable in messages (config.Var).
	field string
	// absent is what a file without the key did: the suite's default
	// when the key was first written, sent (or not) before it. It is
	// history, not config's default of today: a file written before the
	// key keeps meaning what its run did even if the default moves, so
	// it is written here and never read from config's defaults (config.Default).
	absent string
	// unused is the value written when the setting shaped no request
	// (trace_speed 0: no trace ran), read as the key's absence; "" if
	// none is.
	unused string
	// applies says whether the setting shapes a row of a runtime of kind
	// ("" when the file does not say) in the loops l.
	applies func(kind string, l loops) bool
}

// loops are the open loops a row ran, or two runs both ran; neither is a
// closed loop.
type loops struct {
	rates bool // BENCH_RATES' arrivals
	trace bool // a trace's recorded times
}

var settings = []setting{
	{"max_tokens", "MaxTokensDist", "128", "", everyRow},
	{"temperature", "Temperature", "0", "", everyRow},
	// Ollama is not asked to ignore the end of sequence.
	{"ignore_eos", "IgnoreEOS", "false", "", func(kind string, _ loops) bool {
		p, ok := runtimes.ProtocolOf(runtimes.Kind(kind))
		return !ok || p.IgnoreEOS // a kind the file does not say: any
	}},
	// Only Ollama is sent num_ctx.
	{"num_ctx", "NumCtx", "none", "", func(kind string, _ loops) bool {
		p, ok := runtimes.ProtocolOf(runtimes.Kind(kind))
		return kind == "" || ok && p.NumCtx
	}},
	// A trace keeps its own times.
	{"burstiness", "Burstiness", "1", "", func(_ string, l loops) bool { return l.rates }},
	{"max_inflight", "MaxInflight", "256", "", func(_ string, l loops) bool { return l.rates || l.trace }},
	// The tools file's bytes; absent: none.
	{"tools_sha256", "Tools", "none", "", everyRow},
	{"trace_speed", "TraceSpeed", "1", "0", func(_ string, l loops) bool { return l.trace }},
}

func everyRow(string, loops) bool { return true }

// promptEnv is where a prompt's text comes from, for messages.
var promptEnv = config.Var("PromptsDir")

// Settings are a run's settings of the rule, as its summary has them
// (SettingsOf).
type Settings struct {
	values  map[string]string // by key, those the file has; null is "none"
	names   []string          // the prompts, in the file's order
	prompts map[string]string // their texts
	kinds   map[string]string // the runtimes' kinds, by name
	// serverEnv are the runtimes' servers' settings as stated
	// (runtimes[].server_env), by name; a runtime that stated none has none.
	serverEnv map[string]map[string]string
	rates     bool   // BENCH_RATES' open loops ran (arguments.rates)
	traced    bool   // a trace was replayed (trace_speed)
	trace     string // at this prompt; "" if the file does not say
	slo       *string
}

// SettingsOf reads the settings of the summary f, decoded from data (the
// file's bytes, which tell a key the file lacks from one written as zero).
func SettingsOf(f *File, data []byte) (Settings, error) {
	s := Settings{values: map[string]string{}, prompts: map[string]string{}, kinds: map[string]string{},
		rates: len(f.Arguments.Rates) > 0, slo: f.Arguments.SLO}
	args, err := rawArguments(data)
	if err != nil {
		return Settings{}, err
	}
	for _, st := range settings {
		if raw, ok := args[st.key]; ok {
			if v := showRaw(raw); st.unused == "" || v != st.unused {
				s.values[st.key] = v
			}
		}
	}
	if _, ok := s.values["trace_speed"]; ok {
		s.traced = true
		if w := f.Arguments.Workload; w != nil {
			s.trace, _ = workload.Name(*w) // the run took the name: it was valid
		}
	}
	for _, p := range f.Prompts {
		s.names = append(s.names, p.Name)
		s.prompts[p.Name] = p.Text
	}
	for _, rt := range f.Runtimes {
		s.kinds[rt.Name] = rt.Kind
		if len(rt.ServerEnv) > 0 {
			if s.serverEnv == nil {
				s.serverEnv = map[string]map[string]string{}
			}
			s.serverEnv[rt.Name] = rt.ServerEnv
		}
	}
	return s, nil
}

// ReadComparable reads the summary at path as Read does, with its
// settings.
func ReadComparable(path string) (*File, Settings, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, Settings{}, err // *PathError names the file
	}
	f, err := Decode(data)
	if err == nil {
		var s Settings
		if s, err = SettingsOf(f, data); err == nil {
			return f, s, nil
		}
	}
	return nil, Settings{}, fmt.Errorf("%s: %w", path, err)
}

// rawArguments returns the keys of the summary's "arguments" object, nil
// if it has none. It reads no further than that object (the fourth key of
// the suite's files), so that a file's rows are not scanned twice.
func rawArguments(data []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a summary JSON: want an object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
		if tok == "arguments" {
			var args map[string]json.RawMessage
			if err := dec.Decode(&args); err != nil {
				return nil, fmt.Errorf(`not a summary JSON: "arguments": %v`, err)
			}
			return args, nil
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, fmt.Errorf("not JSON: %v", err)
		}
	}
	return nil, nil
}

// showRaw is a JSON value as the settings show it: a number as it reads
// (128, 0.7), null as none, a string unquoted.
func showRaw(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return string(raw)
	}
	switch v := v.(type) {
	case nil:
		return "none"
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	case bool:
		return strconv.FormatBool(v)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// Difference is a setting whose value differs between two runs.
type Difference struct {
	Setting string // the key in "arguments" (max_tokens), or "prompt NAME" for a prompt's text
	Env     string // the variable that sets it
	// Old and New are the values as shown: a prompt's text quoted, cut
	// around the first character that differs.
	Old, New string
}

// Differences returns the settings in which old and new differ (the
// server settings both stated last, serverEnvDifferences), of those
// both files have (a file without one compares as before the key existed)
// and that shape rows both runs could share: ignore_eos only where both
// ran an OpenAI-kind runtime of the same name, num_ctx an Ollama one,
// burstiness where both ran BENCH_RATES, max_inflight where both ran an
// open loop (a trace is one), trace_speed where both replayed a trace,
// and the texts of the prompts both ran.
func Differences(old, new Settings) []Difference {
	var out []Difference
	for _, st := range settings {
		o, okOld := old.values[st.key]
		n, okNew := new.values[st.key]
		if !okOld || !okNew || o == n || !bothApply(st, old, new) {
			continue
		}
		out = append(out, Difference{Setting: st.key, Env: config.Var(st.field), Old: o, New: n})
	}
	for _, name := range old.names {
		n, ok := new.prompts[name]
		if o := old.prompts[name]; ok && o != n {
			so, sn := showTexts(o, n)
			out = append(out, Difference{Setting: "prompt " + name, Env: promptEnv, Old: so, New: sn})
		}
	}
	return append(out, serverEnvDifferences(old, new)...)
}

// serverEnvUnset is a server setting's value, in a run that stated its
// server's settings, where it stated not that one: the server's default.
const serverEnvUnset = "(unset)"

// serverEnvDifferences are the server settings (runtimes[].server_env) in
// which a runtime of both runs differs, where both runs stated some: a
// key one of them left out is the server's default there. A run that
// stated none of its server's settings compares as before they were
// kept: unknown, not different.
func serverEnvDifferences(old, new Settings) []Difference {
	var out []Difference
	for _, name := range slices.Sorted(maps.Keys(old.serverEnv)) {
		o, n := old.serverEnv[name], new.serverEnv[name]
		if n == nil {
			continue
		}
		keys := slices.Sorted(maps.Keys(o))
		for k := range n {
			if _, ok := o[k]; !ok {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			ov, nv := orUnset(o, k), orUnset(n, k)
			if ov != nv {
				out = append(out, Difference{Setting: name + " server " + k, Env: config.EnvPrefix(name) + "SERVER_ENV", Old: ov, New: nv})
			}
		}
	}
	return out
}

func orUnset(env map[string]string, k string) string {
	if v, ok := env[k]; ok {
		return v
	}
	return serverEnvUnset
}

// bothApply says whether st shapes some row both runs could have: a
// runtime of both (the kind either gives it; unknown when neither lists
// runtimes) in the loop both ran.
func bothApply(st setting, old, new Settings) bool {
	open := loops{rates: old.rates && new.rates, trace: old.traced && new.traced}
	common := false
	for name, kind := range old.kinds {
		other, ok := new.kinds[name]
		if !ok {
			continue
		}
		common = true
		if st.applies(kind, open) || st.applies(other, open) {
			return true
		}
	}
	return !common && st.applies("", open)
}

// SLOs returns the goodput targets of two runs that both set one and set
// different ones; ok is false otherwise.
func SLOs(old, new Settings) (o, n string, ok bool) {
	if old.slo == nil || new.slo == nil || *old.slo == *new.slo {
		return "", "", false
	}
	return *old.slo, *new.slo, true
}

// Value is a setting's value in one run, for one row.
type Value struct {
	Setting string // as in Difference
	Value   string // a prompt's text whole; "" for a prompt without one
}

// String is the value as a label shows it: max_tokens=64, a prompt's text
// quoted and cut.
func (v Value) String() string { return v.Setting + "=" + v.show() }

func (v Value) show() string {
	if strings.HasPrefix(v.Setting, "prompt ") {
		if v.Value == "" {
			return "(no text)"
		}
		return cutAround(v.Value, 0)
	}
	return v.Value
}

// Change says how a setting went from before to after: "max_tokens 128 →
// 64", a prompt's texts cut around where they differ.
func Change(before, after Value) string {
	b, a := before.show(), after.show()
	if strings.HasPrefix(before.Setting, "prompt ") && before.Value != "" && after.Value != "" {
		b, a = showTexts(before.Value, after.Value)
	}
	return before.Setting + " " + b + " → " + a
}

// Of returns the settings that shape the row of runtime at prompt in a
// closed loop or an open one (open: BENCH_RATES', or the trace's at its
// prompt), each with its value in the run; a
// setting the file lacks has the value it had before the key existed
// (the suite's default), so that an older run stays in its series.
func (s Settings) Of(runtime, prompt string, open bool) []Value {
	kind := s.kinds[runtime]
	var l loops
	if open {
		l.trace = s.traced && (prompt == s.trace || s.trace == "" && !s.rates)
		l.rates = !l.trace
	}
	var out []Value
	for _, st := range settings {
		if !st.applies(kind, l) {
			continue
		}
		v, ok := s.values[st.key]
		if !ok {
			v = st.absent
		}
		out = append(out, Value{Setting: st.key, Value: v})
	}
	if prompt != "" {
		out = append(out, Value{Setting: "prompt " + prompt, Value: s.prompts[prompt]})
	}
	env := s.serverEnv[runtime]
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, Value{Setting: "server " + k, Value: env[k]})
	}
	return out
}

// textShown is how many characters of a prompt's text a message shows.
const textShown = 40

// showTexts quotes two texts for a message, each cut to textShown
// characters around the first one where they differ.
func showTexts(a, b string) (string, string) {
	at := 0
	for ra, rb := []rune(a), []rune(b); at < len(ra) && at < len(rb) && ra[at] == rb[at]; at++ {
	}
	return cutAround(a, at), cutAround(b, at)
}

// cutAround quotes up to textShown characters of s, beginning a little
// before rune index at, with … where it is cut.
func cutAround(s string, at int) string {
	r := []rune(s)
	from := 0
	if at > textShown/2 {
		from = at - textShown*3/10
	}
	from = min(from, max(0, len(r)-textShown))
	to := min(len(r), from+textShown)
	out := string(r[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(r) {
		out += "…"
	}
	return fmt.Sprintf("%q", out)
}
