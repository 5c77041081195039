package api

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
)

// Every route the router serves is documented, with its method, and nothing documented is
// missing from the router.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	s := &Server{}
	router := s.Handler().(chi.Routes)
	doc := string(openAPI)
	documented := map[string]bool{}
	var path string
	for _, line := range strings.Split(doc, "\n") {
		if m := regexp.MustCompile(`^  (/\S+):$`).FindStringSubmatch(line); m != nil {
			path = m[1]
		} else if m := regexp.MustCompile(`^    (get|post|delete|put|patch):`).FindStringSubmatch(line); m != nil && path != "" {
			documented[strings.ToUpper(m[1])+" "+path] = true
		} else if !strings.HasPrefix(line, " ") {
			path = ""
		}
	}
	served := map[string]bool{}
	err := chi.Walk(router, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		served[method+" "+route] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for r := range served {
		if !documented[r] {
			t.Errorf("%s is served but not documented in openapi.yaml", r)
		}
	}
	for r := range documented {
		if !served[r] {
			t.Errorf("%s is documented but not served", r)
		}
	}
}
