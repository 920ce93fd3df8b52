package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the test binary run as the roofline command of the
// scripts: testscript puts it on their PATH under that name, so a script
// runs the real program, in its own process, with its real exit code.
func TestMain(m *testing.M) {
	// No test reaches the Hugging Face Hub, the user's Hugging Face cache
	// or Ollama store: a test that fetches sets HF_ENDPOINT to its own
	// server and HF_HUB_OFFLINE=0. A script's roofline (this binary, run
	// again) keeps the environment its script gives it, and a reliability
	// child the one its case gives it (the parent's guards are in it).
	if os.Getenv(childArgsEnv) != "" {
		// A reliability child runs its one test and exits in it: the
		// scripts' commands (a temporary directory and a link to this
		// binary, which testscript.Main removes only when the tests
		// return) are not set up for it, or each child leaves them.
		os.Exit(m.Run())
	}
	if os.Getenv("ROOFLINE_SCRIPT") == "" {
		os.Setenv("HF_HUB_OFFLINE", "1")
		os.Setenv("HF_ENDPOINT", "http://127.0.0.1:1")
		os.Setenv("OLLAMA_MODELS", filepath.Join(os.TempDir(), "roofline-test-no-ollama-store"))
		os.Setenv("HF_HUB_CACHE", "")
		os.Setenv("HF_HOME", filepath.Join(os.TempDir(), "roofline-test-no-hf-home"))
	}
	testscript.Main(m, map[string]func(){"roofline": main})
}

// TestScripts runs the end-to-end scripts in testdata/script/*.txtar
// (the format: https://pkg.go.dev/github.com/rogpeppe/go-internal/testscript).
// Each script starts in an empty work directory with HOME and HF_HOME
// under it, so nothing of the user's machine leaks in. Besides the
// built-in commands, a script may use
//
//	exits CODE roofline ARGS...   run roofline, expect exit status CODE
//
// after which stdout and stderr check its output as after exec. With
// -update, cmp against a file of the archive rewrites that file.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("HF_HOME", env.WorkDir+"/home/.cache/huggingface")
			env.Setenv("XDG_CACHE_HOME", env.WorkDir+"/home/.cache")
			env.Setenv("OLLAMA_MODELS", env.WorkDir+"/home/.ollama/models")
			env.Setenv("HF_HUB_OFFLINE", "1")
			env.Setenv("ROOFLINE_SCRIPT", "1")
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exits": exits,
		},
	})
}

// exits is the script command "exits CODE COMMAND [ARGS...]".
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARGS...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: bad code %q", args[0])
	}
	got := 0
	var ee *exec.ExitError
	if err := ts.Exec(args[1], args[2:]...); errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
