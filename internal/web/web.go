// Package web is the page that readers and scanlation teams use: plain HTML, CSS and JavaScript
// embedded in the binary, with no build step and nothing fetched from elsewhere at runtime. It
// talks to the API on the same origin, exactly as any other client does.
package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// CSP is the Content-Security-Policy of every file: nothing but this origin, no inline script or
// style, images also from blob: (thumbnails of the chosen files) and data:, and no framing.
const CSP = "default-src 'self'; img-src 'self' blob: data:; connect-src 'self'; style-src 'self'; script-src 'self'; frame-ancestors 'none'"

// FS is the page's files: index.html and its assets at the root.
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the directory is embedded; it cannot be missing
	}
	return sub
}

type file struct {
	data        []byte
	contentType string
	etag        string
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// files maps each URL path ("/" for index.html) to its file, read once at start.
var files = func() map[string]file {
	m := map[string]file{}
	err := fs.WalkDir(FS(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(FS(), name)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		ct := contentTypes[path.Ext(name)]
		if ct == "" {
			ct = "application/octet-stream"
		}
		f := file{data: data, contentType: ct, etag: `"` + hex.EncodeToString(sum[:12]) + `"`}
		m["/"+name] = f
		if name == "index.html" {
			m["/"] = f
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	return m
}()

// Fallback serves the page for GET and HEAD of "/" and of its files, and hands every other
// request to next. The API mounts it as its not-found handler: the page is not an API endpoint
// (the OpenAPI document describes the API only), so it lives beside the router's routes rather
// than among them, and any path that is not one of its files still gets the API's JSON 404.
func Fallback(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, ok := files[r.URL.Path]
		if !ok || (r.Method != http.MethodGet && r.Method != http.MethodHead) || strings.HasPrefix(r.URL.Path, "/api/") {
			next.ServeHTTP(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Type", f.contentType)
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		// Always revalidate: the names carry no version, and the ETag makes revalidation a 304.
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", f.etag)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(f.data))
	})
}
