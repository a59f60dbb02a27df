// Package quality measures whether a runtime answers as a reference runtime
// does, and whether it answers a small set of exact-answer questions right:
// the figures beside speed (docs/metrics.md, "Quality").
//
// [Agree] compares one greedy reply with the reference's: the tokens until
// the first different one, the share of aligned tokens that agree (top-1
// agreement), the mean KL divergence over the common prefix from the
// servers' top-k log-probabilities, and whether the texts are equal.
// Tokens are matched as text, so that two runtimes that tokenize one text
// differently still agree ([Align]). Without log-probabilities only the
// text is compared ([AgreeText]).
//
// [Problems] are grade-school arithmetic word problems generated from a
// seed with their answers; [ParseAnswer] reads a reply's answer by one
// strict rule, and [Score] is a runtime's accuracy with its Wilson 95%
// interval.
//
// The package has its own input types ([Reply], [Token], [Alt]): the
// driver converts the runtimes' replies into them.
package quality
