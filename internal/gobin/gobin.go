// Package gobin finds the helper programs the project installs with `go install` (the Temporal
// CLI, stripe-mock): on PATH, or where `go install` put them when its bin folder is not on PATH.
package gobin

import (
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
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

// FreePort returns a loopback TCP port that is free now, for a helper program to listen on. It is
// taken below the kernel's ephemeral range: a port the kernel hands out (to a program listening
// on port 0, as the Temporal dev server's services do, or to an outgoing connection) could be
// taken by another process between this check and the helper's bind, one chosen here only by
// another such check. Another process may still take it first; the programs started here fail
// loudly if so.
func FreePort() (int, error) {
	lo := ephemeralLow()
	for range 50 {
		port := minPort + rand.IntN(max(1, lo-minPort))
		if l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			l.Close()
			return port, nil
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// minPort is the lowest port FreePort takes: above the well-known services' ports.
const minPort = 20000

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's default where it
// cannot be read).
func ephemeralLow() int {
	lo := 32768
	if b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range"); err == nil {
		if f := strings.Fields(string(b)); len(f) == 2 {
			if n, err := strconv.Atoi(f[0]); err == nil && n > minPort {
				lo = n
			}
		}
	}
	return lo
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
