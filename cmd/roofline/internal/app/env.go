package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/roofline/roofline/profiles"
	"github.com/roofline/roofline/safeio"
)

// Env is what every request is answered against: the catalog of models,
// devices and runtimes, and where "-" reads from.
type Env struct {
	Catalog *profiles.Catalog
	Stdin   io.Reader
}

// ProfilesError is a profile directory that could not be loaded.
type ProfilesError struct {
	Dir string
	Err error
}

func (e *ProfilesError) Error() string {
	if m := new(safeio.MissingError); errors.As(e.Err, &m) && m.Name == e.Dir {
		return m.Error() // it names the directory
	}
	return e.Dir + ": " + e.Err.Error()
}
func (e *ProfilesError) Unwrap() error { return e.Err }

// NewEnv is the built-in catalog plus the profiles in dirs (user profiles
// replace built-in ones of the same name).
func NewEnv(dirs ...string) (*Env, error) {
	cat, err := profiles.Builtin()
	if err != nil {
		return nil, fmt.Errorf("built-in profiles: %w", err)
	}
	env := &Env{Catalog: cat, Stdin: os.Stdin}
	return env.With(dirs...)
}

// With is env with the profiles in dirs added.
func (env *Env) With(dirs ...string) (*Env, error) {
	if len(dirs) == 0 {
		return env, nil
	}
	cat := env.Catalog.Clone()
	for _, d := range dirs {
		if err := cat.AddDir(d); err != nil {
			return nil, &ProfilesError{d, err}
		}
	}
	return &Env{Catalog: cat, Stdin: env.Stdin}, nil
}

// ReadStdin reads standard input for input (a flag, or "-" as an
// argument) within limit, once: a second reader gets an error naming the
// first, as a line can pipe one file.
func (env *Env) ReadStdin(input string, limit int64, what string) ([]byte, error) {
	if s, ok := env.Stdin.(spentStdin); ok {
		return nil, &RequestError{Msg: fmt.Sprintf("%s reads standard input, already read for %s: give one of them as a file", input, string(s))}
	}
	src, err := safeio.ReadAll(env.Stdin, "stdin", limit, what)
	env.Stdin = spentStdin(input)
	return src, err
}

// spentStdin stands for standard input once read, naming what read it.
type spentStdin string

func (s spentStdin) Read([]byte) (int, error) {
	return 0, &RequestError{Msg: "standard input is already read for " + string(s) + "; give one of them as a file"}
}

// List splits a comma-separated list, dropping empty items.
func List(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
