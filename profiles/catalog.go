package profiles

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/roofline/roofline/gguf"
	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/limits"
	"github.com/roofline/roofline/model"
	"github.com/roofline/roofline/runtimes"
	"github.com/roofline/roofline/safeio"
)

//go:embed models/*.toml hardware/*.toml runtimes/*.toml
var builtin embed.FS

// Catalog holds the models and devices roofline knows by name.
type Catalog struct {
	models   []*model.Spec
	devices  []*hardware.Device
	runtimes *runtimes.Set
	origin   map[string]string // name → file, to report duplicates

	lastAdded string
	// dataPaths lets names read from data files (measured runs, studies)
	// be paths or URLs (--allow-paths).
	dataPaths bool
}

var (
	builtinOnce sync.Once
	builtinCat  *Catalog
	builtinErr  error
)

// Builtin returns the embedded catalog. It is decoded once; callers must not
// modify it (use Clone before adding user profiles).
func Builtin() (*Catalog, error) {
	builtinOnce.Do(func() {
		c := &Catalog{origin: map[string]string{}, runtimes: runtimes.NewSet()}
		builtinErr = c.loadFS(builtin, "models", "hardware", "runtimes")
		builtinCat = c
	})
	return builtinCat, builtinErr
}

// Clone returns a catalog that can take more profiles without changing c.
func (c *Catalog) Clone() *Catalog {
	o := &Catalog{origin: map[string]string{}, runtimes: c.runtimes.Clone(), dataPaths: c.dataPaths}
	o.models = append(o.models, c.models...)
	o.devices = append(o.devices, c.devices...)
	for k, v := range c.origin {
		o.origin[k] = v
	}
	return o
}

// Models lists the models in name order.
func (c *Catalog) Models() []*model.Spec { return c.models }

// Devices lists the devices in name order.
func (c *Catalog) Devices() []*hardware.Device { return c.devices }

// Runtimes is the set of runtimes.
func (c *Catalog) Runtimes() *runtimes.Set { return c.runtimes }

func (c *Catalog) loadFS(fsys fs.FS, modelDir, hwDir, rtDir string) error {
	var errs []error
	for _, dir := range []string{rtDir, modelDir, hwDir} {
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".toml") {
				continue
			}
			p := path.Join(dir, e.Name())
			src, err := fs.ReadFile(fsys, p)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			name := "profiles/" + p
			switch dir {
			case modelDir:
				errs = append(errs, c.addModelFile(name, src, false))
			case hwDir:
				errs = append(errs, c.addDeviceFile(name, src, false))
			default:
				errs = append(errs, c.addRuntimeFile(name, src, false))
			}
		}
	}
	c.sort()
	return errors.Join(errs...)
}

// AddDir adds every .toml profile in dir (and in its models/ and hardware/
// subdirectories). A user profile with the name of a built-in one replaces
// it; two user profiles with one name are an error.
func (c *Catalog) AddDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	var files []string
	for _, pattern := range []string{"*.toml", "runtimes/*.toml", "models/*.toml", "hardware/*.toml"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		files = append(files, m...)
	}
	var errs []error
	for _, f := range files {
		if _, err := c.AddFile(f); err != nil {
			errs = append(errs, err)
		}
	}
	c.sort()
	return errors.Join(errs...)
}

// AddFile reads one user profile, model, device or runtime, telling them
// apart by content: a runtime lists the weights it runs, a device has
// [[engine]] tables. It returns the name it added.
func (c *Catalog) AddFile(file string) (string, error) {
	src, err := safeio.ReadFile(file, limits.ProfileBytes, "a profile")
	if err != nil {
		return "", err
	}
	return c.AddFileBytes(file, src)
}

// AddFileBytes is AddFile for a profile already in memory.
func (c *Catalog) AddFileBytes(file string, src []byte) (string, error) {
	var err error
	if isRuntime(src) {
		err = c.addRuntimeFile(file, src, true)
		return c.lastAdded, err
	}
	if isDevice(src) {
		// An edited copy of a built-in profile replaces it: its name is
		// what was added, though the count of devices did not change.
		if err = c.addDeviceFile(file, src, true); err != nil {
			return "", err
		}
		c.sort()
		return c.lastAdded, nil
	}
	if err = c.addModelFile(file, src, true); err != nil {
		return "", err
	}
	c.sort()
	return c.lastAdded, nil
}

// isRuntime reports a top-level "weights = [" key, which only runtime
// profiles have.
func isRuntime(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[") {
			return false
		}
		if k, v, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "weights" && strings.HasPrefix(strings.TrimSpace(v), "[") {
			return true
		}
	}
	return false
}

func isDevice(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "[[engine]]") {
			return true
		}
	}
	return false
}

func (c *Catalog) addModelFile(file string, src []byte, user bool) error {
	s, err := decodeModel(file, src)
	if err != nil {
		return err
	}
	if err := c.claim("model", s.Name, s.Aliases, file, user); err != nil {
		return err
	}
	c.models = replaceByName(c.models, s, func(m *model.Spec) string { return m.Name })
	c.lastAdded = s.Name
	return nil
}

func (c *Catalog) addDeviceFile(file string, src []byte, user bool) error {
	ds, err := decodeDevices(file, src)
	if err != nil {
		return err
	}
	for _, d := range ds {
		if err := c.claim("device", d.Name, d.Aliases, file, user); err != nil {
			return err
		}
		c.devices = replaceByName(c.devices, d, func(x *hardware.Device) string { return x.Name })
	}
	c.lastAdded = ds[0].Name
	return nil
}

func (c *Catalog) addRuntimeFile(file string, src []byte, user bool) error {
	r, err := decodeRuntime(file, src)
	if err != nil {
		return err
	}
	if err := c.claim("runtime", r.Name, r.Aliases, file, user); err != nil {
		return err
	}
	c.runtimes.Add(r)
	c.lastAdded = r.Name
	return nil
}

// AddModel adds a model read from a file the catalog does not parse
// itself (a config.json, a GGUF header), or one already read, under its
// name: like a user profile, it replaces a built-in model of that name.
// file names it in messages about a clash.
func (c *Catalog) AddModel(s *model.Spec, file string) error {
	if err := c.claim("model", s.Name, s.Aliases, file, true); err != nil {
		return err
	}
	c.models = replaceByName(c.models, s, func(m *model.Spec) string { return m.Name })
	c.sort()
	return nil
}

// AddDevice is AddModel for a device.
func (c *Catalog) AddDevice(d *hardware.Device, file string) error {
	if err := c.claim("device", d.Name, d.Aliases, file, true); err != nil {
		return err
	}
	c.devices = replaceByName(c.devices, d, func(x *hardware.Device) string { return x.Name })
	c.sort()
	return nil
}

// Runtime finds a runtime by name, alias or path to a TOML profile.
func (c *Catalog) Runtime(name string) (*runtimes.Runtime, error) {
	if looksLikeFile(name) {
		cc := c.Clone()
		if _, err := cc.AddFile(name); err != nil {
			return nil, err
		}
		return cc.runtimes.Lookup(cc.lastAdded)
	}
	r, err := c.runtimes.Lookup(name)
	var build *runtimes.UnsupportedError
	if errors.As(err, &build) { // a known runtime, a build it has not
		return nil, err
	}
	if err != nil {
		var names []Named
		for _, x := range c.runtimes.All() {
			names = append(names, Named{x.Name, x.Aliases})
		}
		return nil, &NotFoundError{Kind: "runtime", Name: name, Suggestions: SuggestNamed(name, names)}
	}
	return r, nil
}

// claim registers names, rejecting a name used twice except when a user
// file overrides a built-in profile.
func (c *Catalog) claim(kind, name string, aliases []string, file string, user bool) error {
	for _, n := range append([]string{name}, aliases...) {
		key := kind + ":" + strings.ToLower(n)
		if prev, ok := c.origin[key]; ok && prev != file {
			if !(user && strings.HasPrefix(prev, "profiles/")) {
				return &FileError{File: file, Msg: fmt.Sprintf("%s name %q is already used by %s", kind, n, prev)}
			}
		}
		c.origin[key] = file
	}
	return nil
}

func replaceByName[T any](list []T, v T, name func(T) string) []T {
	for i, x := range list {
		if name(x) == name(v) {
			list[i] = v
			return list
		}
	}
	return append(list, v)
}

func (c *Catalog) sort() {
	sort.Slice(c.models, func(i, j int) bool { return c.models[i].Name < c.models[j].Name })
	sort.Slice(c.devices, func(i, j int) bool { return c.devices[i].Name < c.devices[j].Name })
}

// NotFoundError is an unknown name, with the closest known names.
type NotFoundError struct {
	Kind        string
	Name        string
	Suggestions []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("unknown %s %q", e.Kind, safeio.RedactText(e.Name))
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(e.Suggestions, ", "))
	}
	return msg
}

// Model finds a model by name, alias (e.g. a Hugging Face repo id), path
// to a TOML profile, GGUF file or URL (the header only is read), or a
// Hugging Face config.json (or a directory holding one). Use it for what a
// user typed; names read from data files go through ModelFromData.
func (c *Catalog) Model(name string) (*model.Spec, error) {
	if gguf.IsLocation(name) {
		m, err := gguf.Load(name)
		if err != nil {
			return nil, err
		}
		return m.Spec, nil
	}
	if cfg, ok := hfConfigPath(name); ok {
		data, err := safeio.ReadFile(cfg, limits.ProfileBytes, "a config.json")
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(cfg), ".json")
		if name == "config" { // a checkpoint directory: use its name
			name = filepath.Base(filepath.Dir(cfg))
		}
		s, err := model.ParseHFConfig(data, name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cfg, err)
		}
		s.Source = cfg
		return s, nil
	}
	if looksLikeFile(name) {
		// The profile's name is a name: it is looked up, never opened
		// again as a path (a name ending in .toml would recurse).
		cc := c.Clone()
		if _, err := cc.AddFile(name); err != nil {
			return nil, err
		}
		return cc.modelNamed(cc.lastAdded)
	}
	return c.modelNamed(name)
}

// modelNamed finds a model by name or alias only, touching no file.
func (c *Catalog) modelNamed(name string) (*model.Spec, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	var names []Named
	for _, m := range c.models {
		if strings.ToLower(m.Name) == n {
			return m, nil
		}
		for _, a := range m.Aliases {
			if strings.ToLower(a) == n {
				return m, nil
			}
		}
		names = append(names, Named{m.Name, m.Aliases})
	}
	return nil, &NotFoundError{Kind: "model", Name: name, Suggestions: SuggestNamed(name, names)}
}

// Device finds a device by name, alias or path to a TOML profile. Use it
// for what a user typed; names read from data files go through
// DeviceFromData.
func (c *Catalog) Device(name string) (*hardware.Device, error) {
	if looksLikeFile(name) {
		cc := c.Clone()
		if _, err := cc.AddFile(name); err != nil {
			return nil, err
		}
		return cc.deviceNamed(cc.lastAdded)
	}
	return c.deviceNamed(name)
}

// deviceNamed finds a device by name or alias only, touching no file.
func (c *Catalog) deviceNamed(name string) (*hardware.Device, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	var names []Named
	for _, d := range c.devices {
		if d.Name == n {
			return d, nil
		}
		for _, a := range d.Aliases {
			if strings.ToLower(a) == n {
				return d, nil
			}
		}
		names = append(names, Named{d.Name, d.Aliases})
	}
	return nil, &NotFoundError{Kind: "hardware", Name: name, Suggestions: SuggestNamed(name, names)}
}

// WithDataPaths returns a catalog whose ModelFromData and DeviceFromData
// open paths and URLs too (the --allow-paths flag).
func (c *Catalog) WithDataPaths() *Catalog {
	o := c.Clone()
	o.dataPaths = true
	return o
}

// DataPaths reports whether names in data files may be paths or URLs.
func (c *Catalog) DataPaths() bool { return c.dataPaths }

// PathNotAllowedError is a path or URL where a data file may only name a
// model or device.
type PathNotAllowedError struct {
	Kind, Name, File string
}

func (e *PathNotAllowedError) Error() string {
	in := "a data file"
	if e.File != "" {
		in = e.File
	}
	return fmt.Sprintf("%s %q in %s is a path or URL; data files name %s (roofline list %s) — pass --allow-paths to let them open files",
		e.Kind, safeio.RedactText(e.Name), in, plural(e.Kind), plural(e.Kind))
}

func plural(kind string) string {
	if kind == "model" {
		return "models"
	}
	return kind
}

// CheckDataName refuses a path or URL named by data file file unless data
// paths are allowed: a file that triggers reads or fetches must be one the
// user chose to trust.
func (c *Catalog) CheckDataName(kind, name, file string) error {
	if !c.dataPaths && LooksLikePath(name) {
		return &PathNotAllowedError{Kind: kind, Name: name, File: file}
	}
	return nil
}

// ModelFromData finds a model named in data file file (a measured-run
// file or a study): by name or alias only, unless data paths are allowed,
// when a path is taken relative to the file's directory.
func (c *Catalog) ModelFromData(name, file string) (*model.Spec, error) {
	if !c.dataPaths {
		s, err := c.modelNamed(name)
		if err != nil && LooksLikePath(name) {
			return nil, &PathNotAllowedError{Kind: "model", Name: name, File: file}
		}
		return s, err
	}
	return c.Model(relativeTo(name, file))
}

// DeviceFromData is ModelFromData for a device.
func (c *Catalog) DeviceFromData(name, file string) (*hardware.Device, error) {
	if !c.dataPaths {
		d, err := c.deviceNamed(name)
		if err != nil && LooksLikePath(name) {
			return nil, &PathNotAllowedError{Kind: "hardware", Name: name, File: file}
		}
		return d, err
	}
	return c.Device(relativeTo(name, file))
}

// relativeTo anchors a relative path written in data file file at the
// file's directory.
func relativeTo(name, file string) string {
	if file == "" || file == "stdin" || !LooksLikePath(name) || strings.Contains(name, "://") ||
		filepath.IsAbs(name) || strings.HasPrefix(name, "~") {
		return name
	}
	return filepath.Join(filepath.Dir(file), name)
}

// LooksLikePath tells a path or URL from a name without touching the file
// system: a URL, a name ending in .toml, .gguf or .json, or one starting
// like a path (/, ./, ../, ~). Hugging Face repo ids (org/name) are names.
func LooksLikePath(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	l := strings.ToLower(strings.TrimSpace(s))
	for _, suf := range []string{".toml", ".gguf", ".json"} {
		if strings.HasSuffix(l, suf) {
			return true
		}
	}
	return filepath.IsAbs(s) || l == "." || l == ".." || strings.HasPrefix(l, "./") || strings.HasPrefix(l, "../") ||
		strings.HasPrefix(l, "~") || strings.ContainsRune(l, '\\')
}

// DevicesMatching expands "all", a glob such as "jetson-*", or a name.
func (c *Catalog) DevicesMatching(pattern string) ([]*hardware.Device, error) {
	if pattern == "all" {
		return c.devices, nil
	}
	if strings.ContainsAny(pattern, "*?[") {
		var out []*hardware.Device
		for _, d := range c.devices {
			if ok, err := path.Match(pattern, d.Name); err != nil {
				return nil, fmt.Errorf("bad pattern %q: %w", pattern, err)
			} else if ok {
				out = append(out, d)
			}
		}
		if len(out) == 0 {
			return nil, &NotFoundError{Kind: "hardware", Name: pattern}
		}
		return out, nil
	}
	d, err := c.Device(pattern)
	if err != nil {
		return nil, err
	}
	return []*hardware.Device{d}, nil
}

// hfConfigPath finds a config.json named directly or inside a directory.
func hfConfigPath(name string) (string, bool) {
	if strings.HasSuffix(name, ".json") && fileExists(name) {
		return name, true
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		p := filepath.Join(name, "config.json")
		return p, fileExists(p)
	}
	return "", false
}

// looksLikeFile tells a profile path from a name. Hugging Face repo ids
// contain a slash too, so a path must end in .toml or exist as a file.
func looksLikeFile(name string) bool {
	return strings.HasSuffix(name, ".toml") || (strings.ContainsRune(name, os.PathSeparator) && fileExists(name))
}

func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && !st.IsDir()
}
