package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/model"
	"github.com/urfave/cli/v2"
)

const completionUsage = `roofline completion bash|zsh|fish

Prints a script that makes the shell complete roofline's commands, flags
and the names they take (models, devices, runtimes, formats, engines),
including profiles loaded with --profiles on the same command line.
Where roofline has no names to offer (a file argument), the shell
completes file names.

Load it in the current shell, or install it for every new one:

  bash:  source <(roofline completion bash)
         roofline completion bash > ~/.local/share/bash-completion/completions/roofline
  zsh:   source <(roofline completion zsh)        (after compinit)
         roofline completion zsh > "${fpath[1]}/_roofline"
  fish:  roofline completion fish | source
         roofline completion fish > ~/.config/fish/completions/roofline.fish

Examples:
  roofline completion bash
  roofline completion zsh
  roofline completion fish`

// The scripts ask the program itself what to offer: roofline __complete
// WORDS… prints one candidate a line, "value<TAB>description", for the
// last word. One engine serves the three shells, and it knows what
// urfave/cli's own bash completion does not: flags written after
// arguments, and the values of flags.
var completionScripts = map[string]string{
	"bash": `# bash completion for roofline: source <(roofline completion bash)
# The words are read from the line as typed: bash splits COMP_WORDS at = and
# :, so --format=j arrives as three words; the candidates are then cut back
# to what bash replaces.
_roofline() {
    local line cur prefix IFS=$'\n'
    local -a words
    IFS=$' \t\n' read -ra words <<< "${COMP_LINE:0:COMP_POINT}"
    [[ "${COMP_LINE:COMP_POINT-1:1}" == [[:space:]] ]] && words+=("")
    cur="${words[${#words[@]}-1]}"
    prefix="${cur%"${COMP_WORDS[COMP_CWORD]}"}"
    COMPREPLY=()
    for line in $("${words[0]}" __complete "${words[@]:1}" 2>/dev/null); do
        line="${line%%$'\t'*}"
        COMPREPLY+=("${line#"$prefix"}")
    done
}
complete -o default -o bashdefault -F _roofline roofline
`,
	"zsh": `#compdef roofline
# zsh completion for roofline: source <(roofline completion zsh), after compinit
_roofline() {
    local -a lines cands
    local line value
    lines=("${(@f)$("${words[1]}" __complete "${(@)words[2,CURRENT]}" 2>/dev/null)}")
    for line in "${lines[@]}"; do
        [[ -z "$line" ]] && continue
        value="${line%%$'\t'*}"
        value="${value//:/\\:}"
        if [[ "$line" == *$'\t'* ]]; then
            cands+=("${value}:${line#*$'\t'}")
        else
            cands+=("$value")
        fi
    done
    if (( ${#cands} )); then
        _describe -t values 'roofline' cands
    else
        _files
    fi
}
# Sourced, register the function; autoloaded from $fpath as _roofline,
# this file is the function's first call: complete now.
if [[ "${funcstack[1]}" == "_roofline" ]]; then
    _roofline "$@"
else
    compdef _roofline roofline
fi
`,
	"fish": `# fish completion for roofline: roofline completion fish | source
function __roofline_complete
    set -l words (commandline -opc)
    set -l out (command $words[1] __complete $words[2..-1] (commandline -ct) 2>/dev/null)
    if test (count $out) -eq 0
        __fish_complete_path (commandline -ct)
    else
        printf '%s\n' $out
    end
end
complete -c roofline -f -a '(__roofline_complete)'
`,
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh, fish)",
		UsageText: completionUsage,
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if err := noExtraArgs(c, 1); err != nil {
				return err
			}
			shell := c.Args().First()
			script, ok := completionScripts[shell]
			if !ok {
				if shell == "" {
					return usageErr("completion for which shell? give one of: bash, zsh, fish")
				}
				return usageErr("no completion for shell %q: give one of bash, zsh, fish", shell)
			}
			_, err := io.WriteString(c.App.Writer, script)
			return err
		},
	}
}

// completeCommand is the hidden engine behind the scripts.
func completeCommand() *cli.Command {
	return &cli.Command{
		Name:            "__complete",
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			for _, cand := range complete(c.App, c.Args().Slice()) {
				fmt.Fprintln(c.App.Writer, cand)
			}
			return nil
		},
	}
}

// complete returns the candidates for the last of words (the words after
// the program name, the last one being typed, maybe empty), each
// "value<TAB>description" or "value", that begin with what is typed,
// ignoring case ("qwen/" offers Qwen/Qwen3-4B). None means: complete file
// names.
func complete(a *cli.App, words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur := strings.ToLower(words[len(words)-1])
	var out []string
	for _, c := range candidates(a, words) {
		value, desc, _ := strings.Cut(c, "\t")
		if strings.HasPrefix(strings.ToLower(value), cur) {
			// One line a candidate, a short description.
			desc, _, _ = strings.Cut(strings.ReplaceAll(desc, "\n", " "), "; ")
			if desc != "" {
				value += "\t" + desc
			}
			out = append(out, value)
		}
	}
	return out
}

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
			if f := findFlag(flags, name); f != nil && !hasValue && takesValue(f) {
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
