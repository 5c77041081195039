package api

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"runtime"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/blobstore"
)

// BenchmarkChapterIntake sends a 200-page chapter through the real intake twice per iteration:
// as one CBZ part (spooled, its directory read, each entry inflated under its bounds, checked and
// stored) and, as the baseline in the same run, as 200 plain multipart parts of the same pages.
// It reports both rates over the pages' bytes, their ratio, and the bytes each allocates.
func BenchmarkChapterIntake(b *testing.B) {
	ctx := context.Background()
	s, bucket := benchServer(b)
	page := noisePNG(b, 600, 600) // about 1.4 MB: a 200-page chapter of about 280 MB
	const pages = 200
	var cbz bytes.Buffer
	zw := zip.NewWriter(&cbz)
	for i := range pages {
		w, _ := zw.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("ch1/p%d.png", i+1), Method: zip.Store})
		_, _ = w.Write(page)
	}
	_ = zw.Close()
	chapterForm, chapterType := benchForm(func(mw *multipart.Writer) {
		w, _ := mw.CreateFormFile("images", "chapter.cbz")
		_, _ = w.Write(cbz.Bytes())
	})
	plainForm, plainType := benchForm(func(mw *multipart.Writer) {
		for i := range pages {
			w, _ := mw.CreateFormFile("images", fmt.Sprintf("p%d.png", i+1))
			_, _ = w.Write(page)
		}
	})
	run := func(form []byte, ctype string) (time.Duration, uint64) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		req := httptest.NewRequest(http.MethodPost, "/api/translate", bytes.NewReader(form))
		req.Header.Set("Content-Type", ctype)
		start := time.Now()
		f, err := s.readUpload(httptest.NewRecorder(), req, uuid.NewString())
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if err != nil || len(f.Pages) != pages {
			b.Fatalf("intake: %v", err)
		}
		_, _ = blobstore.DeletePrefix(ctx, bucket, "jobs/")
		return elapsed, after.TotalAlloc - before.TotalAlloc
	}

	var chapter, plain time.Duration
	var chapterAlloc, plainAlloc uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d, a := run(chapterForm, chapterType)
		chapter, chapterAlloc = chapter+d, chapterAlloc+a
		d, a = run(plainForm, plainType)
		plain, plainAlloc = plain+d, plainAlloc+a
	}
	mb := float64(len(page)) * pages * float64(b.N) / (1 << 20)
	b.ReportMetric(mb/chapter.Seconds(), "cbz-MB/s")
	b.ReportMetric(mb/plain.Seconds(), "multipart-MB/s")
	b.ReportMetric(chapter.Seconds()/plain.Seconds(), "ratio-to-multipart")
	b.ReportMetric(float64(chapterAlloc)/float64(b.N)/(1<<20), "cbz-alloc-MB/op")
	b.ReportMetric(float64(plainAlloc)/float64(b.N)/(1<<20), "multipart-alloc-MB/op")
}

func benchForm(files func(*multipart.Writer)) ([]byte, string) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("userId", "bench")
	files(mw)
	_ = mw.Close()
	return body.Bytes(), mw.FormDataContentType()
}
