package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// gqa is small with grouped-query attention: 4 heads share 2 kv heads.
var gqa = func() Config { c := small; c.KVHeads = 2; return c }()

func writeHFTemp(t *testing.T, c Config) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "model")
	if _, _, err := writeHFDir(dir, c); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestHFSameBytesEveryRun(t *testing.T) {
	parent := t.TempDir()
	var dirs [2]string
	for i := range dirs {
		dirs[i] = filepath.Join(parent, fmt.Sprintf("m%d", i))
		size, sum, err := writeHFDir(dirs[i], small)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for _, name := range hfFileNames {
			b := testkit.ReadFile(t, filepath.Join(dirs[i], name))
			total += int64(len(b))
			if name == "model.safetensors" {
				if got := sha256.Sum256(b); !bytes.Equal(sum, got[:]) {
					t.Errorf("run %d: reported sha256 %x, model.safetensors has %x", i, sum, got)
				}
			}
		}
		if size != total {
			t.Errorf("run %d: reported %d bytes, the files hold %d", i, size, total)
		}
	}
	for _, name := range hfFileNames {
		if !bytes.Equal(testkit.ReadFile(t, filepath.Join(dirs[0], name)), testkit.ReadFile(t, filepath.Join(dirs[1], name))) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	entries, _ := os.ReadDir(dirs[0])
	if len(entries) != len(hfFileNames) {
		t.Errorf("folder holds %d entries, want the %d files", len(entries), len(hfFileNames))
	}
	// Nothing but the two folders is left beside them.
	onlyTwo(t, parent, "the two folders")

	// Another seed: other weights, the same tokenizer and config.
	other := small
	other.Seed++
	var a, b bytes.Buffer
	if err := small.WriteHF("model.safetensors", &a); err != nil {
		t.Fatal(err)
	}
	if err := other.WriteHF("model.safetensors", &b); err != nil {
		t.Fatal(err)
	}
	if a.Len() != b.Len() || bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Errorf("another seed: %d and %d bytes, equal %v; want the same size, other bytes", a.Len(), b.Len(), bytes.Equal(a.Bytes(), b.Bytes()))
	}
	for _, name := range []string{"tokenizer.json", "config.json"} {
		a.Reset()
		b.Reset()
		small.WriteHF(name, &a)
		other.WriteHF(name, &b)
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("another seed changed %s", name)
		}
	}
}

func TestHFDirIsReplacedOnlyIfGenmodelWroteIt(t *testing.T) {
	dir := writeHFTemp(t, small)
	other := small
	other.Seed++
	_, sum, err := writeHFDir(dir, other)
	if err != nil {
		t.Fatalf("writing over an earlier output: %v", err)
	}
	if got := sha256.Sum256(testkit.ReadFile(t, filepath.Join(dir, "model.safetensors"))); !bytes.Equal(got[:], sum) {
		t.Error("the earlier model.safetensors is still there")
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("%d entries beside the folder, want none", len(entries)-1)
	}

	// A folder with a file of someone else's is left alone.
	foreign := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(foreign, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = writeHFDir(dir, small)
	if err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("folder with notes.txt: error %v, want one naming notes.txt", err)
	}
	if got := sha256.Sum256(testkit.ReadFile(t, filepath.Join(dir, "model.safetensors"))); !bytes.Equal(got[:], sum) {
		t.Error("the refused write changed model.safetensors")
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("the refused write left %d entries beside the folder", len(entries)-1)
	}

	// A file is not a folder; an empty folder is filled.
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, _, err := writeHFDir(file, small); err == nil {
		t.Error("-o naming a file: no error")
	}
	empty := t.TempDir()
	if _, _, err := writeHFDir(empty, small); err != nil {
		t.Errorf("empty folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(empty, "tokenizer.json")); err != nil {
		t.Error(err)
	}
}

// safetensors is a parsed safetensors file.
type safetensors struct {
	names   []string // in the header's order
	entries map[string]stEntry
	meta    map[string]string
	data    []byte
	hdrLen  uint64
}

type stEntry struct {
	DType   string   `json:"dtype"`
	Shape   []uint64 `json:"shape"`
	Offsets []uint64 `json:"data_offsets"`
}

func parseSafetensors(b []byte) (*safetensors, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("%d bytes", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if 8+n > uint64(len(b)) {
		return nil, fmt.Errorf("header of %d bytes in a file of %d", n, len(b))
	}
	hdr := b[8 : 8+n]
	keys, values, err := objectMembers(hdr)
	if err != nil {
		return nil, err
	}
	st := &safetensors{entries: map[string]stEntry{}, data: b[8+n:], hdrLen: n}
	for i, k := range keys {
		if k == "__metadata__" {
			if err := json.Unmarshal(values[i], &st.meta); err != nil {
				return nil, err
			}
			continue
		}
		var e stEntry
		dec := json.NewDecoder(bytes.NewReader(values[i]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		st.names = append(st.names, k)
		st.entries[k] = e
	}
	return st, nil
}

func (st *safetensors) floats(name string) []float32 {
	e := st.entries[name]
	b := st.data[e.Offsets[0]:e.Offsets[1]]
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// objectMembers returns the keys of a JSON object in their order, and
// their values.
func objectMembers(b []byte) (keys []string, values []json.RawMessage, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not an object: %v %v", tok, err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, tok.(string))
		values = append(values, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, nil, err
	}
	return keys, values, nil
}

// wantHFShapes lists the tensors transformers' LlamaForCausalLM has, with
// their shapes, in the order the file holds them.
func wantHFShapes(c Config) ([]string, map[string][]uint64) {
	n, ff, v := uint64(c.Embedding), uint64(c.FeedForward), uint64(c.Vocab)
	kvDim := n / uint64(c.Heads) * uint64(c.KVHeads)
	shapes := map[string][]uint64{"model.embed_tokens.weight": {v, n}}
	names := []string{"model.embed_tokens.weight"}
	for b := range c.Blocks {
		p := fmt.Sprintf("model.layers.%d.", b)
		for _, e := range []struct {
			name  string
			shape []uint64
		}{
			{"input_layernorm.weight", []uint64{n}},
			{"self_attn.q_proj.weight", []uint64{n, n}},
			{"self_attn.k_proj.weight", []uint64{kvDim, n}},
			{"self_attn.v_proj.weight", []uint64{kvDim, n}},
			{"self_attn.o_proj.weight", []uint64{n, n}},
			{"post_attention_layernorm.weight", []uint64{n}},
			{"mlp.gate_proj.weight", []uint64{ff, n}},
			{"mlp.up_proj.weight", []uint64{ff, n}},
			{"mlp.down_proj.weight", []uint64{n, ff}},
		} {
			names = append(names, p+e.name)
			shapes[p+e.name] = e.shape
		}
	}
	names = append(names, "model.norm.weight", "lm_head.weight")
	shapes["model.norm.weight"] = []uint64{n}
	shapes["lm_head.weight"] = []uint64{v, n}
	return names, shapes
}

func TestSafetensorsLayout(t *testing.T) {
	odd := gqa
	odd.Blocks, odd.Vocab, odd.FeedForward = 3, 333, 40
	padded := 0
	for _, c := range []Config{small, gqa, odd} {
		b := testkit.ReadFile(t, filepath.Join(writeHFTemp(t, c), "model.safetensors"))
		st, err := parseSafetensors(b)
		if err != nil {
			t.Fatal(err)
		}
		if st.hdrLen%8 != 0 {
			t.Errorf("header is %d bytes, not a multiple of 8", st.hdrLen)
		}
		hdr := b[8 : 8+st.hdrLen]
		if len(bytes.TrimRight(hdr, " ")) < len(hdr) {
			padded++
		}
		if hdr[0] != '{' || len(bytes.TrimRight(hdr, " ")) < len(hdr)-7 {
			t.Errorf("header %q… must start with { and be padded with at most 7 spaces", hdr[:min(20, len(hdr))])
		}
		if st.meta["format"] != "pt" || len(st.meta) != 1 {
			t.Errorf("__metadata__ %v, want format pt", st.meta)
		}
		names, shapes := wantHFShapes(c)
		if !slices.Equal(st.names, names) {
			t.Fatalf("tensors %v,\nwant %v", st.names, names)
		}
		var end uint64
		for _, name := range names {
			e := st.entries[name]
			if e.DType != "F32" {
				t.Errorf("%s: dtype %s", name, e.DType)
			}
			if !slices.Equal(e.Shape, shapes[name]) {
				t.Errorf("%s: shape %v, want %v", name, e.Shape, shapes[name])
			}
			if len(e.Offsets) != 2 || e.Offsets[0] != end || e.Offsets[1]-e.Offsets[0] != 4*product(shapes[name]) {
				t.Errorf("%s: data_offsets %v, want [%d %d]", name, e.Offsets, end, end+4*product(shapes[name]))
			}
			if len(e.Offsets) == 2 {
				end = e.Offsets[1]
			}
		}
		if end != uint64(len(st.data)) {
			t.Errorf("tensors end at %d, the data is %d bytes", end, len(st.data))
		}
	}
	if padded == 0 {
		t.Error("no header needed padding: the check of it checked nothing")
	}
}

// llamaCppPermute is convert_hf_to_gguf.py's LlamaModel.permute of an HF q
// or k matrix (rows×cols, row-major) for GGUF:
// w.reshape(heads, 2, rows/heads/2, cols).swapaxes(1, 2).reshape(w.shape).
func llamaCppPermute(w []float32, heads, cols int) []float32 {
	rows := len(w) / cols
	half := rows / heads / 2
	// Strides of the source reshaped to (heads, 2, half, cols).
	sH, sTwo, sHalf := 2*half*cols, half*cols, cols
	out := make([]float32, 0, len(w))
	// The result, in order, is the source indexed (h, s, j, c) for
	// (h, j, s, c) in order.
	for h := range heads {
		for j := range half {
			for s := range 2 {
				base := h*sH + s*sTwo + j*sHalf
				out = append(out, w[base:base+cols]...)
			}
		}
	}
	return out
}

func TestSafetensorsHoldTheGGUFWeights(t *testing.T) {
	for _, c := range []Config{small, gqa} {
		var buf bytes.Buffer
		if err := c.Write(&buf); err != nil {
			t.Fatal(err)
		}
		g, err := parseGGUF(buf.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		st, err := parseSafetensors(testkit.ReadFile(t, filepath.Join(writeHFTemp(t, c), "model.safetensors")))
		if err != nil {
			t.Fatal(err)
		}
		ggufOf := func(name string) []float32 {
			ti, ok := g.tensor(name)
			if !ok {
				t.Fatalf("GGUF has no %s", name)
			}
			return g.floats(ti)
		}
		n := c.Embedding
		pairs := map[string]string{
			"model.embed_tokens.weight": "token_embd.weight",
			"model.norm.weight":         "output_norm.weight",
			"lm_head.weight":            "output.weight",
		}
		for b := range c.Blocks {
			hf, gg := fmt.Sprintf("model.layers.%d.", b), fmt.Sprintf("blk.%d.", b)
			pairs[hf+"input_layernorm.weight"] = gg + "attn_norm.weight"
			pairs[hf+"self_attn.v_proj.weight"] = gg + "attn_v.weight"
			pairs[hf+"self_attn.o_proj.weight"] = gg + "attn_output.weight"
			pairs[hf+"post_attention_layernorm.weight"] = gg + "ffn_norm.weight"
			pairs[hf+"mlp.gate_proj.weight"] = gg + "ffn_gate.weight"
			pairs[hf+"mlp.up_proj.weight"] = gg + "ffn_up.weight"
			pairs[hf+"mlp.down_proj.weight"] = gg + "ffn_down.weight"

			// q and k: llama.cpp's converter turns them into the GGUF's,
			// and they are not the GGUF's as they are.
			for _, qk := range []struct {
				hf, gg string
				heads  int
			}{{"self_attn.q_proj.weight", "attn_q.weight", c.Heads}, {"self_attn.k_proj.weight", "attn_k.weight", c.KVHeads}} {
				h, want := st.floats(hf+qk.hf), ggufOf(gg+qk.gg)
				if !slices.Equal(llamaCppPermute(h, qk.heads, n), want) {
					t.Errorf("%s%s: llama.cpp's permute does not give the GGUF's %s%s", hf, qk.hf, gg, qk.gg)
				}
				if slices.Equal(h, want) {
					t.Errorf("%s%s is the GGUF's %s%s unpermuted", hf, qk.hf, gg, qk.gg)
				}
			}
		}
		if len(pairs)+2*c.Blocks != len(st.names) {
			t.Errorf("%d tensors compared, the file has %d", len(pairs)+2*c.Blocks, len(st.names))
		}
		for hf, gg := range pairs {
			if !slices.Equal(st.floats(hf), ggufOf(gg)) {
				t.Errorf("%s differs from the GGUF's %s", hf, gg)
			}
		}

		// Norms are 1; the output rows of special and byte tokens are zero,
		// those of word pieces not; the embedding has no zero rows.
		for _, name := range st.names {
			if strings.HasSuffix(name, "norm.weight") && slices.ContainsFunc(st.floats(name), func(f float32) bool { return f != 1 }) {
				t.Errorf("%s is not all 1", name)
			}
		}
		head, embd := st.floats("lm_head.weight"), st.floats("model.embed_tokens.weight")
		zero := func(row []float32) bool { return !slices.ContainsFunc(row, func(f float32) bool { return f != 0 }) }
		for id := range c.Vocab {
			if z := zero(head[id*n : (id+1)*n]); z != (id < firstPieceID) {
				t.Errorf("lm_head row %d: zero %v, want %v", id, z, id < firstPieceID)
			}
			if zero(embd[id*n : (id+1)*n]) {
				t.Errorf("embed_tokens row %d is zero", id)
			}
		}
	}
}

// TestRoPEOrdersGiveSameScores checks that the HF weights, with HF's RoPE
// (rotate_half), give the attention scores the GGUF weights give with
// llama.cpp's (adjacent pairs), and that it matters: the GGUF's q and k
// with HF's RoPE give other scores.
func TestRoPEOrdersGiveSameScores(t *testing.T) {
	c := gqa
	hd, n := c.Embedding/c.Heads, c.Embedding
	gg := map[string]tensor{}
	for _, tn := range c.tensors() {
		gg[tn.name] = tn
	}
	hf := map[string]stTensor{}
	for _, tn := range c.hfTensors() {
		hf[tn.name] = tn
	}
	matVec := func(w []float32, x []float64) []float64 {
		out := make([]float64, len(w)/len(x))
		for r := range out {
			for i, xi := range x {
				out[r] += float64(w[r*len(x)+i]) * xi
			}
		}
		return out
	}
	// rope rotates each head's pairs (i, i+stride·…): adjacent pairs
	// (2i, 2i+1) for llama.cpp, (i, i+hd/2) for HF.
	rope := func(v []float64, pos int, adjacent bool) []float64 {
		out := slices.Clone(v)
		for h := 0; h < len(v); h += hd {
			for i := range hd / 2 {
				a, b := h+i, h+i+hd/2
				if adjacent {
					a, b = h+2*i, h+2*i+1
				}
				theta := float64(pos) * math.Pow(10000, -2*float64(i)/float64(hd))
				sin, cos := math.Sincos(theta)
				out[a], out[b] = v[a]*cos-v[b]*sin, v[a]*sin+v[b]*cos
			}
		}
		return out
	}
	scores := func(wq, wk []float32, x, y []float64, pq, pk int, adjacent bool) []float64 {
		q, k := rope(matVec(wq, x), pq, adjacent), rope(matVec(wk, y), pk, adjacent)
		var s []float64
		for h := range c.Heads {
			kh := h / (c.Heads / c.KVHeads)
			var dot float64
			for i := range hd {
				dot += q[h*hd+i] * k[kh*hd+i]
			}
			s = append(s, dot)
		}
		return s
	}
	maxDiff := func(a, b []float64) float64 {
		d := 0.0
		for i := range a {
			d = max(d, math.Abs(a[i]-b[i]))
		}
		return d
	}
	rng := rand.New(rand.NewPCG(1, 2))
	worst, control := 0.0, 0.0
	for trial := range 20 {
		x, y := make([]float64, n), make([]float64, n)
		for i := range n {
			x[i], y[i] = rng.NormFloat64(), rng.NormFloat64()
		}
		pq, pk := 3+trial*7, trial*5
		blk := fmt.Sprintf("%d.", trial%c.Blocks)
		wqG, wkG := gg["blk."+blk+"attn_q.weight"].data, gg["blk."+blk+"attn_k.weight"].data
		wqH, wkH := hf["model.layers."+blk+"self_attn.q_proj.weight"].data, hf["model.layers."+blk+"self_attn.k_proj.weight"].data
		want := scores(wqG, wkG, x, y, pq, pk, true)
		worst = max(worst, maxDiff(scores(wqH, wkH, x, y, pq, pk, false), want))
		control = max(control, maxDiff(scores(wqG, wkG, x, y, pq, pk, false), want))
	}
	if worst > 1e-9 {
		t.Errorf("HF q/k with HF's RoPE differ from GGUF q/k with llama.cpp's by up to %g", worst)
	}
	if control < 0.1 {
		t.Errorf("control: the GGUF's q/k with HF's RoPE differ by only %g; the check cannot tell", control)
	}
}

func TestTokenizerJSON(t *testing.T) {
	c := small
	c.Vocab = firstPieceID + len(allPieces()) // every piece: merges for "▁the" and more
	dir := writeHFTemp(t, c)
	b := testkit.ReadFile(t, filepath.Join(dir, "tokenizer.json"))
	var tj struct {
		AddedTokens []struct {
			ID         int    `json:"id"`
			Content    string `json:"content"`
			Special    bool   `json:"special"`
			Normalized bool   `json:"normalized"`
		} `json:"added_tokens"`
		Normalizer    json.RawMessage `json:"normalizer"`
		PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
		PostProcessor struct {
			Type   string `json:"type"`
			Single []struct {
				SpecialToken *struct{ ID string } `json:"SpecialToken"`
				Sequence     *struct{ ID string } `json:"Sequence"`
			} `json:"single"`
			SpecialTokens map[string]struct {
				IDs []int `json:"ids"`
			} `json:"special_tokens"`
		} `json:"post_processor"`
		Decoder json.RawMessage `json:"decoder"`
		Model   struct {
			Type         string          `json:"type"`
			UnkToken     string          `json:"unk_token"`
			ByteFallback bool            `json:"byte_fallback"`
			FuseUnk      bool            `json:"fuse_unk"`
			Vocab        json.RawMessage `json:"vocab"`
			Merges       [][2]string     `json:"merges"`
		} `json:"model"`
	}
	if err := json.Unmarshal(b, &tj); err != nil {
		t.Fatal(err)
	}

	// The vocabulary is the GGUF's, in order.
	var buf bytes.Buffer
	if err := c.Write(&buf); err != nil {
		t.Fatal(err)
	}
	g, err := parseGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	ggufTokens := g.kv["tokenizer.ggml.tokens"].([]string)
	keys, values, err := objectMembers(tj.Model.Vocab)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(keys, ggufTokens) {
		t.Errorf("vocab has %d tokens, GGUF %d; first difference at %d", len(keys), len(ggufTokens), firstDiff(keys, ggufTokens))
	}
	ids := map[string]int{}
	for i, v := range values {
		var id int
		if err := json.Unmarshal(v, &id); err != nil || id != i {
			t.Errorf("token %q has id %s, want %d", keys[i], v, i)
		}
		ids[keys[i]] = id
	}

	if tj.Model.Type != "BPE" || !tj.Model.ByteFallback || tj.Model.UnkToken != "<unk>" || !tj.Model.FuseUnk {
		t.Errorf("model %s, byte_fallback %v, unk %q, fuse_unk %v; want BPE, true, <unk>, true", tj.Model.Type, tj.Model.ByteFallback, tj.Model.UnkToken, tj.Model.FuseUnk)
	}
	if len(tj.AddedTokens) != 3 {
		t.Fatalf("%d added tokens, want 3", len(tj.AddedTokens))
	}
	for i, want := range []string{"<unk>", "<s>", "</s>"} {
		a := tj.AddedTokens[i]
		if a.ID != i || a.Content != want || !a.Special || a.Normalized {
			t.Errorf("added token %d: %+v, want id %d %q special, not normalized", i, a, i, want)
		}
	}

	// Every merge joins two word pieces into a word piece; the merges are
	// ranked by the join's score (its id), as llama.cpp merges.
	if len(tj.Model.Merges) == 0 {
		t.Fatal("no merges")
	}
	last := 0
	seen := map[[2]string]bool{}
	for _, m := range tj.Model.Merges {
		join, okJ := ids[m[0]+m[1]]
		l, okL := ids[m[0]]
		r, okR := ids[m[1]]
		if !okJ || !okL || !okR || l < firstPieceID || r < firstPieceID {
			t.Errorf("merge %q: not two word pieces joining into one", m)
			continue
		}
		if join < last {
			t.Errorf("merge %q (into %d) after one into %d", m, join, last)
		}
		if seen[m] {
			t.Errorf("merge %q twice", m)
		}
		seen[m] = true
		last = join
	}
	for _, m := range [][2]string{{spm, "t"}, {"h", "e"}, {spm + "t", "he"}, {"a", "b"}} {
		if !seen[m] {
			t.Errorf("no merge %q", m)
		}
	}
	// Every way to make a word piece from two is there: count them.
	want := 0
	for _, p := range ggufTokens[firstPieceID:] {
		for i := range p {
			if _, okL := ids[p[:i]]; i > 0 && okL {
				if _, okR := ids[p[i:]]; okR {
					want++
				}
			}
		}
	}
	if len(tj.Model.Merges) != want {
		t.Errorf("%d merges, want %d", len(tj.Model.Merges), want)
	}

	// <s> first, as llama adds it.
	pp := tj.PostProcessor
	if pp.Type != "TemplateProcessing" || len(pp.Single) != 2 || pp.Single[0].SpecialToken == nil || pp.Single[0].SpecialToken.ID != "<s>" ||
		pp.Single[1].Sequence == nil || !slices.Equal(pp.SpecialTokens["<s>"].IDs, []int{bosID}) {
		t.Errorf("post_processor does not put <s> (id %d) before the text: %+v", bosID, pp)
	}
	// Llama 2's normalizer and decoder, which mlx_lm recognises for its
	// SentencePiece streaming detokenizer.
	for _, e := range []struct {
		name      string
		got, want string
	}{
		{"normalizer", string(tj.Normalizer), `{"type":"Sequence","normalizers":[{"type":"Prepend","prepend":"▁"},{"type":"Replace","pattern":{"String":" "},"content":"▁"}]}`},
		{"pre_tokenizer", string(tj.PreTokenizer), `null`},
		{"decoder", string(tj.Decoder), `{"type":"Sequence","decoders":[{"type":"Replace","pattern":{"String":"▁"},"content":" "},{"type":"ByteFallback"},{"type":"Fuse"},{"type":"Strip","content":" ","start":1,"stop":0}]}`},
	} {
		var compact bytes.Buffer
		json.Compact(&compact, []byte(e.got))
		if compact.String() != e.want {
			t.Errorf("%s %s,\nwant %s", e.name, compact.String(), e.want)
		}
	}
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

func TestHFConfigFiles(t *testing.T) {
	c := Config{Embedding: 48, FeedForward: 80, Blocks: 3, Heads: 6, KVHeads: 3, Vocab: 350, Context: 1000, Seed: 7}
	dir := writeHFTemp(t, c)
	load := func(name string) map[string]any {
		var m map[string]any
		dec := json.NewDecoder(bytes.NewReader(testkit.ReadFile(t, filepath.Join(dir, name))))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return m
	}
	check := func(file string, m map[string]any, want map[string]string) {
		for k, w := range want {
			got, ok := m[k]
			if !ok {
				t.Errorf("%s: no %s", file, k)
				continue
			}
			if s := fmt.Sprint(got); s != w {
				t.Errorf("%s: %s = %s, want %s", file, k, s, w)
			}
		}
	}
	check("config.json", load("config.json"), map[string]string{
		"architectures":           "[LlamaForCausalLM]",
		"model_type":              "llama",
		"hidden_size":             "48",
		"intermediate_size":       "80",
		"num_hidden_layers":       "3",
		"num_attention_heads":     "6",
		"num_key_value_heads":     "3",
		"head_dim":                "8",
		"vocab_size":              "350",
		"max_position_embeddings": "1000",
		"rms_norm_eps":            "1e-05",
		"rope_theta":              "10000.0",
		"hidden_act":              "silu",
		"bos_token_id":            "1",
		"eos_token_id":            "2",
		"tie_word_embeddings":     "false",
		"torch_dtype":             "float32",
		"dtype":                   "float32",
	})
	tc := load("tokenizer_config.json")
	check("tokenizer_config.json", tc, map[string]string{
		"tokenizer_class":  "PreTrainedTokenizerFast",
		"bos_token":        "<s>",
		"eos_token":        "</s>",
		"unk_token":        "<unk>",
		"add_bos_token":    "true",
		"add_eos_token":    "false",
		"model_max_length": "1000",
	})
	tmpl, _ := tc["chat_template"].(string)
	for _, part := range []string{"bos_token", "for message in messages", "message['role']", "message['content']", "add_generation_prompt"} {
		if !strings.Contains(tmpl, part) {
			t.Errorf("chat_template %q has no %s", tmpl, part)
		}
	}
	check("generation_config.json", load("generation_config.json"), map[string]string{"bos_token_id": "1", "eos_token_id": "2"})
	check("special_tokens_map.json", load("special_tokens_map.json"), map[string]string{"bos_token": "<s>", "eos_token": "</s>", "unk_token": "<unk>"})

	// The special tokens are where the GGUF puts them.
	tokens, _, _ := c.vocabulary()
	if tokens[bosID] != "<s>" || tokens[eosID] != "</s>" || tokens[unkID] != "<unk>" {
		t.Errorf("GGUF special tokens %q", tokens[:3])
	}
}

func TestFlags(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "existing")
	os.Mkdir(existing, 0o755)
	foreign := filepath.Join(dir, "foreign")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "keep.txt"), []byte("x"), 0o644)
	shape := []string{"-embd", "32", "-ff", "64", "-blocks", "2", "-heads", "4", "-kv-heads", "2", "-vocab", "400", "-ctx", "256"}

	for _, bad := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-format", "safetensors", "-o", filepath.Join(dir, "x")}, 2, `-format "safetensors": want gguf, hf or mmproj`},
		{[]string{"-format", "hf"}, 2, "name it with -o DIR"},
		{[]string{"-format", "hf", "-o", filepath.Join(dir, "m.gguf")}, 2, "names a .gguf file"},
		{[]string{"-o", existing}, 2, "is a folder, and -format gguf writes a file"},
		{[]string{"-o", filepath.Join(dir, "new") + "/"}, 2, "names a folder"},
		{append([]string{"-format", "hf", "-o", foreign}, shape...), 1, "holds keep.txt"},
		{[]string{"-format", "hf", "-o", filepath.Join(dir, "h"), "-heads", "3"}, 1, "not a multiple of heads"},
		{[]string{"-format", "hf", "-o", filepath.Join(dir, "h"), "extra"}, 2, `unexpected argument "extra"`},
		{[]string{"-format"}, 2, "flag needs an argument"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(bad.args, &stdout, &stderr)
		if code != bad.code || !strings.Contains(stderr.String(), bad.msg) || stdout.Len() != 0 {
			t.Errorf("genmodel %s: exit %d, stderr %q, stdout %q; want exit %d and %q", strings.Join(bad.args, " "), code, stderr.String(), stdout.String(), bad.code, bad.msg)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the refused commands left %v", names)
	}
	if e, _ := os.ReadDir(foreign); len(e) != 1 {
		t.Errorf("foreign folder now holds %d entries", len(e))
	}

	// The good ones write what writeFile and writeHFDir write.
	var stdout, stderr bytes.Buffer
	out := filepath.Join(dir, "hf")
	if code := run(append([]string{"-format", "hf", "-o", out}, shape...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	sum := sha256.Sum256(testkit.ReadFile(t, filepath.Join(out, "model.safetensors")))
	if !strings.Contains(stdout.String(), "genmodel: wrote "+out) || !strings.Contains(stdout.String(), hex.EncodeToString(sum[:])) {
		t.Errorf("stdout %q names neither %s nor the sha256 of its model.safetensors", stdout.String(), out)
	}
	var want bytes.Buffer
	gqa.WriteHF("model.safetensors", &want)
	if !bytes.Equal(testkit.ReadFile(t, filepath.Join(out, "model.safetensors")), want.Bytes()) {
		t.Error("the flags did not give the model of their shape")
	}
	stdout.Reset()
	file := filepath.Join(dir, "m.gguf")
	if code := run(append([]string{"-o", file}, shape...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	want.Reset()
	gqa.Write(&want)
	if !bytes.Equal(testkit.ReadFile(t, file), want.Bytes()) || !strings.HasPrefix(stdout.String(), "genmodel: wrote "+file+" (") {
		t.Errorf("-o %s: not the GGUF of the shape, or stdout %q", file, stdout.String())
	}
}

// The default GGUF is the one the Ollama end-to-end runs: its bytes change
// only on purpose.
func TestDefaultGGUFDigest(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 15 MB")
	}
	h := sha256.New()
	if err := DefaultConfig.Write(h); err != nil {
		t.Fatal(err)
	}
	if got, want := hex.EncodeToString(h.Sum(nil)), "b92e23d3c67e1fb3e5143be70ece867c1a143457316c7319b6ebb6a2339bb330"; got != want {
		t.Errorf("default GGUF sha256 %s, want %s", got, want)
	}
}
