package serve

import (
	"math"
	"slices"
	"testing"
)

// TestFitFrontEnd fits front ends to observations made by hand:
//   - two saturation rates, request + 100 token = 10 ms and request + 4
//     token = 5.2 ms, give token = 4.8/96 = 0.05 ms and request = 5 ms; a light-load gap of 30 ms is latency + 5 + 0.05 ms,
//     so latency = 24.95 ms (each source weighing one: A's three equal
//     light figures count as one);
//   - one output length leaves token unidentified (0): request = 10 ms and
//     latency = 30 − 10 = 20 ms;
//   - a light gap below the serial work (3 ms) would make latency
//     negative: it is 0 and request refitted to both rows (the light row
//     then reads request + token = 3 ms, the rate 10 ms: request 6.5 ms);
//   - light figures alone: latency = 30 ms, request and token unidentified.
func TestFitFrontEnd(t *testing.T) {
	light := func(src string, s float64) FrontEndObservation {
		return FrontEndObservation{Source: src, Light: true, Seconds: s}
	}
	sat := func(src string, o, s float64) FrontEndObservation {
		return FrontEndObservation{Source: src, Output: o, Seconds: s}
	}
	cases := []struct {
		name         string
		obs          []FrontEndObservation
		want         FrontEnd
		unidentified []string
	}{
		{"all three", []FrontEndObservation{light("A", 0.030), light("A", 0.030), light("A", 0.030), sat("A", 100, 0.010), sat("B", 4, 0.0052)},
			FrontEnd{Latency: 0.02495, Request: 0.005, Token: 0.00005}, nil},
		{"one output length", []FrontEndObservation{light("A", 0.030), sat("A", 100, 0.010), sat("B", 100, 0.010)},
			FrontEnd{Latency: 0.020, Request: 0.010}, []string{"token"}},
		{"latency clamped", []FrontEndObservation{light("A", 0.003), sat("B", 100, 0.010)},
			FrontEnd{Request: 0.0065}, []string{"token"}},
		{"light alone", []FrontEndObservation{light("A", 0.030), light("B", 0.030)},
			FrontEnd{Latency: 0.030}, []string{"request", "token"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := FitFrontEnd(c.obs)
			if err != nil {
				t.Fatal(err)
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9 }
			if !close(got.Latency, c.want.Latency) || !close(got.Request, c.want.Request) || !close(got.Token, c.want.Token) || !slices.Equal(got.Unidentified, c.unidentified) {
				t.Errorf("fit %+v, want %+v unidentified %v", got, c.want, c.unidentified)
			}
		})
	}
	if _, err := FitFrontEnd(nil); err == nil {
		t.Error("no observations: no error")
	}
	if _, err := FitFrontEnd([]FrontEndObservation{{Source: "A", Seconds: math.NaN()}}); err == nil {
		t.Error("NaN observation: no error")
	}
}

// FuzzParseFrontEnd: whatever the text, ParseFrontEnd answers nil (the
// runtime's), or a front end that validates, or an error; never a panic.
func FuzzParseFrontEnd(f *testing.F) {
	for _, s := range []string{"runtime", "off", "20ms,5ms,50us", "0,0,0", "1s,1s,1s", "2s,0,0", "-1ms,0,0", "NaN,0,0", "5ms,1ms", ",,", "1e308s,0,0", "20ms,5ms,50us,32", "0,0,0,0", "1ms,1ms,1ms,4097", "1ms,1ms,1ms,x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fe, err := ParseFrontEnd(s)
		if err != nil || fe == nil {
			return
		}
		if err := fe.Validate(); err != nil {
			t.Fatalf("%q parsed to %+v, which does not validate: %v", s, fe, err)
		}
	})
}
