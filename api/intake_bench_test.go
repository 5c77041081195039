package api

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine/engines"
	"github.com/vtsproject/vts/internal/engine/testengine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
	"github.com/vtsproject/vts/internal/testkit/testimage"
)

// BenchmarkIntake streams one multipart upload of a large PNG page through the real intake
// (user lookup, sniffing, header decoding, the plan's size limit, the completeness check, the
// blob write) and, in the same run, two baselines into the same bucket: the same bytes copied
// straight in (what storing costs), and the same multipart body parsed and copied with no check
// (what any multipart upload costs). Allocated bytes per upload show that the file is streamed,
// not held in memory.
func BenchmarkIntake(b *testing.B) {
	ctx := context.Background()
	s, bucket := benchServer(b)
	page := noisePNG(b, 2400, 2400) // about 23 MB, near the Standard plan's limit
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("userId", "bench")
	w, _ := mw.CreateFormFile("images", "page.png")
	_, _ = w.Write(page)
	_ = mw.Close()
	form := body.Bytes()

	var intake, raw, parsed time.Duration
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		jobID := uuid.NewString()
		req := httptest.NewRequest(http.MethodPost, "/api/translate", bytes.NewReader(form))
		req.Header.Set("Content-Type", mw.FormDataContentType())
		start := time.Now()
		if _, err := s.readUpload(httptest.NewRecorder(), req, jobID); err != nil {
			b.Fatal(err)
		}
		intake += time.Since(start)

		b.StopTimer()
		start = time.Now()
		bw, err := bucket.NewWriter(ctx, "raw/"+jobID, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(bw, bytes.NewReader(page)); err != nil {
			b.Fatal(err)
		}
		if err := bw.Close(); err != nil {
			b.Fatal(err)
		}
		raw += time.Since(start)

		start = time.Now()
		mr := multipart.NewReader(bytes.NewReader(form), mw.Boundary())
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			pw, err := bucket.NewWriter(ctx, "raw/"+jobID+"-"+part.FormName(), nil)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := io.Copy(pw, part); err != nil {
				b.Fatal(err)
			}
			if err := pw.Close(); err != nil {
				b.Fatal(err)
			}
		}
		parsed += time.Since(start)
		_, _ = blobstore.DeletePrefix(ctx, bucket, "jobs/")
		_, _ = blobstore.DeletePrefix(ctx, bucket, "raw/")
		b.StartTimer()
	}
	mb := float64(len(page)) * float64(b.N) / (1 << 20)
	b.ReportMetric(mb/intake.Seconds(), "intake-MB/s")
	b.ReportMetric(mb/raw.Seconds(), "raw-copy-MB/s")
	b.ReportMetric(mb/parsed.Seconds(), "multipart-copy-MB/s")
	b.ReportMetric(intake.Seconds()/raw.Seconds(), "ratio-to-raw")
	b.ReportMetric(intake.Seconds()/parsed.Seconds(), "ratio-to-multipart")
}

// benchServer is the upload intake on a file:// bucket and the real store and lifecycle, with the
// user "bench" on the Pro plan.
func benchServer(b *testing.B) (*Server, *blob.Bucket) {
	ctx := context.Background()
	bucket, err := blobstore.Open(ctx, "file://"+filepath.ToSlash(b.TempDir())+"?create_dir=true&no_tmp_dir=true")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bucket.Close() })
	st := pgtest.NewStore(b)
	pgtest.SetPlan(b, st, "bench", "pro")
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	jobs := lifecycle.New(lifecycle.Config{Store: st, Bucket: bucket, Languages: engines.Static(&testengine.Engine{}), Log: log})
	b.Cleanup(jobs.Close)
	return &Server{Store: st, Jobs: jobs, Bucket: bucket, Identity: &Auth{Store: st}, Log: log}, bucket
}

func noisePNG(tb testing.TB, w, h int) []byte {
	tb.Helper()
	data, err := imageio.EncodeBytes(testimage.Noise(w, h), imageio.PNG)
	if err != nil {
		tb.Fatal(err)
	}
	if len(data) < 1<<20 {
		tb.Fatal(fmt.Sprintf("noise page compressed to %d bytes", len(data)))
	}
	return data
}
