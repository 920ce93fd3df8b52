package main

import (
	"fmt"
	"io"
	"strings"

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
