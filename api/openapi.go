package api

import (
	_ "embed"
	"net/http"
)

//go:embed openapi.yaml
var openAPI []byte

func serveOpenAPI(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(openAPI)
}
