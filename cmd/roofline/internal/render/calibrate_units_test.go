package render

import (
	"testing"

	"github.com/roofline/roofline/cmd/roofline/internal/fit"
	"github.com/roofline/roofline/hardware"
)

// TestParamUnitsCoverEveryParameter: the calibration answer prints each
// efficiency parameter with its unit; a parameter added to
// hardware.ParameterNames (fit.NParams of them) without its unit made
// calibrate panic (index out of range) on every board when the units were
// a list read by position (found by moe49's experiment). Each parameter
// has one unit, and no unit names a parameter that is gone.
func TestParamUnitsCoverEveryParameter(t *testing.T) {
	if len(hardware.ParameterNames) != fit.NParams {
		t.Fatalf("%d parameter names for fit.NParams %d", len(hardware.ParameterNames), fit.NParams)
	}
	if len(paramUnits) != len(hardware.ParameterNames) {
		t.Errorf("%d units for %d parameters (%v)", len(paramUnits), len(hardware.ParameterNames), hardware.ParameterNames)
	}
	for _, n := range hardware.ParameterNames {
		if _, ok := paramUnits[n]; !ok {
			t.Errorf("parameter %s has no unit", n)
		}
	}
	// A parameter without a unit is printed as a plain number, not a
	// panic: 0.1234 to three decimals.
	if got := paramText(0.1234, paramUnits["no_such_parameter"]); got != "0.123" {
		t.Errorf("a parameter without a unit reads %q, want 0.123", got)
	}
}
