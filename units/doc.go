// Package units parses and formats the physical quantities roofline works
// with, so that "102 GB/s" means the same thing in a TOML profile and on the
// command line.
//
// Inside the program every quantity is a float64 in an SI base unit: bytes
// (B), bytes per second (B/s), floating-point or integer operations (FLOP)
// and operations per second (FLOP/s), seconds (s) and watts (W). Decimal
// prefixes (k, M, G, T, P = 10^3 … 10^15) and binary prefixes (Ki, Mi, Gi,
// Ti = 2^10 … 2^40) are both accepted on input and never mixed silently on
// output: the caller chooses which one a figure is shown in.
//
// What people type has one parser each, used by the command line and by
// study and profile files alike: ParseQuantity for quantities with a
// dimension, whose unit is required (only 0 goes without; Parse also takes
// a bare number in the base unit, for data files), ParseDuration (a
// positive ParseQuantity), ParseTokens, ParseTokenCount and ParseTokenList
// (k = 1024 and M = 1024² tokens, as context lengths are written),
// ParseShare (a percentage below 100 %).
//
// The package also names the arithmetic precisions (fp32, fp16, bf16, fp8,
// int8, fp4, int4) that connect a weight format to a compute peak.
package units
