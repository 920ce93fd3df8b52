package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/safeio"
)

// ModelMediaType is the layer that holds a model's GGUF file.
const ModelMediaType = "application/vnd.ollama.image.model"

// ModelsDir is Ollama's model store: $OLLAMA_MODELS, else
// ~/.ollama/models (envconfig.Models). Ollama run as a Linux service
// keeps its store elsewhere (/usr/share/ollama/.ollama/models): set
// OLLAMA_MODELS to it.
func ModelsDir() string {
	if d := os.Getenv("OLLAMA_MODELS"); d != "" {
		return d
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".ollama", "models")
	}
	return ""
}

// ErrNotPulled is a name whose manifest is not in the store.
var ErrNotPulled = errors.New("not in the local Ollama store")

// StoreError is a store roofline refuses to read: a manifest that is
// not JSON, too large, without a model layer, or pointing outside blobs/.
type StoreError struct {
	Path, Msg string
}

func (e *StoreError) Error() string { return e.Path + ": " + e.Msg }

var sha256Digest = regexp.MustCompile(`^sha256[:-]([0-9a-f]{64})$`)

// Blob finds the GGUF file of name n in the store at dir: the path of the
// blob its manifest's model layer names. It returns an error wrapping
// ErrNotPulled when the store has no manifest for n.
func Blob(dir string, n Name) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%s: %w (no store: set OLLAMA_MODELS)", n, ErrNotPulled)
	}
	manifest := filepath.Join(dir, "manifests", n.Host, n.Namespace, n.Model, n.Tag)
	if _, err := os.Stat(manifest); err != nil {
		return "", fmt.Errorf("%s: %w (%s has no manifest %s)", n, ErrNotPulled, dir, filepath.Join("manifests", n.Host, n.Namespace, n.Model, n.Tag))
	}
	b, err := safeio.ReadFile(manifest, limits.OllamaManifestBytes, "an Ollama manifest")
	if err != nil {
		return "", err
	}
	var m struct {
		Layers []struct {
			MediaType string `json:"mediaType"`
			Digest    string `json:"digest"`
		} `json:"layers"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return "", &StoreError{manifest, fmt.Sprintf("not an Ollama manifest (%v)", err)}
	}
	var digest string
	models := 0
	for _, l := range m.Layers {
		if l.MediaType == ModelMediaType {
			if models++; models > 1 {
				return "", &StoreError{manifest, "two model layers: which file is the model?"}
			}
			digest = l.Digest
		}
	}
	if models == 0 {
		return "", &StoreError{manifest, "no layer of type " + ModelMediaType + " (an adapter or an embedding-only manifest?)"}
	}
	d := sha256Digest.FindStringSubmatch(digest)
	if d == nil {
		return "", &StoreError{manifest, fmt.Sprintf("model layer digest %q is not a sha256 digest: refused (a digest names a file in blobs/ and nothing else)", safeio.RedactText(limitText(digest, 100)))}
	}
	blobs := filepath.Join(dir, "blobs")
	blob := filepath.Join(blobs, "sha256-"+d[1])
	if err := inside(blobs, blob); err != nil {
		return "", &StoreError{manifest, err.Error()}
	}
	return blob, nil
}

// inside checks that blob, links followed, is a file within dir, links
// followed: a store may live behind a link, a blob may not lead out of it.
func inside(dir, blob string) error {
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return fmt.Errorf("no blobs directory: %v", err)
	}
	real, err := filepath.EvalSymlinks(blob)
	if err != nil {
		return fmt.Errorf("the model layer's blob %s is missing (pull the model again)", filepath.Base(blob))
	}
	rel, err := filepath.Rel(realDir, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("the model layer's blob %s leads outside %s (to %s): refused", filepath.Base(blob), dir, real)
	}
	return nil
}

func limitText(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
