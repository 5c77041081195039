package web_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/web"
)

// The page and its assets are served with their types, the strict CSP and revalidation; every
// other request goes to the next handler.
func TestFallbackServesThePage(t *testing.T) {
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "next", http.StatusTeapot)
	})
	srv := httptest.NewServer(web.Fallback(next))
	defer srv.Close()
	get := func(method, path string, header http.Header) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		for k, v := range header {
			req.Header[k] = v
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	for path, typ := range map[string]string{
		"/":         "text/html; charset=utf-8",
		"/app.js":   "text/javascript; charset=utf-8",
		"/app.css":  "text/css; charset=utf-8",
		"/icon.svg": "image/svg+xml",
	} {
		resp := get("GET", path, nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != typ || len(body) == 0 {
			t.Errorf("GET %s: %d %q, %d bytes", path, resp.StatusCode, resp.Header.Get("Content-Type"), len(body))
		}
		for k, v := range map[string]string{"Content-Security-Policy": web.CSP, "X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"} {
			if got := resp.Header.Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", path, k, got, v)
			}
		}
		etag := resp.Header.Get("ETag")
		if etag == "" {
			t.Errorf("GET %s: no ETag", path)
		} else if again := get("GET", path, http.Header{"If-None-Match": {etag}}); again.StatusCode != http.StatusNotModified {
			t.Errorf("GET %s with its ETag: %d, want 304", path, again.StatusCode)
		}
	}
	// Nothing comes from elsewhere, and index.html has no inline script, style or handler.
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		body, _ := io.ReadAll(get("GET", path, nil).Body)
		if m := regexp.MustCompile(`(?i:https?://)|//[a-z0-9.-]+\.[a-z]{2,}/|@import|url\(`).Find(body); m != nil {
			t.Errorf("%s refers to %q: the page must work offline from this origin alone", path, m)
		}
		if path == "/" {
			if m := regexp.MustCompile(`(?i)<style|\sstyle=|\son[a-z]+=|<script>|javascript:`).Find(body); m != nil {
				t.Errorf("index.html has inline %q, which the CSP forbids", m)
			}
		}
	}
	for _, c := range []struct{ method, path string }{
		{"POST", "/"}, {"GET", "/nope"}, {"GET", "/api/translate"}, {"GET", "/static/app.js"}, {"DELETE", "/app.js"},
	} {
		if resp := get(c.method, c.path, nil); resp.StatusCode != http.StatusTeapot {
			t.Errorf("%s %s: %d, want the next handler", c.method, c.path, resp.StatusCode)
		}
	}
	if resp := get("HEAD", "/app.js", nil); resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD /app.js: %d", resp.StatusCode)
	}
}

// The API serves the page at / and its files, and still answers its JSON 404 everywhere else.
func TestTheAPIServesThePage(t *testing.T) {
	env := apitest.Start(t, apitest.Options{NoWorker: true})
	for _, path := range []string{"/", "/app.js", "/app.css"} {
		r := env.Do("GET", path, nil, nil)
		if r.Status != http.StatusOK || r.Header.Get("Content-Security-Policy") != web.CSP || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: %d, CSP %q", path, r.Status, r.Header.Get("Content-Security-Policy"))
		}
	}
	for _, c := range []struct{ method, path string }{{"GET", "/nope"}, {"POST", "/"}, {"GET", "/api/nope"}, {"GET", "/api/app.js"}} {
		if r := env.Do(c.method, c.path, nil, nil); r.Status != http.StatusNotFound || r.ErrorCode() != "not_found" {
			t.Errorf("%s %s: %d %s, want the JSON 404", c.method, c.path, r.Status, r.Body)
		}
	}
}
