package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The Hugging Face format: a folder that transformers, vLLM and mlx_lm
// load as a LlamaForCausalLM with its tokenizer.

// hfFileNames are the files of the folder, in the order they are written.
var hfFileNames = []string{
	"config.json",
	"generation_config.json",
	"model.safetensors",
	"special_tokens_map.json",
	"tokenizer.json",
	"tokenizer_config.json",
}

// chatTemplate is the Jinja chat template of tokenizer_config.json: <s>,
// then one "Role: content" line a message, then "Assistant:" when a
// reply is asked for (add_generation_prompt). The roles are the
// messages' own, capitalised: system, user, assistant and tool turns
// alike; an assistant's tool calls come before its content, each
// "name(arguments) ", and a null content (a message of tool calls alone)
// is empty. A message without tool calls renders as before they were
// added: the e2e's prompt counts do not change.
const chatTemplate = "{{ bos_token }}" +
	"{% for message in messages %}" +
	"{{ message['role'] | capitalize }}: " +
	"{% for call in message['tool_calls'] or [] %}{{ call['function']['name'] }}({{ call['function']['arguments'] }}) {% endfor %}" +
	"{{ message['content'] or '' }}\n" +
	"{% endfor %}" +
	"{% if add_generation_prompt %}Assistant:{% endif %}"

// stTensor is one tensor as safetensors stores it: shape in PyTorch's
// order (the last dimension is the contiguous one), F32 values.
type stTensor struct {
	name  string
	shape []uint64
	data  []float32
}

// hfTensors returns the weights of c.tensors() under the names and in the
// shapes of transformers' LlamaForCausalLM, in the GGUF's order.
//
// A GGUF tensor with dims {n_in, n_out} is the PyTorch [n_out, n_in]
// row-major matrix of the same bytes, so every tensor keeps its values
// in the same order, but for q_proj and k_proj: GGUF's RoPE (llama.cpp's
// "normal" mode) rotates each head's adjacent pairs (2i, 2i+1), HF's
// (rotate_half) the pairs (i, i+d/2), and llama.cpp's
// convert_hf_to_gguf.py permutes the rows of q and k from the one order
// to the other. Their rows here are in HF's order, the inverse of that
// permutation, so that the two files hold the same model.
func (c Config) hfTensors() []stTensor {
	headDim := c.Embedding / c.Heads
	var out []stTensor
	for _, t := range c.tensors() {
		shape := slices.Clone(t.dims)
		slices.Reverse(shape)
		data := t.data
		block, kind, ok := splitBlockName(t.name)
		name := ""
		if ok {
			name = fmt.Sprintf("model.layers.%d.%s", block, hfBlockNames[kind])
			switch kind {
			case "attn_q.weight":
				data = unpermuteRoPE(data, c.Heads, headDim, c.Embedding)
			case "attn_k.weight":
				data = unpermuteRoPE(data, c.KVHeads, headDim, c.Embedding)
			}
		} else {
			name = hfTopNames[t.name]
		}
		if name == "" || (ok && hfBlockNames[kind] == "") {
			panic("genmodel: no Hugging Face name for tensor " + t.name)
		}
		out = append(out, stTensor{name: name, shape: shape, data: data})
	}
	return out
}

var hfTopNames = map[string]string{
	"token_embd.weight":  "model.embed_tokens.weight",
	"output_norm.weight": "model.norm.weight",
	"output.weight":      "lm_head.weight",
}

var hfBlockNames = map[string]string{
	"attn_norm.weight":   "input_layernorm.weight",
	"attn_q.weight":      "self_attn.q_proj.weight",
	"attn_k.weight":      "self_attn.k_proj.weight",
	"attn_v.weight":      "self_attn.v_proj.weight",
	"attn_output.weight": "self_attn.o_proj.weight",
	"ffn_norm.weight":    "post_attention_layernorm.weight",
	"ffn_gate.weight":    "mlp.gate_proj.weight",
	"ffn_up.weight":      "mlp.up_proj.weight",
	"ffn_down.weight":    "mlp.down_proj.weight",
}

// splitBlockName splits "blk.3.attn_q.weight" into 3 and "attn_q.weight".
func splitBlockName(name string) (block int, kind string, ok bool) {
	rest, found := strings.CutPrefix(name, "blk.")
	if !found {
		return 0, "", false
	}
	num, kind, found := strings.Cut(rest, ".")
	if !found {
		return 0, "", false
	}
	if _, err := fmt.Sscanf(num, "%d", &block); err != nil {
		return 0, "", false
	}
	return block, kind, true
}

// unpermuteRoPE reorders the rows (each cols long) of a q or k matrix from
// GGUF's RoPE order to HF's: within each head of headDim rows, HF's row
// s·headDim/2 + j is GGUF's row 2j + s (s is 0 or 1). It undoes
// convert_hf_to_gguf.py's permute, reshape(heads, 2, headDim/2, cols)
// .swapaxes(1, 2).
func unpermuteRoPE(data []float32, heads, headDim, cols int) []float32 {
	out := make([]float32, len(data))
	half := headDim / 2
	for h := range heads {
		for s := range 2 {
			for j := range half {
				dst := (h*headDim + s*half + j) * cols
				src := (h*headDim + 2*j + s) * cols
				copy(out[dst:dst+cols], data[src:src+cols])
			}
		}
	}
	return out
}

// writeSafetensors writes tensors as a safetensors file: the header's
// length (uint64, little-endian), the JSON header, padded with spaces to
// a multiple of 8 bytes, then each tensor's F32 values in turn, without
// gaps. The header's keys are "__metadata__", then the tensors in order.
func writeSafetensors(w io.Writer, tensors []stTensor) error {
	header := object{{"__metadata__", object{{"format", "pt"}}}}
	var offset uint64
	for _, t := range tensors {
		if product(t.shape) != uint64(len(t.data)) {
			return fmt.Errorf("safetensors: tensor %s: shape %v holds %d values, data has %d", t.name, t.shape, product(t.shape), len(t.data))
		}
		end := offset + 4*uint64(len(t.data))
		header = append(header, member{t.name, object{
			{"dtype", "F32"},
			{"shape", t.shape},
			{"data_offsets", []uint64{offset, end}},
		}})
		offset = end
	}
	h, err := marshalJSON(header, false)
	if err != nil {
		return err
	}
	if r := len(h) % 8; r != 0 {
		h = append(h, bytes.Repeat([]byte(" "), 8-r)...)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], uint64(len(h)))
	bw.Write(buf[:])
	bw.Write(h)
	for _, t := range tensors {
		for _, f := range t.data {
			binary.LittleEndian.PutUint32(buf[:4], math.Float32bits(f))
			bw.Write(buf[:4])
		}
	}
	return bw.Flush()
}

// hfConfig is config.json.
func (c Config) hfConfig() object {
	return object{
		{"architectures", []string{"LlamaForCausalLM"}},
		{"model_type", "llama"},
		{"hidden_size", c.Embedding},
		{"intermediate_size", c.FeedForward},
		{"num_hidden_layers", c.Blocks},
		{"num_attention_heads", c.Heads},
		{"num_key_value_heads", c.KVHeads},
		{"head_dim", c.Embedding / c.Heads},
		{"vocab_size", c.Vocab},
		{"max_position_embeddings", c.Context},
		{"rms_norm_eps", json.Number("1e-05")},
		{"rope_theta", json.Number("10000.0")},
		{"rope_scaling", nil},
		{"hidden_act", "silu"},
		{"attention_bias", false},
		{"attention_dropout", json.Number("0.0")},
		{"mlp_bias", false},
		{"initializer_range", 0.02},
		{"pretraining_tp", 1},
		{"use_cache", true},
		{"bos_token_id", bosID},
		{"eos_token_id", eosID},
		{"tie_word_embeddings", false},
		{"torch_dtype", "float32"},
		{"dtype", "float32"},
	}
}

// hfGenerationConfig is generation_config.json.
func hfGenerationConfig() object {
	return object{{"bos_token_id", bosID}, {"eos_token_id", eosID}}
}

// specialTokens are <unk>, <s> and </s>, by id.
var specialTokens = []string{unkID: "<unk>", bosID: "<s>", eosID: "</s>"}

// addedToken is an entry of tokenizer.json's added_tokens.
func addedToken(id int) object {
	return object{
		{"id", id},
		{"content", specialTokens[id]},
		{"single_word", false},
		{"lstrip", false},
		{"rstrip", false},
		{"normalized", false},
		{"special", true},
	}
}

// pieceMerges are the BPE merges of the word pieces of tokens (ids:
// each token's id): every split of a piece into two word pieces, ranked
// by the join's score. The scores of the word pieces fall with their id,
// so going through them in id order ranks the merges by their join's
// score. Pairs that join to the same piece are ranked by the left one's
// id, as transformers' converter of SentencePiece models does.
func pieceMerges(tokens []string, ids map[string]int) [][2]string {
	merges := [][2]string{}
	for _, piece := range tokens[firstPieceID:] {
		var local [][2]string
		for i := range piece {
			if i == 0 {
				continue
			}
			left, right := piece[:i], piece[i:]
			l, okl := ids[left]
			r, okr := ids[right]
			if okl && okr && l >= firstPieceID && r >= firstPieceID {
				local = append(local, [2]string{left, right})
			}
		}
		slices.SortStableFunc(local, func(a, b [2]string) int {
			if d := ids[a[0]] - ids[b[0]]; d != 0 {
				return d
			}
			return ids[a[1]] - ids[b[1]]
		})
		merges = append(merges, local...)
	}
	return merges
}

// hfTokenizer is tokenizer.json, for Hugging Face's tokenizers: the GGUF's
// vocabulary, ids and all, as a BPE model with byte fallback, laid out
// like Llama 2's tokenizer.json. llama.cpp's SPM tokenizer merges the
// adjacent pair whose joined text is the highest-scoring token; the merges
// here are every pair of tokens whose join is a word piece, ranked by the
// join's score, so that BPE merges as llama.cpp does and a text gets the
// same tokens from both formats. The normalizer prefixes the text with
// "▁" and turns spaces into "▁" (llama.cpp's add_space_prefix); the
// decoder undoes it, bytes included.
func (c Config) hfTokenizer() object {
	tokens, _, _ := c.vocabulary()
	vocab := make(object, len(tokens))
	ids := make(map[string]int, len(tokens))
	for id, tok := range tokens {
		vocab[id] = member{tok, id}
		ids[tok] = id
	}
	merges := pieceMerges(tokens, ids)
	str := func(s string) object { return object{{"String", s}} }
	special := func(tok string, typeID int) object {
		return object{{"SpecialToken", object{{"id", tok}, {"type_id", typeID}}}}
	}
	sequence := func(id string, typeID int) object {
		return object{{"Sequence", object{{"id", id}, {"type_id", typeID}}}}
	}
	return object{
		{"version", "1.0"},
		{"truncation", nil},
		{"padding", nil},
		{"added_tokens", []object{addedToken(unkID), addedToken(bosID), addedToken(eosID)}},
		{"normalizer", object{
			{"type", "Sequence"},
			{"normalizers", []object{
				{{"type", "Prepend"}, {"prepend", spm}},
				{{"type", "Replace"}, {"pattern", str(" ")}, {"content", spm}},
			}},
		}},
		{"pre_tokenizer", nil},
		{"post_processor", object{
			{"type", "TemplateProcessing"},
			{"single", []object{special("<s>", 0), sequence("A", 0)}},
			{"pair", []object{special("<s>", 0), sequence("A", 0), special("<s>", 1), sequence("B", 1)}},
			{"special_tokens", object{
				{"<s>", object{{"id", "<s>"}, {"ids", []int{bosID}}, {"tokens", []string{"<s>"}}}},
			}},
		}},
		{"decoder", object{
			{"type", "Sequence"},
			{"decoders", []object{
				{{"type", "Replace"}, {"pattern", str(spm)}, {"content", " "}},
				{{"type", "ByteFallback"}},
				{{"type", "Fuse"}},
				{{"type", "Strip"}, {"content", " "}, {"start", 1}, {"stop", 0}},
			}},
		}},
		{"model", object{
			{"type", "BPE"},
			{"dropout", nil},
			{"unk_token", "<unk>"},
			{"continuing_subword_prefix", nil},
			{"end_of_word_suffix", nil},
			{"fuse_unk", true},
			{"byte_fallback", true},
			{"ignore_merges", false},
			{"vocab", vocab},
			{"merges", merges},
		}},
	}
}

// hfTokenizerConfig is tokenizer_config.json. PreTrainedTokenizerFast
// (TokenizersBackend in transformers 5) takes tokenizer.json as it is.
func (c Config) hfTokenizerConfig() object {
	added := object{}
	for id := range specialTokens {
		entry := addedToken(id)[1:] // all but the id, which is the key
		added = append(added, member{fmt.Sprint(id), entry})
	}
	return object{
		{"tokenizer_class", "PreTrainedTokenizerFast"},
		{"bos_token", "<s>"},
		{"eos_token", "</s>"},
		{"unk_token", "<unk>"},
		{"add_bos_token", true},
		{"add_eos_token", false},
		{"clean_up_tokenization_spaces", false},
		{"model_max_length", c.Context},
		{"added_tokens_decoder", added},
		{"chat_template", chatTemplate},
	}
}

// hfSpecialTokensMap is special_tokens_map.json.
func hfSpecialTokensMap() object {
	return object{{"bos_token", "<s>"}, {"eos_token", "</s>"}, {"unk_token", "<unk>"}}
}

// WriteHF writes the file name of the Hugging Face folder of c to w.
func (c Config) WriteHF(name string, w io.Writer) error {
	if err := c.Validate(); err != nil {
		return err
	}
	var v object
	switch name {
	case "model.safetensors":
		return writeSafetensors(w, c.hfTensors())
	case "config.json":
		v = c.hfConfig()
	case "generation_config.json":
		v = hfGenerationConfig()
	case "special_tokens_map.json":
		v = hfSpecialTokensMap()
	case "tokenizer.json":
		v = c.hfTokenizer()
	case "tokenizer_config.json":
		v = c.hfTokenizerConfig()
	default:
		return fmt.Errorf("no file %s in the Hugging Face folder", name)
	}
	b, err := marshalJSON(v, true)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeHFDir writes the Hugging Face folder of c to dir: into a new
// temporary folder beside it, renamed to dir once complete. A dir that
// exists must be a folder holding nothing but files of hfFileNames (an
// earlier output); it is replaced. It returns the bytes written in all
// and the sha256 of model.safetensors.
func writeHFDir(dir string, c Config) (size int64, sum []byte, err error) {
	if err := c.Validate(); err != nil {
		return 0, nil, err
	}
	dir = filepath.Clean(dir)
	exists, err := checkHFDir(dir)
	if err != nil {
		return 0, nil, err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".genmodel-*")
	if err != nil {
		return 0, nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(tmp)
		}
	}()
	if err = os.Chmod(tmp, 0o755); err != nil {
		return 0, nil, err
	}
	for _, name := range hfFileNames {
		var n int64
		var s []byte
		if n, s, err = writeHFFile(filepath.Join(tmp, name), name, c); err != nil {
			return 0, nil, err
		}
		size += n
		if name == "model.safetensors" {
			sum = s
		}
	}
	if !exists {
		if err = os.Rename(tmp, dir); err != nil {
			return 0, nil, err
		}
		return size, sum, nil
	}
	// Swap: the old folder aside, the new one in, the old one removed.
	// Between the two renames dir does not exist.
	if _, err = checkHFDir(dir); err != nil {
		return 0, nil, err
	}
	old := tmp + ".old"
	if err = os.Rename(dir, old); err != nil {
		return 0, nil, err
	}
	if err = os.Rename(tmp, dir); err != nil {
		os.Rename(old, dir)
		return 0, nil, err
	}
	for _, name := range hfFileNames {
		os.Remove(filepath.Join(old, name))
	}
	if err := os.Remove(old); err != nil {
		return size, sum, fmt.Errorf("wrote %s but could not remove the earlier folder, now %s: %w", dir, old, err)
	}
	return size, sum, nil
}

// checkHFDir reports whether dir exists, and an error if it is not a
// folder of nothing but files genmodel writes there.
func checkHFDir(dir string) (exists bool, err error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		return true, fmt.Errorf("%s is a file, not a folder: -format hf writes a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true, err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !slices.Contains(hfFileNames, e.Name()) {
			return true, fmt.Errorf("folder %s holds %s, which genmodel does not write; give a new or empty folder, or one genmodel wrote", dir, e.Name())
		}
	}
	return true, nil
}

// writeHFFile writes one file of the folder and returns its size and
// sha256.
func writeHFFile(path, name string, c Config) (int64, []byte, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, nil, err
	}
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	if err := c.WriteHF(name, cw); err != nil {
		f.Close()
		return 0, nil, err
	}
	if err := f.Close(); err != nil {
		return 0, nil, err
	}
	return cw.n, h.Sum(nil), nil
}

// member and object make a JSON object whose keys keep their order, so
// that the files are the same bytes on every run.
type member struct {
	key   string
	value any
}

type object []member

func (o object) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshalJSON(m.key, false)
		if err != nil {
			return nil, err
		}
		v, err := marshalJSON(m.value, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.key, err)
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// marshalJSON is json.Marshal without escaping <, > and & (the special
// tokens are written as they are), indented by two spaces and ending in a
// newline if indent.
func marshalJSON(v any, indent bool) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	if !indent {
		return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
	}
	return b.Bytes(), nil
}
