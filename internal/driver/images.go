package driver

import (
	"context"
	"errors"
	"fmt"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/runtimes"
)

// imagesQuestion is the prompt of the request that asks a server which
// says nothing of its model's vision whether it takes the run's images.
const imagesQuestion = "What is in the image?"

// checkImages draws BENCH_IMAGES once for the run (the same bytes for
// every request, from BENCH_SEED, 0 when unset) and stops the run, before
// any timed request, when a runtime's model takes no images: where the
// server says so (Ollama's /api/show capabilities without "vision",
// llama-server's /props modalities with "vision": false), before any
// request but the metadata's, or, where it says nothing (vLLM, mlx_lm, LM
// Studio, llama-server builds without /props modalities), when it
// refuses one request of one token with the run's images, as it would
// refuse every request of the run (a text model: vLLM's "is not a
// multimodal model"; more images than its --limit-mm-per-prompt).
func (d *Driver) checkImages(ctx context.Context) error {
	spec := d.Settings.Images
	if !spec.Set() {
		return nil
	}
	var seed uint64
	if s := d.Settings.Seed; s != nil {
		seed = uint64(*s)
	}
	data, err := spec.Generate(seed)
	if err != nil {
		return fmt.Errorf("%s=%q: %w", envImages, spec, err)
	}
	d.images = make([]runtimes.Image, len(data))
	size := 0
	for i, b := range data {
		d.images[i] = runtimes.NewImage(spec.MIME(), b)
		size += len(b)
	}
	d.logf("images: every request sends %d %s %s of %d bytes in all (%s=%s, seed %d)",
		spec.N, spec.Size(), spec.Format, size, envImages, spec, seed)
	var errs []error
	for _, rt := range d.Runtimes {
		if d.unavailable[rt.Name] == nil {
			errs = append(errs, d.checkVision(ctx, rt))
		}
	}
	return errors.Join(errs...)
}

// checkVision refuses rt when its model takes no images (checkImages).
func (d *Driver) checkVision(ctx context.Context, rt *runtimes.Runtime) error {
	spec := d.Settings.Images
	hint := ""
	if config.Product(rt.Name) == config.Sim {
		hint = "; the simulator plays a text model unless SIM_MODEL_VISION=on"
	}
	takes, known, source := runtimes.Info{Models: d.Run.ModelMetadata[rt.Name]}.TakesImages()
	switch {
	case known && takes:
		return nil
	case known:
		return fmt.Errorf("%s=%q: %s (%s) serves %s, which takes no images (%s)%s; serve a vision model, or unset %[1]s",
			envImages, spec.String(), rt.Name, rt.BaseURL, rt.Model, noVisionSaid(source), hint)
	}
	st := d.Settings
	res := rt.Do(ctx, runtimes.Request{
		Prompt: imagesQuestion, MaxTokens: 1, Seed: st.Seed, Temperature: st.Temperature,
		KeepAlive: st.KeepAlive, NumCtx: d.numCtx, Images: d.images,
	})
	if res.Err != nil {
		return fmt.Errorf("%s=%q: %s (%s) serving %s refused a request of one token with the run's %d images (%w)%s; serve a vision model that takes %d images a prompt (vLLM: --limit-mm-per-prompt), or unset %[1]s",
			envImages, spec.String(), rt.Name, rt.BaseURL, rt.Model, spec.N, res.Err, hint, spec.N)
	}
	return nil
}

// noVisionSaid is how source (runtimes.Info.TakesImages) said that the
// model takes no images.
func noVisionSaid(source string) string {
	if source == "/props modalities" {
		return source + ` has "vision": false; llama-server takes images only when started with --mmproj and the model's projector file`
	}
	return source + ` has no "vision"`
}
