package sim

import "hash/fnv"

// The simulator's tokenizer. Its counts are not word counts, so that a
// client that sizes prompts has to calibrate against the server (its
// /tokenize, or the counts its replies report) as it must on a real one.

const (
	// BytesPerToken is how many bytes of a word one token covers: a word
	// of b bytes is ceil(b/BytesPerToken) tokens.
	BytesPerToken = 4
	// MessageTokens is what the chat template adds for every message (its
	// role header and its end), whatever its content.
	MessageTokens = 3
	// ReplyTokens is what the chat template adds after the last message:
	// the header of the assistant's turn.
	ReplyTokens = 2
	// DefaultNumCtx is the context an Ollama-kind request gets when it
	// sets no options.num_ctx, as Ollama 0.6 gives (at most
	// Config.Context).
	DefaultNumCtx = 2048
	// NumKeep is how many tokens at the start of a prompt Ollama keeps when
	// it cuts the prompt to num_ctx (its default num_keep).
	NumKeep = 4
)

// Token ids, for /tokenize: a word piece's id is a hash of its bytes in
// [0, vocabSize); the template's tokens and the BOS token have ids of
// their own above that.
const (
	vocabSize = 32000
	bosID     = vocabSize     // llama.cpp's add_special
	messageID = vocabSize + 1 // MessageTokens ids from here
	replyID   = messageID + MessageTokens
)

// Tokens is the number of tokens the simulator's tokenizer makes of s:
// every whitespace-separated word counts ceil(len(word)/BytesPerToken)
// tokens, len in bytes. "a cat" is 2 tokens, "extraordinary" 4, "" and
// "  " 0.
func Tokens(s string) int {
	n := 0
	for w := range words(s) {
		n += wordTokens(w)
	}
	return n
}

// wordTokens is the number of tokens of one word.
func wordTokens(w string) int { return (len(w) + BytesPerToken - 1) / BytesPerToken }

// PromptTokens is the number of prompt tokens the server counts for a chat
// whose messages have the contents given, one string a message:
// MessageTokens plus the content's Tokens for each message, plus
// ReplyTokens. What a chat request's reply reports (usage.prompt_tokens,
// prompt_eval_count, before any cut to num_ctx) and what vLLM-flavor
// /tokenize counts for its messages.
func PromptTokens(contents ...string) int {
	n := ReplyTokens
	for _, c := range contents {
		n += MessageTokens + Tokens(c)
	}
	return n
}

// appendTextIDs appends the token ids of s: one a word piece of
// BytesPerToken bytes (the last piece of a word may be shorter).
func appendTextIDs(ids []int, s string) []int {
	for w := range words(s) {
		for i := 0; i < len(w); i += BytesPerToken {
			h := fnv.New32a()
			h.Write([]byte(w[i:min(i+BytesPerToken, len(w))]))
			ids = append(ids, int(h.Sum32()%vocabSize))
		}
	}
	return ids
}

// appendChatIDs appends the token ids of a chat of msgs, the template
// applied: PromptTokens of them, in the order the prompt cache sees them
// (each message's header, its content's, its end; the reply's header).
func appendChatIDs(ids []int, msgs []chatMessage) []int {
	for _, m := range msgs {
		for i := range headerTokens {
			ids = append(ids, messageID+i)
		}
		for _, t := range m.texts {
			ids = appendTextIDs(ids, t)
		}
		for i := range endTokens {
			ids = append(ids, messageID+headerTokens+i)
		}
	}
	for i := range ReplyTokens {
		ids = append(ids, replyID+i)
	}
	return ids
}

// cut is what Ollama does to a prompt of p tokens, c of them cached, that
// is longer than its context numCtx: it keeps the first NumKeep tokens (at
// most numCtx-1) and the last numCtx-NumKeep, dropping those between, so
// that the prompt is numCtx tokens. It returns the prompt's tokens and the
// cached ones among those kept: the kept tokens that lie in the cached
// prefix, at most the new prompt's tokens minus 1.
func cut(p, c, numCtx int) (int, int) {
	if p <= numCtx {
		return p, c
	}
	keep := min(NumKeep, numCtx-1)
	dropped := p - numCtx
	kept := min(c, keep) + max(0, c-(keep+dropped))
	return numCtx, max(0, min(kept, numCtx-1))
}
