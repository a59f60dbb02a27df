// Package records owns the request records, <run id>.requests.jsonl:
// every request of a run, one JSON object a line ([Record]), built from a
// round's results ([OfRound]), appended as the run goes
// ([Append]) and read back ([Read], [ReadCanaryTexts]).
// docs/metrics.md defines its keys; they are a released contract.
package records
