package main

import (
	"os"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/model"
	"github.com/urfave/cli/v2"
)

// The words a shell may complete, read from the command tree itself:
// commands, subcommands, flags and the names flags take.

// candidates is every candidate for the last of words, typed or not.
func candidates(a *cli.App, words []string) []string {
	cur, done := words[len(words)-1], words[:len(words)-1]
	flags, cmds := a.Flags, a.Commands
	var path []*cli.Command
	var profileDirs []string
	var pending cli.Flag // a flag whose value is being typed
	var positionals []string
	for i := 0; i < len(done); i++ {
		w := done[i]
		if pending != nil {
			if hasName(pending, "profiles") {
				profileDirs = append(profileDirs, w)
			}
			pending = nil
			continue
		}
		if strings.HasPrefix(w, "-") && len(w) > 1 && w != "--" {
			name, _, hasValue := strings.Cut(strings.TrimLeft(w, "-"), "=")
			f := findFlag(flags, name)
			if f == nil {
				f = findFlag(a.Flags, name) // a global flag after the command
			}
			if f != nil && hasValue && hasName(f, "profiles") {
				profileDirs = append(profileDirs, strings.SplitN(w, "=", 2)[1])
			}
			if f != nil && !hasValue && takesValue(f) {
				pending = f
			}
			continue
		}
		if next := findCommand(cmds, w); next != nil && len(positionals) == 0 {
			path = append(path, next)
			flags, cmds = next.Flags, next.Subcommands
			continue
		}
		positionals = append(positionals, w)
	}
	if len(profileDirs) == 0 {
		profileDirs = app.List(os.Getenv("ROOFLINE_PROFILES"))
	}
	// --flag=value: complete the value, keeping the prefix.
	if strings.HasPrefix(cur, "-") && pending == nil {
		if name, value, ok := strings.Cut(strings.TrimLeft(cur, "-"), "="); ok {
			if f := findFlag(flags, name); f != nil {
				prefix := cur[:len(cur)-len(value)]
				var out []string
				for _, v := range flagValues(f, profileDirs) {
					out = append(out, prefix+v)
				}
				return out
			}
			return nil
		}
		var out []string
		for _, f := range flags {
			if isHidden(f) {
				continue
			}
			for _, n := range f.Names() {
				out = append(out, dashes(n)+"\t"+flagUsage(f))
			}
		}
		return out
	}
	if pending != nil {
		return flagValues(pending, profileDirs)
	}
	if len(cmds) > 0 && len(positionals) == 0 {
		var out []string
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			for _, n := range c.Names() {
				out = append(out, n+"\t"+c.Usage)
			}
		}
		return out
	}
	return positionalValues(path, positionals, profileDirs)
}

func findFlag(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		if hasName(f, name) {
			return f
		}
	}
	return nil
}

func hasName(f cli.Flag, name string) bool {
	for _, n := range f.Names() {
		if n == name {
			return true
		}
	}
	return false
}

func takesValue(f cli.Flag) bool {
	_, isBool := f.(*cli.BoolFlag)
	return !isBool
}

func isHidden(f cli.Flag) bool {
	v, ok := f.(cli.VisibleFlag)
	return ok && !v.IsVisible()
}

// flagUsage is a flag's usage text without urfave's `NAME` quotes.
func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return strings.ReplaceAll(d.GetUsage(), "`", "")
	}
	return ""
}

// flagValues are the values a flag takes, by its name; none for files,
// numbers and free text.
func flagValues(f cli.Flag, dirs []string) []string {
	switch f.Names()[0] {
	case "model", "draft":
		return catalogNames("model", dirs)
	case "hardware":
		return catalogNames("hardware", dirs)
	case "runtime":
		return catalogNames("runtime", dirs)
	case "weights", "draft-weights":
		var out []string
		for _, w := range model.WeightFormats {
			out = append(out, w.Name+"\t"+w.Description)
		}
		return out
	case "kv":
		var out []string
		for _, k := range model.KVFormats {
			out = append(out, k.Name+"\t"+k.Description)
		}
		return out
	case "engine":
		return []string{"gpu", "cpu", "npu"}
	case "flash-attn":
		return []string{"on", "off"}
	case "format":
		// formatFlag writes its choices at the end of its usage.
		if _, choices, ok := strings.Cut(flagUsage(f), "FORMAT: "); ok {
			return strings.Split(choices, ", ")
		}
	}
	return nil
}

// positionalValues are the candidates for a command's next argument.
func positionalValues(path []*cli.Command, positionals []string, dirs []string) []string {
	var names []string
	for _, c := range path {
		names = append(names, c.Name)
	}
	cmd := strings.Join(names, " ")
	if len(positionals) > 0 {
		return nil // every command that takes names takes one
	}
	switch cmd {
	case "show model":
		return catalogNames("model", dirs)
	case "show hardware":
		return catalogNames("hardware", dirs)
	case "show runtime":
		return catalogNames("runtime", dirs)
	case "list":
		return []string{"hardware", "models", "formats", "runtimes"}
	case "completion":
		return []string{"bash", "zsh", "fish"}
	}
	return nil
}

// catalogNames lists the names and aliases of one kind of profile, the
// built-in ones and those of the --profiles directories on the command
// line (a directory that fails to load is left out: completion never
// errs).
func catalogNames(kind string, dirs []string) []string {
	env, err := app.NewEnv(dirs...)
	if err != nil {
		if env, err = app.NewEnv(); err != nil {
			return nil
		}
	}
	var out []string
	add := func(name, desc string, aliases []string) {
		out = append(out, name+"\t"+desc)
		for _, a := range aliases {
			out = append(out, a+"\talias of "+name)
		}
	}
	switch kind {
	case "model":
		for _, m := range env.Catalog.Models() {
			add(m.Name, m.Architecture, m.Aliases)
		}
	case "hardware":
		for _, d := range env.Catalog.Devices() {
			add(d.Name, d.Description, d.Aliases)
		}
	case "runtime":
		for _, r := range env.Catalog.Runtimes().All() {
			add(r.Name, r.Description, r.Aliases)
		}
	}
	return out
}
