package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// exitWithParentEnv switches on (1) or off (0) stopping when the parent
// process dies. `go run` starts the built binary as its child and does not
// pass SIGTERM on, so killing go run's pid would leave the broker running;
// unset, the switch is on exactly when the binary runs from go run's
// build directory.
const exitWithParentEnv = "KARST_EXIT_WITH_PARENT"

// startParent is the parent when the process started, to tell whether it
// died before the parent-death signal was armed.
var startParent = os.Getppid()

// exitWithParent arms SIGTERM on the parent's death when setting (the
// variable's value) or go run asks for it, and says whether it did.
//
// The kernel signals each time a thread of the parent that had the child
// exits (the child passes to another thread first), so a multi-threaded
// parent such as go run sends several SIGTERMs as it dies; serve ignores
// the ones after the first while it shuts down.
func exitWithParent(setting string) (bool, error) {
	on := false
	switch strings.ToLower(setting) {
	case "1", "true", "yes":
		on = true
	case "0", "false", "no":
	case "":
		exe, err := os.Executable()
		on = err == nil && builtByGoRun(exe)
	default:
		return false, fmt.Errorf("%s=%s: want 1 or 0", exitWithParentEnv, setting)
	}
	if !on {
		return false, nil
	}
	if err := armParentDeathSignal(); err != nil {
		return false, err
	}
	if os.Getppid() != startParent {
		return false, fmt.Errorf("the parent process (pid %d) exited before karst started", startParent)
	}
	return true, nil
}

// builtByGoRun recognises go run's binary: $GOTMPDIR/go-build<N>/b001/exe/<name>.
func builtByGoRun(exe string) bool {
	dir := filepath.Dir(exe)
	return filepath.Base(dir) == "exe" && strings.HasPrefix(filepath.Base(filepath.Dir(filepath.Dir(dir))), "go-build")
}
