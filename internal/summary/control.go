package summary

import (
	"encoding/json"
	"math"

	"github.com/inferencebench/inferencebench/internal/stats"
)

// Control is a runtime's control leaf as the summary writes it
// (RuntimeInfo.Control): stats' judgement (stats.NewControl), its figures
// plain values there, under the keys below. A change or threshold that is
// not a number is written null and read back NaN.
type Control struct{ stats.Control }

// controlJSON is a Control's keys, in the order the files have them.
type controlJSON struct {
	Leaf            string             `json:"leaf"`  // runtime=…/prompt=…/conc=…
	First           controlFiguresJSON `json:"first"` // its first run
	End             controlFiguresJSON `json:"end"`   // the control, at the end
	TTFTChange      number             `json:"ttft_change"`
	DecodeChange    number             `json:"decode_change"`
	TTFTThreshold   number             `json:"ttft_threshold"`
	DecodeThreshold number             `json:"decode_threshold"`
	Drifted         bool               `json:"drifted"`
	Verdict         string             `json:"verdict"`
	RequestsFirst   int                `json:"requests_first"`
	RequestsEnd     int                `json:"requests_end"`
	TTFTP           *float64           `json:"ttft_p_value"`
	DecodeP         *float64           `json:"decode_p_value"`
	Alpha           float64            `json:"alpha"`
	// UnjudgedReason is why a control of verdict "too few requests" got
	// none (stats.Control.Unjudged); absent for one judged, and from files
	// written before it was said.
	UnjudgedReason string `json:"unjudged_reason,omitempty"`
}

// controlFiguresJSON are one run of a control's leaf.
type controlFiguresJSON struct {
	Requests      int      `json:"requests"`
	Successes     int      `json:"successes"`
	TTFTP50       *float64 `json:"ttft_s_p50"`
	DecodeTPSMean *float64 `json:"decode_tps_mean"`
}

func (c Control) MarshalJSON() ([]byte, error) {
	figs := func(f stats.ControlFigures) controlFiguresJSON {
		return controlFiguresJSON{Requests: f.Requests, Successes: f.Successes, TTFTP50: f.TTFTP50, DecodeTPSMean: f.DecodeTPSMean}
	}
	return marshal(controlJSON{
		Leaf: c.Leaf, First: figs(c.First), End: figs(c.End),
		TTFTChange: number(c.TTFTChange), DecodeChange: number(c.DecodeChange),
		TTFTThreshold: number(c.TTFTThreshold), DecodeThreshold: number(c.DecodeThreshold),
		Drifted: c.Drifted, Verdict: c.Verdict, RequestsFirst: c.RequestsFirst, RequestsEnd: c.RequestsEnd,
		TTFTP: c.TTFTP, DecodeP: c.DecodeP, Alpha: c.Alpha, UnjudgedReason: c.Unjudged,
	})
}

func (c *Control) UnmarshalJSON(b []byte) error {
	var w controlJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	figs := func(f controlFiguresJSON) stats.ControlFigures {
		return stats.ControlFigures{Requests: f.Requests, Successes: f.Successes, TTFTP50: f.TTFTP50, DecodeTPSMean: f.DecodeTPSMean}
	}
	c.Control = stats.Control{
		Leaf: w.Leaf, First: figs(w.First), End: figs(w.End),
		TTFTChange: float64(w.TTFTChange), DecodeChange: float64(w.DecodeChange),
		TTFTThreshold: float64(w.TTFTThreshold), DecodeThreshold: float64(w.DecodeThreshold),
		Drifted: w.Drifted, Verdict: w.Verdict, RequestsFirst: w.RequestsFirst, RequestsEnd: w.RequestsEnd,
		TTFTP: w.TTFTP, DecodeP: w.DecodeP, Alpha: w.Alpha, Unjudged: w.UnjudgedReason,
	}
	return nil
}

// number is a float64 written null where it is not finite (JSON has no
// NaN), and a null read back as NaN; a key a file lacks stays 0.
type number float64

func (n number) MarshalJSON() ([]byte, error) {
	if !finite(float64(n)) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(n))
}

func (n *number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = number(math.NaN())
		return nil
	}
	var x float64
	err := json.Unmarshal(b, &x)
	*n = number(x)
	return err
}
