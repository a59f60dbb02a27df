package config

import "github.com/inferencebench/inferencebench/internal/stats"

// NoteSettings are the settings a leaf's notes point to (stats.Metrics.Notes),
// by the names this package reads them under.
var NoteSettings = stats.NoteSettings{
	KeepAlive: Var("KeepAlive"),
	NumCtx:    Var("NumCtx"),
	Cache:     Var("Cache"),
}
