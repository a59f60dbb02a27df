package canary

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCanaryChange(t *testing.T) {
	c := func(sha, text string) *Reply { return &Reply{TextSHA256: sha, OutputTokens: 16, Text: text} }
	for _, tc := range []struct {
		name          string
		before, after *Reply
		changed       bool
		at            int
	}{
		{"both nil", nil, nil, false, -1},
		{"before nil", nil, c("a", "x"), false, -1},
		{"after nil", c("a", "x"), nil, false, -1},
		{"same hash", c("a", "hello"), c("a", "hello"), false, -1},
		{"same hash, text ignored", c("a", "hello"), c("a", "help"), false, -1},
		{"first character", c("a", "hello"), c("b", "jello"), true, 0},
		{"later", c("a", "hello world"), c("b", "hello wOrld"), true, 7},
		{"runes, not bytes", c("a", "né à Paris"), c("b", "né à Lyon"), true, 5},
		{"longer", c("a", "hello"), c("b", "hello there"), true, 5},
		{"shorter", c("a", "hello there"), c("b", "hello"), true, 5},
		{"same kept text, other hash", c("a", strings.Repeat("é", 2000)), c("b", strings.Repeat("é", 2000)), true, 2000},
		{"no hashes: by text", c("", "abc"), c("", "abd"), true, 2},
		{"no hashes, same text", c("", "abc"), c("", "abc"), false, -1},
		{"one hash missing: by text", c("a", "abc"), c("", "abc"), false, -1},
		{"same text, other length", c("a", "abc"), &Reply{TextSHA256: "a", OutputTokens: 40, Text: "abc"}, true, -1},
		{"empty answers, other length", c("e", ""), &Reply{TextSHA256: "e", OutputTokens: 128}, true, -1},
	} {
		changed, at := Change(tc.before, tc.after)
		assert.Equal(t, tc.changed, changed, tc.name)
		assert.Equal(t, tc.at, at, tc.name)
	}
}

func TestDescribeCanaryChange(t *testing.T) {
	before := &Reply{TextSHA256: "a", Text: strings.Repeat("x", 212) + "a tail"}
	after := &Reply{TextSHA256: "b", Text: strings.Repeat("x", 212) + "another"}
	assert.Equal(t, "ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at character 214",
		Describe("ollama", "short", "0.6.5", "0.7.0", before, after))
	assert.Equal(t, "ollama: canary reply of prompt short changed at character 214 (same version 0.6.5)",
		Describe("ollama", "short", "0.6.5", "0.6.5", before, after))
	assert.Equal(t, "sim: canary reply of prompt (none) changed at character 214 (version unknown)",
		Describe("sim", "", "", "", before, after))
	assert.Equal(t, "sim unknown → 2: canary reply of prompt code changed at character 214",
		Describe("sim", "code", "", "2", before, after))
	assert.Equal(t, "sim: canary reply of prompt code changed after character 3 (the first 3 are the same) (same version 2)",
		Describe("sim", "code", "2", "2", &Reply{TextSHA256: "a", Text: "abc"}, &Reply{TextSHA256: "b", Text: "abc"}))
	assert.Equal(t, "ollama 0.6.5 → 0.7.0: canary reply of prompt short changed in length: the same answer text in 128 output tokens, was 96",
		Describe("ollama", "short", "0.6.5", "0.7.0", &Reply{TextSHA256: "e", OutputTokens: 96}, &Reply{TextSHA256: "e", OutputTokens: 128}),
		"a reasoning model's empty answer: the length tells")
	assert.Empty(t, Describe("sim", "code", "1", "2", before, before), "a version change alone is no canary change")
	assert.Empty(t, Describe("sim", "code", "1", "2", nil, after))
}
