package runtimes

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
)

// Image is an image sent with a request's prompt, encoded once for every
// request that sends it: its data URL, "data:image/png;base64,…", which
// OpenAI-compatible servers take as an image_url part and whose base64
// text Ollama takes in a message's "images".
type Image struct {
	URL string
}

// NewImage is the image of data, an encoded picture of media type mime
// ("image/png", "image/jpeg").
func NewImage(mime string, data []byte) Image {
	return Image{URL: "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(data)}
}

// Base64 is the image's bytes in base64, as Ollama takes them.
func (im Image) Base64() string {
	_, b64, _ := strings.Cut(im.URL, ";base64,")
	return b64
}

// openAIPart is a part of a message's content as an array: a text, or
// an image by its URL.
type openAIPart struct {
	Type     string         `json:"type"` // "text" or "image_url"
	Text     *string        `json:"text,omitempty"`
	ImageURL *openAIPartURL `json:"image_url,omitempty"`
}

type openAIPartURL struct {
	URL string `json:"url"`
}

// openAIUserMessage is the prompt as the last user message: its content a
// string, or, with images, an array of the text and then each image
// (OpenAI's image_url parts, which vLLM, llama-server, LM Studio and
// Ollama's /v1 read).
func openAIUserMessage(req *Request) openAIMessage {
	m := openAIMessage{Role: "user", Content: &req.Prompt}
	if len(req.Images) == 0 {
		return m
	}
	parts := make([]openAIPart, 1+len(req.Images))
	parts[0] = openAIPart{Type: "text", Text: &req.Prompt}
	for i := range req.Images {
		parts[i+1] = openAIPart{Type: "image_url", ImageURL: &openAIPartURL{URL: req.Images[i].URL}}
	}
	m.Content = parts
	return m
}

// ollamaUserMessage is the prompt as the last user message, its images,
// if any, in "images" as base64 texts.
func ollamaUserMessage(req *Request) ollamaMessage {
	m := ollamaMessage{Role: "user", Content: req.Prompt}
	if len(req.Images) > 0 {
		m.Images = make([]string, len(req.Images))
		for i, im := range req.Images {
			m.Images[i] = im.Base64()
		}
	}
	return m
}

// TakesImages says whether the server says its model takes images, read
// from what Describe fetched (Info.Models), and source, where it was read:
// Ollama's /api/show "capabilities" list "vision" for a model with a
// vision projector; llama-server's /props "modalities" has "vision": true
// only when it was started with --mmproj and the model's projector.
// known is false where the server says nothing (vLLM, mlx_lm, LM Studio,
// and llama-server builds whose /props has no "modalities").
func (info Info) TakesImages() (takes, known bool, source string) {
	var m struct {
		Show *struct {
			Capabilities *[]string `json:"capabilities"`
		} `json:"show"`
		Props *struct {
			Modalities *struct {
				Vision *bool `json:"vision"`
			} `json:"modalities"`
		} `json:"props"`
	}
	if len(info.Models) == 0 || json.Unmarshal(info.Models, &m) != nil {
		return false, false, ""
	}
	// /props first: a server that answers it is llama-server, whose
	// Ollama-like /api/show, where it has one, says "multimodal".
	if m.Props != nil && m.Props.Modalities != nil && m.Props.Modalities.Vision != nil {
		return *m.Props.Modalities.Vision, true, "/props modalities"
	}
	if m.Show != nil && m.Show.Capabilities != nil {
		return slices.Contains(*m.Show.Capabilities, "vision"), true, "/api/show capabilities"
	}
	return false, false, ""
}
