package billing

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vtsproject/vts/internal/plans"
)

// Price kinds: a plan is sold as a subscription, a credit pack as a one-time payment.
const (
	KindPlan    = "plan"
	KindCredits = "credits"
)

// Checkout modes, as Stripe names them.
const (
	ModeSubscription = "subscription"
	ModePayment      = "payment"
)

// Price is what one Stripe price buys.
type Price struct {
	ID      string
	Kind    string // KindPlan or KindCredits
	Plan    plans.Plan
	Credits int64 // for KindCredits
}

// Mode is the Checkout mode the price is sold in.
func (p Price) Mode() string {
	if p.Kind == KindPlan {
		return ModeSubscription
	}
	return ModePayment
}

// Catalog maps Stripe price IDs to what they buy.
type Catalog struct {
	prices map[string]Price
}

// ParseCatalog reads VTS_STRIPE_PRICES: comma-separated entries `price_xxx=plan:pro` or
// `price_yyy=credits:100`. Whitespace around entries is ignored; an empty string is an empty
// catalog (billing then refuses every checkout with unknown_price).
func ParseCatalog(s string) (*Catalog, error) {
	c := &Catalog{prices: map[string]Price{}}
	for i, entry := range strings.Split(s, ",") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		id, what, ok := strings.Cut(entry, "=")
		id, what = strings.TrimSpace(id), strings.TrimSpace(what)
		if !ok || id == "" || what == "" {
			return nil, fmt.Errorf("VTS_STRIPE_PRICES entry %d %q: want price_xxx=plan:<plan> or price_xxx=credits:<n>", i+1, entry)
		}
		if !strings.HasPrefix(id, "price_") {
			return nil, fmt.Errorf("VTS_STRIPE_PRICES entry %d: %q is not a Stripe price ID (price_...)", i+1, id)
		}
		if _, dup := c.prices[id]; dup {
			return nil, fmt.Errorf("VTS_STRIPE_PRICES: price %s listed twice", id)
		}
		kind, val, _ := strings.Cut(what, ":")
		p := Price{ID: id, Kind: strings.TrimSpace(kind)}
		val = strings.TrimSpace(val)
		switch p.Kind {
		case KindPlan:
			plan, ok := plans.Lookup(val)
			if !ok {
				return nil, fmt.Errorf("VTS_STRIPE_PRICES: price %s: unknown plan %q", id, val)
			}
			if plan.ID == plans.Free.ID {
				return nil, fmt.Errorf("VTS_STRIPE_PRICES: price %s: the Free plan is not sold", id)
			}
			p.Plan = plan
		case KindCredits:
			n, err := strconv.ParseInt(val, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("VTS_STRIPE_PRICES: price %s: credits must be a positive integer, got %q", id, val)
			}
			p.Credits = n
		default:
			return nil, fmt.Errorf("VTS_STRIPE_PRICES: price %s: kind %q is neither plan nor credits", id, p.Kind)
		}
		c.prices[id] = p
	}
	return c, nil
}

// Lookup finds a price by its Stripe ID.
func (c *Catalog) Lookup(priceID string) (Price, bool) {
	p, ok := c.prices[priceID]
	return p, ok
}

// Prices lists the catalog ordered by price ID.
func (c *Catalog) Prices() []Price {
	out := make([]Price, 0, len(c.prices))
	for _, p := range c.prices {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}
