package main

import (
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
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
	line, notes := reorderArgs(app, args)
	render.Warn(stderr, notes...)
	err := app.Run(line)
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
		Metadata:       map[string]any{},
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {},
		OnUsageError: func(c *cli.Context, err error, _ bool) error {
			return usageErr("%v", suggestFlag(flagError(err), c.App.Flags))
		},
		Flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "profiles", EnvVars: []string{"ROOFLINE_PROFILES"}, Usage: "also load model, hardware and runtime profiles (*.toml) from `DIR` (repeatable, or comma-separated); user profiles override built-in ones of the same name; anywhere on the line; environment: ROOFLINE_PROFILES"},
			&cli.BoolFlag{Name: "allow-paths", Usage: "let measured-run files and studies name models and devices by path or URL (relative to the file), which roofline then opens or fetches; by default they may only name them"},
		},
		Commands: []*cli.Command{listCommand(), showCommand(), predictCommand(), chatCommand(), serveCommand(), planCommand(), reportCommand(), compareCommand(), calibrateCommand(), plotCommand(), versionCommand(), completionCommand(), completeCommand()},
	}
	setUsageErrors(app.Commands)
	setStdinFlags(app.Commands)
	strictNumbers(app.Commands)
	globalHelp(app.Commands, app.Flags)
	oneDefault(app.Commands)
	return app
}

// globalHelp ends every command's help with the global flags, which are
// accepted after the command too (reorderArgs): COMMAND --help shows all
// that the command line takes.
func globalHelp(cmds []*cli.Command, global []cli.Flag) {
	var section strings.Builder
	section.WriteString("\n\nGLOBAL OPTIONS (before or after the command):")
	for _, f := range global {
		section.WriteString("\n   {{wrap " + strconv.Quote(f.String()) + " 6}}")
	}
	var set func([]*cli.Command)
	set = func(cmds []*cli.Command) {
		for _, c := range cmds {
			base := cli.CommandHelpTemplate
			if len(c.Subcommands) > 0 {
				base = cli.SubcommandHelpTemplate
			}
			c.CustomHelpTemplate = strings.TrimSuffix(base, "\n") + section.String() + "\n"
			set(c.Subcommands)
		}
	}
	set(cmds)
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

// reorderArgs puts a command line in the order urfave/cli v2 parses:
// global flags, the command words, the command's flags, then the
// positional arguments (v2 stops parsing flags at the first positional,
// so "show model llama-3.1-8b --format json" would otherwise ignore
// --format). A lone "-" is a positional (standard input), never a flag; a
// global flag written after the command (--profiles) moves before it;
// the spellings of the last release (renamed) become today's, each with a
// note returned for stderr. A line whose command word is unknown is left
// as it is, for the did-you-mean of the command that reads it (plot KIND).
func reorderArgs(app *cli.App, args []string) ([]string, []string) {
	if len(args) < 2 {
		return args, nil
	}
	var global, path, fl, pos, notes []string
	flags, cmds := app.Flags, app.Commands
	rest := args[1:]
	for len(rest) > 0 {
		tok := rest[0]
		if tok == "--" {
			pos = append(pos, rest...)
			break
		}
		if strings.HasPrefix(tok, "-") && len(tok) > 1 {
			tok, note := renamedFlag(flags, tok)
			if note != "" {
				notes = append(notes, note)
			}
			dst, set := &fl, flags
			if name := flagName(tok); len(path) == 0 || (findFlag(flags, name) == nil && findFlag(app.Flags, name) != nil) {
				dst, set = &global, app.Flags
			}
			n := min(flagArity(set, tok), len(rest))
			*dst = append(append(*dst, tok), rest[1:n]...)
			rest = rest[n:]
			continue
		}
		if len(pos) == 0 && len(cmds) > 0 {
			next := findCommand(cmds, tok)
			if next == nil {
				return args, nil
			}
			path = append(path, tok)
			flags, cmds = next.Flags, next.Subcommands
			rest = rest[1:]
			continue
		}
		pos = append(pos, tok)
		rest = rest[1:]
	}
	out := append([]string{args[0]}, global...)
	out = append(append(out, path...), fl...)
	return append(out, pos...), notes
}

// renamed are the flag spellings of the last release that now have
// another name, kept for one release: each maps to the names that replace
// it (the first the command has) and the note printed when it is used.
var renamed = map[string][]struct{ name, note string }{
	"output": {
		{"output-tokens", "--output is deprecated and goes in the next release: the tokens to generate are --output-tokens (-n), and -o/--out names an output file in every command"},
		{"out", "--output is deprecated and goes in the next release: an output file is -o/--out in every command"},
	},
	"concurrent": {
		{"max-chats", "--concurrent is deprecated in chat and goes in the next release: the chats shown are --max-chats, as in plot concurrency"},
	},
}

// renamedFlag rewrites a flag token of the last release to today's name
// when flags have no flag of its old name, with the deprecation note.
func renamedFlag(flags []cli.Flag, tok string) (string, string) {
	name, value, hasValue := strings.Cut(strings.TrimLeft(tok, "-"), "=")
	if findFlag(flags, name) != nil {
		return tok, ""
	}
	for _, r := range renamed[name] {
		if findFlag(flags, r.name) != nil {
			if hasValue {
				return "--" + r.name + "=" + value, r.note
			}
			return "--" + r.name, r.note
		}
	}
	return tok, ""
}

// flagName is the name of a flag token: --name, -name or --name=value.
func flagName(tok string) string {
	name, _, _ := strings.Cut(strings.TrimLeft(tok, "-"), "=")
	return name
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
