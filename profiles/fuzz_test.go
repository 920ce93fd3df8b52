package profiles

import (
	"os"
	"path/filepath"
	"testing"
)

func seed(f *testing.F, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.toml"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
}

// The decoders never panic and never return a device or model without an
// error that fails validation.
func FuzzDecodeModel(f *testing.F) {
	seed(f, "models")
	seed(f, "testdata")
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := decodeModel("fuzz.toml", src)
		if err == nil {
			if verr := s.Validate(); verr != nil {
				t.Fatalf("accepted an invalid model: %v", verr)
			}
		}
	})
}

func FuzzDecodeDevices(f *testing.F) {
	seed(f, "hardware")
	seed(f, "testdata")
	f.Fuzz(func(t *testing.T, src []byte) {
		ds, err := decodeDevices("fuzz.toml", src)
		if err == nil {
			for _, d := range ds {
				if verr := d.Validate(); verr != nil {
					t.Fatalf("accepted an invalid device: %v", verr)
				}
			}
		}
	})
}
