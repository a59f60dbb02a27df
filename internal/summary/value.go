package summary

import (
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/inferencebench/inferencebench/internal/figures"
)

// Value is the row's figure f, the one accessor the tools read a row's
// figures through (cmd/report's tables and charts, cmd/history's series):
// the value under f's key, a figure's Key being the row's JSON key, or,
// for a figure the row has no key of, computed from those it has
// (figures.CachedShare, figures.ClientDecode). Nil where the row lacks
// it; the value may be not finite (a file's null is nil).
func (r *Row) Value(f figures.Figure) *float64 {
	switch f {
	case figures.CachedShare:
		// Cached over prompt tokens, where the server counted both: the
		// turns' own cache-hit ratio.
		if !finitePtr(r.CachedPromptTokensMean) || !finitePtr(r.PromptTokensMean) || *r.PromptTokensMean <= 0 {
			return nil
		}
		share := *r.CachedPromptTokensMean / *r.PromptTokensMean
		return &share
	case figures.ClientDecode:
		// The client's mean request time after the first token, seconds.
		if !finitePtr(r.TotalMean) || !finitePtr(r.TTFTMean) {
			return nil
		}
		d := *r.TotalMean - *r.TTFTMean
		return &d
	case figures.ServerMemory:
		// The most the server's processes held in any leaf run, bytes.
		if r.ServerRSSPeakBytes == nil {
			return nil
		}
		b := float64(*r.ServerRSSPeakBytes)
		return &b
	}
	i, ok := rowFigureFields()[f.Key]
	if !ok {
		return nil
	}
	return reflect.ValueOf(r).Elem().FieldByIndex(i).Interface().(*float64)
}

// rowFigureFields are the row's figures, *float64 fields, by JSON key.
var rowFigureFields = sync.OnceValue(func() map[string][]int {
	byKey := map[string][]int{}
	float := reflect.TypeFor[*float64]()
	for _, sf := range reflect.VisibleFields(reflect.TypeFor[Row]()) {
		key, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if sf.Type == float && key != "" && key != "-" {
			byKey[key] = sf.Index
		}
	}
	return byKey
})

func finitePtr(x *float64) bool { return x != nil && !math.IsNaN(*x) && !math.IsInf(*x, 0) }
