// Package stripetest runs stripe-mock for tests: the real Stripe API shapes on a local port.
package stripetest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Install is how to get the pinned stripe-mock.
const Install = "go install github.com/stripe/stripe-mock@v0.203.0"

// Start runs stripe-mock on a free port and returns its base URL and a function that stops it.
// The process gets a parent-death signal, so a test binary that dies cannot leave it running.
func Start() (string, func(), error) {
	bin, err := find()
	if err != nil {
		return "", nil, err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(bin, "-http-port", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return "", nil, fmt.Errorf("starting stripe-mock: %w", err)
	}
	stop := func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	// It needs a moment to load its OpenAPI fixtures; a bounded number of tries.
	for range 600 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return "http://" + addr, stop, nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	stop()
	return "", nil, errors.New("stripe-mock did not start listening")
}

func find() (string, error) {
	if p, err := exec.LookPath("stripe-mock"); err == nil {
		return p, nil
	}
	gopath, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(gopath)), "bin", "stripe-mock")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("stripe-mock is not installed; install it with `%s`", Install)
}
