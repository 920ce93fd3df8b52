// Package buildinfo says which roofline this is: the module version and
// the version-control revision that go build and go install record in the
// binary (runtime/debug.ReadBuildInfo). Every place that prints a version
// (--version, roofline version, reports) calls Version, so they agree.
package buildinfo
