// Command roofline predicts how fast a large language model runs on a
// device and how close measured runs come to the device's limits.
package main

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/roofline/roofline/cmd/roofline/internal/atomicfile"
	"github.com/roofline/roofline/cmd/roofline/internal/memlimit"
	"github.com/roofline/roofline/cmd/roofline/internal/render"
	"github.com/roofline/roofline/safeio"
)

func main() {
	stderr := safeio.Writer{W: os.Stderr}
	memlimit.Apply(stderr, atomicfile.RemovePending)
	os.Exit(runProtected(os.Args, os.Stdout, stderr))
}

// runProtected runs one invocation and returns its exit code. A panic is
// a bug: it is reported with its stack and exit code 70 (EX_SOFTWARE),
// never mistaken for a usage error; stdout holds nothing, as run writes
// it only on success.
func runProtected(args []string, stdout, stderr io.Writer) (code int) {
	// Every character a terminal would act on is written escaped, as
	// error messages quote names (render.Terminal): a runs file's note, a
	// server's reason phrase, a study's title.
	out, errw := render.Terminal(stdout), render.Terminal(stderr)
	stdout, stderr = out, errw
	defer out.Flush()
	defer errw.Flush()
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "roofline: internal error, please report it with the command that caused it: %v\n%s", p, debug.Stack())
			code = exitInternal
		}
	}()
	return exitCode(run(args, stdout, stderr), stderr)
}
