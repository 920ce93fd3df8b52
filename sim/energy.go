package sim

import (
	"fmt"
	"math"

	"github.com/roofline/roofline/limits"
)

// Draw is what energy is priced at: the device's draw while an engine
// answers and while it waits for the next request, how much of the time it
// answers, and the battery it runs on.
type Draw struct {
	Run float64 // W while the engine computes
	// Idle is the draw between answers, W; 0 when no figure is known (the
	// hours of use then count none, and say so).
	Idle float64
	// DutyCycle is the share of the time the device spends answering, in
	// (0, 1]; it idles the rest. 0 means DefaultDutyCycle.
	DutyCycle float64
	BatteryWh float64 // 0: no battery
}

// DefaultDutyCycle is the share of the time a device answers when the user
// does not say: 10 %, six minutes of generation in an hour of use — an
// assistant spoken to now and then, not a server kept busy. It is an
// assumption every energy answer states; --duty-cycle changes it.
const DefaultDutyCycle = 0.10

// Duty is the draw's duty cycle, or the default.
func (d Draw) Duty() float64 {
	if d.DutyCycle > 0 {
		return d.DutyCycle
	}
	return DefaultDutyCycle
}

// Validate checks a draw; errors name its fields.
func (d Draw) Validate() error {
	for _, f := range []struct {
		field string
		v     float64
		r     limits.Range
		none  bool // 0 means none or the default
	}{{"Power", d.Run, limits.PowerDraw, false}, {"IdlePower", d.Idle, limits.PowerDraw, true},
		{"DutyCycle", d.DutyCycle, limits.Share, true}, {"BatteryWh", d.BatteryWh, limits.Battery, true}} {
		if f.none && f.v == 0 {
			continue
		}
		if err := f.r.Check(f.v); err != nil {
			return &FieldError{f.field, err.Error()}
		}
	}
	if d.Idle > d.Run {
		return &FieldError{"IdlePower", fmt.Sprintf("%g W exceeds the draw while answering (%g W)", d.Idle, d.Run)}
	}
	return nil
}

// Energy is an estimate from power draws, not a measurement: the device is
// taken to draw Run for the whole of each answer and Idle between answers.
type Energy struct {
	Draw
	JoulesPerToken  float64 // per output token of one sequence: Run · TPOT / B
	JoulesPerAnswer float64 // per sequence while answering: Run · E2E / B
	TokensPerWh     float64 // 3600 / JoulesPerToken
	// AveragePower is the mean draw at the duty cycle d: d · Run +
	// (1 − d) · Idle.
	AveragePower float64
	// With a battery: the hours it lasts at the duty cycle (BatteryWh /
	// AveragePower) and the answers it powers in that time, idling
	// included (hours · 3600 · d / E2E · B); 0 without one.
	HoursOfUse, AnswersPerCharge float64
}

// EnergyOf prices a result at draw d: its answers share the draw as
// they decode together (Result.Together; queued ones do not).
func EnergyOf(r *Result, d Draw) (Energy, error) {
	return EnergyFor(d, r.TPOT, r.E2E, r.Together())
}

// EnergyFor prices answers of `batch` sequences taking e2e seconds with
// inter-token latency tpot (NaN: one output token, from the prefill).
func EnergyFor(d Draw, tpot, e2e float64, batch int) (Energy, error) {
	if err := d.Validate(); err != nil {
		return Energy{}, err
	}
	d.DutyCycle = d.Duty()
	b := float64(max(batch, 1))
	e := Energy{Draw: d, JoulesPerAnswer: d.Run * e2e / b, JoulesPerToken: d.Run * tpot / b}
	if math.IsNaN(tpot) {
		e.JoulesPerToken = e.JoulesPerAnswer
	}
	e.TokensPerWh = 3600 / e.JoulesPerToken
	e.AveragePower = d.DutyCycle*d.Run + (1-d.DutyCycle)*d.Idle
	if d.BatteryWh > 0 {
		e.HoursOfUse = d.BatteryWh / e.AveragePower
		e.AnswersPerCharge = e.HoursOfUse * 3600 * d.DutyCycle / e2e * b
	}
	return e, nil
}
