package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// defaultMark ends a usage that says what leaving its flag out means.
const defaultMark = "; default: "

// oneDefault makes a flag's help state its default once. A usage ending in
// "; default: X" says what leaving the flag out means; urfave/cli would
// append the zero the code takes for "not given" as well ("default: the
// engine's (default: 0)"), so X becomes the flag's default text, or, for a
// switch, the usage alone says it.
func oneDefault(cmds []*cli.Command) {
	for _, c := range cmds {
		for _, f := range c.Flags {
			switch f := f.(type) {
			case *cli.BoolFlag:
				if strings.Contains(f.Usage, defaultMark) {
					f.DisableDefaultText = true
				}
			case *cli.IntFlag:
				f.Usage, f.DefaultText = splitDefault(f.Usage, f.DefaultText)
			case *cli.Float64Flag:
				f.Usage, f.DefaultText = splitDefault(f.Usage, f.DefaultText)
			case *cli.GenericFlag:
				f.Usage, f.DefaultText = splitDefault(f.Usage, f.DefaultText)
			}
		}
		oneDefault(c.Subcommands)
	}
}

// splitDefault moves a usage's closing "; default: X" into the default
// text, unless a default text is given already.
func splitDefault(usage, text string) (string, string) {
	i := strings.LastIndex(usage, defaultMark)
	if text != "" || i < 0 {
		return usage, text
	}
	return usage[:i], usage[i+len(defaultMark):]
}
