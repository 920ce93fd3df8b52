package atomicfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.csv")
	if err := WriteAll(false, File{a, []byte("A")}, File{b, []byte("B")}); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{a: "A", b: "B"} {
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", path, got, err, want)
		}
	}
	// The second file's directory does not exist: neither file may change
	// and no temporary file may stay behind.
	err := WriteAll(true, File{a, []byte("new")}, File{filepath.Join(dir, "missing", "c"), []byte("C")})
	if err == nil {
		t.Fatal("writing into a missing directory succeeded")
	}
	if got, _ := os.ReadFile(a); string(got) != "A" {
		t.Errorf("a.svg = %q after a failed set; want the old content", got)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("directory holds %v; want only a.svg and b.csv", names)
	}
}

// Writers racing to create one new file: one wins, every other is told
// the file was created by another writer and changes nothing (eight plots
// all said "wrote" and one survived). Each winner's pair of files stays
// whole.
func TestWriteAllExclusive(t *testing.T) {
	dir := t.TempDir()
	out, data := filepath.Join(dir, "new.svg"), filepath.Join(dir, "new.csv")
	const writers = 8
	errs := make(chan error, writers)
	for i := range writers {
		go func() {
			errs <- WriteAll(false, File{out, []byte(fmt.Sprint("svg ", i))}, File{data, []byte(fmt.Sprint("csv ", i))})
		}()
	}
	won := 0
	for range writers {
		err := <-errs
		var ee *ExistsError
		switch {
		case err == nil:
			won++
		case !errors.As(err, &ee) || !strings.Contains(err.Error(), "was created by another writer"):
			t.Errorf("a loser: %v", err)
		}
	}
	if won != 1 {
		t.Errorf("%d writers won, want 1", won)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(data)
	if strings.TrimPrefix(string(a), "svg ") != strings.TrimPrefix(string(b), "csv ") {
		t.Errorf("the files are from two writers: %q, %q", a, b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d entries left, want 2", len(entries))
	}
	// Replacing is what --force asks.
	if err := WriteAll(true, File{out, []byte("forced")}); err != nil {
		t.Error(err)
	}
}
