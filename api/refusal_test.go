package api_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/http/httputil"
	"net/textproto"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/apitest"
	"github.com/vtsproject/vts/internal/testkit/pgtest"
)

// streamUpload sends a translate request of pages copies of page over a raw connection, fields
// before or after the images, and stops writing once the answer has come (or the server closed
// the connection). It answers the response and how many bytes of the body were written, of total.
func streamUpload(t *testing.T, env *apitest.Env, header http.Header, fields [][2]string, fieldsFirst bool, page []byte, pages int) (*http.Response, int64, int64) {
	t.Helper()
	u, _ := url.Parse(env.URL)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	boundary := "refusalboundary"
	head := fmt.Sprintf("POST /api/translate HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Type: multipart/form-data; boundary=%s\r\n", boundary)
	for k, vs := range header {
		for _, v := range vs {
			head += k + ": " + v + "\r\n"
		}
	}
	if _, err := io.WriteString(c, head+"\r\n"); err != nil {
		t.Fatal(err)
	}
	var written, total atomic.Int64
	answered := make(chan struct{})
	go func() {
		cw := httputil.NewChunkedWriter(&countingWriter{w: c, n: &written, stop: answered})
		mw := multipart.NewWriter(cw)
		_ = mw.SetBoundary(boundary)
		writeFields := func() {
			for _, f := range fields {
				_ = mw.WriteField(f[0], f[1])
			}
		}
		if fieldsFirst {
			writeFields()
		}
		for i := 0; i < pages; i++ {
			h := textproto.MIMEHeader{}
			h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="images"; filename="p%03d.png"`, i))
			h.Set("Content-Type", "image/png")
			w, err := mw.CreatePart(h)
			if err != nil {
				return
			}
			if _, err := w.Write(page); err != nil {
				return
			}
		}
		if !fieldsFirst {
			writeFields()
		}
		if mw.Close() == nil && cw.Close() == nil {
			_, _ = io.WriteString(c, "\r\n")
		}
	}()
	// What the whole body would be.
	cnt := &countingWriter{w: io.Discard, n: &total}
	mw := multipart.NewWriter(cnt)
	_ = mw.SetBoundary(boundary)
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	for i := 0; i < pages; i++ {
		w, _ := mw.CreateFormFile("images", fmt.Sprintf("p%03d.png", i))
		_, _ = w.Write(page)
	}
	_ = mw.Close()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	close(answered)
	if err != nil {
		t.Fatalf("reading the answer: %v (%d bytes written)", err, written.Load())
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	return resp, written.Load(), total.Load()
}

type countingWriter struct {
	w    io.Writer
	n    *atomic.Int64
	stop chan struct{}
}

func (c *countingWriter) Write(p []byte) (int, error) {
	if c.stop != nil {
		select {
		case <-c.stop:
			return 0, io.ErrClosedPipe
		default:
		}
	}
	n, err := c.w.Write(p)
	c.n.Add(int64(n))
	return n, err
}

// An upload the reservation would refuse is refused before its images stream: a user with one
// credit left who sends 200 pages, and a request whose API key is unknown whose userId comes after
// its images. Neither streams more than a sliver of its body, leaves a blob or moves a credit.
func TestRefusedUploadStopsReading(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	ctx := context.Background()
	// Spend 9 of the Free plan's 10 credits.
	seed := pgtest.Reserve(t, env.Store, "thrifty", "standard", 9)
	if _, err := env.Store.FinishJob(ctx, job.Outcome{JobID: seed, Status: "completed", PagesDone: 9, FinishedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	page := apitest.NoisePNG(t, 256, 256) // about 260 KB, so that 200 of them dwarf the socket buffers
	for _, c := range []struct {
		name        string
		header      http.Header
		user        string
		fieldsFirst bool
		status      int
	}{
		{"200 pages with 1 credit", nil, "thrifty", true, 402},
		{"an unknown API key", http.Header{"Authorization": {"Bearer vts_live_" + uuid.NewString()}}, "mallory", false, 401},
	} {
		resp, written, total := streamUpload(t, env, c.header, [][2]string{{"userId", c.user}}, c.fieldsFirst, page, 200)
		t.Logf("%s: %d, %d of %d bytes written", c.name, resp.StatusCode, written, total)
		if resp.StatusCode != c.status {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%s: %d %s", c.name, resp.StatusCode, b)
		}
		if written > total/4 {
			t.Fatalf("%s: the refused upload streamed %d of %d bytes", c.name, written, total)
		}
	}
	if al, pu := env.Balance("thrifty"); al != 1 || pu != 0 {
		t.Fatalf("balance %d/%d, want 1/0", al, pu)
	}
	if n := env.Blobs(""); n != 0 {
		t.Fatalf("%d blobs left behind by refused uploads", n)
	}
}
