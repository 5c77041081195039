package api

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/google/uuid"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/filename"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
)

// jobFromPath reads the job named by the path parameter, answering 404 for malformed, unknown
// and deleted jobs alike. The job ID is the capability of these endpoints; a request that also
// presents a credential must present its owner's.
func (s *Server) jobFromPath(r *http.Request, param string) (*store.Job, error) {
	id, err := jobIDFromPath(r, param)
	if err != nil {
		return nil, err
	}
	j, err := s.Jobs.Job(r.Context(), id)
	if err != nil {
		return nil, err
	}
	if err := s.authorizeViewer(r, j.UserID); err != nil {
		return nil, err
	}
	return j, nil
}

// jobIDFromPath reads the job ID in the path parameter in its canonical spelling. uuid.Parse and
// PostgreSQL accept upper case, braces and a missing hyphen, but workflow IDs and blob prefixes
// are built from the string: a job named by another spelling must still reach its workflow and its
// files (Swift's UUID.uuidString is upper case).
func jobIDFromPath(r *http.Request, param string) (string, error) {
	u, err := uuid.Parse(chi.URLParam(r, param))
	if err != nil {
		return "", errJobNotFound
	}
	return u.String(), nil
}

func (s *Server) getJob(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobFromPath(r, "jobId")
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	st, err := s.Jobs.State(r.Context(), j.ID)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	writeJSON(w, http.StatusOK, clientState(st))
}

// outputURL is where output serves a translated page.
func outputURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/" + url.PathEscape(outputName)
}

// transcriptURL is where transcript serves a translated page's transcript, as JSON.
func transcriptURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/transcripts/" + url.PathEscape(outputName+".json")
}

// cleanedURL is where cleaned serves a page with its lettering removed.
func cleanedURL(jobID, outputName string) string {
	return "/api/outputs/" + jobID + "/cleaned/" + url.PathEscape(outputName)
}

// defaultHeartbeat keeps proxies from closing a quiet stream.
const defaultHeartbeat = 15 * time.Second

// events is the SSE stream: the current state at once, then every change, each with an id; a
// comment every 15 s; closed by the server after the terminal message, or, while an edit of a
// page is being applied, after the message that shows its outcome. That last message was read
// after the stream opened, so a stream opened once an edit was accepted ends on its outcome.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	j, err := s.jobFromPath(r, "jobId")
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	closeStream, err := s.limits.openStream(r)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	defer closeStream()
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := io.WriteString(w, "retry: 2000\n\n"); err != nil {
		return
	}
	_ = rc.Flush()
	updates, leave := s.Jobs.Watch(j.ID)
	defer leave()
	heartbeat := s.Heartbeat
	if heartbeat <= 0 {
		heartbeat = defaultHeartbeat
	}
	tick := time.NewTicker(heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
			_ = rc.SetWriteDeadline(time.Now().Add(heartbeat * 2))
			if _, err := io.WriteString(w, ": heartbeat\n\n"); err != nil {
				return
			}
			_ = rc.Flush()
		case u, ok := <-updates:
			if !ok {
				return
			}
			_ = rc.SetWriteDeadline(time.Now().Add(heartbeat * 2))
			if _, err := fmt.Fprintf(w, "id: %d\ndata: %s\n\n", u.Seq, u.JSON(clientView)); err != nil {
				return
			}
			_ = rc.Flush()
			// The stream ends when the hub closes the channel, after the last state, not at the
			// first message that looks final: a stream opened as an edit is accepted may be handed
			// a read of the state begun before the edit, which the hub follows with a fresh one.
		}
	}
}

// finishedJob reads a job whose files are asked for: 404, 410 once expired, 409 before the end.
func (s *Server) finishedJob(r *http.Request) (*store.Job, error) {
	j, err := s.jobFromPath(r, "jobId")
	if err != nil {
		return nil, err
	}
	if j.ExpiredAt != nil {
		return nil, newError(http.StatusGone, "expired", "the job's files were deleted at the end of the plan's retention period")
	}
	return j, nil
}

// output is GET /api/outputs/{jobId}/{file}: one translated page.
func (s *Server) output(w http.ResponseWriter, r *http.Request) {
	s.serveOutput(w, r, "", job.OutputKey, newError(http.StatusNotFound, "output_not_found", "no such translated page"))
}

// transcript is GET /api/outputs/{jobId}/transcripts/{file}: a page's transcript, {file} being
// the page's output name with ".json" added.
func (s *Server) transcript(w http.ResponseWriter, r *http.Request) {
	s.serveOutput(w, r, ".json", job.TranscriptKey,
		newError(http.StatusNotFound, "transcript_not_found", "no transcript of such a translated page"))
}

// cleaned is GET /api/outputs/{jobId}/cleaned/{file}: a page with its lettering removed.
func (s *Server) cleaned(w http.ResponseWriter, r *http.Request) {
	s.serveOutput(w, r, "", job.CleanedKey,
		newError(http.StatusNotFound, "cleaned_not_found", "no cleaned page of such a translated page"))
}

// serveOutput serves one of a job's files by its page's output name, which is {file} less
// suffix: 404 for an unknown job, name or file, 410 once the job's files have expired.
func (s *Server) serveOutput(w http.ResponseWriter, r *http.Request, suffix string, key func(jobID, name string) string, missing *Error) {
	j, err := s.finishedJob(r)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	file, ok := outputName(r)
	name, okSuffix := strings.CutSuffix(file, suffix)
	if !ok || !okSuffix || name == "" || name != filename.Sanitize(name, "") {
		writeError(w, r, s.Log, missing)
		return
	}
	s.serveBlob(w, r, key(j.ID, name), file, "inline", missing)
}

// outputName is the {file} of an output URL, unescaped exactly once. chi hands the parameter over
// escaped or not depending on whether the client's escaping was the canonical one (url.URL sets
// RawPath only then), so the name is taken from the escaped path itself: "e%25f.png" is "e%f.png"
// and "%2541.png" is "%41.png", never "A.png". Only a name that is one safe path segment is
// looked up.
func outputName(r *http.Request) (string, bool) {
	return lastSegment(r.URL.EscapedPath())
}

// lastSegment is the last segment of an escaped path, unescaped once, when it is a safe name.
func lastSegment(escaped string) (string, bool) {
	name, err := url.PathUnescape(escaped[strings.LastIndexByte(escaped, '/')+1:])
	if err != nil || !filename.Valid(name) {
		return "", false
	}
	return name, true
}

// download is GET /api/download/{jobId}: the ZIP of all translated pages, or with ?format=cbz
// the chapter as a comic book archive.
func (s *Server) download(w http.ResponseWriter, r *http.Request) {
	j, err := s.finishedJob(r)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	switch {
	case !j.Terminal():
		writeError(w, r, s.Log, &Error{Status: http.StatusConflict, Code: "job_not_finished", RetryAfter: 2,
			Message: "the job is still running; download when its status is completed"})
		return
	case j.Status != job.Completed || j.ZipKey == "":
		writeError(w, r, s.Log, newError(http.StatusConflict, "job_failed", "the job failed; no page was translated"))
		return
	}
	switch r.URL.Query().Get("format") {
	case "", "zip":
	case "cbz":
		s.serveCBZ(w, r, j)
		return
	default:
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "invalid_format", "format must be zip or cbz"))
		return
	}
	if slices.ContainsFunc(j.Results, func(p job.PageResult) bool { return p.Revision > 0 }) {
		s.serveLatestZip(w, r, j)
		return
	}
	s.serveBlob(w, r, j.ZipKey, "translated-"+j.ID+".zip", "attachment",
		newError(http.StatusGone, "expired", "the job's files are no longer kept"))
}

// serveBlob serves a blob with Range, ETag and conditional requests, streaming from storage.
func (s *Server) serveBlob(w http.ResponseWriter, r *http.Request, key, name, disposition string, missing *Error) {
	rd, err := s.Bucket.NewReader(r.Context(), key, nil)
	if err != nil {
		if blobstore.IsNotFound(err) {
			writeError(w, r, s.Log, missing)
			return
		}
		writeError(w, r, s.Log, fmt.Errorf("opening %s: %w", key, err))
		return
	}
	defer rd.Close()
	h := w.Header()
	h.Set("Content-Type", rd.ContentType())
	h.Set("Content-Disposition", mimeDisposition(disposition, name))
	h.Set("ETag", strconv.Quote(fmt.Sprintf("%x-%x", rd.Size(), rd.ModTime().UnixNano())))
	dw, done := s.downloadWriter(w)
	defer done()
	http.ServeContent(dw, r, path.Base(name), rd.ModTime(), rd)
}

// downloadWriter is w for a file or archive download: private caching, no sniffing, and each
// write bounded by the idle limit. done clears the connection's write deadline, which must not
// outlive this response on a kept-alive connection.
func (s *Server) downloadWriter(w http.ResponseWriter) (dw *deadlineWriter, done func()) {
	w.Header().Set("Cache-Control", "private, max-age=3600")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	idle := s.WriteIdle
	if idle <= 0 {
		idle = defaultWriteIdle
	}
	rc := http.NewResponseController(w)
	return &deadlineWriter{ResponseWriter: w, rc: rc, idle: idle}, func() { _ = rc.SetWriteDeadline(time.Time{}) }
}

// defaultWriteIdle is how long one write of a file or ZIP may wait for a client that does not
// read: a client must take each 32 KB within it.
const defaultWriteIdle = time.Minute

// deadlineWriter moves the connection's write deadline before every write, so that a client that
// stops reading a download (or reads it a trickle at a time) is cut off instead of holding its
// connection, its blob reader and its goroutine for ever; a fast one downloads any size.
type deadlineWriter struct {
	http.ResponseWriter
	rc   *http.ResponseController
	idle time.Duration
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	_ = d.rc.SetWriteDeadline(time.Now().Add(d.idle))
	return d.ResponseWriter.Write(p)
}

func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// mimeDisposition writes a Content-Disposition that survives any filename: an ASCII fallback and
// the exact name in RFC 5987 encoding.
func mimeDisposition(kind, name string) string {
	ascii := make([]rune, 0, len(name))
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			r = '_'
		}
		ascii = append(ascii, r)
	}
	return fmt.Sprintf(`%s; filename="%s"; filename*=UTF-8''%s`, kind, string(ascii), url.PathEscape(name))
}

type deleteRequest struct {
	UserID string `json:"userId"`
}

// deleteProject is DELETE /api/projects/{id}: a running job is cancelled (its unspent credits
// come back when it settles); a finished one loses its files at once.
func (s *Server) deleteProject(w http.ResponseWriter, r *http.Request) {
	var req deleteRequest
	if err := s.decodeAsUser(w, r, &req, maxJSONBody, &req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	id, err := jobIDFromPath(r, "id")
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if err := s.Jobs.Delete(r.Context(), id, req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// decodeAsUser reads a JSON body of up to limit bytes into v, whose userId field is *userID, and
// checks that the request may act as that user.
func (s *Server) decodeAsUser(w http.ResponseWriter, r *http.Request, v any, limit int64, userID *string) error {
	if err := decodeJSONUpTo(w, r, v, limit); err != nil {
		return err
	}
	if *userID == "" {
		return newError(http.StatusBadRequest, "missing_user_id", "the userId field is required")
	}
	return s.authorize(r, *userID)
}
