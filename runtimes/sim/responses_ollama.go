package sim

// Ollama's /v1/responses (0.17.4): a reply cut at max_output_tokens ends
// like any other, response.completed with status "completed" and
// "incomplete_details":null; only its usage's output_tokens, equal to
// the length asked for, tells that the cap ended it. vLLM's, and this
// simulator's in its other flavors, end such a reply with
// response.incomplete (incomplete_details.reason "max_output_tokens").

// capSaysCompleted reports whether the flavor's /v1/responses ends a
// reply cut at its length as completed, as Ollama's does.
func (c Config) capSaysCompleted() bool { return c.flavor() == FlavorOllama }

// completedAtCap is the response.completed event of Ollama's reply cut at
// its length: usage holds the usage member, with its leading comma.
func (e *responsesEncoder) completedAtCap(b []byte, usage string) []byte {
	return e.event(b, "response.completed", e.response("completed", `,"incomplete_details":null`+usage))
}
