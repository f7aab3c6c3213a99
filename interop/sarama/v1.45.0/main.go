// Command sarama-check runs the checks of ../check linked with the sarama release that this
// module pins (v1.45.0); ../run.sh builds and runs it.
package main

import (
	"os"

	"karst.interop/sarama/check"
)

func main() { os.Exit(check.Run(os.Args[1:])) }
