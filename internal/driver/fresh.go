package driver

import (
	"context"

	"github.com/inferencebench/inferencebench/internal/config"
	"github.com/inferencebench/inferencebench/internal/summary"
	"github.com/inferencebench/inferencebench/runtimes"
)

// fresh returns rt's server to a known state before a leaf run
// (BENCH_FRESH=leaf), the way its server offers (runtimes.FreshWay). The
// way, and the first refusal, go in the runtime's entry of the summary and
// are said once on the log; a refusal never stops the leaf. It reports
// whether the model was unloaded (the next request loads it).
func (d *Driver) fresh(ctx context.Context, rt *runtimes.Runtime) (unloaded bool) {
	if d.Settings.Fresh != config.FreshLeaf {
		return false
	}
	found := rt.FreshWay(ctx)
	way, err := rt.Fresh(ctx)
	info := d.runtimeInfo(rt.Name)
	if info.Fresh == nil {
		w := string(way)
		info.Fresh = &w
		switch {
		case way == runtimes.FreshNone && found == runtimes.FreshResetPrefixCache:
			d.logf("%s: its server answers neither POST /reset_prefix_cache nor POST /flush_cache (HTTP 404): vLLM serves /reset_prefix_cache only when started with VLLM_SERVER_DEV_MODE=1 in its environment; leaves run on it as the earlier ones left it ("+envFresh+"="+config.FreshLeaf+" does nothing here)", rt.Name)
		case way == runtimes.FreshNone:
			d.logf("%s: its server offers no way to drop the state it keeps between requests; leaves run on it as the earlier ones left it ("+envFresh+"="+config.FreshLeaf+" does nothing here)", rt.Name)
		default:
			d.logf("%s: before each leaf run its server is returned to a known state: %s ("+envFresh+"="+config.FreshLeaf+")", rt.Name, describeWay(way))
		}
	}
	if err != nil && info.FreshError == nil {
		msg := err.Error()
		info.FreshError = &msg
		d.logf("%v; the run goes on, and its leaves may depend on the ones before them", err)
	}
	return err == nil && way == runtimes.FreshUnload
}

func describeWay(w runtimes.FreshWay) string {
	switch w {
	case runtimes.FreshUnload:
		return "the model is unloaded (keep_alive 0) and the warm-ups load it again"
	case runtimes.FreshEraseSlots:
		return "every slot is erased (POST /slots/ID?action=erase, which llama-server serves only when started with --slot-save-path DIR)"
	case runtimes.FreshResetPrefixCache:
		return "its prefix cache is dropped (POST /reset_prefix_cache)"
	case runtimes.FreshFlushCache:
		return "its cache is flushed (POST /flush_cache)"
	}
	return string(w)
}

// runtimeInfo is the summary's entry of the runtime name.
func (d *Driver) runtimeInfo(name string) *summary.RuntimeInfo {
	for i := range d.Run.Runtimes {
		if d.Run.Runtimes[i].Name == name {
			return &d.Run.Runtimes[i]
		}
	}
	panic("driver: no runtime " + name)
}
