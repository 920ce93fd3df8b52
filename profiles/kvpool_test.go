package profiles

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKVPoolKeyErrors: kv_pool, the KV cache TensorRT Edge-LLM's engine
// allocates at load, is read from its profile (llm_build's defaults:
// 4096 tokens a row, prompts of 1024, the scheduler's 4 rows) and a
// value written wrong is refused on its line (28), naming the key; a
// key it does not know is an error, as everywhere; a pool under a
// runtime that batches continuously has no build's batch to size it.
func TestKVPoolKeyErrors(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("runtimes", "tensorrt-edge-llm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	rt, err := decodeRuntime("rt.toml", src)
	if err != nil {
		t.Fatal(err)
	}
	if p := rt.KVPool; p.Capacity != 4096 || p.Input != 1024 || p.CapacityFlag != "--maxKVCacheCapacity" || p.BatchFlag != "--maxBatchSize" || rt.Scheduler.MaxSeqs != 4 || rt.Sources["kv_pool"] == "" {
		t.Errorf("kv_pool %+v, max_seqs %d, source %q; want 4096, 1024, the builder's flags, 4 rows and a source", p, rt.Scheduler.MaxSeqs, rt.Sources["kv_pool"])
	}
	const pool = "kv_pool = { capacity = 4096, input = 1024,"
	for _, c := range []struct {
		name, old, new, want string
	}{
		{"no capacity", pool, "kv_pool = { capacity = 0, input = 1024,", "rt.toml:28: kv_pool capacity must be a number of tokens from 1"},
		{"input past capacity", pool, "kv_pool = { capacity = 512, input = 1024,", "got 512 and 1024"},
		{"not a flag", `capacity_flag = "--maxKVCacheCapacity"`, `capacity_flag = "maxKVCacheCapacity"`, `capacity_flag must name the builder's flag`},
		{"unknown key", pool, "kv_pool = { capacity = 4096, input = 1024, rows = 4,", `unknown key "kv_pool.rows"`},
		{"continuous", `continuous_batching = { value = false,`, `continuous_batching = { value = true,`, "kv_pool: a pool sized by the build needs a [scheduler] of policy \"static\""},
	} {
		if !strings.Contains(string(src), c.old) {
			t.Fatalf("%s: the profile has no %q", c.name, c.old)
		}
		_, err := decodeRuntime("rt.toml", []byte(strings.Replace(string(src), c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error holding %q", c.name, err, c.want)
		}
	}
}
