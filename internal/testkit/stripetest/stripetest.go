// Package stripetest runs stripe-mock for tests: the real Stripe API shapes on a local port.
package stripetest

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os/exec"
	"syscall"
	"time"

	"github.com/vtsproject/vts/internal/gobin"
)

// Start runs stripe-mock on a free port and returns its base URL and a function that stops it.
// The process gets a parent-death signal, so a test binary that dies cannot leave it running.
func Start() (string, func(), error) {
	bin, err := gobin.Find("stripe-mock", gobin.StripeMockInstall)
	if err != nil {
		return "", nil, err
	}
	port, err := gobin.FreePort()
	if err != nil {
		return "", nil, err
	}
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
