package stats

import (
	"time"
)

const ms = time.Millisecond

// names are the settings the notes name, as a caller calls them.
var names = NoteSettings{KeepAlive: "KEEP_ALIVE_SETTING", NumCtx: "NUM_CTX_SETTING", Cache: "CACHE_SETTING"}
