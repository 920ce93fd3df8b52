package main

import (
	"bytes"
	"io"

	"github.com/urfave/cli/v2"
)

// spool holds a command's output until the command succeeds, so that a
// failure leaves nothing half-written. A command whose every error is met
// before it writes (plan streaming its configurations) commits the spool
// and writes through, so that its memory does not grow with its output.
type spool struct {
	dst       io.Writer
	buf       bytes.Buffer
	committed bool
}

func (s *spool) Write(p []byte) (int, error) {
	if s.committed {
		return s.dst.Write(p)
	}
	return s.buf.Write(p)
}

// Commit writes what the spool holds and lets what follows through.
func (s *spool) Commit() error {
	s.committed = true
	_, err := s.dst.Write(s.buf.Bytes())
	s.buf = bytes.Buffer{}
	return err
}

// writeThrough commits the command's output spool: from here on, what
// the command writes goes straight to stdout.
func writeThrough(c *cli.Context) error {
	if s, ok := c.App.Writer.(*spool); ok {
		return s.Commit()
	}
	return nil
}
