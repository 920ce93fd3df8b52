package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandFilesStayShort holds issue 16's shape: package main is thin
// commands over the app and render layers, so no file of it (tests
// aside) grows past 250 lines, and none but package main reads a
// *cli.Context.
func TestCommandFilesStayShort(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		if n := bytes.Count(b, []byte("\n")); n > 250 {
			t.Errorf("%s has %d lines; a command file stays under 250 (move what is not a command to internal/app or internal/render)", f, n)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d command files, expected the whole package", checked)
	}
	err = filepath.WalkDir("internal", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(b, []byte("*cli.Context")) {
			t.Errorf("%s uses *cli.Context: flags are read in package main only", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
