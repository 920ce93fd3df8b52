// Package app is roofline's application layer: it turns a request — what
// a user asked for, as typed values, however it was asked (flags, a study
// file) — into an answer, a typed value the render layer prints. It never
// prints and never parses text.
//
// The layers, lowest first; each imports only those before it:
//
//	units                       quantities and their one parser
//	model, hardware             what a model costs, what a device can do
//	gguf, runtimes, profiles    model files, runtimes, the catalog
//	hfhub, ollama               the Hugging Face Hub, Ollama's names and store
//	sim                         time, memory, energy: the predictions
//	serve                       serving under load, stepping sim's passes
//	resolve, measured, plan,    a request's setup by the one rule, measured
//	compare, calibrate, plots   runs, the planner, comparison, calibration,
//	                            figure drawing (plots knows no roofline type)
//	app                         requests → answers (this package)
//	study                       a study file → the report's answers
//	render                      answers → text, Markdown, JSON, CSV, HTML
//	cmd/roofline                flags → requests; one call per command
//
// Every request resolves its setup through package resolve, so predict,
// chat, plan, compare, calibrate, every figure and the report price the
// same model on the same device the same way.
package app
