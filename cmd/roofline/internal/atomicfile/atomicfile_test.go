package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteAll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.svg"), filepath.Join(dir, "b.csv")
	if err := WriteAll(File{a, []byte("A")}, File{b, []byte("B")}); err != nil {
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
	err := WriteAll(File{a, []byte("new")}, File{filepath.Join(dir, "missing", "c"), []byte("C")})
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
