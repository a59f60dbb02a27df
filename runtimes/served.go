package runtimes

// What a server says of the model it serves (Served), read from what
// Describe fetched (metadata.go), and the ways servers write a model's
// quantization and parameter count.

import (
	"cmp"
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// Served is what a server says of the model it serves, normalized across
// servers; a nil field is one it does not say. It is the summary's
// model_metadata.<runtime>.served.
type Served struct {
	// Family is the model's architecture as the server names it, lower
	// case: Ollama's details.family, LM Studio's arch.
	Family *string `json:"family"`
	// Parameters is the model's size: Ollama's parameter_size ("8.2B"),
	// llama.cpp's /v1/models meta.n_params written the same way.
	Parameters *string `json:"parameters"`
	// Quantization is the weights' type: Ollama's quantization_level, LM
	// Studio's quantization, else read from the model's file or name
	// (GGUF types as Q4_K_M, MLX bits as "4-bit", NVFP4, AWQ, …).
	Quantization *string `json:"quantization"`
	// Format is the weights' format: "GGUF", "MLX" or "safetensors".
	Format *string `json:"format"`
	// Context is the context length in tokens the server states (see
	// Info.ContextLimit; LM Studio's loaded or max_context_length;
	// llama.cpp's n_ctx_train).
	Context *int `json:"context"`
}

// The formats of Served.Format.
const (
	FormatGGUF        = "GGUF"
	FormatMLX         = "MLX"
	FormatSafetensors = "safetensors"
)

// ServedOf reads Served for model from what Describe fetched (models:
// Info.Models). Each server says it its own way:
//
//   - Ollama: /api/show details (family, parameter_size,
//     quantization_level, format) and model_info <arch>.context_length;
//   - llama.cpp: /props model_path (the GGUF file, whose name carries the
//     quantization) and n_ctx, /v1/models meta (n_params, n_ctx_train);
//   - LM Studio: its /api/v0/models entry (arch, quantization,
//     compatibility_type "gguf" or "mlx", max_context_length);
//   - vLLM: /v1/models max_model_len, and the model's name (root);
//   - mlx_lm.server: /v1/models lists ids only (no owned_by): the format
//     and quantization only as the name states them (mlx-community's
//     "-4bit" is MLX 4-bit); a folder of Hugging Face safetensors, or a
//     generic OpenAI server that also leaves owned_by out, is of a format
//     not stated.
func ServedOf(models json.RawMessage, model string) Served {
	var m servedSources
	var s Served
	if len(models) == 0 || json.Unmarshal(models, &m) != nil {
		return s
	}
	entry := m.entry(model)
	s.fromShow(m.Show)
	s.fromLMStudio(m.LMStudio)
	if m.fromEntry(&s, entry) {
		setOnce(&s.Format, FormatGGUF)
	}
	names := m.names(entry, model)
	for _, n := range names {
		setOnce(&s.Quantization, QuantizationInName(n))
	}
	for _, n := range names {
		setOnce(&s.Format, formatInName(n))
	}
	if limit, _ := (Info{Models: models}).ContextLimit(model); limit > 0 && (s.Context == nil || m.LMStudio == nil) {
		s.Context = &limit
	}
	return s
}

// servedSources is what ServedOf reads of Info.Models: the /v1/models
// entries, and what Describe added beside them.
type servedSources struct {
	Data []struct {
		ID      string          `json:"id"`
		Root    string          `json:"root"`
		OwnedBy json.RawMessage `json:"owned_by"`
		Meta    *struct {
			NParams   float64 `json:"n_params"`
			NCtxTrain int     `json:"n_ctx_train"`
		} `json:"meta"`
	} `json:"data"`
	Props *struct {
		ModelPath string `json:"model_path"`
	} `json:"props"`
	Show     *ollamaShow     `json:"show"`
	LMStudio *lmstudioServed `json:"lmstudio"`
}

// ollamaShow is what ServedOf reads of Ollama's /api/show.
type ollamaShow struct {
	Details struct {
		Family            string `json:"family"`
		ParameterSize     string `json:"parameter_size"`
		QuantizationLevel string `json:"quantization_level"`
		Format            string `json:"format"`
	} `json:"details"`
	ModelInfo map[string]json.RawMessage `json:"model_info"`
}

// lmstudioServed is what ServedOf reads of LM Studio's /api/v0/models
// entry.
type lmstudioServed struct {
	Arch                string `json:"arch"`
	Quantization        string `json:"quantization"`
	CompatibilityType   string `json:"compatibility_type"`
	MaxContextLength    int    `json:"max_context_length"`
	LoadedContextLength int    `json:"loaded_context_length"`
}

// setOnce sets *p to v, trimmed, unless *p is set or v is blank: the
// first source to say a fact wins.
func setOnce(p **string, v string) {
	if v = strings.TrimSpace(v); *p == nil && v != "" {
		*p = &v
	}
}

// entry is the index of the model's /v1/models entry: by id, or the only
// one; -1 where there is none.
func (m servedSources) entry(model string) int {
	entry := -1
	for i, d := range m.Data {
		if d.ID == model || (entry < 0 && len(m.Data) == 1) {
			entry = i
		}
	}
	return entry
}

// names are the model's names, the most telling first: llama-server's
// model file, the entry's root and id, and the model as asked for.
func (m servedSources) names(entry int, model string) []string {
	var names []string
	if p := m.Props; p != nil && p.ModelPath != "" {
		names = append(names, p.ModelPath)
	}
	if entry >= 0 {
		names = append(names, m.Data[entry].Root, m.Data[entry].ID)
	}
	return append(names, model)
}

// fromShow sets what Ollama's /api/show says: family (or the
// architecture), parameters, quantization and format.
func (s *Served) fromShow(sh *ollamaShow) {
	if sh == nil {
		return
	}
	d := sh.Details
	setOnce(&s.Family, strings.ToLower(d.Family))
	if n, ok := ParseParameters(d.ParameterSize); ok && n > 0 {
		setOnce(&s.Parameters, strings.ToUpper(d.ParameterSize))
	}
	setOnce(&s.Quantization, NormalizeQuantization(d.QuantizationLevel))
	setOnce(&s.Format, normalizeFormat(d.Format))
	if a, ok := sh.ModelInfo["general.architecture"]; ok && s.Family == nil {
		var arch string
		if json.Unmarshal(a, &arch) == nil {
			setOnce(&s.Family, strings.ToLower(arch))
		}
	}
}

// fromLMStudio sets what LM Studio's entry says: architecture,
// quantization, format and context (loaded, else the most).
func (s *Served) fromLMStudio(l *lmstudioServed) {
	if l == nil {
		return
	}
	setOnce(&s.Family, strings.ToLower(l.Arch))
	setOnce(&s.Quantization, NormalizeQuantization(l.Quantization))
	setOnce(&s.Format, normalizeFormat(l.CompatibilityType))
	if n := cmp.Or(l.LoadedContextLength, l.MaxContextLength); n > 0 {
		s.Context = &n
	}
}

// fromEntry sets what the model's /v1/models entry says (llama.cpp's
// meta: parameters, and the training context where there is no /props),
// and reports whether the server is llama.cpp's: /props, meta
// or owned_by llamacpp.
func (m servedSources) fromEntry(s *Served, entry int) (llama bool) {
	llama = m.Props != nil
	if entry < 0 {
		return llama
	}
	d := m.Data[entry]
	if meta := d.Meta; meta != nil {
		llama = true
		if meta.NParams > 0 {
			setOnce(&s.Parameters, FormatParameters(meta.NParams))
		}
		if s.Context == nil && meta.NCtxTrain > 0 && m.Props == nil {
			n := meta.NCtxTrain
			s.Context = &n
		}
	}
	var owner string
	if json.Unmarshal(d.OwnedBy, &owner) == nil && owner == ServerLlamaCpp {
		llama = true
	}
	// No owned_by (mlx_lm.server's entries, but also other servers')
	// says nothing of the weights: mlx_lm.server also serves a Hugging
	// Face safetensors folder. Their format is the name's, or unknown.
	return llama
}

// quantInName finds a quantization in a model's name or file: a GGUF type
// (Q4_K_M, IQ4_XS, Q8_0, F16), MLX bits (4bit), or a scheme (NVFP4, AWQ,
// GPTQ, FP8), between separators.
var quantInName = regexp.MustCompile(`(?i)(?:^|[-.:/_ ])(I?Q[1-8](?:_[A-Z0-9]{1,2})*|BF16|FP16|F16|F32|FP8|NVFP4|MXFP4|AWQ|GPTQ(?:-INT[348])?|[2-8]-?BITS?)(?:$|[-.:/ ])`)

// QuantizationInName returns the quantization a model's name or file
// states, normalized (see NormalizeQuantization), or "".
func QuantizationInName(name string) string {
	all := quantInName.FindAllStringSubmatch(name, -1)
	if len(all) == 0 {
		return ""
	}
	return NormalizeQuantization(all[len(all)-1][1])
}

var bitsRE = regexp.MustCompile(`(?i)^([1-8])[-_ ]?bits?$`)

// NormalizeQuantization writes a quantization one way whatever the server:
// GGUF types and schemes upper case (q4_k_m → Q4_K_M, FP16 → F16), bits as
// "4-bit" (LM Studio's and mlx-community's "4bit"). "" and "unknown" are
// "".
func NormalizeQuantization(q string) string {
	q = strings.TrimSpace(q)
	switch strings.ToLower(q) {
	case "", "unknown", "n/a":
		return ""
	}
	if b := bitsRE.FindStringSubmatch(q); b != nil {
		return b[1] + "-bit"
	}
	q = strings.ToUpper(q)
	if q == "FP16" {
		q = "F16"
	}
	return q
}

// normalizeFormat names a format as Served.Format does.
func normalizeFormat(f string) string {
	switch strings.ToLower(strings.TrimSpace(f)) {
	case "":
		return ""
	case "gguf":
		return FormatGGUF
	case "mlx":
		return FormatMLX
	case "safetensors":
		return FormatSafetensors
	}
	return strings.TrimSpace(f)
}

// formatInName is the format a model's name or file states: a .gguf file
// or a -GGUF repository, an mlx-community or -MLX one; else "".
func formatInName(name string) string {
	l := strings.ToLower(name)
	// The file's or repository's own name: a folder above it ("/tmp/
	// e2e-vllm-mlx.X/model") says nothing of the format.
	base := l[strings.LastIndex(l, "/")+1:]
	switch {
	case strings.HasSuffix(base, ".gguf") || strings.Contains(base, "-gguf") || strings.Contains(base, "_gguf"):
		return FormatGGUF
	case strings.HasPrefix(l, "mlx-community/") || strings.Contains(base, "-mlx"):
		return FormatMLX
	}
	return ""
}

// ParseParameters reads a parameter count written as Ollama writes it
// ("8.2B", "494.03M", "1.5T", or a plain number).
func ParseParameters(s string) (float64, bool) {
	s = strings.TrimSpace(strings.ToUpper(s))
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "T"):
		mult, s = 1e12, strings.TrimSuffix(s, "T")
	case strings.HasSuffix(s, "B"):
		mult, s = 1e9, strings.TrimSuffix(s, "B")
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1e3, strings.TrimSuffix(s, "K")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v * mult, true
}

// FormatParameters writes a parameter count as Ollama does: "8.2B",
// "494.03M".
func FormatParameters(n float64) string {
	switch {
	case n >= 1e12:
		return strconv.FormatFloat(n/1e12, 'f', 1, 64) + "T"
	case n >= 1e9:
		return strconv.FormatFloat(n/1e9, 'f', 1, 64) + "B"
	case n >= 1e6:
		return strconv.FormatFloat(n/1e6, 'f', 2, 64) + "M"
	}
	return strconv.FormatFloat(n, 'f', 0, 64)
}
