package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/sim"
	"github.com/urfave/cli/v2"
)

// version is set at link time (-ldflags "-X main.version=v1.2.3"); builds
// from a module fall back to the module version.
var version = ""

func appVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// run executes one invocation. Output is buffered and written to stdout
// only when the command succeeds, so a failure leaves nothing half-written.
func run(args []string, stdout, stderr io.Writer) error {
	var out bytes.Buffer
	app := newApp(&out, stderr)
	err := app.Run(reorderArgs(app, args))
	var nf nothingFeasible
	if errors.As(err, &nf) {
		// The plan's report is the answer; the status says it found nothing.
		if _, werr := stdout.Write(out.Bytes()); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	_, err = stdout.Write(out.Bytes())
	return err
}

func newApp(stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:    "roofline",
		Usage:   "predict LLM latency and memory on a device, and compare measured runs with the physical limit",
		Version: appVersion(),
		Description: "roofline prices a model (built-in, or a TOML profile) on a device (built-in, or a TOML profile)\n" +
			"with one byte and FLOP account: time to first token, time per output token, memory fit,\n" +
			"and the share of peak bandwidth and compute a run achieves. Docs: docs/ in the repository.",
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr("%v", err)
		},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "profiles", Usage: "also load model and hardware profiles (*.toml) from `DIR`; user profiles override built-in ones of the same name"},
		},
		Commands: []*cli.Command{listCommand(), showCommand(), predictCommand(), chatCommand(), planCommand(), reportCommand(), compareCommand(), calibrateCommand(), plotCommand()},
	}
	setUsageErrors(app.Commands)
	return app
}

// setUsageErrors makes flag-parsing errors of every command usage errors
// (exit code 2).
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error { return usageErr("%v", err) }
		setUsageErrors(c.Subcommands)
	}
}

// catalog returns the built-in profiles plus any --profiles directories.
func catalog(c *cli.Context) (*profiles.Catalog, error) {
	cat, err := profiles.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in profiles: %w", err)
	}
	dirs := c.StringSlice("profiles")
	if len(dirs) == 0 {
		return cat, nil
	}
	cat = cat.Clone()
	for _, d := range dirs {
		if err := cat.AddDir(d); err != nil {
			return nil, err
		}
	}
	return cat, nil
}

// fieldFlags names the flag behind each field sim validates.
var fieldFlags = map[string]string{
	"Prompt": "--prompt", "Output": "--output", "Batch": "--batch", "Depth": "--depth", "UBatch": "--ubatch",
	"Turns": "--turns", "System": "--system-tokens", "User": "--user-tokens", "Reply": "--reply-tokens",
	"K": "--draft-tokens", "Acceptance": "--acceptance", "BandwidthEfficiency": "--bw-efficiency",
	"ComputeEfficiency": "--compute-efficiency", "RuntimeOverhead": "--overhead",
}

// flagged rewrites a *sim.FieldError to name the flag it came from.
func flagged(err error) error {
	var fe *sim.FieldError
	if errors.As(err, &fe) {
		if f, ok := fieldFlags[fe.Field]; ok {
			return fmt.Errorf("%s %s", f, fe.Msg)
		}
	}
	return err
}

// usageError is a mistake in how roofline was called: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErr(format string, a ...any) error {
	for i, x := range a {
		if err, ok := x.(error); ok {
			a[i] = flagged(err)
		}
	}
	return &usageError{fmt.Sprintf(format, a...)}
}

// Exit codes, documented in docs/cli.md.
const (
	exitOK         = 0
	exitError      = 1
	exitUsage      = 2
	exitInfeasible = 3
)

// exitCode prints err following the message rule (lower case, prefixed
// "roofline:", hints on their own line) and returns the exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "roofline: %v\n", err)
	if errors.As(err, new(nothingFeasible)) {
		return exitInfeasible
	}
	var nf *profiles.NotFoundError
	if errors.As(err, &nf) {
		fmt.Fprintf(stderr, "roofline: hint: 'roofline list %s' shows the built-in names; a path to a .toml profile works too\n", listKind(nf.Kind))
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintln(stderr, "roofline: hint: 'roofline help' or 'roofline COMMAND --help' shows the usage")
		return exitUsage
	}
	return exitError
}

func listKind(kind string) string {
	if kind == "model" {
		return "models"
	}
	return kind
}

// reorderArgs moves flags written after positional arguments in front of
// them: urfave/cli v2 stops parsing flags at the first positional, so
// "show model llama-3.1-8b --format json" would otherwise ignore --format.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	rest := args[1:]
	flags := app.Flags
	cmds := app.Commands
	// Walk the command path, keeping global flags in place.
	for len(rest) > 0 {
		tok := rest[0]
		if strings.HasPrefix(tok, "-") {
			n := flagArity(flags, tok)
			out = append(out, rest[:min(n, len(rest))]...)
			rest = rest[min(n, len(rest)):]
			continue
		}
		var next *cli.Command
		for _, c := range cmds {
			if c.HasName(tok) {
				next = c
			}
		}
		if next == nil {
			break
		}
		out = append(out, tok)
		rest = rest[1:]
		flags, cmds = next.Flags, next.Subcommands
	}
	var pos, fl []string
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "--" {
			pos = append(pos, rest...)
			break
		}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			n := flagArity(flags, tok)
			fl = append(fl, rest[:min(n, len(rest))]...)
			rest = rest[min(n, len(rest)):]
			continue
		}
		pos = append(pos, tok)
		rest = rest[1:]
	}
	out = append(out, fl...)
	return append(out, pos...)
}

// flagArity is how many tokens a flag token consumes: 1 for booleans and
// --name=value, 2 for a flag followed by its value.
func flagArity(flags []cli.Flag, tok string) int {
	name := strings.TrimLeft(tok, "-")
	if strings.Contains(name, "=") {
		return 1
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				if _, ok := f.(*cli.BoolFlag); ok {
					return 1
				}
				return 2
			}
		}
	}
	if name == "help" || name == "h" || name == "version" || name == "v" {
		return 1
	}
	return 2
}

// formatFlag is the --format flag with its allowed values.
func formatFlag(allowed ...string) *cli.StringFlag {
	return &cli.StringFlag{Name: "format", Value: allowed[0], Usage: "output `FORMAT`: " + strings.Join(allowed, ", ")}
}

// outputFormat validates --format.
func outputFormat(c *cli.Context, allowed ...string) (string, error) {
	f := c.String("format")
	for _, a := range allowed {
		if f == a {
			return f, nil
		}
	}
	return "", usageErr("--format %q: must be one of %s", f, strings.Join(allowed, ", "))
}

// noExtraArgs rejects stray positional arguments.
func noExtraArgs(c *cli.Context, want int) error {
	if c.NArg() > want {
		return usageErr("unexpected argument %q", c.Args().Get(want))
	}
	return nil
}
