package driver

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/inferencebench/inferencebench/internal/records"
	"github.com/inferencebench/inferencebench/internal/stats"
	"github.com/inferencebench/inferencebench/internal/summary"
)

// files are a run's files in BENCH_OUTPUT_DIR: <id>.json (the summary)
// and <id>.txt (for benchstat), each rewritten whole after every leaf run,
// and <id>.requests.jsonl, a record of every request appended after every
// round. Nothing is written until a request has been sent, so a run that
// sent none leaves no files.
type files struct {
	dir string
	// lock serialises the writes, and holds an interrupt back until a
	// write under way has finished (see freeze). A channel, not a mutex,
	// so that freeze can give up waiting.
	lock chan struct{}

	id                 string
	json, txt, records string   // their paths
	saved              int      // leaf runs in the .json and .txt; 0 before the first write
	recs               *os.File // open once the first record is written
	// held are the timed rounds' records of the leaf run under way, kept
	// until its energy is known (see hold); guarded by lock.
	held [][]records.Record
}

// openFiles checks that dir can hold the run's files: it creates it if
// need be and writes and removes a file there, so that a run never
// measures for an hour and then finds it cannot keep its results. It picks
// the run's id: id, or id-2, id-3, … if a run of that id already has files
// there.
func openFiles(dir, id string) (*files, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf(envOutputDir+"=%q: %s", dir, fmt.Sprintf(format, args...))
	}
	if info, err := os.Stat(dir); err == nil && !info.IsDir() {
		return nil, bad("not a folder")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, bad("cannot create the folder: %v", cause(err))
	}
	f, err := os.CreateTemp(dir, ".write-check-*")
	if err != nil {
		return nil, bad("cannot write there: %v", cause(err))
	}
	_, werr := f.WriteString("inferencebench\n")
	cerr := f.Close()
	rerr := os.Remove(f.Name())
	if err := errors.Join(werr, cerr, rerr); err != nil {
		return nil, bad("cannot write there: %v", cause(err))
	}
	id, err = freeID(dir, id)
	if err != nil {
		return nil, err
	}
	p := summary.PathsOf(dir, id)
	return &files{
		dir: dir, lock: make(chan struct{}, 1), id: id,
		json: p.JSON, txt: p.Bench, records: p.Records,
	}, nil
}

// cause is err without the path a *PathError repeats.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Op, pe.Err)
	}
	return err
}

// write writes r's summary and benchstat files as they stand, atomically.
func (f *files) write(r *summary.Run) error {
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	r.CompletedAt = time.Now()
	leaves := r.Len()
	for _, w := range []struct {
		path   string
		encode func() ([]byte, error)
	}{{f.json, r.File().Encode}, {f.txt, r.Benchfmt}} {
		data, err := w.encode()
		if err != nil {
			return fmt.Errorf("encoding %s: %w", w.path, err)
		}
		if err := writeAtomic(w.path, data); err != nil {
			return err
		}
	}
	f.saved = leaves
	return nil
}

// appendRecords appends request records to the .requests.jsonl file,
// creating it the first time.
func (f *files) appendRecords(recs []records.Record) error {
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	f.held = append(f.held, recs) // after any held before them
	return f.flushHeld()
}

// hold keeps a round's records, to be written with their energy by
// writeHeld, or without it by an interrupt (freeze).
func (f *files) hold(recs []records.Record) {
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	f.held = append(f.held, recs)
}

// writeHeld gives the held records their share of e (nil: none) and
// appends them to the records file.
func (f *files) writeHeld(e *stats.Energy) error {
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	records.SetEnergy(f.held, e)
	return f.flushHeld()
}

// flushHeld appends the held records; the caller holds lock.
func (f *files) flushHeld() error {
	var all []records.Record
	for _, recs := range f.held {
		all = append(all, recs...)
	}
	f.held = nil
	if len(all) == 0 {
		return nil
	}
	data, err := records.Append(nil, all)
	if err != nil {
		return fmt.Errorf("encoding request records: %w", err)
	}
	if f.recs == nil {
		if f.recs, err = os.OpenFile(f.records, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644); err != nil {
			return err
		}
	}
	if _, err := f.recs.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", f.records, err)
	}
	return nil
}

// close closes the records file.
func (f *files) close() {
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	if f.recs != nil {
		f.recs.Close()
		f.recs = nil
	}
}

// remove deletes the files, if any were written.
func (f *files) remove() {
	f.close()
	f.lock <- struct{}{}
	defer func() { <-f.lock }()
	for _, p := range []string{f.json, f.txt, f.records} {
		os.Remove(p)
	}
	f.saved = 0
}

// freeze waits up to d for a write under way to finish, and then keeps
// any other from starting. It reports whether it got there in time.
func (f *files) freeze(d time.Duration) bool {
	select {
	case f.lock <- struct{}{}:
		// The rounds of the leaf run under way keep their records, without
		// energy: the run ends before the leaf's.
		f.flushHeld()
		return true
	case <-time.After(d):
		return false
	}
}

// maxRunsPerID bounds the search for a free run id.
const maxRunsPerID = 1000

// freeID returns id, or id-2, id-3, … if a run of that id already has
// files in dir (two runs started in the same second). An error other than
// "does not exist" is returned, never retried.
func freeID(dir, id string) (string, error) {
	cand := id
	for i := 2; i <= maxRunsPerID; i++ {
		free := true
		p := summary.PathsOf(dir, cand)
		for _, path := range []string{p.JSON, p.Records} {
			_, err := os.Stat(path)
			switch {
			case err == nil:
				free = false
			case !errors.Is(err, fs.ErrNotExist):
				return "", fmt.Errorf("choosing the run's file name in "+envOutputDir+"=%q: %w", dir, err)
			}
		}
		if free {
			return cand, nil
		}
		cand = id + "-" + strconv.Itoa(i)
	}
	return "", fmt.Errorf("choosing the run's file name in "+envOutputDir+"=%q: %s.json to %s.json all exist", dir, id, cand)
}

// writeAtomic writes data to path so that path is either absent, the old
// file or the complete new one: it writes a temporary file in the same
// folder, syncs it and renames it over path.
func writeAtomic(path string, data []byte) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("writing %s: %w", path, err)
		}
	}()
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		return err
	}
	if err := f.Chmod(0o644); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	// Make the rename itself durable; not every system can sync a folder.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
