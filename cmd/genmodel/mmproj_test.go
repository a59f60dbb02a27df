package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/inferencebench/inferencebench/internal/testkit"
)

// The default projector is the one llama-server --mmproj loads beside the
// default GGUF: its bytes change only on purpose.
const defaultProjectorSHA256 = "45ddda997e7b0435b38d4319c285110100ae5dde7fa504ea045070b9ad6adfdd"

func TestProjectorSameBytesEveryRun(t *testing.T) {
	dir := t.TempDir()
	var sums [2]string
	for i := range sums {
		path := filepath.Join(dir, fmt.Sprintf("p%d.gguf", i))
		var stdout, stderr bytes.Buffer
		if code := run([]string{"-format", "mmproj", "-o", path}, &stdout, &stderr); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr.String())
		}
		b := testkit.ReadFile(t, path)
		sum := sha256.Sum256(b)
		sums[i] = hex.EncodeToString(sum[:])
		if want := fmt.Sprintf("genmodel: wrote %s (%d bytes, sha256 %s)\n", path, len(b), sums[i]); stdout.String() != want {
			t.Errorf("stdout %q, want %q", stdout.String(), want)
		}
	}
	for i, s := range sums {
		if s != defaultProjectorSHA256 {
			t.Errorf("run %d: sha256 %s, want %s", i, s, defaultProjectorSHA256)
		}
	}
	onlyTwo(t, dir, "the two projectors")

	other := DefaultProjector
	other.Seed++
	var a, b bytes.Buffer
	if err := DefaultProjector.Write(&a); err != nil {
		t.Fatal(err)
	}
	if err := other.Write(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("another seed wrote the same projector")
	}
}

// The keys and tensors are those llama.cpp's tools/mtmd/clip.cpp reads for
// projector type "mlp" (LLaVA): clip_model_loader::load_hparams and
// load_tensors, the llava graph and clip_n_mmproj_embd.
func TestProjectorParsesBack(t *testing.T) {
	var buf bytes.Buffer
	p := DefaultProjector
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := parseGGUF(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if f.version != 3 {
		t.Errorf("version %d, want 3", f.version)
	}
	want := map[string]any{
		"general.architecture":                     "clip",
		"general.type":                             "mmproj",
		"general.file_type":                        uint32(0),
		"clip.projector_type":                      "mlp",
		"clip.has_vision_encoder":                  true,
		"clip.use_gelu":                            true,
		"clip.vision.embedding_length":             uint32(64),
		"clip.vision.feed_forward_length":          uint32(128),
		"clip.vision.block_count":                  uint32(2),
		"clip.vision.projection_dim":               uint32(DefaultConfig.Embedding),
		"clip.vision.attention.head_count":         uint32(4),
		"clip.vision.attention.layer_norm_epsilon": float32(1e-5),
		"clip.vision.image_size":                   uint32(32),
		"clip.vision.patch_size":                   uint32(8),
		"clip.vision.image_mean":                   []float32{0.5, 0.5, 0.5},
		"clip.vision.image_std":                    []float32{0.5, 0.5, 0.5},
	}
	for k, v := range want {
		if got, ok := f.kv[k]; !ok {
			t.Errorf("key %s missing", k)
		} else if !reflect.DeepEqual(got, v) {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	if len(f.kv) != len(want)+1 { // and general.name
		t.Errorf("%d keys, want %d", len(f.kv), len(want)+1)
	}

	// GGUF dims: dims[0] is the contiguous one, a matrix n_in → n_out is
	// {n_in, n_out}.
	n, ff, text := uint64(64), uint64(128), uint64(DefaultConfig.Embedding)
	shapes := map[string][]uint64{
		"v.patch_embd.weight":    {8, 8, 3, n}, // ggml_conv_2d kernel
		"v.patch_embd.bias":      {n},
		"v.class_embd":           {n},
		"v.position_embd.weight": {n, 16 + 1}, // 4×4 patches and the class embedding
		"v.pre_ln.weight":        {n},
		"v.pre_ln.bias":          {n},
		"mm.0.weight":            {n, text},
		"mm.0.bias":              {text},
		"mm.2.weight":            {text, text}, // ne[1] is clip_n_mmproj_embd: the text model's n_embd
		"mm.2.bias":              {text},
	}
	for b := range 2 {
		pre := fmt.Sprintf("v.blk.%d.", b)
		for _, name := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			shapes[pre+name+".weight"] = []uint64{n, n}
			shapes[pre+name+".bias"] = []uint64{n}
		}
		// ffn_down's ne[0] is ff, not n: clip.cpp would swap up and down.
		shapes[pre+"ffn_up.weight"], shapes[pre+"ffn_up.bias"] = []uint64{n, ff}, []uint64{ff}
		shapes[pre+"ffn_down.weight"], shapes[pre+"ffn_down.bias"] = []uint64{ff, n}, []uint64{n}
		for _, ln := range []string{"ln1", "ln2"} {
			shapes[pre+ln+".weight"], shapes[pre+ln+".bias"] = []uint64{n}, []uint64{n}
		}
	}
	if len(f.tensors) != len(shapes) {
		t.Errorf("%d tensors, want %d", len(f.tensors), len(shapes))
	}
	end := uint64(0)
	for _, ti := range f.tensors {
		if w, ok := shapes[ti.name]; !ok {
			t.Errorf("unexpected tensor %s", ti.name)
		} else if !reflect.DeepEqual(ti.dims, w) {
			t.Errorf("%s: dims %v, want %v", ti.name, ti.dims, w)
		}
		if ti.typ != tensorF32 {
			t.Errorf("%s: type %d, want F32", ti.name, ti.typ)
		}
		if ti.offset%ggufAlignment != 0 {
			t.Errorf("%s: offset %d not aligned", ti.name, ti.offset)
		}
		end = max(end, ti.offset+alignUp(4*product(ti.dims)))
	}
	if got := uint64(buf.Len()); got != f.dataStart+end {
		t.Errorf("file is %d bytes, header and tensors make %d", got, f.dataStart+end)
	}
	if p.Patches() != 16 {
		t.Errorf("%d image tokens, want 16", p.Patches())
	}

	// Norms are 1, biases 0, weights random.
	if ln, _ := f.tensor("v.blk.1.ln2.weight"); f.floats(ln)[0] != 1 {
		t.Error("ln2 weight is not 1")
	}
	if bias, _ := f.tensor("mm.2.bias"); f.floats(bias)[5] != 0 {
		t.Error("mm.2 bias is not 0")
	}
	mm, _ := f.tensor("mm.0.weight")
	if ws := f.floats(mm); ws[0] == ws[1] {
		t.Error("mm.0 looks constant")
	}
}

// -embd sets the projector's output, which must be the text model's
// embedding length.
func TestProjectorFollowsEmbd(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.gguf")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"-format", "mmproj", "-embd", "32", "-seed", "7", "-o", path}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := parseGGUF(testkit.ReadFile(t, path))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.kv["clip.vision.projection_dim"]; got != uint32(32) {
		t.Errorf("projection_dim %v, want 32", got)
	}
	mm, _ := f.tensor("mm.2.weight")
	if !reflect.DeepEqual(mm.dims, []uint64{32, 32}) {
		t.Errorf("mm.2.weight dims %v, want [32 32]", mm.dims)
	}
	p := DefaultProjector
	p.TextEmbedding, p.Seed = 32, 7
	var want bytes.Buffer
	p.Write(&want)
	if !bytes.Equal(testkit.ReadFile(t, path), want.Bytes()) {
		t.Error("-embd 32 -seed 7 did not write that projector")
	}
}

func TestProjectorFlags(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	for _, bad := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-format", "mmproj"}, 2, "name it with -o FILE"},
		{[]string{"-format", "mmproj", "-o", folder}, 2, "is a folder, and -format mmproj writes a file"},
		{[]string{"-format", "mmproj", "-o", filepath.Join(dir, "new") + "/"}, 2, "names a folder, and -format mmproj writes a file"},
		{[]string{"-format", "mmproj", "-o", filepath.Join(dir, "p.gguf"), "-ff", "64", "-vocab", "400"}, 2, "-ff, -vocab shape the text model"},
		{[]string{"-format", "mmproj", "-o", filepath.Join(dir, "p.gguf"), "-embd", "0"}, 1, "mmproj: embedding"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(bad.args, &stdout, &stderr)
		if code != bad.code || !strings.Contains(stderr.String(), bad.msg) || stdout.Len() != 0 {
			t.Errorf("genmodel %s: exit %d, stderr %q, stdout %q; want exit %d and %q", strings.Join(bad.args, " "), code, stderr.String(), stdout.String(), bad.code, bad.msg)
		}
	}
	if e, _ := os.ReadDir(dir); len(e) != 1 {
		t.Errorf("the refused commands left %d entries in %s", len(e), dir)
	}
	if e, _ := os.ReadDir(folder); len(e) != 0 {
		t.Errorf("%s now holds %d entries", folder, len(e))
	}
}

func TestProjectorValidate(t *testing.T) {
	for _, c := range []func(*Projector){
		func(p *Projector) { p.Heads = 3 },         // 64 % 3
		func(p *Projector) { p.PatchSize = 5 },     // 32 % 5
		func(p *Projector) { p.ImageSize = 4 },     // below a patch
		func(p *Projector) { p.FeedForward = 64 },  // looks swapped to clip.cpp
		func(p *Projector) { p.Blocks = 0 },        // nothing to run
		func(p *Projector) { p.TextEmbedding = 0 }, // no output
	} {
		p := DefaultProjector
		c(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%+v: no error", p)
		}
		if _, _, err := writeFile(filepath.Join(t.TempDir(), "p.gguf"), p); err == nil {
			t.Errorf("%+v: writeFile: no error", p)
		}
	}
	if err := DefaultProjector.Validate(); err != nil {
		t.Errorf("default: %v", err)
	}
}
