// Package canary owns the canary replies: a leaf run's one untimed
// request at temperature 0 whose reply ([Reply]: its text's hash, its
// first [TextMax] characters, its output tokens) shows when a runtime's
// answers changed between runs, and where ([Change], [Describe]).
package canary
