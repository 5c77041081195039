package api_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v76/webhook"

	"github.com/vtsproject/vts/internal/billing"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/stripetest"
)

const whsec = "whsec_apitest"

type account struct {
	UserID           string `json:"userId"`
	Plan             string `json:"plan"`
	AllowanceCredits int64  `json:"allowanceCredits"`
	PurchasedCredits int64  `json:"purchasedCredits"`
	PagesThisPeriod  int    `json:"pagesThisPeriod"`
}

func getAccount(t *testing.T, env *apitest.Env, user string) account {
	t.Helper()
	r := env.Do("GET", "/api/account?userId="+user, nil, nil)
	if r.Status != 200 {
		t.Fatalf("account: %d %s", r.Status, r.Body)
	}
	var a account
	r.JSON(t, &a)
	return a
}

func postJSON(env *apitest.Env, path, body string) *apitest.Response {
	return env.Do("POST", path, strings.NewReader(body), http.Header{"Content-Type": {"application/json"}})
}

func signedEvent(t *testing.T, n int, typ string, obj map[string]any) []byte {
	b, err := json.Marshal(map[string]any{"id": fmt.Sprintf("evt_api_%d", n), "object": "event", "api_version": "2023-10-16",
		"created": time.Now().Unix(), "type": typ, "livemode": false, "data": map[string]any{"object": obj}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func deliver(env *apitest.Env, payload []byte, secret string) *apitest.Response {
	sp := webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret})
	return env.Do("POST", "/api/stripe/webhook", bytes.NewReader(payload), http.Header{
		"Content-Type": {"application/json"}, "Stripe-Signature": {sp.Header}})
}

// A reader buys the Pro plan and a credit pack through the API: checkout sessions at stripe-mock,
// signed webhooks at our endpoint, and then an upload that the Free plan would refuse (a 6 MB
// page, and a second job while one runs) is accepted. Replaying every webhook changes nothing.
func TestBuyPlanAndPackThroughTheAPI(t *testing.T) {
	stripeURL, stop, err := stripetest.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	env := apitest.Start(t, apitest.Options{
		Engine: &testengine.Engine{BlockSubstring: "hold"},
		Billing: &billing.Options{SecretKey: "sk_test_api", WebhookSecret: whsec, APIURL: stripeURL,
			Prices: "price_pro=plan:pro,price_pack=credits:100", SuccessURL: "http://vts.test/ok", CancelURL: "http://vts.test/no"},
	})
	const user = "buyer"

	// Checkout: both modes answer a URL; mismatches and unknown prices are 400.
	for _, c := range []struct{ body, code string }{
		{`{"priceId":"price_pro","mode":"subscription","userId":"buyer"}`, ""},
		{`{"priceId":"price_pack","mode":"payment","userId":"buyer"}`, ""},
		{`{"priceId":"price_pro","mode":"payment","userId":"buyer"}`, "mode_mismatch"},
		{`{"priceId":"price_nope","mode":"payment","userId":"buyer"}`, "unknown_price"},
	} {
		r := postJSON(env, "/api/checkout", c.body)
		if c.code == "" {
			var out struct{ URL string }
			r.JSON(t, &out)
			if r.Status != 200 || !strings.HasPrefix(out.URL, "http") {
				t.Fatalf("checkout %s: %d %s", c.body, r.Status, r.Body)
			}
		} else if r.Status != 400 || r.ErrorCode() != c.code {
			t.Fatalf("checkout %s: %d %s, want 400 %s", c.body, r.Status, r.Body, c.code)
		}
	}

	// Before buying: Free refuses a 6 MB page.
	big := apitest.File{Name: "big.png", Data: apitest.NoisePNG(t, 1300, 1300)}
	if r := env.Upload([][2]string{{"userId", user}}, big); r.Status != 413 {
		t.Fatalf("6 MB page on Free: %d %s", r.Status, r.Body)
	}

	now := time.Now()
	events := [][]byte{
		signedEvent(t, 1, "checkout.session.completed", map[string]any{"id": "cs_sub", "object": "checkout.session",
			"mode": "subscription", "payment_status": "paid", "status": "complete", "customer": "cus_buyer",
			"client_reference_id": user, "subscription": "sub_buyer", "payment_intent": nil,
			"metadata": map[string]string{"userId": user, "priceId": "price_pro"}}),
		signedEvent(t, 2, "invoice.paid", map[string]any{"id": "in_1", "object": "invoice", "customer": "cus_buyer",
			"subscription": "sub_buyer", "status": "paid", "billing_reason": "subscription_create",
			"subscription_details": map[string]any{"metadata": map[string]string{"userId": user, "priceId": "price_pro"}},
			"lines": map[string]any{"object": "list", "data": []any{map[string]any{"id": "il_1", "object": "line_item",
				"type": "subscription", "proration": false, "subscription": "sub_buyer",
				"price":  map[string]any{"id": "price_pro", "object": "price"},
				"period": map[string]any{"start": now.Add(-time.Minute).Unix(), "end": now.AddDate(0, 1, 0).Unix()}}}}}),
		signedEvent(t, 3, "checkout.session.completed", map[string]any{"id": "cs_pack", "object": "checkout.session",
			"mode": "payment", "payment_status": "paid", "status": "complete", "customer": "cus_buyer",
			"client_reference_id": user, "subscription": nil, "payment_intent": "pi_pack", "amount_total": 1000,
			"metadata": map[string]string{"userId": user, "priceId": "price_pack"}}),
	}
	// A forged signature changes nothing.
	if r := deliver(env, events[2], "whsec_forged"); r.Status != 400 || r.ErrorCode() != "invalid_signature" {
		t.Fatalf("forged webhook: %d %s", r.Status, r.Body)
	}
	if a := getAccount(t, env, user); a.Plan != "free" || a.PurchasedCredits != 0 {
		t.Fatalf("forged webhook moved something: %+v", a)
	}
	for _, e := range events {
		if r := deliver(env, e, whsec); r.Status != 200 {
			t.Fatalf("webhook: %d %s", r.Status, r.Body)
		}
	}
	acct := getAccount(t, env, user)
	if acct.Plan != "pro" || acct.AllowanceCredits != 1000 || acct.PurchasedCredits != 100 {
		t.Fatalf("after buying: %+v", acct)
	}
	env.Balance(user)

	// Pro's limits: the 6 MB page and a second job alongside a running one.
	first := env.Upload([][2]string{{"userId", user}}, apitest.File{Name: "hold.png", Data: apitest.PNG(t, 10, 10, 1)})
	second := env.Upload([][2]string{{"userId", user}}, big)
	if first.Status != 202 || second.Status != 202 {
		t.Fatalf("uploads under Pro: %d %s / %d %s", first.Status, first.Body, second.Status, second.Body)
	}

	// Replaying the whole webhook history, backwards, changes nothing.
	before := getAccount(t, env, user)
	for i := len(events) - 1; i >= 0; i-- {
		if r := deliver(env, events[i], whsec); r.Status != 200 {
			t.Fatalf("replay: %d %s", r.Status, r.Body)
		}
	}
	if after := getAccount(t, env, user); after != before {
		t.Fatalf("replay changed the account: %+v -> %+v", before, after)
	}
	env.Balance(user)
}
