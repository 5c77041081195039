package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/lifecycle"
	"github.com/vtsproject/vts/internal/store"
)

// The bounds of an edited transcript.
const (
	maxEditBlocks = 500
	maxBlockText  = 2000 // characters of a block's source, and of its translation
	maxShapePts   = 1000
	// maxEditBody bounds the body before it is decoded: 500 blocks of 2,000 characters of source
	// and of translation, escaped, fit.
	maxEditBody = 16 << 20
)

// editRequest is PUT /api/jobs/{jobId}/pages/{file}/transcript.
type editRequest struct {
	UserID      string             `json:"userId"`
	Transcript  *engine.Transcript `json:"transcript"`
	Retranslate []string           `json:"retranslate"`
}

// editAccepted is the answer to an edit: the revision being made.
type editAccepted struct {
	JobID    string `json:"jobId"`
	File     string `json:"file"`
	Revision int    `json:"revision"`
}

// editPage is PUT /api/jobs/{jobId}/pages/{file}/transcript: the page is lettered again from the
// edited transcript, in the background; the job's state shows the new revision when it is ready.
func (s *Server) editPage(w http.ResponseWriter, r *http.Request) {
	var req editRequest
	if err := decodeJSONUpTo(w, r, &req, maxEditBody); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	if req.UserID == "" {
		writeError(w, r, s.Log, newError(http.StatusBadRequest, "missing_user_id", "the userId field is required"))
		return
	}
	if err := s.authorize(r, req.UserID); err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	j, page, err := s.editablePage(r, req.UserID)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	current, err := s.pageTranscript(r, j.ID, page.OutputName)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	edited, retranslate, err := checkEdit(current, req)
	if err != nil {
		writeError(w, r, s.Log, err)
		return
	}
	rev, err := s.Jobs.Edit(r.Context(), lifecycle.Edit{Job: j, Page: page, UserID: req.UserID, Transcript: edited, Retranslate: retranslate})
	if err != nil {
		writeError(w, r, s.Log, editError(err))
		return
	}
	writeJSON(w, http.StatusAccepted, editAccepted{JobID: j.ID, File: page.OutputName, Revision: rev})
}

// editablePage finds the job and page an edit names, for its owner: 404 for an unknown or deleted
// job or page, 403 for anyone else's job, 410 once expired, 409 while running, for a page the
// engine cannot letter again, and while the page's last edit is being applied.
func (s *Server) editablePage(r *http.Request, userID string) (*store.Job, job.PageResult, error) {
	id, err := jobIDFromPath(r, "jobId")
	if err != nil {
		return nil, job.PageResult{}, err
	}
	j, err := s.Jobs.Job(r.Context(), id)
	if err != nil {
		return nil, job.PageResult{}, err
	}
	switch {
	case j.UserID != userID:
		return nil, job.PageResult{}, job.NotYours().Saying("this job belongs to another user")
	case j.ExpiredAt != nil:
		return nil, job.PageResult{}, errExpired
	case !j.Terminal():
		return nil, job.PageResult{}, errNotFinished
	}
	// {file} unescaped as output's is: the segment before "/transcript".
	name, ok := lastSegment(strings.TrimSuffix(r.URL.EscapedPath(), "/transcript"))
	i := slices.IndexFunc(j.Results, func(p job.PageResult) bool { return p.OutputName == name })
	if !ok || i < 0 {
		return nil, job.PageResult{}, errPageNotFound
	}
	page := j.Results[i]
	switch {
	case !page.HasTranscript || !page.HasCleaned:
		return nil, job.PageResult{}, newError(http.StatusConflict, "page_not_editable",
			"this page's engine keeps no transcript and cleaned page, so it cannot be lettered again")
	case page.Editing > 0:
		return nil, job.PageResult{}, errEditInProgress
	}
	return j, page, nil
}

var (
	errExpired     = newError(http.StatusGone, "expired", "the job's files were deleted at the end of the plan's retention period")
	errNotFinished = &Error{Status: http.StatusConflict, Code: "job_not_finished", RetryAfter: 2,
		Message: "the job is still running; edit its pages when its status is completed"}
	errPageNotFound   = newError(http.StatusNotFound, "page_not_found", "the job has no translated page of this name")
	errEditInProgress = &Error{Status: http.StatusConflict, Code: "edit_in_progress", RetryAfter: 1,
		Message: "the page's last edit is still being applied; send this one when its revision shows"}
)

// editError is the answer to an edit the store refused after the API's checks passed (a race).
func editError(err error) error {
	switch {
	case errors.Is(err, store.ErrEditInProgress):
		return errEditInProgress
	case errors.Is(err, store.ErrInsufficientCredits):
		return job.ShortOfCredits(0, 0).Saying("translating blocks again costs a credit, and you have none left")
	case errors.Is(err, store.ErrForbidden):
		return job.NotYours().Saying("this job belongs to another user")
	case errors.Is(err, store.ErrJobClosed):
		return newError(http.StatusGone, "expired", "the job's files were deleted")
	case errors.Is(err, store.ErrNotFound):
		return job.ErrNotFound
	}
	return err
}

// pageTranscript reads the page's transcript as it stands (the latest revision's).
func (s *Server) pageTranscript(r *http.Request, jobID, name string) (*engine.Transcript, error) {
	data, err := s.Bucket.ReadAll(r.Context(), job.TranscriptKey(jobID, name))
	if err != nil {
		if blobstore.IsNotFound(err) {
			return nil, errExpired
		}
		return nil, fmt.Errorf("reading transcript of %s: %w", name, err)
	}
	var t engine.Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("decoding transcript of %s: %w", name, err)
	}
	return &t, nil
}

// blockID is the form of the IDs the server gives blocks.
var blockID = regexp.MustCompile(`^b([1-9][0-9]{0,5})$`)

// editStatuses are the statuses a block may have in an edited transcript: the engine's, and the
// proofreader's keep and removed.
var editStatuses = []string{"", "found", "read", "translated", "lettered", "skipped", engine.StatusKeep, engine.StatusRemoved}

// checkEdit checks an edited transcript against the page's current one and returns what the
// engine letters: the page's own dimensions and languages, the blocks as edited (new ones given
// the next free IDs, omitted ones kept as removed), and the retranslated IDs as given out. Any
// problem is a 400 naming it, and nothing is changed.
func checkEdit(current *engine.Transcript, req editRequest) (*engine.Transcript, []string, error) {
	bad := func(code, format string, args ...any) error {
		return newError(http.StatusBadRequest, code, fmt.Sprintf(format, args...))
	}
	if req.Transcript == nil {
		return nil, nil, bad("missing_transcript", "the transcript field is required")
	}
	blocks := req.Transcript.Blocks
	if len(blocks) > maxEditBlocks {
		return nil, nil, bad("too_many_blocks", "the transcript has %d blocks; at most %d are allowed", len(blocks), maxEditBlocks)
	}
	known := map[string]bool{}
	next := 0
	current.Blocks = engine.NameBlocks(current.Blocks)
	for _, b := range current.Blocks {
		known[b.ID] = true
		if m := blockID.FindStringSubmatch(b.ID); m != nil {
			n, _ := strconv.Atoi(m[1])
			next = max(next, n)
		}
	}
	out := *current
	out.Blocks = make([]engine.TranscriptBlock, 0, len(blocks))
	given := map[string]string{} // the client's ID of a new block → the ID it was given
	seen := map[string]bool{}
	for i, b := range blocks {
		name := b.ID
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if err := checkBlock(b, name, current.Width, current.Height); err != nil {
			return nil, nil, err
		}
		if seen[b.ID] && b.ID != "" {
			return nil, nil, bad("duplicate_block", "block %s appears twice", b.ID)
		}
		seen[b.ID] = true
		if !known[b.ID] {
			next++
			id := "b" + strconv.Itoa(next)
			if b.ID != "" {
				given[b.ID] = id
			}
			b.ID = id
			if b.Kind == "" {
				b.Kind = "free"
			}
		}
		if len(b.Shape) == 0 {
			b.Shape = []engine.Point{{X: b.Box.X, Y: b.Box.Y}, {X: b.Box.X + b.Box.W, Y: b.Box.Y},
				{X: b.Box.X + b.Box.W, Y: b.Box.Y + b.Box.H}, {X: b.Box.X, Y: b.Box.Y + b.Box.H}}
		}
		if b.Lang == "" {
			b.Lang = current.SourceLang
		}
		out.Blocks = append(out.Blocks, b)
	}
	for _, b := range current.Blocks {
		if !seen[b.ID] { // omitted: removed, and kept so that its ID is never given again
			b.Status = engine.StatusRemoved
			out.Blocks = append(out.Blocks, b)
		}
	}
	var retranslate []string
	for _, id := range req.Retranslate {
		if g, ok := given[id]; ok {
			id = g
		}
		i := slices.IndexFunc(out.Blocks, func(b engine.TranscriptBlock) bool { return b.ID == id })
		switch {
		case i < 0 || out.Blocks[i].Status == engine.StatusRemoved:
			return nil, nil, bad("unknown_block", "retranslate names block %q, which is not in the transcript", id)
		case out.Blocks[i].Status == engine.StatusKeep:
			return nil, nil, bad("unknown_block", "retranslate names block %s, which is kept as it was", id)
		case out.Blocks[i].Source == "":
			return nil, nil, bad("nothing_to_translate", "block %s has no source text to translate", id)
		}
		if !slices.Contains(retranslate, id) {
			retranslate = append(retranslate, id)
		}
	}
	return &out, retranslate, nil
}

// checkBlock checks one block against the bounds and the page.
func checkBlock(b engine.TranscriptBlock, name string, width, height int) error {
	bad := func(code, format string, args ...any) error {
		return newError(http.StatusBadRequest, code, "block "+name+": "+fmt.Sprintf(format, args...))
	}
	if !slices.Contains(editStatuses, b.Status) {
		return bad("invalid_status", "unknown status %q (known: keep, removed, and the engine's)", b.Status)
	}
	for field, text := range map[string]string{"translation": b.Translation, "source": b.Source} {
		if n := utf8.RuneCountInString(text); n > maxBlockText {
			return bad("text_too_long", "its %s has %d characters; at most %d are allowed", field, n, maxBlockText)
		}
	}
	r := b.Box
	if r.W <= 0 || r.H <= 0 || r.X < 0 || r.Y < 0 || r.X > width-r.W || r.Y > height-r.H {
		return bad("box_outside_page", "its box (x %d, y %d, %d×%d) is not inside the %d×%d page", r.X, r.Y, r.W, r.H, width, height)
	}
	if len(b.Shape) > maxShapePts {
		return bad("shape_too_long", "its shape has %d points; at most %d are allowed", len(b.Shape), maxShapePts)
	}
	for _, p := range b.Shape {
		if p.X < 0 || p.Y < 0 || p.X > width || p.Y > height {
			return bad("box_outside_page", "its shape's point (%d, %d) is outside the %d×%d page", p.X, p.Y, width, height)
		}
	}
	return nil
}
