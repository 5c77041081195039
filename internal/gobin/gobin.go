// Package gobin finds the helper programs the project installs with `go install` (the Temporal
// CLI, stripe-mock): on PATH, or where `go install` put them when its bin folder is not on PATH.
package gobin

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Pinned versions and how to install them.
const (
	TemporalInstall   = "go install github.com/temporalio/cli/cmd/temporal@v1.5.1"
	StripeMockInstall = "go install github.com/stripe/stripe-mock@v0.203.0"
)

// Find returns the path of the program name, or an error that says how to install it.
func Find(name, install string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range binDirs() {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not installed; install it with `%s`", name, install)
}

// FreePort returns a loopback TCP port that is free now, for a helper program to listen on. Another
// process may take it before the program does; the programs started here fail loudly if so.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func binDirs() []string {
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
			gopath = strings.TrimSpace(string(out))
		}
	}
	if gopath == "" {
		if home, err := os.UserHomeDir(); err == nil {
			gopath = filepath.Join(home, "go")
		}
	}
	for _, p := range filepath.SplitList(gopath) {
		dirs = append(dirs, filepath.Join(p, "bin"))
	}
	return dirs
}
