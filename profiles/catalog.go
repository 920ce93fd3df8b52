package profiles

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
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

// builtinRuntimes is the embedded runtime profiles decoded, as JSON: the
// runtimes are all decoded whenever one is chosen, and JSON decodes ten
// times faster than TOML. It is used only while it matches the TOML
// files byte for byte (its toml_sha256), so a stale copy costs time,
// never correctness; TestBuiltinRuntimes checks it is fresh and decodes
// to what the TOML decodes to.
//
//go:embed builtin_runtimes.json
var builtinRuntimes []byte

//go:generate go test -run ^TestBuiltin(Index|Runtimes)$ -update

// The directories of the embedded profiles, one per kind.
const (
	modelsDir   = "models"
	hardwareDir = "hardware"
	runtimesDir = "runtimes"
)

// indexFile is one embedded profile file in builtinIndex: the names and
// aliases (as written) of the profiles it defines, a model, a runtime or
// a device and its variants.
type indexFile struct {
	file  string // path in the embedded file system
	kind  string // "model", "device" or "runtime", as names are claimed
	names []string
}

// Catalog holds the models and devices roofline knows by name.
//
// The built-in profiles are decoded when first asked for, file by file: a
// name is found in builtinIndex (generated from the files, and checked
// against them by TestBuiltinIndex), and only the file that defines it is
// decoded. Listing a kind, suggesting names for a mistyped one, or adding
// a user profile of that kind decodes every built-in file of the kind
// first, so that a user profile replaces a built-in one exactly as it
// would over a catalog decoded whole.
type Catalog struct {
	models   []*model.Spec
	devices  []*hardware.Device
	runtimes *runtimes.Set
	origin   map[string]string // kind:name → file, to report duplicates

	// pending holds the built-in files not decoded yet, by path in the
	// embedded file system; mu guards them and the lists they fill.
	pending map[string]string // file → its directory
	mu      *sync.Mutex

	lastAdded string
	// dataPaths lets names read from data files (measured runs, studies)
	// be paths or URLs (WithDataPaths).
	dataPaths bool
	// dirs are the profile directories added, by their absolute path with
	// links resolved: a directory named twice is read once.
	dirs map[string]bool
}

var (
	builtinOnce sync.Once
	builtinCat  *Catalog
	builtinErr  error
)

// Builtin returns the embedded catalog. Its files are decoded when first
// needed; callers must not modify it (use Clone before adding user
// profiles).
func Builtin() (*Catalog, error) {
	builtinOnce.Do(func() {
		c := &Catalog{origin: map[string]string{}, runtimes: runtimes.NewSet(), pending: map[string]string{}, mu: &sync.Mutex{}}
		for _, f := range builtinIndex {
			file := "profiles/" + f.file
			c.pending[f.file] = path.Dir(f.file)
			for _, n := range f.names {
				c.origin[f.kind+":"+strings.ToLower(n)] = file
			}
		}
		builtinCat = c
	})
	return builtinCat, builtinErr
}

// Clone returns a catalog that can take more profiles without changing c.
func (c *Catalog) Clone() *Catalog {
	c.lock()
	defer c.unlock()
	o := &Catalog{origin: map[string]string{}, runtimes: c.runtimes.Clone(), dataPaths: c.dataPaths, mu: &sync.Mutex{}}
	o.models = append(o.models, c.models...)
	o.devices = append(o.devices, c.devices...)
	for k, v := range c.origin {
		o.origin[k] = v
	}
	o.dirs = maps.Clone(c.dirs)
	if len(c.pending) > 0 {
		o.pending = map[string]string{}
		for k, v := range c.pending {
			o.pending[k] = v
		}
	}
	return o
}

// lock and unlock guard lazy decoding; a Catalog built without Builtin or
// Clone has nothing to decode lazily and no lock.
func (c *Catalog) lock() {
	if c.mu != nil {
		c.mu.Lock()
	}
}

func (c *Catalog) unlock() {
	if c.mu != nil {
		c.mu.Unlock()
	}
}

// Models lists the models in name order.
func (c *Catalog) Models() []*model.Spec {
	c.lock()
	defer c.unlock()
	c.loadAll(modelsDir)
	return c.models
}

// Devices lists the devices in name order.
func (c *Catalog) Devices() []*hardware.Device {
	c.lock()
	defer c.unlock()
	c.loadAll(hardwareDir)
	return c.devices
}

// Runtimes is the set of runtimes.
func (c *Catalog) Runtimes() *runtimes.Set {
	c.lock()
	defer c.unlock()
	c.loadAll(runtimesDir)
	return c.runtimes
}

// loadAll decodes every pending built-in file of directory dir.
func (c *Catalog) loadAll(dir string) {
	var files []string
	for f, d := range c.pending {
		if d == dir {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return
	}
	sort.Strings(files)
	for _, f := range files {
		c.loadBuiltin(f, false)
	}
	c.sortKind(dir)
}

// loadAllLocked is loadAll under the lock: before a user profile of a
// kind is added, every built-in one of the kind is there to be replaced.
func (c *Catalog) loadAllLocked(dir string) {
	c.lock()
	defer c.unlock()
	c.loadAll(dir)
}

// loadNamed decodes the pending built-in file that defines name (lower
// case) of kind, if any.
func (c *Catalog) loadNamed(kind, name string) {
	file, ok := c.origin[kind+":"+name]
	if !ok {
		return
	}
	if f := strings.TrimPrefix(file, "profiles/"); c.pending[f] != "" {
		c.loadBuiltin(f, true)
	}
}

// loadBuiltin decodes the built-in file f (a path in the embedded file
// system) into c. Its names are in c.origin already. The embedded files
// are part of the program, and TestBuiltinIndex decodes every one: one
// that fails here is a bug.
func (c *Catalog) loadBuiltin(f string, sorted bool) {
	d := decodeBuiltin(f)
	if d.err != nil {
		panic(fmt.Sprintf("built-in profile %s: %v", f, d.err))
	}
	delete(c.pending, f)
	switch {
	case d.model != nil:
		c.models = append(c.models, d.model)
	case d.runtime != nil:
		c.runtimes.Add(d.runtime)
	default:
		c.devices = append(c.devices, d.devices...)
	}
	if sorted {
		c.sortKind(path.Dir(f))
	}
}

// decoded is one built-in file, decoded once for every catalog that
// shares it.
type decoded struct {
	model   *model.Spec
	devices []*hardware.Device
	runtime *runtimes.Runtime
	err     error
}

var (
	decodedMu             sync.Mutex
	decodedBy             = map[string]*decoded{}
	runtimesSnapshotTried bool
)

// snapshot is the form of builtin_runtimes.json.
type snapshot struct {
	// TOMLSHA256 is runtimesHash of the files it was made from.
	TOMLSHA256 string              `json:"toml_sha256"`
	Runtimes   []*runtimes.Runtime `json:"runtimes"`
}

// runtimesSnapshot decodes builtin_runtimes.json if it was made from the
// embedded runtime files as they are.
func runtimesSnapshot() ([]*runtimes.Runtime, bool) {
	var s snapshot
	if err := json.Unmarshal(builtinRuntimes, &s); err != nil || s.TOMLSHA256 != runtimesHash() {
		return nil, false
	}
	return s.Runtimes, true
}

// runtimesHash is the SHA-256 of the embedded runtime files, names and
// contents, in name order.
func runtimesHash() string {
	h := sha256.New()
	entries, _ := fs.ReadDir(builtin, runtimesDir)
	for _, e := range entries {
		src, _ := fs.ReadFile(builtin, path.Join(runtimesDir, e.Name()))
		fmt.Fprintf(h, "%s %d\n", e.Name(), len(src))
		h.Write(src)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// decodeBuiltin decodes the embedded file f, once.
func decodeBuiltin(f string) *decoded {
	decodedMu.Lock()
	defer decodedMu.Unlock()
	if d, ok := decodedBy[f]; ok {
		return d
	}
	if path.Dir(f) == runtimesDir && !runtimesSnapshotTried {
		runtimesSnapshotTried = true
		if rs, ok := runtimesSnapshot(); ok {
			for _, r := range rs {
				decodedBy[strings.TrimPrefix(r.File, "profiles/")] = &decoded{runtime: r}
			}
			if d, ok := decodedBy[f]; ok {
				return d
			}
		}
	}
	d := &decoded{}
	src, err := fs.ReadFile(builtin, f)
	name := "profiles/" + f
	switch {
	case err != nil:
		d.err = err
	case path.Dir(f) == modelsDir:
		d.model, d.err = decodeModel(name, src)
	case path.Dir(f) == hardwareDir:
		d.devices, d.err = decodeDevices(name, src)
	default:
		d.runtime, d.err = decodeRuntime(name, src)
	}
	decodedBy[f] = d
	return d
}

// loadFS decodes every profile of fsys's three directories into c,
// claiming their names: the whole catalog at once, as the index is made.
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
// it; two user profiles with one name are an error. A directory added
// already, under any name, is not read again (--profiles given the same
// directory 20 times read it 20 times).
func (c *Catalog) AddDir(dir string) error {
	info, err := safeio.Stat(dir)
	if err != nil {
		return err
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	key, err := filepath.EvalSymlinks(dir)
	if err == nil {
		key, err = filepath.Abs(key)
	}
	if err != nil {
		return err
	}
	if c.dirs[key] {
		return nil
	}
	if c.dirs == nil {
		c.dirs = map[string]bool{}
	}
	c.dirs[key] = true
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
	if user {
		c.loadAllLocked(modelsDir)
	}
	if err := c.claim("model", s.Name, s.Aliases, file, user); err != nil {
		return err
	}
	c.models = replaceByName(c.models, []*model.Spec{s}, func(m *model.Spec) string { return m.Name })
	c.lastAdded = s.Name
	return nil
}

func (c *Catalog) addDeviceFile(file string, src []byte, user bool) error {
	ds, err := decodeDevices(file, src)
	if err != nil {
		return err
	}
	if user {
		c.loadAllLocked(hardwareDir)
	}
	for _, d := range ds {
		if err := c.claim("device", d.Name, d.Aliases, file, user); err != nil {
			return err
		}
	}
	// The devices replace those of their names in one pass: a file of
	// 50,000 variants, each looked up in the list, took 19 s.
	c.devices = replaceByName(c.devices, ds, func(x *hardware.Device) string { return x.Name })
	c.lastAdded = ds[0].Name
	return nil
}

func (c *Catalog) addRuntimeFile(file string, src []byte, user bool) error {
	r, err := decodeRuntime(file, src)
	if err != nil {
		return err
	}
	if user {
		c.loadAllLocked(runtimesDir)
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
	c.loadAllLocked(modelsDir)
	if err := c.claim("model", s.Name, s.Aliases, file, true); err != nil {
		return err
	}
	c.models = replaceByName(c.models, []*model.Spec{s}, func(m *model.Spec) string { return m.Name })
	c.sort()
	return nil
}

// AddDevice is AddModel for a device.
func (c *Catalog) AddDevice(d *hardware.Device, file string) error {
	c.loadAllLocked(hardwareDir)
	if err := c.claim("device", d.Name, d.Aliases, file, true); err != nil {
		return err
	}
	c.devices = replaceByName(c.devices, []*hardware.Device{d}, func(x *hardware.Device) string { return x.Name })
	c.sort()
	return nil
}

// AddRuntimeFile reads file as a runtime profile, whatever it holds, and
// adds it: a file that cannot be read or is no runtime (an empty file, a
// model, /etc/passwd) is a *RuntimeFileError naming it. It returns the
// runtime's name.
func (c *Catalog) AddRuntimeFile(file string) (string, error) {
	src, err := safeio.ReadFile(file, limits.ProfileBytes, "a profile")
	if err != nil {
		return "", &RuntimeFileError{File: file, Err: err}
	}
	if !isRuntime(src) {
		return "", &RuntimeFileError{File: file, Err: &FileError{File: file, Line: 1,
			Msg: "not a runtime profile: a runtime lists the weight formats it runs (weights = [\"q4_0\", …]; docs/profiles.md)"}}
	}
	if err := c.addRuntimeFile(file, src, true); err != nil {
		var re *RuntimeFileError
		if !errors.As(err, &re) {
			err = &RuntimeFileError{File: file, Err: err}
		}
		return "", err
	}
	return c.lastAdded, nil
}

// Runtime finds a runtime by name, alias or path to a TOML profile (one
// that looks like a path: LooksLikePath).
func (c *Catalog) Runtime(name string) (*runtimes.Runtime, error) {
	if LooksLikePath(name) {
		cc := c.Clone()
		n, err := cc.AddRuntimeFile(name)
		if err != nil {
			return nil, err
		}
		return cc.runtimes.Lookup(n)
	}
	set := c.Runtimes()
	r, err := set.Lookup(name)
	var build *runtimes.UnsupportedError
	if errors.As(err, &build) { // a known runtime, a build it has not
		return nil, err
	}
	if err != nil {
		var names []Named
		for _, x := range set.All() {
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

// replaceByName puts each of vs in list in place of the entry of its
// name, or at the end.
func replaceByName[T any](list []T, vs []T, name func(T) string) []T {
	at := make(map[string]int, len(list)+len(vs))
	for i, x := range list {
		at[name(x)] = i
	}
	for _, v := range vs {
		if i, ok := at[name(v)]; ok {
			list[i] = v
			continue
		}
		at[name(v)] = len(list)
		list = append(list, v)
	}
	return list
}

func (c *Catalog) sort() {
	c.sortKind(modelsDir)
	c.sortKind(hardwareDir)
}

// sortKind sorts the list of one kind only: a list already handed out
// (Models, Devices) is not written while another kind is decoded.
func (c *Catalog) sortKind(dir string) {
	switch dir {
	case modelsDir:
		sort.Slice(c.models, func(i, j int) bool { return c.models[i].Name < c.models[j].Name })
	case hardwareDir:
		sort.Slice(c.devices, func(i, j int) bool { return c.devices[i].Name < c.devices[j].Name })
	}
}

// NotFoundError is an unknown name, with the closest known names.
type NotFoundError struct {
	Kind        string
	Name        string
	Suggestions []string
	// Detail says where else the name was looked for: a Hugging Face id,
	// in the local cache and on the Hub.
	Detail string
	// Ambiguous: the name names several (Suggestions), not none.
	Ambiguous bool
	// Err is the error of the last place looked, if any (the Hub could
	// not be reached).
	Err error
}

func (e *NotFoundError) Unwrap() error { return e.Err }

func (e *NotFoundError) Error() string {
	what := "unknown"
	if e.Ambiguous {
		what = "ambiguous"
	}
	msg := fmt.Sprintf("%s %s %q", what, e.Kind, safeio.RedactText(e.Name))
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if len(e.Suggestions) > 0 {
		msg += fmt.Sprintf("; did you mean %s?", strings.Join(e.Suggestions, ", "))
	}
	return msg
}

// Hint says what may be given instead of an unknown name.
func (e *NotFoundError) Hint() string {
	switch e.Kind {
	case "model":
		h := "give a built-in name ('roofline list models'), a Hugging Face id (ORG/NAME, read from the cache or the Hub; ORG/NAME:Q4_K_M picks a GGUF file), " +
			"an Ollama tag (llama3.2:3b), a config.json or a checkpoint directory holding one, a .gguf file or URL, or a .toml profile"
		if ref, ok := parseHFRef(e.Name); ok && ref.Select == "" {
			h += fmt.Sprintf("; 'hf download %s config.json' puts just its config in the cache", ref.ID)
		}
		return h
	case "runtime":
		return "'roofline list runtimes' shows the built-in names; a path to a .toml profile works too"
	case "power mode":
		return "'roofline show hardware NAME' lists the power modes of NAME's module; write one after @ (NAME@15W; case, '_' and '-' do not matter)"
	}
	return fmt.Sprintf("'roofline list %s' shows the built-in names; a path to a .toml profile works too", e.Kind)
}

// Model finds a model by name, alias (e.g. a Hugging Face repo id), path
// to a TOML profile, GGUF file or URL (the header only is read), a
// Hugging Face config.json (or a directory holding one), or a Hugging
// Face id (ORG/NAME[@REVISION]) that is no built-in alias, from the local
// Hugging Face cache (HFCacheDir). Use it for what a user typed; names
// read from data files go through ModelFromData.
func (c *Catalog) Model(name string) (*model.Spec, error) {
	// A Hub file named as ORG/NAME:FILE.gguf reads like a path: it is
	// one only when it is there.
	if ref, ok := parseHFRef(name); ok && LooksLikePath(name) && ref.Select != "" && !fileExists(name) {
		nf := &NotFoundError{Kind: "model", Name: name}
		return modelFromHF(ref, nf)
	}
	if !LooksLikePath(name) {
		// A bare name is a name, never a file or directory of that name
		// in the working directory (./llama-3.2-1b/ read in place of the
		// built-in model): one rule for the command line and studies.
		s, err := c.modelNamed(name)
		var nf *NotFoundError
		if err != nil && errors.As(err, &nf) {
			// ORG/NAME:TAG is a namespaced Ollama model when the local
			// store has it, else a Hugging Face GGUF repository.
			ollamaName := isOllamaName(name) || hasOllamaManifest(name)
			if ref, ok := parseHFRef(name); ok && !ollamaName {
				return modelFromHF(ref, nf)
			}
			if ollamaName {
				return c.modelFromOllama(name, nf)
			}
			nf.Detail = pathHere(name)
		}
		return s, err
	}
	// A local path that is not there is an unknown model, with the
	// catalog's hint, not the file system's bare error (a URL is fetched).
	if !strings.Contains(name, "://") {
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, &NotFoundError{Kind: "model", Name: name, Detail: "no such file"}
		}
	}
	if gguf.IsLocation(name) {
		m, err := gguf.Load(name)
		if err != nil {
			return nil, err
		}
		return m.Spec, nil
	}
	if cfg, ok := hfConfigPath(name); ok {
		name := strings.TrimSuffix(filepath.Base(cfg), ".json")
		if name == "config" { // a checkpoint directory: use its name
			name = filepath.Base(filepath.Dir(cfg))
		}
		return readHFConfig(cfg, name)
	}
	// The profile's name is a name: it is looked up, never opened again
	// as a path (a name ending in .toml would recurse).
	cc, err := c.withFile(name, "model")
	if err != nil {
		return nil, err
	}
	return cc.modelNamed(cc.lastAdded)
}

// withFile is a clone of c with the profile file added, which must be a
// profile of kind (CheckKind).
func (c *Catalog) withFile(file, kind string) (*Catalog, error) {
	src, err := safeio.ReadFile(file, limits.ProfileBytes, "a profile")
	if err != nil {
		return nil, err
	}
	if err := CheckKind(file, src, kind); err != nil {
		return nil, err
	}
	cc := c.Clone()
	_, err = cc.AddFileBytes(file, src)
	return cc, err
}

// CheckKind refuses a profile that is not of kind ("model", "hardware"
// or "runtime"), with a *FileError: a device's profile given as a model,
// a model's or an empty file as a device, is told what it is and where it
// goes, not looked up by a name of the other kind ("unknown hardware
// llama-3.2-1b") nor checked against the other's schema.
func CheckKind(file string, src []byte, kind string) error {
	is := "model"
	switch {
	case isRuntime(src):
		is = "runtime"
	case isDevice(src):
		is = "hardware"
	}
	schema := map[string]string{"model": "a model's names its architecture and sizes (name, architecture, hidden_size, …)",
		"hardware": "a device's lists its compute engines in [[engine]] tables",
		"runtime":  "a runtime's lists the weight formats it runs (weights = [\"q4_0\", …])"}[kind]
	switch {
	case emptyTOML(src):
		return &FileError{File: file, Line: 1, Msg: fmt.Sprintf("an empty profile: %s (docs/profiles.md)", schema)}
	case is != kind && is == "model":
		return &FileError{File: file, Line: 1, Msg: fmt.Sprintf("not a %s profile: %s (docs/profiles.md), and it has none", kind, schema)}
	case is != kind:
		return &FileError{File: file, Line: 1, Msg: fmt.Sprintf("not a %s profile but a %s profile: give it to --%s", kind, is, is)}
	}
	return nil
}

// emptyTOML reports a profile with no key: nothing but blank lines and
// comments.
func emptyTOML(src []byte) bool {
	for _, l := range strings.Split(string(src), "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// pathHere is what a bare name that is not known is told when a file or
// directory of that name is in the working directory: how to read it.
func pathHere(name string) string {
	if _, err := os.Stat(name); err != nil {
		return ""
	}
	return fmt.Sprintf("a file or directory %s is here, but a bare name is a name: write ./%s to read it", name, name)
}

// readHFConfig reads the config.json at cfg as a model named name.
func readHFConfig(cfg, name string) (*model.Spec, error) {
	data, err := safeio.ReadFile(cfg, limits.ProfileBytes, "a config.json")
	if err != nil {
		return nil, err
	}
	s, err := model.ParseHFConfig(data, name)
	if err != nil {
		return nil, configError(cfg, filepath.Base(cfg) == "config.json", err)
	}
	s.Source = cfg
	return s, nil
}

// configError is err, an error of model.ParseHFConfig, told under
// where. The parser names what it read ("config.json: …"): where that
// already names the file (named), it is said once.
func configError(where string, named bool, err error) error {
	var ce *model.ConfigError
	if named && errors.As(err, &ce) {
		err = ce.Err
	}
	return fmt.Errorf("%s: %w", where, err)
}

// modelNamed finds a model by name or alias only, touching no file.
func (c *Catalog) modelNamed(name string) (*model.Spec, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	c.lock()
	defer c.unlock()
	c.loadNamed("model", n)
	for _, m := range c.models {
		if strings.ToLower(m.Name) == n {
			return m, nil
		}
		for _, a := range m.Aliases {
			if strings.ToLower(a) == n {
				return m, nil
			}
		}
	}
	c.loadAll(modelsDir)
	var names []Named
	for _, m := range c.models {
		names = append(names, Named{m.Name, m.Aliases})
	}
	return nil, &NotFoundError{Kind: "model", Name: name, Suggestions: SuggestNamed(name, names)}
}

// Device finds a device by name, alias or path to a TOML profile. Use it
// for what a user typed; names read from data files go through
// DeviceFromData.
func (c *Catalog) Device(name string) (*hardware.Device, error) {
	if i := strings.LastIndex(name, "@"); i > 0 && !fileExists(name) && fileExists(name[:i]) {
		return nil, &NotFoundError{Kind: "power mode", Name: name,
			Detail: fmt.Sprintf("a profile file takes no @MODE: give %s alone (its variants are devices of their own names), or a built-in NAME@MODE", name[:i])}
	}
	if LooksLikePath(name) && !fileExists(name) {
		if _, err := os.Stat(name); errors.Is(err, fs.ErrNotExist) {
			return nil, &NotFoundError{Kind: "hardware", Name: name, Detail: "no such file"}
		}
	}
	if !LooksLikePath(name) {
		d, err := c.deviceNamed(name)
		var nf *NotFoundError
		if err != nil && errors.As(err, &nf) && nf.Kind == "hardware" {
			nf.Detail = pathHere(name)
		}
		return d, err
	}
	cc, err := c.withFile(name, "hardware")
	if err != nil {
		return nil, err
	}
	return cc.deviceNamed(cc.lastAdded)
}

// deviceNamed finds a device by name or alias only, touching no file;
// NAME@MODE is NAME's module in power mode MODE (deviceInMode).
func (c *Catalog) deviceNamed(name string) (*hardware.Device, error) {
	if base, mode, ok := strings.Cut(name, "@"); ok {
		if strings.TrimSpace(base) == "" {
			return nil, c.modeWithoutBoard(name, mode)
		}
		d, err := c.deviceNamed(base)
		if err != nil {
			return nil, err
		}
		return c.deviceInMode(d, strings.TrimSpace(base), mode)
	}
	n := strings.ToLower(strings.TrimSpace(name))
	c.lock()
	defer c.unlock()
	c.loadNamed("device", n)
	for _, d := range c.devices {
		if d.Name == n {
			return d, nil
		}
		for _, a := range d.Aliases {
			if strings.ToLower(a) == n {
				return d, nil
			}
		}
	}
	c.loadAll(hardwareDir)
	var names []Named
	for _, d := range c.devices {
		names = append(names, Named{d.Name, d.Aliases})
	}
	return nil, &NotFoundError{Kind: "hardware", Name: name, Suggestions: SuggestNamed(name, names)}
}

// WithDataPaths returns a catalog whose ModelFromData and DeviceFromData
// open paths and URLs too: the user chose to trust the data files.
func (c *Catalog) WithDataPaths() *Catalog {
	o := c.Clone()
	o.dataPaths = true
	return o
}

// DataPaths reports whether names in data files may be paths or URLs.
func (c *Catalog) DataPaths() bool { return c.dataPaths }

// PathNotAllowedError is a path or URL where a data file may only name a
// model or device: Kind "model" or "hardware", Name as the file gives it,
// File the data file. A command says which flag lets data files open
// paths.
type PathNotAllowedError struct {
	Kind, Name, File string
}

func (e *PathNotAllowedError) Error() string {
	in := "a data file"
	if e.File != "" {
		in = e.File
	}
	return fmt.Sprintf("%s %q in %s is a path or URL; data files name %s (roofline list %s)",
		e.Kind, safeio.RedactText(e.Name), in, plural(e.Kind), plural(e.Kind))
}

func plural(kind string) string {
	if kind == "model" || kind == "runtime" {
		return kind + "s"
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
		return c.Devices(), nil
	}
	if strings.ContainsAny(pattern, "*?[") {
		var out []*hardware.Device
		for _, d := range c.Devices() {
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

func fileExists(name string) bool {
	st, err := os.Stat(name)
	return err == nil && !st.IsDir()
}
