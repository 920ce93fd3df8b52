package main

import (
	"errors"
	"io"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/urfave/cli/v2"
)

// appVersion is buildinfo.Version, the one version string of every output.
func appVersion() string { return buildinfo.Version() }

// run executes one invocation. Output is spooled and written to stdout
// only when the command succeeds, so a failure leaves nothing half-written
// (a command that streams commits the spool once nothing can fail).
func run(args []string, stdout, stderr io.Writer) error {
	out := &spool{dst: stdout}
	app := newApp(out, stderr)
	if len(args) > 1 && args[1] == "__complete" {
		// The completion engine reads the words as typed.
		if err := app.Run(args); err != nil {
			return err
		}
		return out.Commit()
	}
	if err := unknownCommand(app, args); err != nil {
		return err
	}
	err := app.Run(reorderArgs(app, args))
	var nf answered
	if errors.As(err, &nf) {
		// The answer stands; the status says what it found (exit 3).
		if werr := out.Commit(); werr != nil {
			return werr
		}
		return err
	}
	if err != nil {
		return err
	}
	return out.Commit()
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
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErr("%v", suggestFlag(flagError(err), c.App.Flags))
		},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "profiles", Usage: "also load model and hardware profiles (*.toml) from `DIR`; user profiles override built-in ones of the same name"},
			&cli.BoolFlag{Name: "allow-paths", Usage: "let measured-run files name models and devices by path or URL, and studies name URLs, which roofline then opens or fetches; by default a measured-run file may only name them"},
		},
		Commands: []*cli.Command{listCommand(), showCommand(), predictCommand(), chatCommand(), planCommand(), reportCommand(), compareCommand(), calibrateCommand(), plotCommand(), versionCommand(), completionCommand(), completeCommand()},
	}
	setUsageErrors(app.Commands)
	strictNumbers(app.Commands)
	return app
}

// setUsageErrors makes flag-parsing errors of every command usage errors
// (exit code 2).
func setUsageErrors(cmds []*cli.Command) {
	for _, c := range cmds {
		flags := c.Flags
		c.OnUsageError = func(_ *cli.Context, err error, _ bool) error {
			return usageErr("%v", suggestFlag(flagError(err), flags))
		}
		setUsageErrors(c.Subcommands)
	}
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
			if len(cmds) > 0 {
				// Not a subcommand where one is expected: the command
				// reads the word itself (plot KIND) and its flags are
				// the subcommand's, so leave the line as it is.
				return args
			}
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
