package sim

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // image.DecodeConfig reads JPEG
	_ "image/png"  // and PNG headers
	"net/http"
	"strings"
)

// Images in chat requests, as vision models' servers take them: an
// OpenAI-kind request's image_url parts, whose URL is a data URL
// ("data:image/png;base64,…"), and an Ollama message's "images", base64
// texts. The simulator reads each image's header for its size and counts
// it as ImageTokens tokens of the prompt, so that its prefill takes their
// time and its usage counts them; the prompt cache knows an image by its
// bytes. With SIM_MODEL_VISION=off the model takes no images, and a
// request with any is refused as the server refuses it (visionError).

// ImagePatch is the side, in pixels, of the square an image token covers
// (as Qwen2-VL's processor counts: 14-pixel patches merged 2×2).
const ImagePatch = 28

// ImageTokens is the prompt tokens of a w×h image: one per ImagePatch
// square, a part one counting whole.
func ImageTokens(w, h int) int {
	return ((w + ImagePatch - 1) / ImagePatch) * ((h + ImagePatch - 1) / ImagePatch)
}

// chatImage is an image of a message as the prompt counts it: its base64
// text, which the prompt cache hashes, and its tokens.
type chatImage struct {
	key    string
	tokens int
}

// readImage reads an image's base64 text: its header, for its size.
func readImage(b64 string) (chatImage, error) {
	cfg, _, err := image.DecodeConfig(base64.NewDecoder(base64.StdEncoding, strings.NewReader(b64)))
	if err != nil {
		return chatImage{}, fmt.Errorf("the image is no PNG or JPEG the server can read: %w", err)
	}
	return chatImage{key: b64, tokens: ImageTokens(cfg.Width, cfg.Height)}, nil
}

// readImageURL reads an image_url part's URL: a data URL of base64 bytes.
func readImageURL(url string) (chatImage, error) {
	rest, ok := strings.CutPrefix(url, "data:")
	_, b64, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return chatImage{}, errors.New(`the simulator takes images only as data URLs, "data:image/png;base64,…"`)
	}
	return readImage(b64)
}

// hasImages reports whether a chat request's messages carry any image:
// an Ollama message's "images", or an image_url part.
func hasImages(msgs []message) bool {
	for _, m := range msgs {
		if len(m.Images) > 0 || bytes.Contains(m.Content, []byte(`"image_url"`)) {
			return true
		}
	}
	return false
}

// refusesImages reports whether a chat request of msgs is refused: it
// has images, and the model takes none.
func (s *Server) refusesImages(msgs []message) bool {
	return s.cfg.modelVision() == ModelVisionOff && hasImages(msgs)
}

// noVision is the error of a request with images to a model that takes
// none: Ollama's ("this model is missing data required for image
// input", model.ErrNoVisionModel), or vLLM's ("<model> is not a
// multimodal model", a 400 BadRequestError) for the other flavours.
func (s *Server) noVision(model string) error {
	if s.cfg.flavor() == FlavorOllama {
		return errors.New("this model is missing data required for image input")
	}
	return fmt.Errorf("%s is not a multimodal model", s.cfg.replyModel(model))
}

// llamaNoVision is llama-server's error for an image_url part when it was
// started without --mmproj: its chat parser throws a std::runtime_error,
// which its handler answers 500 "server_error".
const llamaNoVision = "image input is not supported - hint: if this is unexpected, you may need to provide the mmproj"

// visionError answers an OpenAI-kind chat request with images to a model
// that takes none: Ollama's /v1 passes its error on in OpenAI's shape,
// llama-server answers 500 (llamaNoVision), the others answer as vLLM
// does.
func (s *Server) visionError(w http.ResponseWriter, model string) {
	switch s.cfg.flavor() {
	case FlavorOllama:
		ollamaOpenAIError(w, s.noVision(model))
	case FlavorLlamaCpp:
		llamaError(w, http.StatusInternalServerError, llamaNoVision, "server_error")
	default:
		openaiError(w, s.noVision(model))
	}
}
