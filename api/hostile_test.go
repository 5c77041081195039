package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/filename"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// hostile reads a file of the corpus that testdata/hostile/gen.go writes.
func hostile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkErrorShape asserts the one error shape of the API: {"error":{"code","message"}} as JSON.
func checkErrorShape(t *testing.T, r *apitest.Response) {
	t.Helper()
	var e struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if r.Header.Get("Content-Type") != "application/json; charset=utf-8" || json.Unmarshal(r.Body, &e) != nil ||
		e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("%d answered outside the error shape: %s %q", r.Status, r.Header.Get("Content-Type"), r.Body)
	}
}

// Every hostile upload is refused with its 4xx JSON error, leaves no blob and moves no credit.
func TestHostileUploadsRefused(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "hostile"
	if _, err := env.Store.EnsureUser(context.Background(), user); err != nil {
		t.Fatal(err)
	}
	// 201 pages cost more than the Free plan's credits, which the intake refuses first: the file
	// count is a Pro user's limit to meet.
	env.SetPlan(user+"-pro", "pro")
	page := hostile(t, "page.png")
	file := func(name, corpus string) apitest.File { return apitest.File{Name: name, Data: hostile(t, corpus)} }
	uid := [][2]string{{"userId", user}}
	with := func(kv ...string) [][2]string {
		out := append([][2]string{}, uid...)
		for i := 0; i+1 < len(kv); i += 2 {
			out = append(out, [2]string{kv[i], kv[i+1]})
		}
		return out
	}
	var many []apitest.File
	for i := 0; i < 201; i++ {
		many = append(many, apitest.File{Name: fmt.Sprintf("p%03d.png", i), Data: page})
	}
	cases := []struct {
		name   string
		fields [][2]string
		files  []apitest.File
		status int
		code   string
	}{
		{"empty file", uid, []apitest.File{file("empty.png", "empty.png")}, 400, "empty_file"},
		{"plain text named .png", uid, []apitest.File{file("notes.png", "text.png")}, 415, "unsupported_media_type"},
		{"PDF named .png", uid, []apitest.File{file("doc.png", "pdf.png")}, 415, "unsupported_media_type"},
		{"SVG posing as PNG", uid, []apitest.File{{Name: "x.png", Data: hostile(t, "svg.png"), Type: "image/svg+xml"}}, 415, "unsupported_media_type"},
		{"HTML posing as JPEG", uid, []apitest.File{{Name: "x.jpg", Data: hostile(t, "html.jpg"), Type: "image/jpeg"}}, 415, "unsupported_media_type"},
		{"truncated PNG", uid, []apitest.File{file("t.png", "truncated.png")}, 422, "corrupt_image"},
		{"truncated JPEG", uid, []apitest.File{file("t.jpg", "truncated.jpg")}, 422, "corrupt_image"},
		{"truncated WebP", uid, []apitest.File{file("t.webp", "truncated.webp")}, 422, "corrupt_image"},
		{"decompression bomb", uid, []apitest.File{file("bomb.png", "bomb.png")}, 422, "image_too_large"},
		{"animated WebP", uid, []apitest.File{file("anim.webp", "animated.webp")}, 422, "animated_image"},
		{"good page then a bad one", uid, []apitest.File{file("ok.png", "page.png"), file("bad.png", "truncated.png")}, 422, "corrupt_image"},
		{"201 files", [][2]string{{"userId", user + "-pro"}}, many, 413, "too_many_files"},
		{"no userId", nil, []apitest.File{file("p.png", "page.png")}, 400, "missing_user_id"},
		{"blank userId", [][2]string{{"userId", "   "}}, []apitest.File{file("p.png", "page.png")}, 400, "invalid_user_id"},
		{"userId with a control character", [][2]string{{"userId", "a\x1bb"}}, []apitest.File{file("p.png", "page.png")}, 400, "invalid_user_id"},
		{"userId twice", with("userId", "other"), []apitest.File{file("p.png", "page.png")}, 400, "duplicate_field"},
		{"1 MB customPrompt", with("customPrompt", strings.Repeat("翻", 1<<20/3)), []apitest.File{file("p.png", "page.png")}, 413, "field_too_large"},
		{"5000-character customPrompt", with("customPrompt", strings.Repeat("x", 5000)), []apitest.File{file("p.png", "page.png")}, 400, "prompt_too_long"},
		{"invalid UTF-8 in customPrompt", with("customPrompt", "\xff\xfe\xfd"), []apitest.File{file("p.png", "page.png")}, 400, "invalid_utf8"},
		{"invalid UTF-8 in userId", [][2]string{{"userId", "u\xc3\x28"}}, []apitest.File{file("p.png", "page.png")}, 400, "invalid_utf8"},
		{"unknown mode", with("mode", "ludicrous"), []apitest.File{file("p.png", "page.png")}, 400, "invalid_mode"},
		{"unknown lettering", with("lettering", "UPPER"), []apitest.File{file("p.png", "page.png")}, 400, "invalid_lettering"},
		{"unknown resolution", with("resolution", "16K"), []apitest.File{file("p.png", "page.png")}, 400, "invalid_resolution"},
		{"unknown source language", with("sourceLang", "elvish"), []apitest.File{file("p.png", "page.png")}, 400, "unsupported_language"},
		{"unknown target language", with("targetLang", "qq"), []apitest.File{file("p.png", "page.png")}, 400, "unsupported_language"},
		{"auto target language", with("targetLang", "auto"), []apitest.File{file("p.png", "page.png")}, 400, "unsupported_language"},
		{"a language the engine refuses", with("targetLang", "xx"), []apitest.File{file("p.png", "page.png")}, 400, "unsupported_language"},
		{"not an image", uid, []apitest.File{{Name: "p.png", Data: []byte("<svg xmlns='http://www.w3.org/2000/svg'/>")}}, 415, "unsupported_media_type"},
		{"insufficient credits", with("mode", "advanced", "resolution", "4K"), []apitest.File{file("p.png", "page.png"), file("q.png", "page.png")}, 402, "insufficient_credits"},
		{"no files", uid, nil, 400, "no_files"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			checkRefused(t, env, env.Upload(c.fields, c.files...), c.status, c.code)
		})
	}

	// Bodies that are not a well-formed multipart form at all.
	raw := []struct {
		name, contentType, body string
		status                  int
		code                    string
	}{
		{"JSON where multipart belongs", "application/json", `{"userId":"hostile","images":["AAAA"]}`, 415, "expected_multipart"},
		{"no Content-Type", "", "userId=hostile", 415, "expected_multipart"},
		{"multipart without a boundary", "multipart/form-data", "--x\r\n", 400, "malformed_multipart"},
		{"cut mid-part", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"userId\"\r\n\r\nhostile\r\n--b\r\nContent-Disposition: form-data; name=\"images\"; filename=\"p.png\"\r\n\r\n" + string(page[:40]), 400, "malformed_multipart"},
		{"raw NUL in a part header", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"images\"; filename=\"a\x00.png\"\r\n\r\n" + string(page) + "\r\n--b--\r\n", 400, "malformed_multipart"},
		{"no closing boundary", "multipart/form-data; boundary=b",
			"--b\r\nContent-Disposition: form-data; name=\"userId\"\r\n\r\nhostile\r\n--b\r\nContent-Disposition: form-data; name=\"images\"; filename=\"p.png\"\r\n\r\n" + string(page) + "\r\n", 400, "malformed_multipart"},
	}
	for _, c := range raw {
		t.Run(c.name, func(t *testing.T) {
			h := http.Header{}
			if c.contentType != "" {
				h.Set("Content-Type", c.contentType)
			}
			checkRefused(t, env, env.Do("POST", "/api/translate", strings.NewReader(c.body), h), c.status, c.code)
		})
	}
	checkNothingMoved(t, env, user, 10)
}

// checkRefused asserts a refusal with its status and code, in the error shape, leaving no blob.
func checkRefused(t *testing.T, env *apitest.Env, r *apitest.Response, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Fatalf("got %d %s, want %d %s", r.Status, r.Body, status, code)
	}
	checkErrorShape(t, r)
	if n := env.Blobs(""); n != 0 {
		t.Fatalf("%d blobs orphaned", n)
	}
}

// checkNothingMoved asserts that refused uploads left the user's credits as they were and no job.
func checkNothingMoved(t *testing.T, env *apitest.Env, user string, allowance int64) {
	t.Helper()
	if al, pu := env.Balance(user); al != allowance || pu != 0 {
		t.Errorf("refused uploads moved credits: %d/%d", al, pu)
	}
	var jobs int
	if err := env.Store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM jobs`).Scan(&jobs); err != nil || jobs != 0 {
		t.Errorf("%d job records from refused uploads (%v)", jobs, err)
	}
}

// Unusual but valid pages are accepted and translated; hostile filenames are sanitized and
// deduplicated in the ZIP.
func TestHostileUploadsAccepted(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	const user = "careful"
	env.SetPlan(user, "pro")
	page := hostile(t, "page.png")
	long := strings.Repeat("長", 1000) + ".png"
	files := []apitest.File{
		{Name: "cmyk.jpg", Data: hostile(t, "cmyk.jpg"), Type: "image/jpeg"},
		{Name: "rotated.jpg", Data: hostile(t, "exif-rotated.jpg"), Type: "image/jpeg"},
		{Name: "deep.png", Data: hostile(t, "png16.png")},
		{Name: "../../etc/passwd.png", Data: page},
		{Name: "/var/www/abs.png", Data: page},
		{Name: `C:\Windows\win.png`, Data: page},
		{Name: "nul\x00byte.png", Data: page},
		{Name: long, Data: page},
		{Name: "invoice\u202egnp.exe", Data: page},
		{Name: "ページ\u200b 1.png", Data: page},
		{Name: "dup.png", Data: page},
		{Name: "dup.png", Data: page},
		{Name: "DUP.png", Data: page},
		{Name: "..", Data: page},
		{Name: "", Data: page},
	}
	a := env.UploadAccepted(t, [][2]string{{"userId", user}}, files...)
	j := terminal(t, env, a.JobID)
	if j.Status != job.Completed || len(j.Results) != len(files) || len(j.Errors) != 0 {
		t.Fatalf("job = %s, %d results, errors %+v", j.Status, len(j.Results), j.Errors)
	}
	resp := env.Do("GET", "/api/download/"+a.JobID, nil, nil)
	if resp.Status != 200 {
		t.Fatalf("download: %d %s", resp.Status, resp.Body)
	}
	zr := openZip(t, resp)
	// The pages, then transcripts/<page>.json and cleaned/<page>: the only folders are those two,
	// and every name in them is a safe page name.
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		name := f.Name
		if rest, ok := strings.CutPrefix(name, "transcripts/"); ok {
			name = strings.TrimSuffix(rest, ".json")
		} else if rest, ok := strings.CutPrefix(name, "cleaned/"); ok {
			name = rest
		}
		if name != filename.Sanitize(name, "x") || strings.ContainsAny(name, "/\\\x00") || !utf8.ValidString(name) ||
			strings.ContainsFunc(name, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) ||
			utf8.RuneCountInString(name) > filename.MaxRunes || len(name) > filename.MaxBytes {
			t.Errorf("unsafe ZIP entry %q", f.Name)
		}
	}
	pages := []string{"cmyk.jpg", "rotated.jpg", "deep.png", "passwd.png", "abs.png", "win.png", "nulbyte.png",
		strings.Repeat("長", (filename.MaxBytes-4)/3) + ".png", "invoicegnp.exe.png", "ページ 1.png", "dup.png", "dup (2).png", "DUP (3).png",
		"page-014.png", "page-015.png"}
	want := slices.Clone(pages)
	for _, p := range pages {
		want = append(want, "transcripts/"+p+".json")
	}
	for _, p := range pages {
		want = append(want, "cleaned/"+p)
	}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("ZIP entries\n got %q\nwant %q", names, want)
	}
	// Pages come back in their source's format and shape: the EXIF rotation applied, CMYK and
	// 16-bit read.
	dims := map[string][2]int{"cmyk.jpg": {150, 103}, "rotated.jpg": {32, 48}, "deep.png": {20, 14}, "passwd.png": {32, 24}}
	for _, f := range zr.File {
		d, ok := dims[f.Name]
		if !ok {
			continue
		}
		rc, _ := f.Open()
		cfg, format, err := image.DecodeConfig(rc)
		rc.Close()
		if err != nil || cfg.Width != d[0] || cfg.Height != d[1] || imageio.Extension(format) != filepath.Ext(f.Name) {
			t.Errorf("%s: %dx%d %s (%v), want %dx%d", f.Name, cfg.Width, cfg.Height, format, err, d[0], d[1])
		}
	}
	if al, _ := env.Balance(user); al != 1000-int64(len(files)) {
		t.Errorf("allowance = %d after %d pages", al, len(files))
	}
}
