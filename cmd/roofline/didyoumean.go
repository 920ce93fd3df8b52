package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/roofline/roofline/profiles"
	"github.com/urfave/cli/v2"
)

// unknownCommand checks the command words of args (after the program
// name) before urfave/cli sees them: a word that names no command where
// one is expected, or no help topic after "help", is a usage error with
// the nearest commands ("did you mean predict?"). urfave/cli would answer
// "No help topic for 'predcit'". A command with subcommands and an action
// of its own (plot) reads its arguments itself.
func unknownCommand(app *cli.App, args []string) error {
	if len(args) < 2 {
		return nil
	}
	rest := args[1:]
	flags, cmds, ownAction := app.Flags, app.Commands, app.Action != nil
	var path []string
	help := false
	for len(rest) > 0 {
		tok := rest[0]
		switch {
		case tok == "--" || len(cmds) == 0 || ownAction:
			return nil
		case strings.HasPrefix(tok, "-") && len(tok) > 1:
			help = help || tok == "--help" || tok == "-h"
			rest = rest[min(flagArity(flags, tok), len(rest)):]
			continue
		case tok == "help" || tok == "h":
			help = true
			rest = rest[1:]
			continue
		}
		next := findCommand(cmds, tok)
		if next == nil {
			return commandError(path, tok, cmds)
		}
		path = append(path, tok)
		flags, cmds, ownAction = next.Flags, next.Subcommands, next.Action != nil
		rest = rest[1:]
	}
	// A command of subcommands alone (show) asks which, as list and plot
	// alone do, rather than printing its help and exiting 0.
	if len(path) > 0 && len(cmds) > 0 && !ownAction && !help {
		var names []string
		for _, c := range cmds {
			if !c.Hidden && c.Name != "help" {
				names = append(names, c.Name)
			}
		}
		return usageErr("%s what? give one of: %s", strings.Join(path, " "), strings.Join(names, ", "))
	}
	return nil
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

// commandError is an unknown command word tok after the command path,
// with the nearest commands, else all of them.
func commandError(path []string, tok string, cmds []*cli.Command) error {
	var named []profiles.Named
	var all []string
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		named = append(named, profiles.Named{Name: c.Name, Aliases: c.Aliases})
		all = append(all, c.Name)
	}
	prefix := strings.Join(append(path, ""), " ")
	msg := fmt.Sprintf("unknown command %q", prefix+tok)
	if s := profiles.SuggestNamed(tok, named); len(s) > 0 {
		for i := range s {
			s[i] = prefix + s[i]
		}
		return usageErr("%s; did you mean %s?", msg, strings.Join(s, ", "))
	}
	return usageErr("%s; commands: %s", msg, strings.Join(all, ", "))
}

var undefinedFlag = regexp.MustCompile(`^flag provided but not defined: -+(.+)$`)

// suggestFlag adds the nearest flags of flags to an unknown-flag error:
// "unknown flag --modle; did you mean --model?".
func suggestFlag(err error, flags []cli.Flag) error {
	m := undefinedFlag.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var named []profiles.Named
	for _, f := range flags {
		names := f.Names()
		named = append(named, profiles.Named{Name: names[0], Aliases: names[1:]})
	}
	named = append(named, profiles.Named{Name: "help"})
	msg := "unknown flag " + dashes(m[1])
	s := profiles.SuggestNamed(m[1], named)
	if len(s) == 0 {
		return fmt.Errorf("%s", msg)
	}
	for i, x := range s {
		// A flag is suggested by its name: "m (model)" is --model.
		if _, name, alias := strings.Cut(x, " ("); alias {
			x = strings.TrimSuffix(name, ")")
		}
		s[i] = dashes(x)
	}
	return fmt.Errorf("%s; did you mean %s?", msg, strings.Join(s, ", "))
}

// dashes writes a flag name as it is typed: -m, --model.
func dashes(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
