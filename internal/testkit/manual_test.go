package testkit

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// command writes a command's doc.go and main.go into a new folder.
func command(t *testing.T, doc, main string) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "doc.go"), []byte(doc), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte(main), 0o644))
	return dir
}

const manualMain = `package main

import "flag"

const (
	exitFail  = 1
	exitUsage = 2
	other     = 7
)

func run(fs *flag.FlagSet) {
	fs.String("o", "report", "")
	var n int
	fs.IntVar(&n, "window", 10, "")
	fs.Var(nil, name(), "") // not a literal: not a flag of the table
}
`

// The manual agrees with the code where its tables have a row for each
// status and flag; a missing, extra or misnamed row is named, and a
// manual without the section is an error.
func TestManualProblems(t *testing.T) {
	good := "// Cmd does.\n//\n// # Flags\n//\n//\t-o DIR     where\n//\t           to write\n//\t-window=K  how many\n//\n" +
		"// # Exit status\n//\n//\t0  done\n//\t1  failed,\n//\t   said why\n//\t2  usage\npackage main\n"
	problems, err := ManualProblems(command(t, good, manualMain))
	require.NoError(t, err)
	assert.Empty(t, problems)

	code, err := ReadCode(command(t, good, manualMain))
	require.NoError(t, err)
	assert.Equal(t, CodeFacts{Flags: []string{"-o", "-window"}, Exits: []int{0, 1, 2}}, code)

	bad := "// # Flags\n//\n//\t-o DIR  where\n//\t-dir D  no such\n//\n// # Exit status\n//\n//\t0  done\n//\t2  usage\n//\tlater  text\npackage main\n"
	problems, err = ManualProblems(command(t, bad, manualMain))
	require.NoError(t, err)
	assert.Equal(t, []string{
		`# Exit status: row "later" is not a status`,
		"# Exit status: the manual's statuses [0 2], the code's [0 1 2]",
		"# Flags: the manual's flags [-dir -o], the code's [-o -window]",
	}, problems)

	_, err = ManualProblems(command(t, "// Cmd does.\npackage main\n", manualMain))
	assert.ErrorContains(t, err, "doc.go has no section # Exit status")
}
