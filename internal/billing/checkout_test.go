package billing_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

func TestCheckoutBothModesReuseOneCustomer(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)

	url, err := h.svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "uma", PriceID: "price_pro", Mode: "subscription"})
	if err != nil || !strings.HasPrefix(url, "https://") {
		t.Fatalf("subscription checkout = %q, %v", url, err)
	}
	url, err = h.svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "uma", PriceID: "price_pack100", Mode: "payment"})
	if err != nil || url == "" {
		t.Fatalf("payment checkout = %q, %v", url, err)
	}

	customers := h.rec.all("/v1/customers")
	if len(customers) != 1 {
		t.Fatalf("created %d customers for one user, want 1", len(customers))
	}
	if c := customers[0]; c.Form.Get("metadata[userId]") != "uma" || c.IdempotencyKey != "vts-customer-uma" {
		t.Fatalf("customer request = %+v", c)
	}
	u := h.user("uma")
	if !strings.HasPrefix(u.StripeCustomerID, "cus_") {
		t.Fatalf("customer not stored: %+v", u)
	}

	sessions := h.rec.all("/v1/checkout/sessions")
	if len(sessions) != 2 {
		t.Fatalf("%d session requests", len(sessions))
	}
	sub, pay := sessions[0].Form, sessions[1].Form
	for _, f := range []struct{ key, want string }{
		{"mode", "subscription"}, {"customer", u.StripeCustomerID}, {"client_reference_id", "uma"},
		{"line_items[0][price]", "price_pro"}, {"line_items[0][quantity]", "1"},
		{"metadata[userId]", "uma"}, {"metadata[priceId]", "price_pro"},
		{"subscription_data[metadata][userId]", "uma"}, {"subscription_data[metadata][priceId]", "price_pro"},
		{"success_url", "http://vts.test/ok?session_id={CHECKOUT_SESSION_ID}"}, {"cancel_url", "http://vts.test/cancel"},
	} {
		if got := sub.Get(f.key); got != f.want {
			t.Errorf("subscription session %s = %q, want %q", f.key, got, f.want)
		}
	}
	for _, f := range []struct{ key, want string }{
		{"mode", "payment"}, {"customer", u.StripeCustomerID}, {"client_reference_id", "uma"},
		{"line_items[0][price]", "price_pack100"}, {"metadata[userId]", "uma"},
		{"payment_intent_data[metadata][userId]", "uma"}, {"payment_intent_data[metadata][priceId]", "price_pack100"},
	} {
		if got := pay.Get(f.key); got != f.want {
			t.Errorf("payment session %s = %q, want %q", f.key, got, f.want)
		}
	}
	if pay.Has("subscription_data[metadata][userId]") || sub.Has("payment_intent_data[metadata][userId]") {
		t.Error("metadata sent for the other mode")
	}
}

// Many first checkouts of one user at once still make one customer.
func TestConcurrentFirstCheckoutsMakeOneCustomer(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := h.svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "vic", PriceID: "price_pack100", Mode: "payment"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := len(h.rec.all("/v1/customers")); n != 1 {
		t.Fatalf("created %d customers, want 1", n)
	}
	customer := h.user("vic").StripeCustomerID
	for _, s := range h.rec.all("/v1/checkout/sessions") {
		if s.Form.Get("customer") != customer {
			t.Fatalf("session for customer %q, want %q", s.Form.Get("customer"), customer)
		}
	}
}

func TestCheckoutRefusals(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, true)
	for _, c := range []struct {
		req  billing.CheckoutRequest
		kind billing.Kind
		code string
	}{
		{billing.CheckoutRequest{UserID: "w", PriceID: "price_nope", Mode: "payment"}, billing.Invalid, billing.CodeUnknownPrice},
		{billing.CheckoutRequest{UserID: "w", PriceID: "", Mode: "subscription"}, billing.Invalid, billing.CodeUnknownPrice},
		{billing.CheckoutRequest{UserID: "w", PriceID: "price_pro", Mode: "payment"}, billing.Invalid, billing.CodeModeMismatch},
		{billing.CheckoutRequest{UserID: "w", PriceID: "price_pack100", Mode: "subscription"}, billing.Invalid, billing.CodeModeMismatch},
		{billing.CheckoutRequest{UserID: "w", PriceID: "price_pro", Mode: "setup"}, billing.Invalid, billing.CodeInvalidRequest},
		{billing.CheckoutRequest{PriceID: "price_pro", Mode: "subscription"}, billing.Invalid, billing.CodeInvalidRequest},
	} {
		_, err := h.svc.CreateCheckout(ctx, c.req)
		wantCode(t, err, c.kind, c.code)
	}
	if len(h.rec.reqs) != 0 {
		t.Fatalf("refused checkouts reached Stripe: %+v", h.rec.reqs)
	}
}

// Stripe unreachable: 502 payment_provider_error, and the secret key appears nowhere.
func TestCheckoutProviderFailure(t *testing.T) {
	ctx := context.Background()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + l.Addr().String()
	l.Close()
	svc, err := billing.New(billing.Options{Store: pgtest.NewStore(t), SecretKey: testSecretKey, APIURL: dead,
		Prices: testPrices, SuccessURL: "http://x/ok", CancelURL: "http://x/no", HTTPClient: &http.Client{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "xan", PriceID: "price_pro", Mode: "subscription"})
	wantCode(t, err, billing.ProviderFailed, billing.CodeProviderError)
	be, _ := billing.AsError(err)
	if strings.Contains(err.Error(), testSecretKey) || strings.Contains(be.Message, testSecretKey) {
		t.Fatalf("secret key leaked: %v", err)
	}

	// Stripe answering an error, even one that echoes the key, is a 502 that does not carry it.
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"Invalid API Key provided: ` + testSecretKey + `"}}`))
	}))
	defer fake.Close()
	svc, err = billing.New(billing.Options{Store: pgtest.NewStore(t), SecretKey: testSecretKey, APIURL: fake.URL,
		Prices: testPrices, SuccessURL: "http://x/ok", CancelURL: "http://x/no"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "yul", PriceID: "price_pack100", Mode: "payment"})
	wantCode(t, err, billing.ProviderFailed, billing.CodeProviderError)
	if strings.Contains(err.Error(), testSecretKey) {
		t.Fatalf("secret key leaked: %v", err)
	}
}

func TestCheckoutWithoutStripeConfigured(t *testing.T) {
	h := newHarness(t, false)
	_, err := h.svc.CreateCheckout(context.Background(), billing.CheckoutRequest{UserID: "z", PriceID: "price_pro", Mode: "subscription"})
	wantCode(t, err, billing.NotConfigured, billing.CodeNotConfigured)
}

// A first checkout does not hold the user's row lock while it waits for Stripe (issue 18, item
// 7): every reservation, refund and webhook of the user takes that lock, and the call may take
// 30 s. Stripe's answer to the customer's creation is held until the test has locked the row
// itself (NOWAIT: it fails at once if the checkout holds it).
func TestFirstCheckoutDoesNotLockTheUserAcrossStripe(t *testing.T) {
	needStripeMock(t)
	ctx := context.Background()
	st := pgtest.NewStore(t)
	if _, err := st.EnsureUser(ctx, "zed"); err != nil {
		t.Fatal(err)
	}
	target, _ := url.Parse(stripeMockURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	inCall, checked := make(chan struct{}, 1), make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/customers" {
			inCall <- struct{}{}
			<-checked
		}
		proxy.ServeHTTP(w, r)
	}))
	defer slow.Close()
	svc, err := billing.New(billing.Options{Store: st, SecretKey: testSecretKey, APIURL: slow.URL,
		Prices: testPrices, SuccessURL: "http://x/ok", CancelURL: "http://x/no"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := svc.CreateCheckout(ctx, billing.CheckoutRequest{UserID: "zed", PriceID: "price_pack100", Mode: "payment"})
		done <- err
	}()
	<-inCall
	_, lockErr := st.Pool().Exec(ctx, `SELECT 1 FROM users WHERE id = 'zed' FOR UPDATE NOWAIT`)
	close(checked)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if lockErr != nil {
		t.Fatalf("the user's row was locked during the Stripe call: %v", lockErr)
	}
	if u, err := st.GetUser(ctx, "zed"); err != nil || u.StripeCustomerID == "" {
		t.Fatalf("customer not linked: %+v %v", u, err)
	}
}
