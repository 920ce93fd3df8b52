package profiles

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// Lines answers as the line search of each key did, from one reading of
// the file.
func TestLines(t *testing.T) {
	src := []byte(`name = "board" # a comment = not a key
memory = { value = "8 GiB", source = "x" }
"quoted.key" = 1

[[engine]]
name = "gpu"
units = { value = 8, source = "x" }
compute_capability = { value = 8.7, source = "x" }
[engine.peak]
fp16 = { value = "10 TFLOP/s", source = "x" }

[[engine]]
name = "cpu"
devices = ["rk3588", 'pi5']
hardware = "rk3588"
`)
	l := NewLines(src)
	for _, c := range []struct {
		key  []string
		want int
	}{
		{[]string{"name"}, 1},
		{[]string{"memory", "source"}, 2}, // in an inline table
		{[]string{"quoted.key"}, 3},       // a quoted key, its dot and all
		{[]string{"engine"}, 5},           // the first header
		{[]string{"engine", "name"}, 6},   // after its table's header
		// An inline table's key after its own table, not the first of
		// its name in the engine (units', line 7): a NaN compute
		// capability was said to be on the units' line.
		{[]string{"engine", "compute_capability", "value"}, 8},
		{[]string{"engine", "peak", "fp16"}, 10}, // after [engine.peak]
		{[]string{"engine", "peak", "fp16", "value"}, 10},
		{[]string{"comment"}, 0}, // in a comment
		{[]string{"nosuch"}, 0},
		{nil, 0},
	} {
		if got := l.Key(c.key...); got != c.want {
			t.Errorf("Key(%v) = %d, want %d", c.key, got, c.want)
		}
	}
	for v, want := range map[string]int{"rk3588": 14, "pi5": 14, "gpu": 6, "x": 2, "nosuch": 0} {
		if got := l.Value(v); got != want {
			t.Errorf("Value(%q) = %d, want %d", v, got, want)
		}
	}
	if got := l.KeyValue("hardware", "rk3588"); got != 15 {
		t.Errorf("KeyValue(hardware, rk3588) = %d, want 15 (not the list on line 14)", got)
	}
	if got := l.KeyValue("hardware", "pi5"); got != 14 {
		t.Errorf("KeyValue(hardware, pi5) = %d, want 14 (the value's line)", got)
	}
	if got, want := [3]int{l.Nth("[[engine]]", 0), l.Nth("[[engine]]", 1), l.Nth("[[engine]]", 2)}, [3]int{5, 12, 0}; got != want {
		t.Errorf("Nth([[engine]]) = %v, want %v", got, want)
	}
	if got := l.TextFrom("x", 3); got != 7 {
		t.Errorf(`TextFrom("x", 3) = %d, want 7`, got)
	}
}

// Every key of a file is found by reading it once: 8,000 unknown keys in a
// model profile took 15.8 s when each lookup read the file again. The
// decoder tells the first 20 and counts the rest.
func TestUnknownKeysLinear(t *testing.T) {
	var b strings.Builder
	b.WriteString(tinyModelNamed("many"))
	for i := 0; i < 8000; i++ {
		fmt.Fprintf(&b, "k%d = 1\n", i)
	}
	src := []byte(b.String())
	start := time.Now()
	l := NewLines(src)
	for i := 0; i < 8000; i++ {
		if got := l.Key(fmt.Sprintf("k%d", i)); got != 12+i {
			t.Fatalf("k%d on line %d, want %d", i, got, 12+i)
		}
	}
	t.Logf("8,000 lines found in %v", time.Since(start))
	_, err := decodeModel("many.toml", src)
	if err == nil || !strings.HasPrefix(err.Error(), `many.toml:12: unknown key "k0"`) || !strings.Contains(err.Error(), "many.toml:31: unknown key \"k19\"") ||
		!strings.HasSuffix(err.Error(), "many.toml: … and 7980 more unknown keys") {
		t.Fatalf("%v", err)
	}
}
