package main

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
	"github.com/urfave/cli/v2"
)

// strictNumbers replaces every int and float flag of cmds with one that
// reads decimal numbers only. urfave/cli parses ints with Go's base
// prefixes ("--prompt 010" is 8, "0x10" is 16) and floats accept NaN, Inf
// and hexadecimal; no roofline quantity is written so. c.Int and c.Float64
// keep working: they read the flag's value back from its decimal string.
func strictNumbers(cmds []*cli.Command) {
	for _, c := range cmds {
		for i, f := range c.Flags {
			switch x := f.(type) {
			case *cli.IntFlag:
				c.Flags[i] = &cli.GenericFlag{Name: x.Name, Aliases: x.Aliases, Usage: x.Usage, Category: x.Category,
					Required: x.Required, Hidden: x.Hidden, Value: &decimalInt{x.Value}}
			case *cli.Float64Flag:
				c.Flags[i] = &cli.GenericFlag{Name: x.Name, Aliases: x.Aliases, Usage: x.Usage, Category: x.Category,
					Required: x.Required, Hidden: x.Hidden, Value: &finiteFloat{x.Value}}
			}
		}
		strictNumbers(c.Subcommands)
	}
}

var singleDash = regexp.MustCompile(`(for flag) -(\w\w)`)

// flagError writes flags as they are typed, --name: Go's flag package
// names them with one dash.
func flagError(err error) error {
	msg := err.Error()
	if m := singleDash.ReplaceAllString(msg, "$1 --$2"); m != msg {
		return errors.New(m)
	}
	return err
}

// decimalInt is an int written in base 10.
type decimalInt struct{ v int }

func (d *decimalInt) Set(s string) error {
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 0)
	if err != nil {
		return fmt.Errorf("%q is not a decimal integer%s", s, app.CountNote(s))
	}
	d.v = int(v)
	return nil
}

func (d *decimalInt) String() string { return strconv.Itoa(d.v) }

// finiteFloat is a finite decimal number.
type finiteFloat struct{ v float64 }

func (f *finiteFloat) Set(s string) error {
	t := strings.TrimSpace(s)
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(t, "xX_") {
		return fmt.Errorf("%q is not a finite decimal number", s)
	}
	f.v = v
	return nil
}

func (f *finiteFloat) String() string { return strconv.FormatFloat(f.v, 'g', -1, 64) }

// quantizedVNote is the warning where llama.cpp would refuse to start: a
// quantized V cache needs flash attention ("V cache quantization requires
// flash_attn"); roofline's --kv sets K and V alike. predict gets it from
// sim's warnings; chat and plan, which print no per-prediction warnings,
// from here.
func quantizedVNote(noFlashAttn bool, runtime string, kvs ...string) string {
	if !noFlashAttn || (runtime != "" && runtime != "llama.cpp") {
		return ""
	}
	var q []string
	for _, kv := range kvs {
		if k, err := model.LookupKVFormat(kv); err == nil && k.Storage.BlockSize > 1 {
			q = append(q, k.Name)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return fmt.Sprintf("a quantized KV cache (%s) needs flash attention in llama.cpp, which refuses to start without it: drop --no-flash-attn or use f16", strings.Join(q, ", "))
}

// tokenCount is a token count as units reads it: 512, 4k (4096), 1M.
// c.Int reads it back from its decimal string.
type tokenCount struct{ v int }

func (t *tokenCount) Set(s string) error {
	v, err := units.ParseTokenCount(s)
	if err != nil {
		return err
	}
	t.v = v
	return nil
}

func (t *tokenCount) String() string { return strconv.Itoa(t.v) }

// ubatchFlag is --ubatch: the tokens per prefill pass, the runtime's own
// when not given (llama.cpp's n_ubatch 512, TensorRT-LLM's max_num_tokens
// 8192, …: roofline show runtime NAME).
func ubatchFlag() cli.Flag {
	return &cli.GenericFlag{Name: "ubatch", Value: &tokenCount{0}, DefaultText: "the runtime's",
		Usage: "tokens per prefill pass (`N`: llama.cpp -ub, vLLM --max-num-batched-tokens, TensorRT-LLM max_num_tokens)"}
}

// ubatch reads --ubatch: 0 when not given (the runtime's default), an
// error when given below one token.
func ubatch(c *cli.Context) (int, error) {
	v := c.Int("ubatch")
	if c.IsSet("ubatch") && v < 1 {
		return 0, usageErr("--ubatch must be at least 1 token, got %d (leave it out for the runtime's own passes)", v)
	}
	return v, nil
}

// tokensFlag is a flag holding a token count (k = 1024, M = 1024²).
func tokensFlag(name string, aliases []string, value int, usage string) cli.Flag {
	return &cli.GenericFlag{Name: name, Aliases: aliases, Value: &tokenCount{value}, Usage: usage}
}

// batchList reads plan's --batch: sequences, whole and in decimal as
// every count flag takes them (predict's --batch, --users), not token
// counts: "4k" is refused with what to write.
func batchList(c *cli.Context) ([]int, error) {
	var out []int
	for _, it := range app.List(c.String("batch")) {
		n, err := strconv.Atoi(it)
		switch {
		case err != nil:
			return nil, usageErr("--batch: %q is not a whole number of sequences such as 1, 8 or 64%s", it, app.CountNote(it))
		case n < 1:
			return nil, usageErr("--batch: %q is not a number of sequences from 1", it)
		case n > sim.MaxTokens:
			return nil, usageErr("--batch: %q exceeds the limit of %d sequences", it, sim.MaxTokens)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, usageErr("--batch: empty list")
	}
	slices.Sort(out)
	for i := 1; i < len(out); i++ {
		if out[i] == out[i-1] {
			// As a list of names: twice would search each configuration
			// twice ("12 of 12 configurations" for 6).
			return nil, usageErr("--batch names %d twice: name each once", out[i])
		}
	}
	return out, nil
}
