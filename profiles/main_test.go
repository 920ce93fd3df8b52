package profiles

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps every test off the Hugging Face Hub and out of the
// user's Ollama store: a test that fetches sets HF_ENDPOINT to its own
// server and HF_HUB_OFFLINE=0.
func TestMain(m *testing.M) {
	os.Setenv("HF_HUB_OFFLINE", "1")
	os.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
	os.Setenv("OLLAMA_MODELS", filepath.Join(os.TempDir(), "roofline-test-no-ollama-store"))
	os.Setenv("HF_HUB_CACHE", "")
	os.Setenv("HF_HOME", filepath.Join(os.TempDir(), "roofline-test-no-hf-home"))
	os.Exit(m.Run())
}
