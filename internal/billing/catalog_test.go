package billing_test

import (
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/billing"
)

func TestParseCatalog(t *testing.T) {
	c, err := billing.ParseCatalog(" price_a=plan:Pro , price_b=credits:100,")
	if err != nil {
		t.Fatal(err)
	}
	a, ok := c.Lookup("price_a")
	if !ok || a.Kind != billing.KindPlan || a.Plan.ID != "pro" || a.Mode() != billing.ModeSubscription {
		t.Fatalf("price_a = %+v", a)
	}
	b, ok := c.Lookup("price_b")
	if !ok || b.Kind != billing.KindCredits || b.Credits != 100 || b.Mode() != billing.ModePayment {
		t.Fatalf("price_b = %+v", b)
	}
	if _, ok := c.Lookup("price_c"); ok {
		t.Fatal("unknown price found")
	}
	if len(c.Prices()) != 2 {
		t.Fatalf("prices = %v", c.Prices())
	}
	if c, err := billing.ParseCatalog(""); err != nil || len(c.Prices()) != 0 {
		t.Fatalf("empty catalog: %v", err)
	}
	for in, want := range map[string]string{
		"price_a":                           "want price_xxx=",
		"prod_a=plan:pro":                   "not a Stripe price ID",
		"price_a=plan:enterprise":           "unknown plan",
		"price_a=plan:free":                 "Free plan is not sold",
		"price_a=credits:0":                 "positive integer",
		"price_a=credits:ten":               "positive integer",
		"price_a=seats:3":                   "neither plan nor credits",
		"price_a=plan:pro,price_a=plan:pro": "listed twice",
	} {
		_, err := billing.ParseCatalog(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseCatalog(%q) = %v, want an error saying %q", in, err, want)
		}
	}
}
