package summary

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// WriteFiles writes dir/<ID>.json and dir/<ID>.txt (see WriteJSON and
// WriteBenchfmt) and returns their paths.
func (r *Run) WriteFiles(dir string) (jsonPath, txtPath string, err error) {
	if r.ID == "" {
		return "", "", errors.New("summary: run has no ID (use NewRun)")
	}
	jsonPath = filepath.Join(dir, r.ID+".json")
	txtPath = filepath.Join(dir, r.ID+".txt")
	if err := r.WriteJSON(jsonPath); err != nil {
		return "", "", err
	}
	if err := r.WriteBenchfmt(txtPath); err != nil {
		return jsonPath, "", err
	}
	return jsonPath, txtPath, nil
}

// writeAtomic writes data to path so that path is either absent, the old
// file or the complete new one: it writes a temporary file in the same
// folder, syncs it and renames it over path. It creates the folder.
func writeAtomic(path string, data []byte) (err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("summary: write %s: %w", path, err)
		}
	}()
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
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
