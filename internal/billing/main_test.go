package billing_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
	"github.com/vtsproject/vts/internal/testkit/stripetest"
)

const (
	testSecretKey     = "sk_test_vtsbillingsecret0123456789"
	testWebhookSecret = "whsec_vtstestsecret"
	testPrices        = "price_starter=plan:starter,price_standard=plan:standard,price_pro=plan:pro,price_pack100=credits:100,price_pack500=credits:500"
)

// stripeMockURL is the stripe-mock TestMain started, or stripeMockErr says why there is none.
var (
	stripeMockURL string
	stripeMockErr error
)

func TestMain(m *testing.M) {
	var stop func()
	stripeMockURL, stop, stripeMockErr = stripetest.Start()
	code := m.Run()
	if stop != nil {
		stop()
	}
	os.Exit(code)
}

func needStripeMock(t *testing.T) {
	t.Helper()
	if stripeMockErr != nil {
		t.Fatalf("this test needs stripe-mock v0.203.0: %v", stripeMockErr)
	}
}

// recorded is one request the recording proxy forwarded to stripe-mock.
type recorded struct {
	Method, Path, IdempotencyKey string
	Form                         url.Values
}

// recorder sits between the service and stripe-mock and keeps the requests, since stripe-mock
// answers canned objects and cannot tell us what was asked.
type recorder struct {
	mu   sync.Mutex
	reqs []recorded
}

func (r *recorder) all(path string) []recorded {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []recorded
	for _, q := range r.reqs {
		if q.Path == path {
			out = append(out, q)
		}
	}
	return out
}

func startRecorder(t *testing.T) (*recorder, string) {
	needStripeMock(t)
	target, _ := url.Parse(stripeMockURL)
	proxy := httputil.NewSingleHostReverseProxy(target)
	rec := &recorder{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		form, _ := url.ParseQuery(string(body))
		rec.mu.Lock()
		rec.reqs = append(rec.reqs, recorded{Method: r.Method, Path: r.URL.Path, IdempotencyKey: r.Header.Get("Idempotency-Key"), Form: form})
		rec.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return rec, srv.URL
}

// clock is the harness's now, shared by the store and billing so a test can cross a period.
type clock struct{ t atomic.Int64 }

func (c *clock) Now() time.Time   { return time.Unix(0, c.t.Load()).UTC() }
func (c *clock) Set(t time.Time)  { c.t.Store(t.UnixNano()) }
func newClock(t time.Time) *clock { c := &clock{}; c.Set(t); return c }

type harness struct {
	t     *testing.T
	st    *store.Store
	svc   *billing.Service
	clock *clock
	rec   *recorder
	n     atomic.Int64
	sent  [][]byte // every payload delivered, for replays
	mu    sync.Mutex
}

// newHarness builds a Service on a fresh database; withStripe also routes it through the
// recorder to stripe-mock.
func newHarness(t *testing.T, withStripe bool) *harness {
	t.Helper()
	clk := newClock(time.Now().UTC().Truncate(time.Second))
	base := pgtest.NewStore(t)
	st := base.WithClock(clk.Now)
	opts := billing.Options{Store: st, WebhookSecret: testWebhookSecret, Prices: testPrices,
		SuccessURL: "http://vts.test/ok?session_id={CHECKOUT_SESSION_ID}", CancelURL: "http://vts.test/cancel", Now: clk.Now}
	h := &harness{t: t, st: st, clock: clk}
	if withStripe {
		rec, u := startRecorder(t)
		h.rec = rec
		opts.SecretKey, opts.APIURL = testSecretKey, u
	}
	svc, err := billing.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	h.svc = svc
	return h
}

// subscribePro pays the first invoice, invoiceID, of user's Pro subscription sub (customer
// cus_<user>) for the month that began an hour before the clock, and returns that month.
func (h *harness) subscribePro(invoiceID, user, sub string) (start, end time.Time) {
	h.t.Helper()
	now := h.clock.Now()
	start = now.Add(-time.Hour)
	end = start.AddDate(0, 1, 0)
	h.must(h.event("invoice.paid", now, invoiceObj(invoiceID, user, "cus_"+user, sub, "price_pro", start, end)))
	return start, end
}

// event builds a Stripe event around obj.
func (h *harness) event(typ string, created time.Time, obj any) []byte {
	return h.eventVersion(typ, created, obj, "2023-10-16")
}

func (h *harness) eventVersion(typ string, created time.Time, obj any, version string) []byte {
	b, err := json.Marshal(map[string]any{
		"id": fmt.Sprintf("evt_%s_%d", strings.ReplaceAll(typ, ".", "_"), h.n.Add(1)), "object": "event",
		"api_version": version, "created": created.Unix(), "type": typ, "livemode": false,
		"pending_webhooks": 1, "data": map[string]any{"object": obj},
	})
	if err != nil {
		h.t.Fatal(err)
	}
	return b
}

// deliver signs payload now with the webhook secret and hands it to the service.
func (h *harness) deliver(payload []byte) error {
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: testWebhookSecret})
	err := h.svc.HandleWebhook(context.Background(), payload, sp.Header)
	if err == nil {
		h.mu.Lock()
		h.sent = append(h.sent, payload)
		h.mu.Unlock()
	}
	return err
}

// must delivers payload twice: the second delivery must succeed and change nothing.
func (h *harness) must(payload []byte) {
	h.t.Helper()
	if err := h.deliver(payload); err != nil {
		h.t.Fatalf("delivering %s: %v", eventType(payload), err)
	}
	before := h.snapshot()
	if err := h.deliver(payload); err != nil {
		h.t.Fatalf("redelivering %s: %v", eventType(payload), err)
	}
	if after := h.snapshot(); after != before {
		h.t.Fatalf("redelivered %s changed state:\n before %s\n after  %s", eventType(payload), before, after)
	}
}

func eventType(payload []byte) string {
	var e struct{ ID, Type string }
	_ = json.Unmarshal(payload, &e)
	return e.Type + " " + e.ID
}

// snapshot is every user's balances, plan and subscription state plus the ledger's size.
func (h *harness) snapshot() string {
	h.t.Helper()
	ctx := context.Background()
	rows, err := h.st.Pool().Query(ctx, `SELECT id, plan, allowance_credits, purchased_credits, debt_credits,
		period_start, period_end, COALESCE(subscription_status, ''), COALESCE(stripe_subscription_id, '') FROM users ORDER BY id`)
	if err != nil {
		h.t.Fatal(err)
	}
	var b strings.Builder
	for rows.Next() {
		var id, plan, status, sub string
		var a, p, d int64
		var ps, pe time.Time
		if err := rows.Scan(&id, &plan, &a, &p, &d, &ps, &pe, &status, &sub); err != nil {
			h.t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s:%s a=%d p=%d d=%d %s..%s %s %s; ", id, plan, a, p, d, ps.UTC().Format(time.RFC3339), pe.UTC().Format(time.RFC3339), status, sub)
	}
	if err := rows.Err(); err != nil {
		h.t.Fatal(err)
	}
	var n int
	if err := h.st.Pool().QueryRow(ctx, `SELECT count(*) FROM credit_ledger`).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	fmt.Fprintf(&b, "ledger=%d", n)
	return b.String()
}

// user reads the user and checks its balances equal its ledger's sums.
func (h *harness) user(id string) *store.User {
	h.t.Helper()
	return pgtest.CheckedUser(h.t, h.st, id)
}

func wantCode(t *testing.T, err error, kind billing.Kind, code string) {
	t.Helper()
	be, ok := billing.AsError(err)
	if !ok || be.Kind != kind || be.Code != code {
		t.Fatalf("err = %v, want %d %s", err, kind, code)
	}
}

// Stripe objects, shaped as API version 2023-10-16 renders them.

func sessionObj(id, mode, userID, priceID, customer, subscription, paymentIntent string, amount int64) map[string]any {
	o := map[string]any{"id": id, "object": "checkout.session", "mode": mode, "payment_status": "paid", "status": "complete",
		"customer": customer, "client_reference_id": userID, "amount_total": amount,
		"metadata": map[string]string{"userId": userID, "priceId": priceID}}
	if subscription != "" {
		o["subscription"] = subscription
	} else {
		o["subscription"] = nil
	}
	if paymentIntent != "" {
		o["payment_intent"] = paymentIntent
	} else {
		o["payment_intent"] = nil
	}
	return o
}

func invoiceObj(id, userID, customer, sub, priceID string, start, end time.Time) map[string]any {
	meta := map[string]string{}
	if userID != "" {
		meta = map[string]string{"userId": userID, "priceId": priceID}
	}
	return map[string]any{"id": id, "object": "invoice", "customer": customer, "subscription": sub, "status": "paid",
		"billing_reason": "subscription_cycle", "subscription_details": map[string]any{"metadata": meta},
		"lines": map[string]any{"object": "list", "data": []any{map[string]any{
			"id": "il_" + id, "object": "line_item", "type": "subscription", "proration": false, "subscription": sub,
			"price":  map[string]any{"id": priceID, "object": "price"},
			"period": map[string]any{"start": start.Unix(), "end": end.Unix()}, "metadata": meta,
		}}}}
}

func subscriptionObj(id, userID, customer, status, priceID string) map[string]any {
	meta := map[string]string{}
	if userID != "" {
		meta = map[string]string{"userId": userID, "priceId": priceID}
	}
	return map[string]any{"id": id, "object": "subscription", "customer": customer, "status": status, "metadata": meta,
		"items": map[string]any{"object": "list", "data": []any{map[string]any{"id": "si_" + id,
			"price": map[string]any{"id": priceID, "object": "price"}}}}}
}

func chargeObj(id, paymentIntent string, amount, refunded int64, meta map[string]string) map[string]any {
	return map[string]any{"id": id, "object": "charge", "amount": amount, "amount_refunded": refunded, "refunded": refunded == amount,
		"payment_intent": paymentIntent, "invoice": nil, "metadata": meta}
}

// deliverAtGate delivers the event on a goroutine of wg once gate is closed; an error fails t,
// prefixed by label.
func (h *harness) deliverAtGate(t *testing.T, wg *sync.WaitGroup, gate <-chan struct{}, label string, payload []byte) {
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-gate
		if err := h.deliver(payload); err != nil {
			t.Errorf("%s%s: %v", label, eventType(payload), err)
		}
	}()
}

// race releases at once: every event delivered twice, the first two of jobs settled, and n
// reservations of pages pages in mode for user; then it settles every job, twice at once, and
// returns all the jobs. Errors other than a refused reservation fail the test, prefixed by label.
func (h *harness) race(t *testing.T, label string, events [][]byte, jobs []string, user string, mode job.Mode, pages, n int) []string {
	t.Helper()
	gate := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, p := range events {
		h.deliverAtGate(t, &wg, gate, label, p)
		h.deliverAtGate(t, &wg, gate, label, p)
	}
	settle := func(id string) {
		defer wg.Done()
		<-gate
		if _, err := h.st.FinishJob(context.Background(), job.Outcome{JobID: id, Status: job.Failed, FinishedAt: h.clock.Now()}); err != nil {
			t.Errorf("%ssettling %s: %v", label, id, err)
		}
	}
	for _, id := range jobs[:min(2, len(jobs))] {
		wg.Add(1)
		go settle(id)
	}
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			if id, ok := pgtest.TryReserve(t, h.st, user, mode, pages); ok {
				mu.Lock()
				jobs = append(jobs, id)
				mu.Unlock()
			}
		}()
	}
	close(gate)
	wg.Wait()
	h.user(user)
	for _, id := range jobs {
		wg.Add(2)
		go settle(id)
		go settle(id)
	}
	wg.Wait()
	return jobs
}
