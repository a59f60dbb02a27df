package main

import (
	"fmt"
	"slices"
	"testing"
)

// Every split of a word piece into two word pieces is a merge, ranked by
// the join's id and then the left piece's; a split into a token that is
// not a word piece (a byte, a special token) is none.
func TestPieceMerges(t *testing.T) {
	tokens := make([]string, firstPieceID)
	for id := range tokens {
		tokens[id] = fmt.Sprintf("<%d>", id)
	}
	tokens[firstByteID] = "x" // a byte token
	tokens = append(tokens, "a", "b", "c", "ab", "bc", "abc", "xa")
	ids := map[string]int{}
	for id, tok := range tokens {
		ids[tok] = id
	}
	got := pieceMerges(tokens, ids)
	want := [][2]string{{"a", "b"}, {"b", "c"}, {"a", "bc"}, {"ab", "c"}}
	if !slices.Equal(got, want) {
		t.Errorf("merges %q, want %q", got, want)
	}
	if got := pieceMerges(tokens[:firstPieceID+1], ids); got == nil || len(got) != 0 {
		t.Errorf("one piece: merges %q, want none, as [] in the JSON", got)
	}
}
