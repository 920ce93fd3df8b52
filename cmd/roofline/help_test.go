package main

import (
	"io"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// Every command's help, and every subcommand's, shows the global flags:
// they are accepted after the command too (--profiles, --allow-paths).
func TestCommandHelpShowsGlobalFlags(t *testing.T) {
	app := newApp(io.Discard, io.Discard)
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Hidden || c.Name == "help" {
				continue
			}
			p := append(append([]string(nil), path...), c.Name)
			for _, help := range [][]string{append(append([]string(nil), p...), "--help"), append([]string{"help"}, p...)} {
				if help[0] == "help" && (len(p) > 1 || len(c.Subcommands) > 0) {
					continue // help takes one command word, and lists a group's subcommands
				}
				out, errOut, code := runCLI(help...)
				if code != 0 {
					t.Errorf("%s: exit %d: %s", strings.Join(help, " "), code, errOut)
					continue
				}
				_, global, ok := strings.Cut(out, "GLOBAL OPTIONS (before or after the command):")
				for _, f := range app.Flags {
					if !ok || !strings.Contains(global, "--"+f.Names()[0]) {
						t.Errorf("%s does not show the global --%s:\n%s", strings.Join(help, " "), f.Names()[0], out)
					}
				}
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, app.Commands)
}

// A flag's help states its default once. A usage that says what leaving the
// flag out means ("default: the engine's") must not be followed by the zero
// the code uses for "not given": "default: the engine's (default: 0)" told
// users --bw-efficiency defaults to 0. And a flag whose zero means "not
// given" says what that is, not "(default: 0)".
func TestFlagHelpStatesOneDefault(t *testing.T) {
	notGiven := map[string]bool{"compare --bw-efficiency": true, "compare --compute-efficiency": true}
	var walk func(path string, cmds []*cli.Command)
	walk = func(path string, cmds []*cli.Command) {
		for _, c := range cmds {
			p := strings.TrimSpace(path + " " + c.Name)
			for _, f := range c.Flags {
				s := f.String()
				if n := strings.Count(s, "default:"); n > 1 {
					t.Errorf("%s --%s states %d defaults: %s", p, f.Names()[0], n, s)
				}
				if notGiven[p+" --"+f.Names()[0]] && strings.HasSuffix(s, "(default: 0)") {
					t.Errorf("%s --%s: 0 means not given, but the help says it is the default: %s", p, f.Names()[0], s)
				}
			}
			walk(p, c.Subcommands)
		}
	}
	walk("", newApp(io.Discard, io.Discard).Commands)
}
