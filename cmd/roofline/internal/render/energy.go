package render

import (
	"fmt"

	"github.com/roofline/roofline/cmd/roofline/internal/app"
	"github.com/roofline/roofline/sim"
	"github.com/roofline/roofline/units"
)

// energyFiguresJSON is an energy estimate in the JSON vocabulary, shared
// by predict and chat.
type energyFiguresJSON struct {
	PowerW float64 `json:"power_w"`
	// IdlePowerW is null when no idle draw is known (the hours count none).
	IdlePowerW       *float64 `json:"idle_power_w"`
	DutyCycle        float64  `json:"duty_cycle"`
	AveragePowerW    float64  `json:"average_power_w"`
	JoulesPerToken   float64  `json:"joules_per_token"`
	JoulesPerAnswer  float64  `json:"joules_per_answer"`
	TokensPerWh      float64  `json:"tokens_per_wh"`
	BatteryWh        float64  `json:"battery_wh,omitempty"`
	AnswersPerCharge float64  `json:"answers_per_charge,omitempty"`
	HoursOfUse       float64  `json:"hours_of_use,omitempty"`
}

func newEnergyFiguresJSON(e sim.Energy) energyFiguresJSON {
	j := energyFiguresJSON{PowerW: e.Run, DutyCycle: e.DutyCycle, AveragePowerW: e.AveragePower, JoulesPerToken: e.JoulesPerToken,
		JoulesPerAnswer: e.JoulesPerAnswer, TokensPerWh: e.TokensPerWh, BatteryWh: e.BatteryWh, AnswersPerCharge: e.AnswersPerCharge, HoursOfUse: e.HoursOfUse}
	if e.Idle > 0 {
		idle := e.Idle
		j.IdlePowerW = &idle
	}
	return j
}

// EnergyBasis says where an estimate's draws come from, in words.
func EnergyBasis(b app.EnergyBasis) string {
	run := "the profile's power of the " + b.Engine + " engine"
	if b.Given {
		run = "the --power given"
	}
	idle, bound := "nothing (no idle_power is published; --idle-power gives one)", ", so the hours are an upper bound"
	switch {
	case b.IdleAboveGiven:
		idle = "nothing (the profile's idle_power is above --power; --idle-power gives one)"
	case b.IdleGiven:
		idle, bound = "the --idle-power given", ""
	case b.IdleKnown:
		idle, bound = "the profile's idle_power", ""
	}
	return fmt.Sprintf("drawing %s while answering and %s between answers%s; estimates: a measured draw is usually lower", run, idle, bound)
}

// dutyText is a duty cycle in words.
func dutyText(d float64) string { return fmt.Sprintf("a %s duty cycle", units.Sig(100*d, 3)+"%") }

// hoursText is a battery's hours of use.
func hoursText(h float64) string {
	if h < 1 {
		return units.Sig(60*h, 3) + " min"
	}
	return units.Sig(h, 3) + " h"
}

// energyRows are predict's energy lines of the result table: per token
// and answer, the mean draw at the duty cycle, and the battery.
func energyRows(t *Table, e *app.Energy, none string) {
	if e == nil {
		t.Add("energy", Dash, "", none)
		return
	}
	run := "the profile's power"
	if e.Given {
		run = "--power"
	}
	t.Add("energy", units.Sig(e.JoulesPerToken, 3)+" J/token", "", fmt.Sprintf("per token decoded, %.0f tokens/Wh; %s J per answer with its prefill; at %s W (%s; an estimate: a measured draw is usually lower)",
		e.TokensPerWh, units.Sig(e.JoulesPerAnswer, 3), units.Sig(e.Run, 6), run))
	var idle string
	switch {
	case e.IdleGiven:
		idle = units.Sig(e.Idle, 3) + " W idle (--idle-power)"
	case e.IdleKnown:
		idle = units.Sig(e.Idle, 3) + " W idle (the profile's idle_power)"
	case e.IdleAboveGiven:
		idle = "no idle draw below --power (--idle-power gives one): the hours are an upper bound"
	default:
		idle = "no idle draw published (--idle-power gives one): the hours are an upper bound"
	}
	t.Add("average draw", units.Sig(e.AveragePower, 3)+" W", "", fmt.Sprintf("at %s (--duty-cycle): %s W answering, %s", dutyText(e.DutyCycle), units.Sig(e.Run, 3), idle))
	if e.BatteryWh > 0 {
		t.Add("battery", fmt.Sprintf("%.0f answers per charge", e.AnswersPerCharge), "", fmt.Sprintf("%s of use on %s Wh at %s", hoursText(e.HoursOfUse), units.Sig(e.BatteryWh, 6), dutyText(e.DutyCycle)))
	}
}
