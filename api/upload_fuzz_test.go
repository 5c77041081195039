package api

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/plans"
)

const fuzzBoundary = "vtsfuzz"

// fuzzJobs is the job lifecycle of intakeServer: users are on the Free plan ("pro…" on Pro,
// "broke" without credits), "xx" is an unsupported language, every other job is reserved, and a
// discarded upload's files go. What the intake does not call is left to the nil Jobs.
type fuzzJobs struct {
	Jobs
	bucket *blob.Bucket
}

func (fuzzJobs) Admit(ctx context.Context, userID, key, jobID string) (lifecycle.Admission, error) {
	switch {
	case userID == "broke":
		return lifecycle.Admission{Plan: plans.Free}, &job.Refusal{Reason: job.InsufficientCredits, Message: "none"}
	case strings.HasPrefix(userID, "pro"):
		return lifecycle.Admission{Plan: plans.Pro, Available: 1000}, nil
	}
	return lifecycle.Admission{Plan: plans.Free, Available: plans.MaxFilesPerJob * 4}, nil
}

func (fuzzJobs) Release(userID, key, jobID string) {}

func (j fuzzJobs) Discard(jobID string) {
	_, _ = blobstore.DeletePrefix(context.Background(), j.bucket, job.Prefix(jobID))
}

func (fuzzJobs) Start(ctx context.Context, up job.Upload) (int, error) {
	if up.SourceLang == "xx" || up.TargetLang == "xx" {
		return 0, &job.Refusal{Reason: job.UnsupportedPair, Message: "no xx", Supported: []string{"en"}}
	}
	return plans.Cost(len(up.Pages), up.Mode, up.Resolution)
}

// intakeServer is the real router and upload handler on an in-memory bucket, with the lifecycle,
// which needs PostgreSQL and Temporal, replaced by fuzzJobs.
func intakeServer(t testing.TB) (http.Handler, *blob.Bucket) {
	bucket := memblob.OpenBucket(nil)
	t.Cleanup(func() { bucket.Close() })
	s := &Server{Bucket: bucket, Jobs: fuzzJobs{bucket: bucket}, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Limits: &Limits{}, Identity: &Auth{}}
	return s.Handler(), bucket
}

// postForm sends body to POST /api/translate and checks the invariants every answer keeps: no
// 5xx, a 202 with a job or the JSON error shape, and no blob left behind by a refusal.
func postForm(t *testing.T, h http.Handler, bucket *blob.Bucket, contentType string, body []byte) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/api/translate", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	n, err := blobstore.Count(context.Background(), bucket, "jobs/")
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case w.Code >= 500:
		t.Fatalf("%d %s", w.Code, w.Body)
	case w.Code == http.StatusAccepted:
		var a struct{ JobID string }
		if json.Unmarshal(w.Body.Bytes(), &a) != nil || a.JobID == "" || n == 0 {
			t.Fatalf("202 without a job: %s (%d blobs)", w.Body, n)
		}
		if _, err := blobstore.DeletePrefix(context.Background(), bucket, "jobs/"); err != nil {
			t.Fatal(err)
		}
	default:
		var e struct {
			Error *struct{ Code, Message string }
		}
		if w.Code < 400 || json.Unmarshal(w.Body.Bytes(), &e) != nil || e.Error == nil || e.Error.Code == "" || e.Error.Message == "" {
			t.Fatalf("%d outside the error shape: %q", w.Code, w.Body)
		}
		if n != 0 {
			t.Fatalf("%d %s left %d blobs", w.Code, e.Error.Code, n)
		}
	}
	return w
}

// FuzzUpload drives the upload intake with arbitrary multipart bodies. Seeds: testdata/fuzz/FuzzUpload
// (written by testdata/hostile/gen.go) and the forms below.
func FuzzUpload(f *testing.F) {
	page, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "page.png"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(fuzzForm(f, [][2]string{{"userId", "u"}}, "p.png", page))
	f.Add(fuzzForm(f, [][2]string{{"userId", "pro-1"}, {"mode", "advanced"}}, "../p.png", page))
	f.Add(fuzzForm(f, [][2]string{{"userId", "u"}, {"glossary", "# cast\r\nGoku = Son Goku\r\n\r\nx=a=b\n"}}, "p.png", page))
	f.Add(fuzzForm(f, [][2]string{{"userId", "u"}, {"glossary", "Goku=Son Goku\nVegeta\n"}}, "p.png", page))
	h, bucket := intakeServer(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		postForm(t, h, bucket, "multipart/form-data; boundary="+fuzzBoundary, body)
	})
}

func fuzzForm(t testing.TB, fields [][2]string, name string, data []byte) []byte {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.SetBoundary(fuzzBoundary); err != nil {
		t.Fatal(err)
	}
	for _, kv := range fields {
		_ = mw.WriteField(kv[0], kv[1])
	}
	w, _ := mw.CreateFormFile("images", name)
	_, _ = w.Write(data)
	_ = mw.Close()
	return buf.Bytes()
}

// Pages sent before userId may not exceed maxBytesBeforeUser in all: the credential is checked
// at userId, and nothing unauthenticated should fill the bucket.
func TestUserIDFirst(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "testdata", "hostile", "page.png"))
	if err != nil {
		t.Fatal(err)
	}
	old := maxBytesBeforeUser
	maxBytesBeforeUser = int64(2*len(page) + 1)
	t.Cleanup(func() { maxBytesBeforeUser = old })
	h, bucket := intakeServer(t)
	form := func(userFirst bool, pages int) []byte {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		if userFirst {
			_ = mw.WriteField("userId", "u")
		}
		for i := 0; i < pages; i++ {
			w, _ := mw.CreateFormFile("images", fmt.Sprintf("p%d.png", i))
			_, _ = w.Write(page)
		}
		if !userFirst {
			_ = mw.WriteField("userId", "u")
		}
		_ = mw.Close()
		return bytes.ReplaceAll(buf.Bytes(), []byte(mw.Boundary()), []byte(fuzzBoundary))
	}
	ct := "multipart/form-data; boundary=" + fuzzBoundary
	if w := postForm(t, h, bucket, ct, form(false, 2)); w.Code != http.StatusAccepted {
		t.Fatalf("two pages before userId: %d %s", w.Code, w.Body)
	}
	if w := postForm(t, h, bucket, ct, form(false, 3)); w.Code != http.StatusRequestEntityTooLarge || !strings.Contains(w.Body.String(), "user_id_first") {
		t.Fatalf("three pages before userId: %d %s", w.Code, w.Body)
	}
	if w := postForm(t, h, bucket, ct, form(true, 3)); w.Code != http.StatusAccepted {
		t.Fatalf("three pages after userId: %d %s", w.Code, w.Body)
	}
}
