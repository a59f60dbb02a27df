// Package telemetry measures, beside the client's clock, what the machine and
// the server say about a benchmark leaf: power, memory and temperatures from
// macmon on Apple Silicon.
package telemetry
