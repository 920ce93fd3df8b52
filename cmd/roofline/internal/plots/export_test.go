package plots

// CheckFigure is TestGallery's check of a figure, for the external tests
// that draw figures through the app (report_figures_test.go).
var CheckFigure = checkFigure
