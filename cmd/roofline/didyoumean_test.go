package main

import (
	"strings"
	"testing"
)

// Mistyped commands, subcommands, help topics, flags and names come back
// as errors with the nearest spellings; commands and flags exit 2.
func TestDidYouMean(t *testing.T) {
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"predcit"}, exitUsage, `unknown command "predcit"; did you mean predict?`},
		{[]string{"help", "predcit"}, exitUsage, `unknown command "predcit"; did you mean predict?`},
		{[]string{"--profiles", "testdata", "prdict"}, exitUsage, `unknown command "prdict"; did you mean predict?`},
		{[]string{"show", "modle", "llama-3.1-8b"}, exitUsage, `unknown command "show modle"; did you mean show model?`},
		{[]string{"show", "help", "hardwar"}, exitUsage, `unknown command "show hardwar"; did you mean show hardware?`},
		{[]string{"xyzzyqq"}, exitUsage, `unknown command "xyzzyqq"; commands: list, show, predict,`},
		// show alone is a usage error, as list and plot alone are (it
		// printed its help and exited 0).
		{[]string{"show"}, exitUsage, `show what? give one of: model, hardware, runtime`},
		{[]string{"list", "moedls"}, exitUsage, `cannot list "moedls"; did you mean models?`},
		{[]string{"predict", "--modle", "llama-3.1-8b", "--hw", "rk3588"}, exitUsage, `unknown flag --modle; did you mean --model?`},
		{[]string{"show", "model", "llama-3.1-8b", "--wieghts", "q4_0"}, exitUsage, `unknown flag --wieghts; did you mean --weights?`},
		{[]string{"--profilez", "x", "list", "models"}, exitUsage, `unknown flag --profilez; did you mean --profiles?`},
		// Names: an alias is suggested with the profile it names.
		{[]string{"show", "hardware", "rock5b"}, exitError, `unknown hardware "rock5b"; did you mean rock-5b (rk3588)?`},
		{[]string{"show", "model", "lama-3.1-8b"}, exitError, `unknown model "lama-3.1-8b"; did you mean llama-3.1-8b,`},
		{[]string{"show", "runtime", "llamacp"}, exitError, `unknown runtime "llamacp"; did you mean llamacpp (llama.cpp)?`},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(c.args...)
		if code != c.code || out != "" || !strings.Contains(errOut, "roofline: "+c.msg) {
			t.Errorf("%v: exit %d (want %d), stdout %q, stderr:\n%s\nwant %q", c.args, code, c.code, out, errOut, c.msg)
		}
	}
}

// What exists is not second-guessed: help topics and commands with their
// own argument handling pass through.
func TestDidYouMeanLeavesKnownCommands(t *testing.T) {
	for _, args := range [][]string{{"help", "predict"}, {"show", "model", "--help"}, {"h", "show"}, {"show", "help", "model"}} {
		if _, errOut, code := runCLI(args...); code != 0 {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
}
