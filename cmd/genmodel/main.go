// Command genmodel writes a small random-weight llama model, for running a
// real runtime end to end where no model can be downloaded: as a GGUF file
// for Ollama and llama.cpp, or as a Hugging Face folder of the same model
// for vLLM, mlx_lm.server and transformers. It also writes a random-weight
// CLIP vision projector that llama-server loads beside the GGUF with
// --mmproj, for the images tests.
//
//	go run ./cmd/genmodel -o model.gguf                # GGUF, the default
//	go run ./cmd/genmodel -format hf -o model-hf       # Hugging Face folder
//	go run ./cmd/genmodel -format mmproj -o proj.gguf  # vision projector
//
// The output is the same, byte for byte, on every run with the same flags:
// the weights come from a PCG generator with a fixed seed (-seed). All
// tensors are F32. The vocabulary is SentencePiece-style
// (tokenizer.ggml.model "llama"): <unk>, <s>, </s>, the 256 byte tokens
// <0x00>…<0xFF> (without which llama.cpp aborts on text it cannot split
// into pieces), then word pieces that start with "▁" (U+2581) where a word
// does. The output rows of the special and byte tokens are zero, so greedy
// decoding never picks </s> and every request runs to its token limit.
//
// The defaults (embedding 256, feed-forward 768, 4 blocks, 4 heads, 512
// tokens) give a file of about 15 MB: big enough that per-token overhead
// does not dominate the decode rate, small enough to write in a second.
//
// # Hugging Face folder
//
// -format hf -o DIR writes DIR with:
//
//   - config.json: LlamaForCausalLM (model_type llama) of the same shape:
//     hidden_size, intermediate_size, num_hidden_layers,
//     num_attention_heads, num_key_value_heads, vocab_size and
//     max_position_embeddings from -embd, -ff, -blocks, -heads, -kv-heads,
//     -vocab and -ctx; rms_norm_eps 1e-5, rope_theta 10000, silu, F32,
//     untied embeddings, bos 1, eos 2.
//   - model.safetensors: the GGUF's tensors under transformers' names
//     (model.embed_tokens.weight, model.layers.N.self_attn.q_proj.weight, …,
//     lm_head.weight), F32, in the GGUF's order; the header's keys in that
//     order after "__metadata__" {"format": "pt"}, padded with spaces to a
//     multiple of 8 bytes. A GGUF tensor of dims {n_in, n_out} is the
//     PyTorch [n_out, n_in] matrix of the same bytes, and every tensor has
//     the GGUF's values in the GGUF's order, but for q_proj and k_proj:
//     llama.cpp rotates each head's adjacent pairs for RoPE, transformers
//     the pairs half a head apart, and llama.cpp's convert_hf_to_gguf.py
//     permutes the rows of q and k from the one to the other. Their rows
//     here are in transformers' order, so that the two formats hold the
//     same model: convert_hf_to_gguf.py's permutation turns q_proj and
//     k_proj back into the GGUF's tensors bit for bit, and transformers and
//     mlx_lm compute from the folder the logits that llama.cpp's forward
//     pass (RoPE on adjacent pairs) computes from the GGUF, to float
//     rounding.
//   - tokenizer.json: the GGUF's vocabulary, same ids, as a BPE model of
//     Hugging Face's tokenizers with byte fallback, laid out like Llama 2's:
//     a normalizer that prefixes "▁" and turns spaces into "▁", a decoder
//     that undoes that and the byte tokens, a post-processor that puts <s>
//     first, and <unk>, <s>, </s> as special added tokens. Its merges are
//     every pair of word pieces that joins into a word piece, ranked by the
//     join's score in the GGUF, which is how llama.cpp's SentencePiece
//     tokenizer merges: a text gets the same tokens from both formats.
//   - tokenizer_config.json: PreTrainedTokenizerFast (which transformers
//     5 loads as TokenizersBackend, taking tokenizer.json as it is),
//     add_bos_token, model_max_length -ctx, and a chat template: <s>, a
//     "Role: content" line a message (System, User, Assistant), then
//     "Assistant:" for add_generation_prompt. The GGUF has no template (the
//     end-to-end Ollama Modelfile sends the prompt as it is), so a chat's
//     prompt counts more tokens here than on that Ollama.
//   - special_tokens_map.json and generation_config.json (bos 1, eos 2).
//
// The folder is written beside DIR under a temporary name and renamed to
// DIR once complete. A DIR that exists must be empty or hold only files
// genmodel writes there (an earlier output), which it replaces; anything
// else is an error, and so is an -o ending in .gguf with -format hf, or a
// folder with -format gguf. The line printed names the folder, the bytes
// of all its files and the sha256 of model.safetensors.
//
// # Vision projector
//
// -format mmproj -o FILE writes the GGUF of a CLIP vision encoder with
// LLaVA's MLP projector, as llama.cpp's tools/mtmd (clip.cpp) reads it:
// general.architecture "clip", clip.projector_type "mlp",
// clip.has_vision_encoder, clip.use_gelu, and a ViT of embedding 64,
// feed-forward 128, 2 blocks (the mlp graph runs all but the last), 4 heads,
// layer-norm epsilon 1e-5, images resized to 32×32 and cut into 8×8
// patches, mean and std 0.5. Its tensors are v.patch_embd.weight (the
// convolution kernel, {8, 8, 3, 64}) and .bias, v.class_embd,
// v.position_embd.weight (17 positions: the class embedding and 16
// patches), v.pre_ln, v.blk.N.{attn_q,attn_k,attn_v,attn_out,ffn_up,
// ffn_down,ln1,ln2}.{weight,bias}, and mm.0 (64 → E) and mm.2 (E → E),
// where E (clip.vision.projection_dim) is -embd, the text model's
// embedding length, which llama-server requires the projector's output to
// match. All tensors are F32, weights from -seed (on another stream than
// the text model's), norm weights 1, biases 0: about 650 kB, the same bytes
// on every run. An image becomes 16 prompt tokens. The flags that shape
// only the text model (-ff, -blocks, -heads, -kv-heads, -vocab, -ctx) are
// an error with -format mmproj; so are a missing -o and an -o that names a
// folder.
package main

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run is the command with its arguments; it returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	c := DefaultConfig
	fl := flag.NewFlagSet("genmodel", flag.ContinueOnError)
	fl.SetOutput(stderr)
	out := fl.String("o", "model.gguf", "output: the file (-format gguf, mmproj) or the folder (-format hf)")
	format := fl.String("format", "gguf", "gguf: a GGUF file; hf: a Hugging Face folder (config.json, model.safetensors, tokenizer.json, …);\nmmproj: a CLIP vision projector GGUF for llama-server --mmproj beside the GGUF")
	fl.IntVar(&c.Embedding, "embd", c.Embedding, "embedding length (with -format mmproj: the text model's, which the projector's output matches)")
	fl.IntVar(&c.FeedForward, "ff", c.FeedForward, "feed-forward length")
	fl.IntVar(&c.Blocks, "blocks", c.Blocks, "transformer blocks")
	fl.IntVar(&c.Heads, "heads", c.Heads, "attention heads")
	fl.IntVar(&c.KVHeads, "kv-heads", c.KVHeads, "key/value heads (a divisor of -heads)")
	fl.IntVar(&c.Vocab, "vocab", c.Vocab, "vocabulary size, special and byte tokens included")
	fl.IntVar(&c.Context, "ctx", c.Context, "context length (llama.context_length, max_position_embeddings)")
	fl.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the weights' generator")
	fl.Usage = func() {
		fmt.Fprintf(fl.Output(), "usage: genmodel [flags]\n\nWrites a random-weight llama model, the same bytes on every run: a GGUF file,\nor with -format hf -o DIR a Hugging Face folder of the same weights, or with\n-format mmproj -o FILE a random-weight CLIP vision projector for llama-server\n--mmproj (of -embd and -seed only).\n\n")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "genmodel: unexpected argument %q\n", fl.Arg(0))
		fl.Usage()
		return 2
	}
	setO := false
	var textOnly []string
	fl.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "o":
			setO = true
		case "ff", "blocks", "heads", "kv-heads", "vocab", "ctx":
			textOnly = append(textOnly, "-"+f.Name)
		}
	})
	if err := checkOutput(*format, *out, setO); err != nil {
		fmt.Fprintln(stderr, "genmodel:", err)
		return 2
	}
	if *format == "mmproj" {
		if len(textOnly) > 0 {
			fmt.Fprintf(stderr, "genmodel: %s shape the text model; -format mmproj takes only -embd (the text model's) and -seed\n", strings.Join(textOnly, ", "))
			return 2
		}
		p := DefaultProjector
		p.TextEmbedding, p.Seed = c.Embedding, c.Seed
		size, sum, err := writeFile(*out, p)
		if err != nil {
			fmt.Fprintln(stderr, "genmodel:", err)
			return 1
		}
		fmt.Fprintf(stdout, "genmodel: wrote %s (%d bytes, sha256 %x)\n", *out, size, sum)
		return 0
	}
	if *format == "hf" {
		size, sum, err := writeHFDir(*out, c)
		if err != nil {
			fmt.Fprintln(stderr, "genmodel:", err)
			return 1
		}
		fmt.Fprintf(stdout, "genmodel: wrote %s (%d bytes in %d files, sha256 %x of model.safetensors)\n", filepath.Clean(*out), size, len(hfFileNames), sum)
		return 0
	}
	size, sum, err := writeFile(*out, c)
	if err != nil {
		fmt.Fprintln(stderr, "genmodel:", err)
		return 1
	}
	fmt.Fprintf(stdout, "genmodel: wrote %s (%d bytes, sha256 %x)\n", *out, size, sum)
	return 0
}

// checkOutput rejects a -format and -o that do not go together. setO is
// whether -o was given.
func checkOutput(format, out string, setO bool) error {
	switch format {
	case "gguf":
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return fmt.Errorf("-o %s is a folder, and -format gguf writes a file (-format hf writes a folder)", out)
		}
		if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
			return fmt.Errorf("-o %s names a folder, and -format gguf writes a file (-format hf writes a folder)", out)
		}
	case "mmproj":
		if !setO {
			return errors.New("-format mmproj writes a projector file: name it with -o FILE")
		}
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return fmt.Errorf("-o %s is a folder, and -format mmproj writes a file", out)
		}
		if strings.HasSuffix(out, "/") || strings.HasSuffix(out, string(filepath.Separator)) {
			return fmt.Errorf("-o %s names a folder, and -format mmproj writes a file", out)
		}
	case "hf":
		if !setO {
			return errors.New("-format hf writes a folder: name it with -o DIR")
		}
		if strings.EqualFold(filepath.Ext(filepath.Clean(out)), ".gguf") {
			return fmt.Errorf("-format hf writes a folder, and -o %s names a .gguf file (-format gguf writes that)", out)
		}
	default:
		return fmt.Errorf("-format %q: want gguf, hf or mmproj", format)
	}
	return nil
}

// writeFile writes the model to path atomically: into a temporary file in
// the same folder, renamed over path once complete.
func writeFile(path string, c model) (size int64, sum []byte, err error) {
	if err := c.Validate(); err != nil {
		return 0, nil, err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".genmodel-*.gguf")
	if err != nil {
		return 0, nil, err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	h := sha256.New()
	cw := &countWriter{w: io.MultiWriter(f, h)}
	if err = c.Write(cw); err != nil {
		return 0, nil, err
	}
	if err = f.Close(); err != nil {
		return 0, nil, err
	}
	if err = os.Chmod(f.Name(), 0o644); err != nil {
		return 0, nil, err
	}
	if err = os.Rename(f.Name(), path); err != nil {
		return 0, nil, err
	}
	return cw.n, h.Sum(nil), nil
}

// model is what writeFile writes: a Config or a Projector.
type model interface {
	Validate() error
	Write(io.Writer) error
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
