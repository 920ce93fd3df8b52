package compare

import (
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/measured"
	"github.com/roofline/roofline/profiles"
)

func TestBuildOf(t *testing.T) {
	cases := []struct {
		run  measured.Run
		want string
	}{
		{measured.Run{Build: "8cf427ff (5163)"}, "b5163"}, // llama-bench: commit (build number)
		{measured.Run{Backend: "llama.cpp CUDA 4426e298 (2824)"}, "b2824"},
		{measured.Run{Backend: "llama.cpp CUDA b3263"}, "b3263"},
		{measured.Run{Backend: "llama.cpp CUDA PR #4766 branch (2024-01-10)"}, "2024-01-10"},
		{measured.Run{Backend: "llama.cpp CUDA PR #6017 branch (2024-03)"}, "2024-03"},
		{measured.Run{Backend: "llama.cpp Metal 8e672ef (2023-11-21, fixed build)"}, "2023-11-21"},
		{measured.Run{Backend: "llama.cpp CUDA 12.4"}, ""}, // a CUDA version is no build
		{measured.Run{Backend: "RKLLM v1.3.0"}, ""},
		{measured.Run{}, ""},
	}
	for _, c := range cases {
		if got := BuildOf(c.run); got != c.want {
			t.Errorf("BuildOf(%+q, %+q) = %q, want %q", c.run.Build, c.run.Backend, got, c.want)
		}
	}
}

// A run that names its build is priced under that build; one that names
// none, or a runtime that tells no builds apart, under the current one.
func TestRuntimeOfBuild(t *testing.T) {
	cat, _ := profiles.Builtin()
	e := New(cat, Options{})
	cases := []struct {
		run  measured.Run
		want string
	}{
		{measured.Run{Backend: "llama.cpp CUDA 4426e298 (2824)"}, "llama.cpp@b2824"},
		{measured.Run{Runtime: "llama.cpp", Build: "8cf427ff (5163)"}, "llama.cpp@b5163"},
		{measured.Run{Backend: "llama.cpp CUDA"}, "llama.cpp"},
		{measured.Run{Backend: "RKLLM v1.3.0 (2025-10-01)"}, "rkllm"},
		// NVIDIA's spelling of Edge-LLM starts with tensorrt-llm's alias
		// "tensorrt": the longer name decides.
		{measured.Run{Backend: "TensorRT Edge-LLM 0.9.0 (llm_inference --warmup 10, JetPack 7.2)"}, "tensorrt-edge-llm"},
		{measured.Run{Backend: "TensorRT-LLM v0.12.0-jetson (gptSessionBenchmark, --enable_cuda_graph)"}, "tensorrt-llm"},
		{measured.Run{Backend: "TensorRT (trtexec)"}, "tensorrt-llm"},
	}
	for _, c := range cases {
		if got := e.RuntimeOf(c.run); got != c.want {
			t.Errorf("RuntimeOf(%q) = %q, want %q", c.run.Backend, got, c.want)
		}
	}
}
