package billing

import (
	"encoding/json"
	"time"
)

// The webhook's view of Stripe objects. We decode event data ourselves, reading only fields that
// have kept their meaning across API versions, rather than into stripe-go's structs, which are
// generated for the one version stripe-go v76 pins (2023-10-16). Where Stripe has since moved a
// field (the 2025 versions moved an invoice's subscription under parent.subscription_details, a
// line's price under pricing.price_details, and a subscription's period onto its items), both
// places are read, so that an endpoint on a newer version keeps working.

// ref is a field Stripe sends either as an ID string or, when expanded, as an object with an id.
type ref string

func (r *ref) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = ""
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*r = ref(s)
		return nil
	}
	var o struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*r = ref(o.ID)
	return nil
}

type checkoutSession struct {
	ID                string            `json:"id"`
	Mode              string            `json:"mode"`
	PaymentStatus     string            `json:"payment_status"`
	Customer          ref               `json:"customer"`
	Subscription      ref               `json:"subscription"`
	PaymentIntent     ref               `json:"payment_intent"`
	ClientReferenceID string            `json:"client_reference_id"`
	Metadata          map[string]string `json:"metadata"`
	AmountTotal       int64             `json:"amount_total"`
}

type period struct {
	Start int64 `json:"start"`
	End   int64 `json:"end"`
}

type invoiceLine struct {
	Type         string            `json:"type"`
	Proration    bool              `json:"proration"`
	Price        ref               `json:"price"`
	Period       period            `json:"period"`
	Metadata     map[string]string `json:"metadata"`
	Subscription ref               `json:"subscription"`
	Pricing      *struct {
		PriceDetails *struct {
			Price ref `json:"price"`
		} `json:"price_details"`
	} `json:"pricing"`
	Parent *struct {
		SubscriptionItemDetails *struct {
			Subscription ref  `json:"subscription"`
			Proration    bool `json:"proration"`
		} `json:"subscription_item_details"`
	} `json:"parent"`
}

func (l invoiceLine) priceID() string {
	if l.Price != "" {
		return string(l.Price)
	}
	if l.Pricing != nil && l.Pricing.PriceDetails != nil {
		return string(l.Pricing.PriceDetails.Price)
	}
	return ""
}

func (l invoiceLine) proration() bool {
	return l.Proration || (l.Parent != nil && l.Parent.SubscriptionItemDetails != nil && l.Parent.SubscriptionItemDetails.Proration)
}

func (l invoiceLine) subscription() string {
	if l.Subscription != "" {
		return string(l.Subscription)
	}
	if l.Parent != nil && l.Parent.SubscriptionItemDetails != nil {
		return string(l.Parent.SubscriptionItemDetails.Subscription)
	}
	return ""
}

type subscriptionDetails struct {
	Subscription ref               `json:"subscription"`
	Metadata     map[string]string `json:"metadata"`
}

type invoice struct {
	ID                  string               `json:"id"`
	Customer            ref                  `json:"customer"`
	Subscription        ref                  `json:"subscription"`
	SubscriptionDetails *subscriptionDetails `json:"subscription_details"`
	Parent              *struct {
		SubscriptionDetails *subscriptionDetails `json:"subscription_details"`
	} `json:"parent"`
	Lines struct {
		Data []invoiceLine `json:"data"`
	} `json:"lines"`
	AmountPaid    int64     `json:"amount_paid"`
	Charge        ref       `json:"charge"`         // until the 2025 versions
	PaymentIntent ref       `json:"payment_intent"` // until the 2025 versions
	Payments      *struct { // the 2025 versions, when included
		Data []struct {
			Payment struct {
				Charge        ref `json:"charge"`
				PaymentIntent ref `json:"payment_intent"`
			} `json:"payment"`
		} `json:"data"`
	} `json:"payments"`
}

// payment returns the charge and the payment intent that paid the invoice, as far as the event
// tells them.
func (in invoice) payment() (chargeID, paymentIntentID string) {
	chargeID, paymentIntentID = string(in.Charge), string(in.PaymentIntent)
	if in.Payments != nil {
		for _, p := range in.Payments.Data {
			if chargeID == "" {
				chargeID = string(p.Payment.Charge)
			}
			if paymentIntentID == "" {
				paymentIntentID = string(p.Payment.PaymentIntent)
			}
		}
	}
	return chargeID, paymentIntentID
}

func (in invoice) subscription() string {
	if in.Subscription != "" {
		return string(in.Subscription)
	}
	if in.Parent != nil && in.Parent.SubscriptionDetails != nil {
		return string(in.Parent.SubscriptionDetails.Subscription)
	}
	for _, l := range in.Lines.Data {
		if s := l.subscription(); s != "" {
			return s
		}
	}
	return ""
}

func (in invoice) metadata() map[string]string {
	if in.SubscriptionDetails != nil && in.SubscriptionDetails.Metadata != nil {
		return in.SubscriptionDetails.Metadata
	}
	if in.Parent != nil && in.Parent.SubscriptionDetails != nil && in.Parent.SubscriptionDetails.Metadata != nil {
		return in.Parent.SubscriptionDetails.Metadata
	}
	for _, l := range in.Lines.Data {
		if l.Metadata["userId"] != "" {
			return l.Metadata
		}
	}
	return nil
}

// planLine is the line that pays for a subscription period: a subscription line that is not a
// proration. An invoice with only prorations (an upgrade's) pays for no full period.
func (in invoice) planLine() (invoiceLine, bool) {
	for _, l := range in.Lines.Data {
		if (l.Type == "subscription" || l.Parent != nil) && !l.proration() && l.priceID() != "" && l.Period.End > l.Period.Start {
			return l, true
		}
	}
	return invoiceLine{}, false
}

type subscription struct {
	ID       string            `json:"id"`
	Customer ref               `json:"customer"`
	Status   string            `json:"status"`
	Metadata map[string]string `json:"metadata"`
	Items    struct {
		Data []struct {
			Price ref `json:"price"`
		} `json:"data"`
	} `json:"items"`
}

func (s subscription) priceID() string {
	for _, it := range s.Items.Data {
		if it.Price != "" {
			return string(it.Price)
		}
	}
	return ""
}

type charge struct {
	ID             string            `json:"id"`
	Amount         int64             `json:"amount"`
	AmountRefunded int64             `json:"amount_refunded"`
	PaymentIntent  ref               `json:"payment_intent"`
	Customer       ref               `json:"customer"`
	Invoice        ref               `json:"invoice"`
	Metadata       map[string]string `json:"metadata"`
}

type dispute struct {
	ID            string `json:"id"`
	Amount        int64  `json:"amount"`
	Charge        ref    `json:"charge"`
	PaymentIntent ref    `json:"payment_intent"`
	Status        string `json:"status"`
}

func unix(sec int64) time.Time { return time.Unix(sec, 0).UTC() }
