package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/inferencebench/inferencebench/runtimes"
)

// unloadModel asks the Ollama server at url to unload model at once, as
// `ollama stop` does (POST /api/generate with no prompt and keep_alive
// 0), and waits until GET /api/ps no longer lists it, polling every
// interval. The next request loads the model again, with an empty KV
// cache: the state the server was in when a suite run began.
func unloadModel(ctx context.Context, client *http.Client, url, model string, interval time.Duration) error {
	body, _ := json.Marshal(map[string]any{"model": model, "keep_alive": 0})
	if _, err := call(ctx, client, http.MethodPost, url+"/api/generate", body); err != nil {
		return fmt.Errorf("unloading %s: %w", model, err)
	}
	for {
		data, err := call(ctx, client, http.MethodGet, url+"/api/ps", nil)
		if err != nil {
			return fmt.Errorf("waiting for %s to unload: %w", model, err)
		}
		var ps struct {
			Models []struct{ Name, Model string } `json:"models"`
		}
		if err := json.Unmarshal(data, &ps); err != nil {
			return fmt.Errorf("waiting for %s to unload: GET /api/ps: %v", model, err)
		}
		loaded := false
		for _, m := range ps.Models {
			loaded = loaded || runtimes.SameOllamaModel(m.Name, model) || runtimes.SameOllamaModel(m.Model, model)
		}
		if !loaded {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %s to unload: still loaded: %w", model, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// call sends one request and returns the reply's body; a status other
// than 200 is an error that quotes it.
func call(ctx context.Context, client *http.Client, method, url string, body []byte) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", method, url, res.Status, bytes.TrimSpace(data))
	}
	return data, nil
}
