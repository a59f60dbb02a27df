package prompts

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The built-ins are the seed run's prompts, byte for byte.
func TestBuiltinsMatchSeed(t *testing.T) {
	raw, err := os.ReadFile("../testdata/seed-summary.json")
	require.NoError(t, err)
	var seed struct{ Prompts map[string]string }
	require.NoError(t, json.Unmarshal(raw, &seed))

	got, err := Load(nil, "")
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, name := range []string{"short", "medium", "code"} {
		assert.Equal(t, name, got[i].Name)
		assert.Equal(t, seed.Prompts[name], got[i].Text, name)
	}
}

func TestLoadFromDir(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "zeta.txt"), []byte("Say zeta.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "alpha.txt"), []byte("Say alpha."), 0o644))

	all, err := Load(nil, dir)
	require.NoError(t, err)
	var names []string
	for _, p := range all {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"short", "medium", "code", "alpha", "zeta"}, names)
	assert.Equal(t, "Say zeta.", all[4].Text, "trailing newline is trimmed")

	some, err := Load([]string{"zeta", " short "}, dir)
	require.NoError(t, err)
	require.Len(t, some, 2)
	assert.Equal(t, "zeta", some[0].Name)
	assert.Equal(t, "short", some[1].Name)
}

func TestLoadErrors(t *testing.T) {
	empty := t.TempDir()
	shadow := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(shadow, "short.txt"), []byte("x"), 0o644))
	blank := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(blank, "b.txt"), []byte(" \n"), 0o644))
	badName := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(badName, "a b.txt"), []byte("x"), 0o644))

	for _, tc := range []struct {
		name  string
		names []string
		dir   string
		want  string
	}{
		{"unknown", []string{"nope"}, "", `unknown prompt "nope"`},
		{"twice", []string{"short", "short"}, "", `listed twice`},
		{"missing dir", nil, filepath.Join(empty, "missing"), "not a readable folder"},
		{"no files", nil, empty, "has no *.txt files"},
		{"shadows builtin", nil, shadow, `reuses the built-in name "short"`},
		{"empty file", nil, blank, "is empty"},
		{"bad name", nil, badName, "name may use only"},
		{"only blanks", []string{" "}, "", "no prompts selected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.names, tc.dir)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// A conversation of n turns has n−1 follow-ups, each a short user message,
// and the list repeats for long ones.
func TestFollowUps(t *testing.T) {
	assert.Empty(t, FollowUps(1))
	assert.Empty(t, FollowUps(0))
	fs := FollowUps(4)
	require.Len(t, fs, 3)
	assert.Equal(t, "Go on.", fs[0])
	long := FollowUps(100)
	require.Len(t, long, 99)
	for i, f := range long {
		assert.NotEmpty(t, f, "follow-up %d", i)
		assert.Less(t, len(f), 60, "follow-up %d is short", i)
		if i >= len(followUps) {
			assert.Equal(t, long[i-len(followUps)], f, "follow-up %d repeats the list", i)
		}
		if i > 0 && i < len(followUps) {
			assert.NotEqual(t, long[i-1], f, "two turns in a row ask the same")
		}
	}
}
