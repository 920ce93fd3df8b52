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
