// Command roofline predicts how fast a large language model runs on a
// device and how close measured runs come to the device's limits.
package main

import "os"

func main() {
	os.Exit(exitCode(run(os.Args, os.Stdout, os.Stderr), os.Stderr))
}
