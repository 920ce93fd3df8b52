package profiles

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
)

func readTestdata(name string) ([]byte, error) { return os.ReadFile(filepath.Join("testdata", name)) }

// A runtime profile is strict: every key known, every rule sourced with
// more than a tag, every tag defined; each error names the file and line.
func TestRuntimeProfileStrict(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := decodeRuntime("my.toml", base); err != nil {
		t.Fatalf("the base profile must decode: %v", err)
	}
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"unknown key", `default_kv = "f16"`, "default_kv = \"f16\"\ncontinous_batching = true",
			[]string{"my.toml:9:", `unknown key "continous_batching"`}},
		{"no source", `source = "[R1] requests join the running batch"`, `source = ""`,
			[]string{"my.toml:10:", "continuous_batching has no source"}},
		{"placeholder source", `source = "[R1] a context of one hundred MiB"`, `source = "[R1] draft"`,
			[]string{"my.toml:11:", `memory_overhead source "[R1] draft" says nothing beyond its reference tags`}},
		{"undefined tag", `source = "[R1] every GPU the docs list"`, `source = "[R2] every GPU the docs list"`,
			[]string{"my.toml:15:", "engine.gpu cites [R2], which the profile's references do not define"}},
		{"kernel without source", `source = "[R1] products after dequantizing to fp16"`, `source = " "`,
			[]string{"my.toml:17:", "kernel.0 has no source"}},
		{"missing window rule", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`, ``,
			[]string{"[layout] needs sliding_window"}},
		{"unknown format", `weights = ["gguf"]`, `weights = ["gguf", "q4_k_x"]`,
			[]string{"my.toml:5:", `unknown weight format "q4_k_x"`}},
		// One format in two spellings (or twice) was listed twice, in
		// show runtime and the runtime's formats; head_formats refuses it.
		{"one format twice", `weights = ["gguf"]`, `weights = ["gguf", "f16", "F16"]`,
			[]string{"my.toml:5:", `weights names f16 twice (f16, F16): name each format once`}},
		{"host ops without precisions", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [], source = \"[R1] norms on the CPU\" }",
			[]string{"my.toml:9:", "host_ops value must list the precisions"}},
		{"host ops at an unknown precision", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp17\"], source = \"[R1] norms on the CPU\" }",
			[]string{"my.toml:9:", "host_ops:"}},
		{"host ops unsourced", `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp16\"], source = \"\" }",
			[]string{"host_ops has no source"}},
		{"fused not a list", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nfused = { value = \"qkv\", source = \"[R1] one qkv product\" }",
			[]string{"my.toml:25:", `fused value must be a list of "qkv" and "gate_up"`}},
		{"fused unknown product", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nfused = { value = [\"qkv\", \"gateup\"], source = \"[R1] one qkv product\" }",
			[]string{"my.toml:25:", `fused value gateup: want "qkv" or "gate_up"`}},
		{"fused unsourced", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nfused = { value = [\"qkv\"], source = \"\" }",
			[]string{"layout.fused has no source"}},
		// head_formats: known weight formats, known storage types, a source.
		{"head formats unknown format", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = { w4a17 = \"int4-per-channel\" }, source = \"[R1] a 4-bit head\" }",
			[]string{"my.toml:25:", `head_formats:`, `"w4a17"`}},
		{"head formats unknown storage", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = { w4a16 = \"int4\" }, source = \"[R1] a 4-bit head\" }",
			[]string{"my.toml:25:", `head_formats value "int4" for w4a16 is not a storage type`}},
		// A format the runtime does not run was taken, and its rule never
		// applied: a typo among real formats (w4a16 for a GGUF runtime) is
		// told, as default_weights' is.
		{"head formats not the runtime's", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = { w4a16 = \"int4-per-channel\" }, source = \"[R1] a 4-bit head\" }",
			[]string{"my.toml:25:", `head_formats: w4a16 is not among the runtime's weights (gguf)`}},
		// Two spellings of one format: the later in sorted order won in
		// silence.
		{"head formats one format twice", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = { Q4_K_M = \"q8_0\", q4_k_m = \"q6_k\" }, source = \"[R1] a 6-bit head\" }",
			[]string{"my.toml:25:", `head_formats names q4_k_m twice (Q4_K_M, q4_k_m): name each format once`}},
		{"head formats empty", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = {}, source = \"[R1] a 4-bit head\" }",
			[]string{"my.toml:25:", "head_formats value must be a table of weight formats"}},
		{"head formats not a table", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = \"int4-per-channel\", source = \"[R1] a 4-bit head\" }",
			[]string{"my.toml:25:", "head_formats value must be a table of weight formats"}},
		{"head formats unsourced", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead_formats = { value = { w4a16 = \"int4-per-channel\" }, source = \"\" }",
			[]string{"layout.head_formats has no source"}},
		// without_int8_dot: a share of the int8 peak, on a kernel that runs int8, with a source.
		{"no-dot factor above 1", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nwithout_int8_dot = { factor = 1.5, source = \"[R1] six instructions for one\" }",
			[]string{"my.toml:22:", "factor must be a share of the int8 peak, above 0 and at most 1, got 1.5"}},
		{"no-dot factor on a kernel without int8", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nwithout_int8_dot = { factor = 0.5, source = \"[R1] six instructions for one\" }",
			[]string{"my.toml:22:", "the kernel runs no int8 products"}},
		{"no-dot factor unsourced", `compute = ["fp16"]`,
			"compute = [\"int8\", \"fp16\"]\nwithout_int8_dot = { factor = 0.5, source = \"\" }",
			[]string{"my.toml:21:", "without_int8_dot = 0.5 has no source"}},
		// with_int8_dot: a factor on the matrix efficiency (at most 4), on a kernel that runs int8, with a source.
		{"dot factor above 4", `compute = ["fp16"]`,
			"compute = [\"int8\", \"fp16\"]\nwith_int8_dot = { factor = 5.0, source = \"[R1] a GEMM kernel\" }",
			[]string{"my.toml:21:", "factor must be a factor on the matrix efficiency, above 0 and at most 4, got 5"}},
		{"dot factor zero", `compute = ["fp16"]`,
			"compute = [\"int8\", \"fp16\"]\nwith_int8_dot = { factor = 0.0, source = \"[R1] a GEMM kernel\" }",
			[]string{"my.toml:21:", "got 0"}},
		{"dot factor on a kernel without int8", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nwith_int8_dot = { factor = 1.5, source = \"[R1] a GEMM kernel\" }",
			[]string{"my.toml:22:", "with_int8_dot: the kernel runs no int8 products"}},
		{"dot factor unsourced", `compute = ["fp16"]`,
			"compute = [\"int8\", \"fp16\"]\nwith_int8_dot = { factor = 1.5, source = \"\" }",
			[]string{"my.toml:21:", "with_int8_dot = 1.5 has no source"}},
		// native: a true or false with a source of its own.
		{"native not a bool", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nnative = { value = \"yes\", source = \"[R1] an int4 matrix type\" }",
			[]string{"my.toml:", "kernel native value must be true or false"}},
		{"native unsourced", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nnative = { value = true, source = \"\" }",
			[]string{"my.toml:", "kernel native = true has no source"}},
		// since: the first build that runs the kernels (above 1), its date, a source.
		{"since without a build", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nsince = { date = \"2025-11-27\", source = \"[R1] #17494\" }",
			[]string{"my.toml:", "[[kernel]] 1 since: first_build must be a build number (llama.cpp's bNNNN) above 1, got 0"}},
		{"since with a bad date", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nsince = { first_build = 7175, date = \"2025-11\", source = \"[R1] #17494\" }",
			[]string{"my.toml:", "[[kernel]] 1 since: date must be a date YYYY-MM-DD, got \"2025-11\""}},
		{"since unsourced", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nsince = { first_build = 7175, date = \"2025-11-27\", source = \" \" }",
			[]string{"my.toml:", "[[kernel]] 1 since = b7175 has no source"}},
		{"since with an unknown key", `source = "[R1] products after dequantizing to fp16"`,
			"source = \"[R1] products after dequantizing to fp16\"\nsince = { first_build = 7175, date = \"2025-11-27\", until = \"2026-01-01\", source = \"[R1] #17494\" }",
			[]string{"my.toml:", "until"}},
		{"layers per unit not a bool", `default_kv = "f16"`, "default_kv = \"f16\"\nlayer_overhead_per_unit = { value = 3, source = \"[R1] a thread per core\" }",
			[]string{"my.toml:9:", "layer_overhead_per_unit value must be true or false"}},
		{"graph batch below one", `kind = "gpu"`, "kind = \"gpu\"\ngraph_batch = -1",
			[]string{"[[engine]] engine.gpu graph_batch must be 1 or more sequences (leave it out for no limit), got -1"}},
		{"graph builds without graph_batch", `kind = "gpu"`, "kind = \"gpu\"\ngraph_batch_builds = { last_build = 7815, until = \"2026-02-15\", source = \"[R1] graphs of one sequence until then\" }",
			[]string{"[[engine]] engine.gpu graph_batch_builds limits graph_batch to some builds, but graph_batch is not set"}},
		{"graph builds without a build", `kind = "gpu"`, "kind = \"gpu\"\ngraph_batch = 1\ngraph_batch_builds = { until = \"2026-02-15\", source = \"[R1] graphs of one sequence until then\" }",
			[]string{"graph_batch_builds: last_build must be a build number (llama.cpp's bNNNN), got 0"}},
		{"graph builds with a bad date", `kind = "gpu"`, "kind = \"gpu\"\ngraph_batch = 1\ngraph_batch_builds = { last_build = 7815, until = \"2026-02\", source = \"[R1] graphs of one sequence until then\" }",
			[]string{"graph_batch_builds: until must be a date YYYY-MM-DD, got \"2026-02\""}},
		{"graph builds unsourced", `kind = "gpu"`, "kind = \"gpu\"\ngraph_batch = 1\ngraph_batch_builds = { last_build = 7815, until = \"2026-02-15\", source = \"\" }",
			[]string{"engine.gpu.graph_batch_builds", "no source"}},
		{"serial decode not a bool", `kind = "gpu"`, "kind = \"gpu\"\nserial_decode = { value = 1, source = \"[R1] load, then multiply\" }",
			[]string{"[[engine]] engine.gpu serial_decode value must be true or false"}},
		{"serial decode unsourced", `kind = "gpu"`, "kind = \"gpu\"\nserial_decode = { value = true, source = \"\" }",
			[]string{"engine.gpu.serial_decode", "no source"}},
		{"unpack types unknown", `kind = "gpu"`, "kind = \"gpu\"\nunpack_types = { value = [\"q4f16_1\"], source = \"[R1] unpack each weight\" }",
			[]string{"[[engine]] engine.gpu unpack_types: unknown weight type \"q4f16_1\"", "int4-g32"}},
		// A name that is no string, or one named twice, is told as such
		// (5 was "unknown weight type \"\"").
		{"unpack types not strings", `kind = "gpu"`, "kind = \"gpu\"\nunpack_types = { value = [5], source = \"[R1] unpack each weight\" }",
			[]string{"[[engine]] engine.gpu unpack_types: 5 is not a weight type's name: write it in quotes, such as \"int4-g32\""}},
		{"unpack types twice", `kind = "gpu"`, "kind = \"gpu\"\nunpack_types = { value = [\"int4-g32\", \"int4-g32\"], source = \"[R1] unpack each weight\" }",
			[]string{"[[engine]] engine.gpu unpack_types names \"int4-g32\" twice: name each once"}},
		{"unpack types empty", `kind = "gpu"`, "kind = \"gpu\"\nunpack_types = { value = [], source = \"[R1] unpack each weight\" }",
			[]string{"unpack_types value must list the weight types"}},
		{"unpack types unsourced", `kind = "gpu"`, "kind = \"gpu\"\nunpack_types = { value = [\"int4-g32\"], source = \"\" }",
			[]string{"engine.gpu.unpack_types", "no source"}},
		{"kquant unpack not a bool", `kind = "gpu"`, "kind = \"gpu\"\nkquant_unpack = { value = \"yes\", source = \"[R1] unpack each weight\" }",
			[]string{"[[engine]] engine.gpu kquant_unpack value must be true or false"}},
		{"kquant unpack unsourced", `kind = "gpu"`, "kind = \"gpu\"\nkquant_unpack = { value = true, source = \"\" }",
			[]string{"engine.gpu.kquant_unpack", "no source"}},
		// prefill_tile: 1 token or more, a compute capability in range, a source.
		{"prefill tile of no tokens", `kind = "gpu"`, "kind = \"gpu\"\nprefill_tile = { value = 0, source = \"[R1] tiles of 128 columns\" }",
			[]string{"[[engine]] engine.gpu prefill_tile value must be the tokens one tile of a product takes, 1 to 1073741824, got 0"}},
		{"prefill tile capability out of range", `kind = "gpu"`, "kind = \"gpu\"\nprefill_tile = { value = 128, min_compute_capability = 750.0, source = \"[R1] tiles of 128 columns\" }",
			[]string{"prefill_tile min_compute_capability must be a CUDA compute capability such as 7.5, got 750"}},
		{"prefill tile unsourced", `kind = "gpu"`, "kind = \"gpu\"\nprefill_tile = { value = 128, source = \"\" }",
			[]string{"engine.gpu.prefill_tile", "no source"}},
		{"prefill tile unknown key", `kind = "gpu"`, "kind = \"gpu\"\nprefill_tile = { value = 128, columns = 128, source = \"[R1] tiles of 128 columns\" }",
			[]string{"columns"}},
		{"prefill tile negative rows", `kind = "gpu"`, "kind = \"gpu\"\nprefill_tile = { value = 128, rows = -128, source = \"[R1] tiles of 128 rows\" }",
			[]string{"[[engine]] engine.gpu prefill_tile rows must be the rows of weights one unit's tile takes, 1 to 1073741824 (or left out), got -128"}},
		// A rule's fields beyond value and source are read by one rule
		// each; elsewhere they were decoded and ignored.
		{"untie on the head", `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`,
			"sliding_window = { architectures = [\"*\"], source = \"[R1] windows as the model defines them\" }\nhead = { value = \"f16\", untie = true, source = \"[R1] an f16 head\" }",
			[]string{"my.toml:25:", "layout.head: untie is read only by layout.embedding; remove it"}},
		{"pad on continuous batching", `source = "[R1] requests join the running batch"`, `pad = 16, source = "[R1] requests join the running batch"`,
			[]string{"my.toml:10:", "continuous_batching: pad is read only by layout.window_cache"}},
		{"architectures on an engine rule", `kind = "gpu"`, "kind = \"gpu\"\nserial_decode = { value = true, architectures = [\"llama\"], source = \"[R1] load then multiply\" }",
			[]string{"engine.serial_decode: architectures is read only by layout.sliding_window"}},
		{"value on the window rule", `sliding_window = { architectures = ["*"],`, `sliding_window = { value = true, architectures = ["*"],`,
			[]string{"my.toml:24:", "sliding_window takes architectures, not value"}},
		{"graph compute capability out of range", `kind = "gpu"`, "kind = \"gpu\"\ngraph_min_compute_capability = 700.0",
			[]string{"[[engine]] engine.gpu graph_min_compute_capability must be a CUDA compute capability such as 7.0, got 700"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(string(base), c.from, c.to, 1)
			if src == string(base) {
				t.Fatalf("%q not in the base profile", c.from)
			}
			_, err := decodeRuntime("my.toml", []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			var rf *RuntimeFileError
			if !errors.As(err, &rf) {
				t.Errorf("error %T is not a *RuntimeFileError", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// TestHeadFormatsErrorsInOrder: several mistakes in head_formats are told
// in one order every time, not in a map's (two bad formats: a map's order
// would give the other order about half the time, so thirty decodes fail
// without the sort with probability 1 − 2⁻²⁹).
func TestHeadFormatsErrorsInOrder(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	from := `sliding_window = { architectures = ["*"], source = "[R1] windows as the model defines them" }`
	src := strings.Replace(string(base), from, from+"\nhead_formats = { value = { w4a18 = \"int4-per-channel\", w4a17 = \"int4-per-channel\" }, source = \"[R1] a 4-bit head\" }", 1)
	var first string
	for i := range 30 {
		_, err := decodeRuntime("my.toml", []byte(src))
		if err == nil {
			t.Fatal("no error")
		}
		if i == 0 {
			first = err.Error()
			if a, b := strings.Index(first, `"w4a17"`), strings.Index(first, `"w4a18"`); a < 0 || b < 0 || a > b {
				t.Fatalf("want w4a17 told before w4a18: %s", first)
			}
		} else if err.Error() != first {
			t.Fatalf("decode %d told the mistakes otherwise:\n%s\nfirst:\n%s", i, err, first)
		}
	}
}

// withTable decodes the base runtime profile, and gives it with table
// placed before its [layout], table's first `from` replaced by `to`: a
// table's tests break it one way at a time.
func withTable(t *testing.T, table string) (*runtimes.Runtime, func(from, to string) []byte) {
	t.Helper()
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	rt, err := decodeRuntime("my.toml", base)
	if err != nil {
		t.Fatal(err)
	}
	return rt, func(from, to string) []byte {
		tbl := strings.Replace(table, from, to, 1)
		return []byte(strings.Replace(string(base), "[layout]", tbl, 1))
	}
}

// schedulerTable is a [scheduler] the scheduler tests break one way at a
// time, placed before [layout] of the base profile.
const schedulerTable = `[scheduler]
policy = { value = "continuous", source = "[R1] a step decodes every request" }
max_seqs = { value = 8, source = "[R1] eight requests run at once" }
max_tokens = { value = 512, source = "[R1] a step of 512 tokens" }
chunked_prefill = { value = true, source = "[R1] prompts split over steps" }
block_size = { value = 16, source = "[R1] blocks of sixteen tokens" }
on_kv_full = { value = "recompute", source = "[R1] the newest request is preempted" }
prefix_caching = { value = true, source = "[R1] shared prefixes are cached" }

[layout]`

// A runtime's [scheduler] reads into runtimes.Scheduler, every knob named
// at its line when wrong; a runtime without one is marked as stating none.
func TestRuntimeScheduler(t *testing.T) {
	rt, with := withTable(t, schedulerTable)
	if rt.Scheduler.Stated {
		t.Errorf("a profile without [scheduler] states one: %+v", rt.Scheduler)
	}
	rt, err := decodeRuntime("my.toml", with("", ""))
	if err != nil {
		t.Fatal(err)
	}
	want := runtimes.Scheduler{Policy: runtimes.Continuous, MaxSeqs: 8, MaxTokens: 512, Chunked: true, BlockSize: 16, OnFull: runtimes.Recompute, PrefixCaching: true, Stated: true}
	if !reflect.DeepEqual(rt.Scheduler, want) {
		t.Errorf("scheduler %+v, want %+v", rt.Scheduler, want)
	}
	rt, err = decodeRuntime("my.toml", with("cached\" }\n", "cached\" }\nfrees_window = { value = true, source = \"[R1] out-of-window blocks freed\" }\n"))
	if err != nil || !rt.Scheduler.FreesWindow {
		t.Errorf("frees_window = true: %v, error %v", rt.Scheduler.FreesWindow, err)
	}
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"knob missing", "max_tokens = { value = 512, source = \"[R1] a step of 512 tokens\" }\n", "", []string{"[scheduler] needs max_tokens"}},
		{"policy unknown", `"continuous"`, `"round-robin"`, []string{"my.toml:24:", `scheduler policy must be "continuous", "fifo" or "static", got "round-robin"`}},
		{"budget below the batch", "value = 512", "value = 4", []string{"my.toml:26:", "cannot decode 8 requests"}},
		{"knob unsourced", `"[R1] blocks of sixteen tokens"`, `""`, []string{"my.toml:28:", "scheduler.block_size has no source"}},
		{"unknown key", "block_size", "blocksize", []string{"unknown key"}},
		{"not a count", "value = 8,", "value = \"eight\",", []string{"my.toml:25:", "max_seqs value must be a whole number"}},
		// frees_window (optional) on the line after prefix_caching, 31.
		{"frees_window not a boolean", "cached\" }\n", "cached\" }\nfrees_window = { value = \"yes\", source = \"[R1] out-of-window blocks freed\" }\n", []string{"my.toml:31:", "scheduler frees_window value must be true or false"}},
		{"frees_window a count", "cached\" }\n", "cached\" }\nfrees_window = { value = 1, source = \"[R1] out-of-window blocks freed\" }\n", []string{"my.toml:31:", "scheduler frees_window value must be true or false"}},
		{"frees_window unsourced", "cached\" }\n", "cached\" }\nfrees_window = { value = true, source = \"\" }\n", []string{"my.toml:31:", "scheduler.frees_window has no source"}},
		{"frees_window without source", "cached\" }\n", "cached\" }\nfrees_window = { value = true }\n", []string{"my.toml:31:", "scheduler.frees_window has no source"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeRuntime("my.toml", with(c.from, c.to))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// A runtime's host operations and shared layer costs read from its rules.
func TestRuntimeHostRules(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(base), `default_kv = "f16"`, "default_kv = \"f16\"\nhost_ops = { value = [\"fp16\", \"fp32\"], source = \"[R1] norms on the CPU\" }\nlayer_overhead_per_unit = { value = true, source = \"[R1] a thread per core\" }", 1)
	rt, err := decodeRuntime("my.toml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(rt.HostPrecisions) != 2 || rt.HostPrecisions[0] != "fp16" || rt.HostPrecisions[1] != "fp32" || !rt.LayerOverheadPerUnit {
		t.Errorf("host %v, per unit %v; want [fp16 fp32], true", rt.HostPrecisions, rt.LayerOverheadPerUnit)
	}
	if rt.Sources["host_ops"] == "" || rt.Sources["layer_overhead_per_unit"] == "" {
		t.Errorf("rules unsourced: %v", rt.Sources)
	}
}

// A calibration's covariance written before the efficiency's last
// parameters (9 × 9 before unit_compute and host_work, 11 × 11 before
// kquant_gemv, 12 × 12 before read_share) reads as 13 × 13 with the new
// rows and columns held (zero); a current one passes unchanged.
func TestPadCovariance(t *testing.T) {
	const n = 13
	for _, old := range []int{9, 11, 12} {
		cov := make([]float64, old*old)
		for i := range cov {
			cov[i] = float64(i + 1)
		}
		got := padCovariance(cov)
		if len(got) != n*n {
			t.Fatalf("%d × %d: %d entries, want %d", old, old, len(got), n*n)
		}
		// Entry (i, j) of the old matrix is old·i + j + 1; it sits at n·i + j.
		for _, c := range []struct{ i, j int }{{0, 0}, {0, old - 1}, {old - 1, 0}, {old - 1, old - 1}, {4, 5}} {
			if got[n*c.i+c.j] != float64(old*c.i+c.j+1) {
				t.Errorf("%d × %d: (%d, %d) = %g, want %d", old, old, c.i, c.j, got[n*c.i+c.j], old*c.i+c.j+1)
			}
		}
		// The first row past the old columns, and the last row.
		for _, k := range []int{old, n - 1, n*(n-1) + 3, n*n - 1} {
			if got[k] != 0 {
				t.Errorf("%d × %d: entry %d = %g, want 0 (held)", old, old, k, got[k])
			}
		}
	}
	if cur := make([]float64, n*n); len(padCovariance(cur)) != n*n {
		t.Error("a current covariance must pass unchanged")
	}
}

// A runtime's [settings] say what its classes were measured at, each with
// its source, and [setting_factors.CLASS] are the fit's; each is refused
// at its line when wrong. RKLLM's built-in profile carries both.
func TestRuntimeSettings(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	const settings = "[settings]\nmax_context = { value = 4096, source = \"[R1] models converted for 4096 tokens\" }\nclocks = { value = \"pinned\", source = \"[R1] every clock at its maximum\" }\n\n[layout]"
	with := strings.Replace(string(base), "[layout]", settings, 1)
	rt, err := decodeRuntime("my.toml", []byte(with))
	if err != nil {
		t.Fatalf("settings must decode: %v", err)
	}
	if rt.SettingReference.MaxContext != 4096 || rt.SettingReference.Clocks != "pinned" || !rt.HasSettings() {
		t.Errorf("reference %+v", rt.SettingReference)
	}
	for _, c := range []struct {
		name, from, to string
		want           []string
	}{
		{"context not a count", "value = 4096", `value = "4k"`, []string{"my.toml:24:", "settings.max_context value must be a number of tokens"}},
		{"context zero", "value = 4096", "value = 0", []string{"settings.max_context value must be a number of tokens"}},
		{"unknown clocks", `value = "pinned"`, `value = "turbo"`, []string{"my.toml:25:", "settings.clocks value must be pinned or default"}},
		{"unsourced", `source = "[R1] every clock at its maximum"`, `source = ""`, []string{"settings.clocks has no source"}},
		{"unknown key", "[settings]\n", "[settings]\nmax_ctx = 4\n", []string{`unknown key "settings.max_ctx"`}},
		{"factors of no class", "[layout]", "[setting_factors.gpu]\nbasis = \"fit\"\ncontext = { decode = 0.2, prefill = 0 }\n\n[layout]",
			[]string{"setting_factors.gpu: \"gpu\" is not an [efficiency] class of this profile"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := strings.Replace(with, c.from, c.to, 1)
			if src == with {
				t.Fatalf("%q not in the profile", c.from)
			}
			_, err := decodeRuntime("my.toml", []byte(src))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	rk, err := cat.Runtime("rkllm")
	if err != nil {
		t.Fatal(err)
	}
	f := rk.SettingFactors["npu"]
	if rk.SettingReference.MaxContext != 4096 || rk.SettingReference.Clocks != "pinned" || f == nil || f.ContextDecode <= 0 || f.ContextPrefill != 0 || f.Basis == "" {
		t.Errorf("rkllm: reference %+v, factors %+v", rk.SettingReference, f)
	}
	if ll, _ := cat.Runtime("llama.cpp"); ll.HasSettings() || len(ll.SettingFactors) > 0 {
		t.Errorf("llama.cpp has settings %+v %v", ll.SettingReference, ll.SettingFactors)
	}
}

// frontEndTable is a [front_end] the front-end tests break one way at a
// time, placed before [layout] of the base profile.
const frontEndTable = `[front_end]
basis = "fitted on 2 sources"
latency = { value = "20 ms", range = ["14 ms", "27 ms"], source = "[R1] the light-load TTFT less the engine's" }
request = { value = "4.9 ms", range = ["4.9 ms", "10.5 ms"], source = "[R1] one over the saturation rate" }
token = { value = "44 µs", range = ["0 s", "44 µs"], source = "[R1] the saturation rates at two output lengths" }

[layout]`

// A runtime's [front_end] reads into runtimes.FrontEnd (20 ms within
// 14-27 ms and so on), every figure named at its line when wrong; a
// runtime without one has none.
func TestRuntimeFrontEnd(t *testing.T) {
	rt, with := withTable(t, frontEndTable)
	if rt.FrontEnd.Stated {
		t.Errorf("a profile without [front_end] states one: %+v", rt.FrontEnd)
	}
	rt, err := decodeRuntime("my.toml", with("", ""))
	if err != nil {
		t.Fatal(err)
	}
	ms := 1e-3 // as the parser scales: 4.9 ms is 4.9 × 0.001 s, one ulp off 0.0049
	want := runtimes.FrontEnd{Stated: true, Basis: "fitted on 2 sources", Latency: runtimes.FrontEndFigure{Value: 0.020, Low: 0.014, High: 0.027},
		Request: runtimes.FrontEndFigure{Value: 4.9 * ms, Low: 4.9 * ms, High: 10.5 * ms}, Token: runtimes.FrontEndFigure{Value: 44e-6, Low: 0, High: 44e-6}}
	if !reflect.DeepEqual(rt.FrontEnd, want) {
		t.Errorf("front end %+v, want %+v", rt.FrontEnd, want)
	}
	cases := []struct {
		name, from, to string
		want           []string
	}{
		{"no basis", `basis = "fitted on 2 sources"`, "", []string{"[front_end] needs a basis"}},
		{"figure missing", "token = ", "# token = ", []string{"[front_end] needs token"}},
		{"not a duration", `value = "20 ms"`, `value = "twenty"`, []string{"front_end latency value"}},
		{"outside its range", `value = "20 ms"`, `value = "30 ms"`, []string{"front_end latency: want 0 <= low <= value <= high"}},
		{"one end", `range = ["14 ms", "27 ms"]`, `range = ["14 ms"]`, []string{"front_end latency range must be two durations"}},
		{"negative", `"0 s", "44 µs"`, `"-1 ms", "44 µs"`, []string{"front_end token range"}},
		{"unsourced", `"[R1] one over the saturation rate"`, `""`, []string{"front_end.request has no source"}},
		{"unknown key", "latency =", "latncy =", []string{"unknown key"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeRuntime("my.toml", with(c.from, c.to))
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

// graphsTable is a [graphs] the graphs test breaks one way at a time,
// placed before [layout] of the base profile.
const graphsTable = `[graphs]
capture = { value = 512, seqs = 2, source = "[R1] min(2 x max_num_seqs, 512)" }
piecewise_layer = { value = "15 µs", source = "[R1] piecewise against full" }
eager_layer = { value = "339 µs", source = "[R1] eager against graphs" }

[layout]`

// A runtime's [graphs] reads into runtimes.Graphs (512 tokens, 2 a
// sequence, 15 and 339 µs a layer), every figure named when wrong; a
// runtime without one states none.
func TestRuntimeGraphs(t *testing.T) {
	rt, with := withTable(t, graphsTable)
	if rt.Graphs.On() {
		t.Errorf("a profile without [graphs] states them: %+v", rt.Graphs)
	}
	rt, err := decodeRuntime("my.toml", with("", ""))
	if err != nil {
		t.Fatal(err)
	}
	if g := rt.Graphs; g.Capture != 512 || g.PerSeq != 2 || !nearly(g.Piecewise, 15e-6) || !nearly(g.Eager, 339e-6) {
		t.Errorf("graphs %+v, want 512 tokens, 2 a sequence, 15 and 339 µs a layer", g)
	}
	cases := []struct {
		name, from, to string
		want           string
	}{
		{"figure missing", "eager_layer = ", "# eager_layer = ", "[graphs] needs capture"},
		{"not a duration", `value = "339 µs"`, `value = "339"`, "graphs eager_layer value"},
		{"no capture", "value = 512", "value = 0", "graphs capture"},
		{"piecewise above eager", `value = "15 µs"`, `value = "1 ms"`, "exceeds eager_layer"},
		{"unsourced", `"[R1] eager against graphs"`, `""`, "graphs.eager_layer has no source"},
		{"unknown key", "seqs =", "sequences =", "unknown key"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := decodeRuntime("my.toml", with(c.from, c.to))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func nearly(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

// TestVLLMBatchDefaultsByDevice reads the built-in vLLM profile's batch
// defaults on built-in devices, as vLLM's get_batch_defaults picks them
// under `vllm serve` ([V14], [V11], [V27]): 1024 sequences and 8192
// tokens a step where the device reports 70 GiB or more and is no A100,
// else 256 and 2048. The DGX Spark has 128 GiB, but NVML reports none of
// its unified memory, so vLLM reads 0 bytes and takes the small ones.
func TestVLLMBatchDefaultsByDevice(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	rt, err := cat.Runtimes().Lookup("vllm")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		device            string
		seqs, toks, chunk int
	}{
		{"h100-sxm", 1024, 8192, 8192},            // 80 GB: the large defaults
		{"a100-80gb-sxm", 256, 2048, 2048},        // 80 GB, but an A100 (PR #17885)
		{"dgx-spark", 256, 2048, 2048},            // 128 GiB unified: NVML reports 0 (PR #57378)
		{"l4", 256, 2048, 2048},                   // 24 GB
		{"jetson-agx-orin-64gb", 256, 2048, 2048}, // 64 GB: under 70 GiB
	} {
		d, err := cat.Device(c.device)
		if err != nil {
			t.Fatal(err)
		}
		s := rt.SchedulerFor(d)
		chunk, _ := rt.ChunkFor(d)
		if s.MaxSeqs != c.seqs || s.MaxTokens != c.toks || chunk != c.chunk {
			t.Errorf("%s: %d sequences, %d tokens a step, chunk %d; want %d, %d, %d", c.device, s.MaxSeqs, s.MaxTokens, chunk, c.seqs, c.toks, c.chunk)
		}
	}
}

// TestKernelSinceDecodes: since = { first_build = 7175, date, source }
// is the builds before it: up to b7174 (7175 − 1), dated before the date.
func TestKernelSinceDecodes(t *testing.T) {
	base, err := readTestdata("runtime-base.toml.txt")
	if err != nil {
		t.Fatal(err)
	}
	from := `source = "[R1] products after dequantizing to fp16"`
	text := strings.Replace(string(base), from, from+"\nsince = { first_build = 7175, date = \"2025-11-27\", source = \"[R1] the repacked GEMM\" }", 1)
	rt, err := decodeRuntime("my.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := runtimes.Builds{LastBuild: 7174, Until: "2025-11-27", Source: "[R1] the repacked GEMM"}
	if len(rt.Kernels) == 0 || rt.Kernels[0].Since != want {
		t.Fatalf("since decodes to %+v, want %+v", rt.Kernels, want)
	}
}

// TestRuntimeWeightsSpelt: weights, an engine's weights and
// default_weights are taken in any spelling a format has (W4A16 as
// w4a16), as head_formats' keys are: they were kept as written and
// compared with a format's name, so weights = ["W8A8", "W4A16"] passed
// and ran neither, and its head_formats and default_weights were told
// "not among the runtime's weights (W8A8, W4A16)".
func TestRuntimeWeightsSpelt(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("runtimes", "rkllm.toml"))
	if err != nil {
		t.Fatal(err)
	}
	respell := func(text, from, to string) string {
		t.Helper()
		if !strings.Contains(text, from) {
			t.Fatalf("the profile no longer has %s, which this test respells", from)
		}
		return strings.Replace(text, from, to, 1)
	}
	text := respell(string(src), `weights = ["w8a8", "w4a16"]`, `weights = ["W8A8", "W4A16"]`)
	text = respell(text, `default_weights = "w8a8"`, `default_weights = "W8A8"`)
	rt, err := decodeRuntime("rkllm.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"w8a8", "w4a16"} {
		w, err := model.LookupWeightFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		if !rt.RunsWeights(w) {
			t.Errorf("runs %s: false", name)
		}
	}
	if rt.DefaultWeights != "w8a8" {
		t.Errorf("default weights %q, want w8a8", rt.DefaultWeights)
	}
	if _, ok := rt.HeadFormats["w4a16"]; !ok {
		t.Errorf("head formats %v, want w4a16's", rt.HeadFormats)
	}
	// An engine's weights likewise (MLC's non-CUDA GPUs): respelt, they
	// were told "not among the runtime's weights" (no test held that).
	src, err = os.ReadFile(filepath.Join("runtimes", "mlc.toml"))
	if err != nil {
		t.Fatal(err)
	}
	text = respell(string(src), `weights = ["q4f16_1", "q4f16_ft", "f16"]`, `weights = ["Q4F16_1", "Q4F16_FT", "F16"]`)
	text = respell(text, "families = [\"amd\", \"apple\", \"intel\", \"rockchip\"]\nweights = [\"q4f16_1\", \"f16\"]", "families = [\"amd\", \"apple\", \"intel\", \"rockchip\"]\nweights = [\"Q4F16_1\", \"F16\"]")
	rt, err = decodeRuntime("mlc.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	var engine []string
	for _, e := range rt.Engines {
		if len(e.Weights) > 0 {
			engine = e.Weights
		}
	}
	if !slices.Equal(engine, []string{"q4f16_1", "f16"}) {
		t.Errorf("an engine's weights %v, want [q4f16_1 f16]", engine)
	}
}
