package prompts

// followUps are the user messages of a conversation's turns after the
// first, written for this suite: short, so that a turn's prompt is almost
// all history, and asking for more text, so that no model answers in a
// word.
var followUps = []string{
	"Go on.",
	"Give a shorter version.",
	"List three points from that.",
	"Explain the second point in more detail.",
	"Now say it again for a beginner.",
	"What would you add?",
}

// FollowUps are the follow-up messages of a conversation of n turns:
// turn k > 1 sends FollowUps(n)[k-2]. The list repeats past its end, so
// every turn of a long conversation has one.
func FollowUps(n int) []string {
	if n <= 1 {
		return nil
	}
	out := make([]string, n-1)
	for i := range out {
		out[i] = followUps[i%len(followUps)]
	}
	return out
}
