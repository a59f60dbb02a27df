// Command genmodel writes a small random-weight llama model as a GGUF file,
// for running a real runtime (Ollama, llama.cpp) end to end where no model
// can be downloaded.
//
//	go run ./cmd/genmodel -o model.gguf
//
// The file is the same, byte for byte, on every run with the same flags:
// the weights come from a PCG generator with a fixed seed. All tensors are
// F32. The vocabulary is SentencePiece-style (tokenizer.ggml.model "llama"):
// <unk>, <s>, </s>, the 256 byte tokens <0x00>…<0xFF> (without which
// llama.cpp aborts on text it cannot split into pieces), then word pieces.
// The output rows of the special and byte tokens are zero, so greedy
// decoding never picks </s> and every request runs to its token limit.
//
// The defaults (embedding 256, feed-forward 768, 4 blocks, 4 heads, 512
// tokens) give a file of about 15 MB: big enough that per-token overhead
// does not dominate the decode rate, small enough to write in a second.
package main

import (
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

func main() {
	c := DefaultConfig
	out := flag.String("o", "model.gguf", "output file")
	flag.IntVar(&c.Embedding, "embd", c.Embedding, "embedding length")
	flag.IntVar(&c.FeedForward, "ff", c.FeedForward, "feed-forward length")
	flag.IntVar(&c.Blocks, "blocks", c.Blocks, "transformer blocks")
	flag.IntVar(&c.Heads, "heads", c.Heads, "attention heads")
	flag.IntVar(&c.KVHeads, "kv-heads", c.KVHeads, "key/value heads (a divisor of -heads)")
	flag.IntVar(&c.Vocab, "vocab", c.Vocab, "vocabulary size, special and byte tokens included")
	flag.IntVar(&c.Context, "ctx", c.Context, "context length (llama.context_length)")
	flag.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the weights' generator")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: genmodel [flags]\n\nWrites a random-weight llama GGUF model, the same bytes on every run.\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	size, sum, err := writeFile(*out, c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genmodel:", err)
		os.Exit(1)
	}
	fmt.Printf("genmodel: wrote %s (%d bytes, sha256 %x)\n", *out, size, sum)
}

// writeFile writes the model to path atomically: into a temporary file in
// the same folder, renamed over path once complete.
func writeFile(path string, c Config) (size int64, sum []byte, err error) {
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

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
