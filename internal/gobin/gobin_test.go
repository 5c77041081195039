package gobin

import (
	"fmt"
	"net"
	"testing"
)

// A free port lies below the kernel's ephemeral range, where no port the kernel hands out can
// take it before the helper binds it, and it can be listened on.
func TestFreePortIsBelowTheEphemeralRange(t *testing.T) {
	lo := ephemeralLow()
	for range 20 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if port < minPort || port >= lo {
			t.Fatalf("free port %d, want one in [%d, %d)", port, minPort, lo)
		}
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err != nil {
			t.Fatalf("the free port %d cannot be listened on: %v", port, err)
		}
		l.Close()
	}
}
