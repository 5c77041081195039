package api

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/internal/filename"
	"github.com/vtsproject/vts/internal/glossary"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lang"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/plans"
)

// Bounds of one upload request that no plan changes.
const (
	maxFieldBytes     = 64 << 10 // a text field; customPrompt has its own, smaller bound in runes
	maxPromptRunes    = 4000
	maxUserIDBytes    = 256
	maxUploadBytes    = plans.MaxFilesPerJob*50*plans.MB + 1<<20
	sniffBytes        = 256 << 10 // enough for any sane JPEG header with EXIF before its frame
	maxMultipartParts = plans.MaxFilesPerJob + 32
)

// maxBytesBeforeUser bounds what a request may store before its userId (and with it the
// credential) has been checked: without it, an anonymous client could make the service write
// 200 files of the largest plan's size to storage before being refused. One Pro-sized page fits.
var maxBytesBeforeUser int64 = 64 * plans.MB

// uploadForm is the parsed multipart request: the job's upload (with the glossary normalised)
// and what the intake learnt on the way.
type uploadForm struct {
	job.Upload
	largest        int64
	plan           plans.Plan
	available      int64  // the user's credits when admitted
	idempotencyKey string // claimed for this upload
}

// translate is POST /api/translate: it streams every page straight into blob storage (never a
// whole file in memory), checks each by content, then starts the job with Update-With-Start so
// that the reservation's answer (202, 402 or 429) comes back in this same request. Whatever is
// refused leaves no blob behind.
func (s *Server) translate(w http.ResponseWriter, r *http.Request) {
	jobID := uuid.NewString()
	log := s.Log.With("job", jobID)
	form, err := s.readUpload(w, r, jobID)
	var replay *lifecycle.Replay
	if errors.As(err, &replay) {
		log.Info("idempotent upload replayed", "original", replay.Job.ID)
		w.Header().Set("Location", "/api/jobs/"+replay.Job.ID)
		w.Header().Set("Idempotent-Replayed", "true")
		writeJSON(w, http.StatusAccepted, map[string]any{"jobId": replay.Job.ID, "mode": replay.Job.Mode,
			"creditsNeeded": replay.Job.CreditsReserved})
		return
	}
	if err != nil {
		s.Jobs.Discard(jobID)
		writeError(w, r, log, err)
		return
	}
	// The start outlives the request: a client that disconnects while the job starts must not cut
	// the start short after Temporal took it, which would leave a reserved, running job whose pages
	// the error path below had just discarded. The lifecycle bounds the start itself.
	credits, err := s.Jobs.Start(context.WithoutCancel(r.Context()), form.Upload)
	if err != nil {
		// A refused job leaves neither its pages nor its Idempotency-Key behind. A start that could
		// not be settled keeps both: a job may own them (a retry with the key is answered with it).
		if !errors.Is(err, lifecycle.ErrStartUnknown) {
			s.Jobs.Discard(jobID)
			s.releaseUpload(form)
		}
		var refused *job.Refusal
		if !errors.As(err, &refused) {
			log.Error("starting job failed", "err", err)
			err = errUnavailable
		}
		writeError(w, r, log, err)
		return
	}
	log.Info("job accepted", "user", form.UserID, "pages", len(form.Pages), "credits", credits, "mode", form.Mode)
	w.Header().Set("Location", "/api/jobs/"+jobID)
	writeJSON(w, http.StatusAccepted, map[string]any{"jobId": jobID, "mode": form.Mode, "creditsNeeded": credits})
}

func (s *Server) readUpload(w http.ResponseWriter, r *http.Request, jobID string) (_ *uploadForm, err error) {
	key := r.Header.Get(idempotencyHeader)
	if key != "" && !validIdempotencyKey(key) {
		return nil, newError(http.StatusBadRequest, "invalid_idempotency_key", "Idempotency-Key must be 1 to 255 printable ASCII characters")
	}
	var claimed *uploadForm // set once the key is ours; any later failure gives it back
	defer func() {
		if err != nil && claimed != nil {
			s.releaseUpload(claimed)
		}
	}()
	// A credential that is refused whoever the body names is refused before the body is read.
	if a, ok := s.Identity.(interface{ Authenticate(*http.Request) error }); ok {
		if err := a.Authenticate(r); err != nil {
			return nil, err
		}
	}
	ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || ct != "multipart/form-data" {
		return nil, newError(http.StatusUnsupportedMediaType, "expected_multipart",
			"send the pages as multipart/form-data with one `images` part per page")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUploadBytes)
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, newError(http.StatusBadRequest, "malformed_multipart", "the multipart body could not be read")
	}
	f := &uploadForm{Upload: job.Upload{JobID: jobID, Spec: job.Spec{SourceLang: lang.DefaultSource, TargetLang: lang.DefaultTarget,
		Mode: job.DefaultMode, Resolution: job.DefaultResolution, Lettering: job.DefaultLettering}}}
	if s.Lettering != "" {
		f.Lettering = s.Lettering
	}
	seen := map[string]bool{}
	var names filename.Deduper
	limit := int64(plans.Pro.MaxFileBytes) // until the user is known, the largest any plan allows
	var anonymous int64                    // bytes stored before userId
	for parts := 0; ; parts++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, bodyError(err)
		}
		if parts >= maxMultipartParts {
			return nil, newError(http.StatusRequestEntityTooLarge, "too_many_parts", "the request has too many parts")
		}
		field := part.FormName()
		if field == "images" || field == "images[]" {
			if key != "" && f.UserID == "" {
				return nil, newError(http.StatusBadRequest, "user_id_first",
					"with an Idempotency-Key, send the userId field before the images")
			}
			if len(f.Pages) >= plans.MaxFilesPerJob {
				return nil, newError(http.StatusRequestEntityTooLarge, "too_many_files",
					fmt.Sprintf("at most %d files can be uploaded in one request", plans.MaxFilesPerJob))
			}
			if err := f.affords(len(f.Pages)+1, seen); err != nil {
				return nil, err // before this page is read
			}
			pages, sizes, err := s.storePart(r.Context(), part, f, seen, limit, &names)
			if err != nil {
				return nil, err
			}
			f.Pages = append(f.Pages, pages...)
			for _, size := range sizes {
				f.largest = max(f.largest, size)
				if f.UserID == "" {
					if anonymous += size; anonymous > maxBytesBeforeUser {
						return nil, newError(http.StatusRequestEntityTooLarge, "user_id_first",
							fmt.Sprintf("send the userId field before the images when they exceed %d MB in all", maxBytesBeforeUser/plans.MB))
					}
				}
			}
			continue
		}
		value, err := readField(part)
		if err != nil {
			return nil, err
		}
		if seen[field] {
			return nil, newError(http.StatusBadRequest, "duplicate_field", fmt.Sprintf("the field %q appears twice", field))
		}
		seen[field] = true
		if err := f.set(field, value); err != nil {
			return nil, err
		}
		if field == "userId" {
			// A well-behaved client sends userId first: then its plan's limits apply while the
			// pages stream, and a user who cannot start a job is refused before any page is stored.
			if err := s.checkUser(r, f, key); err != nil {
				return nil, err
			}
			if f.idempotencyKey != "" {
				claimed = f
			}
			limit = f.plan.MaxFileBytes
			if err := f.affords(len(f.Pages), seen); err != nil { // pages sent before userId
				return nil, err
			}
		}
	}
	if f.UserID == "" {
		return nil, newError(http.StatusBadRequest, "missing_user_id", "the userId field is required")
	}
	if len(f.Pages) == 0 {
		return nil, newError(http.StatusBadRequest, "no_files", "no files were uploaded; send one `images` part per page")
	}
	if f.largest > f.plan.MaxFileBytes { // pages that came before userId streamed under the largest limit
		return nil, fileTooLarge(f.plan)
	}
	if err := f.affords(len(f.Pages), allFieldsSeen); err != nil {
		return nil, err
	}
	return f, nil
}

// choose sets a field that takes one of a list of values (mode, resolution) when parse accepts
// value, and answers code with the allowed values when it does not; an empty value keeps the
// default.
func choose[T ~string](field *T, value string, parse func(string) (T, error), allowed []T, code, message string) error {
	if value == "" {
		return nil
	}
	v, err := parse(value)
	if err != nil {
		return &Error{Status: http.StatusBadRequest, Code: code, Message: message, Details: map[string]any{"allowed": allowed}}
	}
	*field = v
	return nil
}

// allFieldsSeen stands for a whole form: its mode and resolution are final.
var allFieldsSeen = map[string]bool{"mode": true, "resolution": true}

// affords refuses an upload of an admitted user whose first pages already cost more credits than
// the user has: the reservation would refuse it, so the intake stops before it reads (and stores)
// the next page, rather than streaming up to 200 of them first. A mode or resolution that has not
// arrived yet is taken at its cheapest, so that no upload the reservation would accept is refused;
// the reservation stays the authority.
func (f *uploadForm) affords(pages int, seen map[string]bool) error {
	if f.UserID == "" || pages == 0 {
		return nil
	}
	mode, res := f.Mode, f.Resolution
	if !seen["mode"] {
		mode = job.Modes[0] // the cheapest
	}
	if !seen["resolution"] {
		res = job.Resolutions[0] // the cheapest
	}
	need, err := plans.Cost(pages, mode, res)
	if err != nil || int64(need) <= f.available {
		return nil
	}
	return job.ShortOfCredits(need, f.available).Saying(fmt.Sprintf(
		"%d page(s) in %s mode at %s resolution need at least %d credit(s); %d are available", pages, mode, res, need, f.available))
}

// checkUser authorizes the request for the form's user, then has the lifecycle admit the upload:
// it records the user's plan on the form, claims the Idempotency-Key (a retry of an upload that
// became a job is answered with that job even while it runs), and refuses a user who could not
// start a job now before any page is stored.
func (s *Server) checkUser(r *http.Request, f *uploadForm, key string) error {
	if err := s.authorize(r, f.UserID); err != nil {
		return err
	}
	adm, err := s.Jobs.Admit(r.Context(), f.UserID, key, f.JobID)
	if err != nil {
		return err
	}
	f.plan, f.available, f.idempotencyKey = adm.Plan, adm.Available, key
	return nil
}

func (f *uploadForm) set(field, value string) error {
	switch field {
	case "userId":
		value = strings.TrimSpace(value)
		if value == "" || len(value) > maxUserIDBytes || strings.ContainsFunc(value, isControl) {
			return newError(http.StatusBadRequest, "invalid_user_id", "userId must be 1 to 256 printable characters")
		}
		f.UserID = value
	case "sourceLang", "targetLang":
		if value == "" {
			return nil
		}
		code, ok := lang.Normalize(value, field == "sourceLang")
		if !ok {
			return &Error{Status: http.StatusBadRequest, Code: "unsupported_language",
				Message: fmt.Sprintf("%s %q is not an ISO 639-1 code (or zh-Hans, zh-Hant)", field, value)}
		}
		if field == "sourceLang" {
			f.SourceLang = code
		} else {
			f.TargetLang = code
		}
	case "mode":
		return choose(&f.Mode, value, job.ParseMode, job.Modes, "invalid_mode", "mode must be fast, standard or advanced")
	case "resolution":
		return choose(&f.Resolution, value, job.ParseResolution, job.Resolutions, "invalid_resolution",
			"resolution must be original, 1K, 2K or 4K")
	case "lettering":
		return choose(&f.Lettering, value, job.ParseLettering, job.Letterings, "invalid_lettering",
			"lettering must be mixed or upper")
	case "customPrompt":
		if utf8.RuneCountInString(value) > maxPromptRunes {
			return newError(http.StatusBadRequest, "prompt_too_long", fmt.Sprintf("customPrompt is limited to %d characters", maxPromptRunes))
		}
		f.CustomPrompt = strings.TrimSpace(value)
	case "glossary":
		g, err := glossary.Normalize(value)
		if err != nil {
			return glossaryError(err)
		}
		f.Glossary = g
	}
	// Unknown fields are ignored, as browsers and clients add their own.
	return nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// glossaryError is the 400 of a glossary that cannot be used; details name the line at fault.
func glossaryError(err error) *Error {
	e := &Error{Status: http.StatusBadRequest, Code: "invalid_glossary", Message: err.Error()}
	var ge *glossary.Error
	if errors.As(err, &ge) && ge.Line > 0 {
		e.Details = map[string]any{"line": ge.Line}
	}
	return e
}

func readField(part *multipart.Part) (string, error) {
	limit := maxFieldBytes
	tooLarge := newError(http.StatusRequestEntityTooLarge, "field_too_large", fmt.Sprintf("the field %q is too large", part.FormName()))
	if part.FormName() == "glossary" { // a glossary has its own bound, and its own error
		limit = glossary.MaxBytes
		tooLarge = glossaryError(&glossary.Error{Reason: fmt.Sprintf("a glossary is limited to %d KB", glossary.MaxBytes>>10)})
	}
	b, err := io.ReadAll(io.LimitReader(part, int64(limit)+1))
	if err != nil {
		return "", bodyError(err)
	}
	if len(b) > limit {
		return "", tooLarge
	}
	if !utf8.Valid(b) {
		return "", newError(http.StatusBadRequest, "invalid_utf8", fmt.Sprintf("the field %q is not valid UTF-8", part.FormName()))
	}
	return string(b), nil
}

// storeImage streams one page into blob storage after checking by its first bytes (head, which
// br still holds) that it is a PNG, JPEG or WebP of at most 40 megapixels; the size limit holds
// while streaming, and a truncated file is caught by its ending.
func (s *Server) storeImage(ctx context.Context, br *bufio.Reader, head []byte, source, jobID string, idx int, limit int64, names *filename.Deduper) (job.Page, int64, error) {
	info, err := imageio.Inspect(bytes.NewReader(head))
	if err != nil {
		return job.Page{}, 0, imageError(source, err)
	}
	key := job.InputKey(jobID, idx, imageio.Extension(info.Format))
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	bw, err := s.Bucket.NewWriter(wctx, key, &blob.WriterOptions{ContentType: imageio.ContentType(info.Format)})
	if err != nil {
		return job.Page{}, 0, fmt.Errorf("opening %s: %w", key, err)
	}
	tail := &tailWriter{}
	n, err := io.Copy(io.MultiWriter(bw, tail), io.LimitReader(br, limit+1))
	if err == nil && n > limit {
		err = errTooLarge
	}
	if err != nil {
		cancel() // abandons the blob instead of committing a partial one
		_ = bw.Close()
		if errors.Is(err, errTooLarge) {
			return job.Page{}, 0, newError(http.StatusRequestEntityTooLarge, "file_too_large",
				fmt.Sprintf("%s is larger than %d MB", source, limit/plans.MB))
		}
		return job.Page{}, 0, readError(err)
	}
	if err := bw.Close(); err != nil {
		return job.Page{}, 0, fmt.Errorf("writing %s: %w", key, err)
	}
	if err := imageio.CheckComplete(info.Format, head, tail.bytes(), n); err != nil {
		return job.Page{}, 0, imageError(source, err)
	}
	output := names.Unique(filename.WithExtension(source, imageio.Extension(info.Format)))
	return job.Page{SourceFilename: source, OutputName: output, InputKey: key, Format: info.Format}, n, nil
}

var errTooLarge = errors.New("file too large")

// tailWriter keeps the last imageio.TailLen bytes written to it.
type tailWriter struct{ buf []byte }

func (t *tailWriter) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p[max(0, len(p)-imageio.TailLen):]...)
	if len(t.buf) > imageio.TailLen {
		t.buf = t.buf[len(t.buf)-imageio.TailLen:]
	}
	return len(p), nil
}

func (t *tailWriter) bytes() []byte { return t.buf }

func fileTooLarge(p plans.Plan) *Error {
	return newError(http.StatusRequestEntityTooLarge, "file_too_large",
		fmt.Sprintf("the %s plan accepts files of up to %d MB", p.Name, p.MaxFileBytes/plans.MB))
}

func imageError(name string, err error) *Error {
	switch {
	case errors.Is(err, imageio.ErrUnknownFormat):
		return newError(http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("%s is not a JPG, PNG or WebP image", name))
	case errors.Is(err, imageio.ErrTooManyPixels):
		return newError(http.StatusUnprocessableEntity, "image_too_large", fmt.Sprintf("%s has more than 40 megapixels", name))
	case errors.Is(err, imageio.ErrAnimated):
		return newError(http.StatusUnprocessableEntity, "animated_image", fmt.Sprintf("%s is animated; upload one still page per file", name))
	}
	return newError(http.StatusUnprocessableEntity, "corrupt_image", fmt.Sprintf("%s is truncated or corrupt", name))
}

// bodyError maps a failure to read the request body.
func bodyError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return newError(http.StatusRequestEntityTooLarge, "request_too_large", "the request body is too large")
	}
	if errors.Is(err, os.ErrDeadlineExceeded) { // the server's body deadlines (httpserver.go)
		return newError(http.StatusRequestTimeout, "request_timeout", "the request body stalled; send it without long pauses")
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return newError(http.StatusBadRequest, "malformed_multipart", "the request body is truncated or malformed")
}
