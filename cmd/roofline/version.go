package main

import (
	"fmt"
	"io"

	"github.com/roofline/roofline/cmd/roofline/internal/buildinfo"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/urfave/cli/v2"
)

const versionUsage = `roofline version [--format text|json|markdown]

Prints which roofline this is: the module version and the commit it was
built from, with the commit's time and whether the work tree had changes,
as go build and go install record them; then the Go toolchain and the
platform. roofline --version prints the same on one line, and reports
carry it too. A build with no record (go test, -buildvcs=false) says dev.

Examples:
  roofline version
  roofline version --format json
  roofline --version`

var versionFormats = render.DocFormats

func versionCommand() *cli.Command {
	return &cli.Command{
		Name:      "version",
		Usage:     "print the version, commit and toolchain of this build",
		UsageText: versionUsage,
		Flags:     []cli.Flag{formatFlag(versionFormats)},
		Action:    versionAction,
	}
}

func versionAction(c *cli.Context) error {
	f, err := outputFormat(c, versionFormats)
	if err != nil {
		return err
	}
	if err := noExtraArgs(c, 0); err != nil {
		return err
	}
	info := buildinfo.Read()
	if f == render.JSON {
		return render.WriteJSON(c.App.Writer, info)
	}
	w := c.App.Writer
	if f == render.Markdown {
		w = &linePrefix{w: w, prefix: "- "} // a Markdown list
	}
	fmt.Fprintf(w, "roofline %s\n", info.Version)
	if info.Revision != "" {
		modified := ""
		if info.Modified {
			modified = " (modified)"
		}
		fmt.Fprintf(w, "commit   %s%s\n", info.Revision, modified)
	}
	if info.Time != "" {
		fmt.Fprintf(w, "time     %s\n", info.Time)
	}
	_, err = fmt.Fprintf(w, "go       %s %s\n", info.Go, info.Platform)
	return err
}

// linePrefix writes prefix before each line of what is written to w; each
// Write is one whole line.
type linePrefix struct {
	w      io.Writer
	prefix string
}

func (l *linePrefix) Write(p []byte) (int, error) {
	if _, err := io.WriteString(l.w, l.prefix); err != nil {
		return 0, err
	}
	return l.w.Write(p)
}
