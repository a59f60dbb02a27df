package canary

import (
	"fmt"
	"unicode/utf8"
)

// Change tells whether the canary reply after differs from the one
// before (two rows of the same leaf in two runs) and where: at is the
// index, in runes from 0, of the first character that differs. Replies
// are told apart by their TextSHA256 where both have one, else by Text.
//
//   - Either nil (BENCH_CANARY=off, an older file, every canary failed):
//     nothing to compare, (false, -1).
//   - The same reply: (false, -1).
//   - One text a prefix of the other: at is the shorter's length.
//   - The kept texts (the first TextMax characters) the same but
//     the hashes not: the replies differ after them, and at is the kept
//     text's length in runes.
//   - Embeddings (Reply.Embedding): changed where their lengths differ
//     or their cosine similarity is below SameCosine, at -1; against a
//     reply without one (a file of before it), nothing to compare.
//   - The same text in another number of output tokens: (true, -1). The
//     text is the answer, reasoning left out, so a reasoning model whose
//     answer did not change (or is empty: every token went to reasoning)
//     still shows a changed reply by its length.
func Change(before, after *Reply) (changed bool, at int) {
	if before == nil || after == nil {
		return false, -1
	}
	if before.Embedding != nil || after.Embedding != nil {
		// Embeddings by their vectors; a file of before them kept the
		// hash of an empty text, which tells nothing.
		if before.Embedding == nil || after.Embedding == nil {
			return false, -1
		}
		return !before.Embedding.same(after.Embedding), -1
	}
	same := before.Text == after.Text
	if before.TextSHA256 != "" && after.TextSHA256 != "" {
		same = before.TextSHA256 == after.TextSHA256
	}
	if same {
		return before.OutputTokens != after.OutputTokens, -1
	}
	a, b := before.Text, after.Text
	at = 0
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			return true, at
		}
		a, b, at = a[na:], b[nb:], at+1
	}
	return true, at
}

// Describe says how a runtime's canary reply of a prompt
// changed between two rows, and whether the runtime's version changed
// with it, or "" if it did not change (Change):
//
//	ollama 0.6.5 → 0.7.0: canary reply of prompt short changed at character 213
//	ollama: canary reply of prompt short changed at character 213 (same version 0.6.5)
//
// Characters count from 1 here, for people: character 213 is at index
// 212. versionBefore and versionAfter are the runtime's versions in the
// two runs ("" where unknown). A reply whose kept text is the same is
// said to change "after character N".
func Describe(runtime, prompt, versionBefore, versionAfter string, before, after *Reply) string {
	changed, at := Change(before, after)
	if !changed {
		return ""
	}
	if prompt == "" {
		prompt = "(none)"
	}
	where := fmt.Sprintf("at character %d", at+1)
	switch {
	case before.Embedding != nil:
		where = before.Embedding.describe(after.Embedding)
	case at < 0:
		where = fmt.Sprintf("in length: the same answer text in %d output tokens, was %d", after.OutputTokens, before.OutputTokens)
	case before.Text == after.Text:
		where = fmt.Sprintf("after character %d (the first %d are the same)", at, at)
	}
	unknown := func(v string) string {
		if v == "" {
			return "unknown"
		}
		return v
	}
	what := fmt.Sprintf("canary reply of prompt %s changed %s", prompt, where)
	if versionBefore != versionAfter {
		return fmt.Sprintf("%s %s → %s: %s", runtime, unknown(versionBefore), unknown(versionAfter), what)
	}
	if versionAfter == "" {
		return fmt.Sprintf("%s: %s (version unknown)", runtime, what)
	}
	return fmt.Sprintf("%s: %s (same version %s)", runtime, what, versionAfter)
}

// Whole returns before and after with their whole texts, from
// the texts of each one's run (ReadCanaryTexts of its request records),
// where both are there: Change then places a change after the first
// TextMax characters exactly. Else, or if either is nil, it returns
// them as they are.
func Whole(before, after *Reply, beforeTexts, afterTexts map[string]string) (*Reply, *Reply) {
	if before == nil || after == nil {
		return before, after
	}
	tb, okb := beforeTexts[before.TextSHA256]
	ta, oka := afterTexts[after.TextSHA256]
	if !okb || !oka {
		return before, after
	}
	wb, wa := *before, *after
	wb.Text, wa.Text = tb, ta
	return &wb, &wa
}
