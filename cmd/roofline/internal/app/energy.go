package app

import (
	"errors"
	"fmt"
	"math"

	"github.com/roofline/roofline/hardware"
	"github.com/roofline/roofline/sim"
)

// Power is what energy figures are priced at: the user's figures, each 0
// to take the profile's (or the default duty cycle).
type Power struct {
	Watts     float64 // the draw while answering; 0: the engine's power in the profile
	IdleWatts float64 // the draw between answers; 0: the profile's idle_power
	DutyCycle float64 // the share of the time spent answering; 0: sim.DefaultDutyCycle
	BatteryWh float64 // 0: no battery
}

// EnergyBasis says where an estimate's draws come from.
type EnergyBasis struct {
	Engine string
	// Given and IdleGiven are true when the user gave the draw while
	// answering and between answers; otherwise they are the profile's,
	// from RunSource and IdleSource.
	Given, IdleGiven      bool
	RunSource, IdleSource string
	// IdleKnown is false when no idle draw is known: the hours of use
	// count none between answers. IdleAboveGiven says the profile has one,
	// but above the --power given, so it was not used.
	IdleKnown, IdleAboveGiven bool
}

// Energy is an estimate of the energy of an answer, and of a battery's
// hours at the duty cycle.
type Energy struct {
	sim.Energy
	EnergyBasis
}

// draw is the draw of an engine of d: the user's figures, else the
// profile's. Without either it returns an error wrapping
// hardware.ErrNoPowerFigure, whose message says what to do.
func draw(d *hardware.Device, engine string, p Power) (sim.Draw, EnergyBasis, error) {
	b := EnergyBasis{Engine: engine}
	run, idle, runSource, idleSource, err := d.PowerDraw(engine)
	switch {
	case err != nil && !errors.Is(err, hardware.ErrNoPowerFigure):
		return sim.Draw{}, b, err
	case p.Watts > 0:
		run, b.Given = p.Watts, true
	case err != nil:
		return sim.Draw{}, b, err
	default:
		b.RunSource = runSource
	}
	switch {
	case p.IdleWatts > 0:
		idle, b.IdleGiven = p.IdleWatts, true
	case idle > run:
		idle, b.IdleAboveGiven = 0, true // above the draw the user gave: not comparable
	default:
		b.IdleSource = idleSource
	}
	b.IdleKnown = idle > 0
	return sim.Draw{Run: run, Idle: idle, DutyCycle: p.DutyCycle, BatteryWh: p.BatteryWh}, b, nil
}

// energy prices answers of batch sequences on s; nil with the reason when
// neither the user nor the profile gives a draw.
func energy(s *sim.Setup, p Power, tpot, e2e float64, batch int) (*Energy, string, error) {
	d, b, err := draw(s.Device, s.Engine.Name, p)
	if errors.Is(err, hardware.ErrNoPowerFigure) {
		return nil, "no energy figures: " + noPower(s), asked(s, p)
	}
	if err != nil {
		return nil, "", err
	}
	e, err := sim.EnergyFor(d, tpot, e2e, batch)
	if err != nil {
		return nil, "", err
	}
	return &Energy{Energy: e, EnergyBasis: b}, "", nil
}

// noPower says that s has no power figure (hardware.ErrNoPowerFigure)
// and what gives one.
func noPower(s *sim.Setup) string {
	return fmt.Sprintf("the %s engine of %s has no published power figure; --power WATTS gives the draw while answering", s.Engine.Name, s.Device.Name)
}

// asked is an error when the user asked for figures that need a power
// draw the profile does not have: a battery's figures or an idle draw.
// Without them the answer says there is no energy figure and goes on.
func asked(s *sim.Setup, p Power) error {
	switch {
	case p.BatteryWh > 0:
		return &sim.FieldError{Field: "BatteryWh", Msg: "needs a power draw: " + noPower(s)}
	case p.IdleWatts > 0:
		return &sim.FieldError{Field: "IdlePower", Msg: "needs a draw while answering too: " + noPower(s)}
	}
	return nil
}

// ChatEnergy is the conversation's mean turn priced at the device's draws
// and at those of each other power mode of it.
type ChatEnergy struct {
	EnergyBasis
	DutyCycle float64
	BatteryWh float64 // 0: no battery
	Modes     []EnergyMode
}

// EnergyMode is one power mode's energy for the mean turn.
type EnergyMode struct {
	Hardware, PowerMode string
	TPOT                float64 // mean over the turns, s (NaN: one-token replies)
	sim.Energy
}

// chatEnergy prices the conversation's mean turn at the device's draws and
// at every other power mode of the same device that has a power figure;
// nil with the reason when no draw is known.
func (env *Env) chatEnergy(s *sim.Setup, conv sim.Conversation, st sim.Strategy, p Power) (*ChatEnergy, string, error) {
	d, b, err := draw(s.Device, s.Engine.Name, p)
	if errors.Is(err, hardware.ErrNoPowerFigure) {
		return nil, "no energy figures: " + noPower(s), asked(s, p)
	}
	if err != nil {
		return nil, "", err
	}
	out := &ChatEnergy{EnergyBasis: b, DutyCycle: d.Duty(), BatteryWh: d.BatteryWh}
	modes := []*sim.Setup{s}
	if !b.Given {
		modes = append(modes, env.powerModes(s)...)
	}
	for _, m := range modes {
		res, err := m.Chat(conv, st)
		if err != nil {
			continue // a mode too small for the conversation
		}
		var tpot, e2e float64
		n := 0
		for _, t := range res.Turns {
			if !math.IsNaN(t.TPOT) {
				tpot += t.TPOT
				n++
			}
			e2e += t.E2E
		}
		tpot = tpot / float64(max(n, 1))
		if n == 0 {
			tpot = math.NaN()
		}
		e2e /= float64(len(res.Turns))
		md := d
		if m != s {
			if md, _, err = draw(m.Device, m.Engine.Name, Power{IdleWatts: p.IdleWatts, DutyCycle: p.DutyCycle, BatteryWh: p.BatteryWh}); err != nil {
				continue
			}
		}
		e, err := sim.EnergyFor(md, tpot, e2e, 1)
		if err != nil {
			return nil, "", err
		}
		out.Modes = append(out.Modes, EnergyMode{Hardware: m.Device.Name, PowerMode: m.Device.PowerMode, TPOT: tpot, Energy: e})
	}
	return out, "", nil
}

// powerModes are the other power modes of s's device (the base profile
// and its variants) on the same engine, with a rated power: the same
// model, runtime and options on each.
func (env *Env) powerModes(s *sim.Setup) []*sim.Setup {
	base := s.Device.VariantOf
	if base == "" {
		base = s.Device.Name
	}
	var out []*sim.Setup
	for _, d := range env.Catalog.Devices() {
		// Memory variants share the power mode; only other modes add a row.
		if d.Name == s.Device.Name || (d.Name != base && d.VariantOf != base) || d.PowerMode == "" || d.PowerMode == s.Device.PowerMode {
			continue
		}
		e, err := d.Engine(s.Engine.Name)
		if err != nil {
			continue
		}
		if _, _, _, _, err := d.PowerDraw(e.Name); err != nil {
			continue // no power figure: no energy to compare
		}
		dd := *d
		dd.StorageBandwidth = s.Device.StorageBandwidth
		o := sim.DefaultOptions
		o.RuntimeOverhead, o.NoFlashAttention = s.Inputs.Overhead, !s.Inputs.FlashAttention
		if m, err := sim.NewSetup(s.Model, &dd, e, s.Runtime, o); err == nil {
			out = append(out, m)
		}
	}
	return out
}
