package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/profiles"
	"github.com/urfave/cli/v2"
)

// The catalog a command sees: built-in profiles, the --profiles
// directories, and profiles read from standard input.

// environment is the catalog with the --profiles directories (and
// ROOFLINE_PROFILES); when a profile flag was given as "-", the one
// stdinFlags built with that profile.
func environment(c *cli.Context) (*app.Env, error) {
	if env, ok := c.App.Metadata[envKey].(*app.Env); ok {
		return env, nil
	}
	var dirs []string // an empty item (ROOFLINE_PROFILES= set empty) names none
	for _, d := range c.StringSlice("profiles") {
		if strings.TrimSpace(d) != "" {
			dirs = append(dirs, d)
		}
	}
	env, err := app.NewEnv(dirs...)
	if err != nil {
		return nil, flagged(err)
	}
	if c.Bool("allow-paths") {
		env.Catalog = env.Catalog.WithDataPaths()
	}
	return env, nil
}

// envKey holds in the app's Metadata the environment stdinFlags built.
const envKey = "env"

// stdinFlags runs before every command's action: a profile flag given as
// "-" (--hardware -, or an item of a list) is read from standard input
// into the environment, and the flag is set to the profile's name, so
// that the action sees a name like any other. Standard input feeds one
// input: a second "-" on the line is a usage error.
func stdinFlags(c *cli.Context) error {
	var dashes []string
	for _, name := range profileFlags {
		if hasFlag(c, name) && slices.Contains(app.List(c.String(name)), "-") {
			dashes = append(dashes, "--"+name)
		}
	}
	flags, args := len(dashes), 0
	for _, a := range c.Args().Slice() {
		if a == "-" {
			args++
		}
	}
	switch {
	case args == 1:
		dashes = append(dashes, "the argument -")
	case args > 1:
		dashes = append(dashes, fmt.Sprintf("the argument - (%d times)", args))
	}
	if flags+args > 1 { // compare - - as predict -m - --hw -
		return usageErr("standard input feeds one input, and %s all read it: give the others as files", strings.Join(dashes, ", "))
	}
	if flags == 0 {
		return nil
	}
	env, err := environment(c)
	if err != nil {
		return err
	}
	for _, name := range profileFlags {
		if !hasFlag(c, name) {
			continue
		}
		items := strings.Split(c.String(name), ",")
		for i, it := range items {
			if strings.TrimSpace(it) != "-" {
				continue
			}
			if items[i], err = stdinProfile(env, "--"+name); err != nil {
				return err
			}
			if err := c.Set(name, strings.Join(items, ",")); err != nil {
				return err
			}
		}
	}
	c.App.Metadata[envKey] = env
	return nil
}

// setStdinFlags gives every command stdinFlags as its Before.
func setStdinFlags(cmds []*cli.Command) {
	for _, c := range cmds {
		c.Before = stdinFlags
		setStdinFlags(c.Subcommands)
	}
}

// profileFlags name a model, device or runtime: "-" reads its profile
// from standard input.
var profileFlags = []string{"model", "hardware", "runtime", "draft"}

// hasFlag reports whether the command c runs defines flag name.
func hasFlag(c *cli.Context, name string) bool {
	for _, f := range c.Command.Flags {
		if hasName(f, name) {
			return true
		}
	}
	return false
}

// stdinProfile reads a profile given as "-" by input (a flag, or show's
// argument) from standard input: a TOML model, device or runtime, or a
// Hugging Face config.json. It adds the profile to env's catalog and
// returns its name; standard input is then spent.
func stdinProfile(env *app.Env, input string) (string, error) {
	src, err := env.ReadStdin(input, limits.ProfileBytes, "a profile")
	if err != nil {
		return "", err
	}
	env.Catalog = env.Catalog.Clone()
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(src, []byte("\ufeff")), " \t\r\n")
	switch {
	case len(trimmed) == 0:
		return "", fmt.Errorf("%s -: standard input is empty: pipe a profile into it", input)
	case bytes.HasPrefix(trimmed, []byte("GGUF")):
		return "", usageErr("%s -: a GGUF file is not read from standard input; give its path or URL", input)
	case bytes.HasPrefix(trimmed, []byte("{")):
		spec, err := model.ParseHFConfig(src, "stdin")
		if err != nil {
			return "", fmt.Errorf("%s: stdin: %w", input, err)
		}
		spec.Source = "stdin"
		if err := env.Catalog.AddModel(spec, "stdin"); err != nil {
			return "", fmt.Errorf("%s: stdin: %w", input, err)
		}
		return spec.Name, nil
	}
	kind := "model"
	for _, k := range []string{"hardware", "runtime"} {
		if strings.HasSuffix(input, k) {
			kind = k
		}
	}
	if err := profiles.CheckKind("stdin", src, kind); err != nil {
		return "", fmt.Errorf("%s: %w", input, err)
	}
	name, err := env.Catalog.AddFileBytes("stdin", src)
	if err != nil {
		return "", fmt.Errorf("%s: %w", input, err)
	}
	return name, nil
}
