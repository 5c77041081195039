package api

import (
	"net/http"
	"testing"

	"github.com/vtsproject/vts/internal/billing"
)

// Each kind of billing failure has its HTTP status, and the 503s say when to come back.
func TestBillingErrorStatuses(t *testing.T) {
	for _, c := range []struct {
		kind       billing.Kind
		status     int
		retryAfter int
	}{
		{billing.Invalid, http.StatusBadRequest, 0},
		{billing.NotConfigured, http.StatusServiceUnavailable, 30},
		{billing.ProviderFailed, http.StatusBadGateway, 0},
		{billing.NotReady, http.StatusServiceUnavailable, 30},
	} {
		e := billingError(&billing.Error{Kind: c.kind, Code: "c", Message: "m"})
		if e.Status != c.status || e.RetryAfter != c.retryAfter || e.Code != "c" || e.Message != "m" {
			t.Errorf("kind %d: %+v, want %d with Retry-After %d", c.kind, e, c.status, c.retryAfter)
		}
	}
}
