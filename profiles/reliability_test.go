package profiles

import (
	"errors"
	"github.com/roofline/roofline/hardware"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const tinyModel = `name = %q
architecture = "llama"
source = "test"
hidden_size = 64
num_hidden_layers = 2
num_attention_heads = 4
num_key_value_heads = 4
head_dim = 16
intermediate_size = 128
vocab_size = 100
max_position_embeddings = 1000
`

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func tinyModelNamed(name string) string { return strings.Replace(tinyModel, "%q", `"`+name+`"`, 1) }

// A model's name is a name: a name ending in .toml was opened again as a
// path until the stack overflowed, and another name opened whatever file
// of that name the current directory held.
func TestProfileNameIsAName(t *testing.T) {
	cat, _ := Builtin()
	dir := t.TempDir()
	t.Chdir(dir)
	p := writeFile(t, dir, "loop.toml", tinyModelNamed("loop.toml"))
	if _, err := cat.Model(p); err == nil || !strings.Contains(err.Error(), "ends like a file name") {
		t.Errorf("name loop.toml: %v", err)
	}
	// A file named like the profile's name, in the current directory, is
	// not read.
	writeFile(t, dir, "other", "not a profile at all")
	writeFile(t, dir, "sub.toml", tinyModelNamed("other"))
	s, err := cat.Model("sub.toml")
	if err != nil || s.Name != "other" || s.Hidden != 64 {
		t.Errorf("name other: %v, %+v", err, s)
	}
}

// An edited copy of a built-in hardware profile works as a path: it
// replaced the built-in profile of its name, and the count of devices not
// changing was taken for nothing added (unknown hardware "").
func TestEditedBuiltinHardwareCopy(t *testing.T) {
	cat, _ := Builtin()
	src, err := builtin.ReadFile("hardware/rtx-4090.toml")
	if err != nil {
		t.Fatal(err)
	}
	// 1000 GB/s: an edit the profile's measured 954.5 GB/s still fits
	// under (≤ 1.05 × datasheet).
	edited := strings.Replace(string(src), `value = "1008 GB/s"`, `value = "1000 GB/s"`, 1)
	if edited == string(src) {
		t.Fatal("the fixture's bandwidth line moved")
	}
	p := writeFile(t, t.TempDir(), "my-4090.toml", edited)
	d, err := cat.Device(p)
	if err != nil || d.Name != "rtx-4090" || d.Bandwidth != 1000e9 {
		t.Fatalf("edited copy: %v %+v", err, d)
	}
	if b, _ := cat.Device("rtx-4090"); b.Bandwidth != 1008e9 {
		t.Errorf("the built-in profile changed: %g", b.Bandwidth)
	}
}

// Every hardware quantity carries its unit: bandwidth = "1008" was read as
// 1008 B/s.
func TestUnitsRequired(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`bandwidth = { value = "100 GB/s"`, `bandwidth = { value = "1008"`, `board.toml:9: bandwidth: "1008" has no unit`},
		{`power = { value = "20 W"`, `power = { value = "20"`, `"20" has no unit`},
		{`memory = { value = "16 GiB"`, `memory = { value = "17179869184"`, `has no unit`},
	} {
		bad := strings.Replace(string(src), c.from, c.to, 1)
		_, err := decodeDevices("board.toml", []byte(bad))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.to, err, c.want)
		}
	}
}

// TOML allows nan and inf; no quantity is either, and one reaching JSON
// output made every --format json fail.
func TestNonFiniteNumbersRefused(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	bad := string(src) + "\n[engine.calibration]\nruntime = \"llama.cpp\"\nsource = \"x\"\nbandwidth = nan\ndecode_sigma = inf\n"
	bad = strings.Replace(bad, "[[variant]]", "[[variantx]]", 1)
	bad = bad[:strings.Index(bad, "[[variantx]]")] + bad[strings.Index(bad, "\n[engine.calibration]"):]
	_, err = decodeDevices("board.toml", []byte(bad))
	if err == nil || !strings.Contains(err.Error(), "engine.calibration.bandwidth = NaN: a number must be finite") ||
		!strings.Contains(err.Error(), "decode_sigma = +Inf") {
		t.Errorf("nan and inf: %v", err)
	}
	m := tinyModelNamed("tiny") + "published_params = { value = nan, source = \"x\" }\n"
	if _, err := decodeModel("m.toml", []byte(m)); err == nil || !strings.Contains(err.Error(), "m.toml:12: published_params.value = NaN") {
		t.Errorf("model nan: %v", err)
	}
}

// norms_per_layer = 10⁷ built a tensor list of tens of millions of
// entries before any check.
func TestModelCountsBounded(t *testing.T) {
	m := tinyModelNamed("tiny") + "norms_per_layer = 10000000\n"
	_, err := decodeModel("m.toml", []byte(m))
	if err == nil || !strings.Contains(err.Error(), "norms_per_layer 10000000 exceeds the limit of 16") {
		t.Errorf("norms: %v", err)
	}
}

// Names written in data files are names unless paths are allowed; then a
// relative path is relative to the data file.
func TestDataFileNames(t *testing.T) {
	cat, _ := Builtin()
	dir := t.TempDir()
	writeFile(t, dir, "mine.toml", tinyModelNamed("mine"))
	data := filepath.Join(dir, "runs.csv")
	for _, n := range []string{"llama-3.1-8b", "meta-llama/Llama-3.1-8B"} {
		if _, err := cat.ModelFromData(n, data); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	for _, n := range []string{"mine.toml", "./mine.toml", "/etc/passwd", "https://example.com/m.gguf", "x.gguf", "../config.json"} {
		var pe *PathNotAllowedError
		if _, err := cat.ModelFromData(n, data); !errors.As(err, &pe) || pe.Kind != "model" || pe.Name != n || pe.File != data {
			t.Errorf("%s: %v", n, err)
		}
		if err := cat.CheckDataName("model", n, data); !errors.As(err, &pe) {
			t.Errorf("CheckDataName(%s): %v", n, err)
		}
	}
	if _, err := cat.DeviceFromData("./board.toml", data); !errors.As(err, new(*PathNotAllowedError)) {
		t.Errorf("device path: %v", err)
	}
	allowed := cat.WithDataPaths()
	if s, err := allowed.ModelFromData("mine.toml", data); err != nil || s.Name != "mine" {
		t.Errorf("allowed, relative to the data file: %v", err)
	}
	if cat.DataPaths() {
		t.Error("WithDataPaths changed the built-in catalog")
	}
}

// A profile path that leads to a device is refused, never read.
func TestProfileSpecialFile(t *testing.T) {
	cat, _ := Builtin()
	link := filepath.Join(t.TempDir(), "zero.toml")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Skip(err)
	}
	if _, err := cat.Model(link); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero profile: %v", err)
	}
	cfg := filepath.Join(t.TempDir(), "config.json")
	if err := os.Symlink("/dev/zero", cfg); err != nil {
		t.Skip(err)
	}
	if _, err := cat.Model(cfg); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("/dev/zero config.json: %v", err)
	}
}

// A profile directory named several times, by any spelling or through a
// link, is read once: --profiles given one directory 20 times read it 20
// times (17.6 s), and two spellings of one directory claimed its names
// twice.
func TestProfileDirOnce(t *testing.T) {
	builtin, _ := Builtin()
	dir := t.TempDir()
	writeFile(t, dir, "one.toml", tinyModelNamed("one"))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip(err)
	}
	cat := builtin.Clone()
	if err := cat.AddDir(dir); err != nil {
		t.Fatal(err)
	}
	// Read again, the directory would now fail.
	writeFile(t, dir, "one.toml", "not = [a profile")
	for _, d := range []string{dir, dir + "/", dir + "/../" + filepath.Base(dir), link} {
		if err := cat.AddDir(d); err != nil {
			t.Errorf("%s read again: %v", d, err)
		}
		if err := cat.Clone().AddDir(d); err != nil {
			t.Errorf("%s read again by a clone: %v", d, err)
		}
	}
	if m, err := cat.Model("one"); err != nil || m.Hidden != 64 {
		t.Errorf("one: %v", err)
	}
}

// An engine's int8_dot is a sourced yes or no: false marks an int8 peak
// that is a widening multiply's (ARMv8.0 has no SDOT), which runtimes
// price (runtimes.Runtime.KernelFactor); it is written back as read.
func TestInt8DotKey(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `idle_power = { value = "4.5 W", source = "fixture idle" }`
	for _, c := range []struct {
		line      string
		noDot     bool
		wantError string
	}{
		{``, false, ""}, // not stated: a dot-product peak, as before
		{`int8_dot = { value = false, source = "fixture: ARMv8.0, no SDOT" }`, true, ""},
		{`int8_dot = { value = true, source = "fixture: asimddp" }`, false, ""},
		{`int8_dot = { value = false, source = " " }`, false, "engine.gpu.int8_dot = false has no source"},
		{`int8_dot = { source = "fixture" }`, false, "engine.gpu.int8_dot needs a value"},
		{`int8_dot = { value = 0, source = "fixture" }`, false, "board.toml:"},
	} {
		text := strings.Replace(string(src), at, at+"\n"+c.line, 1)
		devs, err := decodeDevices("board.toml", []byte(text))
		if c.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("%s: %v, want %q", c.line, err, c.wantError)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		for _, d := range devs { // the variant inherits the engine's
			if got := d.Engines[0].NoInt8Dot; got != c.noDot {
				t.Errorf("%s: %s NoInt8Dot = %t, want %t", c.line, d.Name, got, c.noDot)
			}
		}
		back, err := decodeDevices("board.toml", EncodeDevice(devs[0]))
		if err != nil {
			t.Fatalf("%s: the encoded profile does not decode: %v", c.line, err)
		}
		if got := back[0].Engines[0].NoInt8Dot; got != c.noDot {
			t.Errorf("%s: encoded and decoded NoInt8Dot = %t, want %t", c.line, got, c.noDot)
		}
	}
}

// A device's nvlink names the built-in NVLink its peers can be joined
// by (a sourced fact; none when absent), spelled as the link is built
// in; a link of another kind or without a source is refused; a variant
// inherits it, and it is written back as read.
func TestNVLinkKey(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `storage_bandwidth = { value = "1 GB/s", source = "fixture" }`
	for _, c := range []struct {
		line, want, wantError string
	}{
		{``, "", ""},
		{`nvlink = { value = "NVLink4", source = "fixture: HGX" }`, "nvlink4", ""},
		{`nvlink = { value = "nvlink3-bridge-x4", source = "fixture: a bridge" }`, "nvlink3-bridge-x4", ""},
		{`nvlink = { value = "pcie4-x16", source = "fixture" }`, "", `board.toml:12: nvlink = "pcie4-x16" is a pcie link, not an NVLink (want one of nvlink3, `},
		// Said with the NVLinks the key takes: the list of every link and
		// "or a rate such as 25GB/s" named values it refuses.
		{`nvlink = { value = "nvlink9", source = "fixture" }`, "", `board.toml:12: nvlink = "nvlink9" is not a built-in NVLink (want one of nvlink3, nvlink3-bridge-x4, nvlink3-bridge-x12, nvlink4, nvlink4-bridge-x12, nvlink5)`},
		{`nvlink = { value = "50GB/s", source = "fixture" }`, "", `nvlink = "50GB/s" is not a built-in NVLink (want one of nvlink3, `},
		{`nvlink = { value = "10gbe", source = "fixture" }`, "", `nvlink = "10gbe" is an ethernet link, not an NVLink (want one of nvlink3, `},
		{`nvlink = { value = "nvlink4", source = "" }`, "", `nvlink = "nvlink4" has no source`},
	} {
		text := strings.Replace(string(src), at, at+"\n"+c.line, 1)
		devs, err := decodeDevices("board.toml", []byte(text))
		if c.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("%s: %v, want %q", c.line, err, c.wantError)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		for _, d := range devs { // the variant inherits the base's
			if d.NVLink != c.want {
				t.Errorf("%s: %s NVLink %q, want %q", c.line, d.Name, d.NVLink, c.want)
			}
		}
		back, err := decodeDevices("board.toml", EncodeDevice(devs[0]))
		if err != nil {
			t.Fatalf("%s: the encoded profile does not decode: %v", c.line, err)
		}
		if back[0].NVLink != c.want {
			t.Errorf("%s: encoded and decoded NVLink %q, want %q", c.line, back[0].NVLink, c.want)
		}
	}
}

// A built-in system joined by NVLink is of devices whose profile gives
// that NVLink, no more of them than it joins: the system's link is one
// its devices can use.
func TestSystemsNVLink(t *testing.T) {
	cat, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	nv := 0
	for _, s := range hardware.Systems {
		l, err := hardware.LookupLink(s.Link)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		d, err := cat.Device(s.Device)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		if err := d.JoinsPeers(&l, s.Count); err != nil {
			t.Errorf("%s: %v", s.Name, err)
		}
		if l.Kind == hardware.NVLink {
			nv++
		}
	}
	if nv < 4 {
		t.Errorf("%d systems on NVLink, want the four HGX boards", nv)
	}
}

// A device's discrete_gpu_host is a sourced yes or no: false marks a
// computer no discrete GPU can be joined to (a Mac with Apple silicon,
// HT208544), which --host refuses; a variant inherits it, and it is
// written back as read.
func TestDiscreteGPUHostKey(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `storage_bandwidth = { value = "1 GB/s", source = "fixture" }`
	for _, c := range []struct {
		line      string
		noHost    bool
		wantError string
	}{
		{``, false, ""}, // not stated: a host as before
		{`discrete_gpu_host = { value = false, source = "fixture: no eGPU" }`, true, ""},
		{`discrete_gpu_host = { value = true, source = "fixture: a slot" }`, false, ""},
		{`discrete_gpu_host = { value = false, source = " " }`, false, "discrete_gpu_host = false has no source"},
		{`discrete_gpu_host = { source = "fixture" }`, false, "discrete_gpu_host needs a value"},
		{`discrete_gpu_host = { value = "no", source = "fixture" }`, false, "board.toml:"},
	} {
		text := strings.Replace(string(src), at, at+"\n"+c.line, 1)
		devs, err := decodeDevices("board.toml", []byte(text))
		if c.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("%s: %v, want %q", c.line, err, c.wantError)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		for _, d := range devs {
			if d.NoGPUHost != c.noHost {
				t.Errorf("%s: %s NoGPUHost = %t, want %t", c.line, d.Name, d.NoGPUHost, c.noHost)
			}
		}
		back, err := decodeDevices("board.toml", EncodeDevice(devs[0]))
		if err != nil {
			t.Fatalf("%s: the encoded profile does not decode: %v", c.line, err)
		}
		if back[0].NoGPUHost != c.noHost || (c.line != "") != (back[0].Sources["discrete_gpu_host"] != "") {
			t.Errorf("%s: encoded and decoded NoGPUHost = %t (source %q), want %t", c.line, back[0].NoGPUHost, back[0].Sources["discrete_gpu_host"], c.noHost)
		}
	}
}

// TestTypeErrorLine: a value of the wrong type inside an inline table is
// told at its own line. The line was found by the error's last key, whose
// last part ("value") was taken for the first key of that name in the
// file: memory's, lines above (discrete_gpu_host = { value = "yes" } was
// said at line 10 of a file whose line 16 held it).
func TestTypeErrorLine(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "board.good.toml"))
	if err != nil {
		t.Fatal(err)
	}
	const at = `storage_bandwidth = { value = "1 GB/s", source = "fixture" }` // line 11
	for _, c := range []struct{ line, want string }{
		{`discrete_gpu_host = { value = "yes", source = "fixture" }`, "board.toml:12: "},
		{`host_link = { value = 5, source = "fixture" }`, "board.toml:12: "},
		{`discrete_gpu_host = "yes"`, "board.toml:12: "},
	} {
		text := strings.Replace(string(src), at, at+"\n"+c.line, 1)
		_, err := decodeDevices("board.toml", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want it at %q", c.line, err, c.want)
		}
	}
}
