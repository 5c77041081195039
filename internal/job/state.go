package job

import (
	"encoding/json"
	"net/url"
	"strings"
)

// Snapshot is a job's state at one moment: the spec's job payload. R is how its results are
// told: PageResult where the job keeps them, the API's Result where clients read them.
type Snapshot[R any] struct {
	ID          string `json:"id"`
	Status      Status `json:"status"`
	Progress    int    `json:"progress"`
	Total       int    `json:"total"`
	CurrentFile string `json:"currentFile"`
	Results     []R    `json:"results"`
	// Errors lists the pages of a partially failed job that could not be translated.
	Errors        []PageError `json:"errors,omitempty"`
	Mode          Mode        `json:"mode"`
	CreditsNeeded int         `json:"creditsNeeded"`
}

// Report is a job's state as the job keeps it: what the workflow's state query answers while it
// runs, and what its record holds once it has ended. Its results name files; they hold no address.
type Report = Snapshot[PageResult]

// View is r with each result made by result: the API makes its clients' view of a job this way.
func View[R any](r Report, result func(PageResult) R) Snapshot[R] {
	s := Snapshot[R]{ID: r.ID, Status: r.Status, Progress: r.Progress, Total: r.Total, CurrentFile: r.CurrentFile,
		Results: make([]R, 0, len(r.Results)), Errors: r.Errors, Mode: r.Mode, CreditsNeeded: r.CreditsNeeded}
	for _, p := range r.Results {
		s.Results = append(s.Results, result(p))
	}
	return s
}

// PageResult is one translated page as the job keeps it: its names, its language, and which of
// the engine's companions (transcript, cleaned page) were written beside it.
type PageResult struct {
	SourceFilename string `json:"sourceFilename"`
	// OutputName is the page's name in the job: in the ZIP, in blob storage and in its URLs.
	OutputName string `json:"outputName"`
	// SourceLang is the page's language as detected (or as the upload named it); "" if unknown.
	SourceLang    string `json:"sourceLang"`
	HasTranscript bool   `json:"hasTranscript,omitempty"`
	HasCleaned    bool   `json:"hasCleaned,omitempty"`
	// InputKey is the uploaded page, which an edit keeping a block as it was reads back; "" for
	// jobs recorded before it was kept here.
	InputKey string `json:"inputKey,omitempty"`
	// Revision counts the proofreader's edits applied to the page (0: the machine's output);
	// Editing is the revision being applied, 0 when none; EditError says why the last edit failed.
	// The store fills them in from the page's edits; the translation never sets them.
	Revision  int    `json:"revision,omitempty"`
	Editing   int    `json:"editing,omitempty"`
	EditError string `json:"editError,omitempty"`
}

// UnmarshalJSON reads a PageResult, including one recorded before results named their files
// rather than held their URLs: those carry the output name as the last segment of "url", and
// "transcript" and "cleaned" as URLs present only when the companion was written.
func (p *PageResult) UnmarshalJSON(data []byte) error {
	type plain PageResult
	var v struct {
		plain
		URL        string `json:"url"`
		Transcript string `json:"transcript"`
		Cleaned    string `json:"cleaned"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*p = PageResult(v.plain)
	if p.OutputName == "" && v.URL != "" {
		name, err := url.PathUnescape(v.URL[strings.LastIndexByte(v.URL, '/')+1:])
		if err != nil {
			return err
		}
		p.OutputName, p.HasTranscript, p.HasCleaned = name, v.Transcript != "", v.Cleaned != ""
	}
	return nil
}

// Editing reports whether an edit of one of the job's pages is being applied: a finished job's
// state then still changes, and its followers must keep following it.
func Editing(r Report) bool {
	for _, p := range r.Results {
		if p.Editing > 0 {
			return true
		}
	}
	return false
}

// PageError is one page that could not be translated, or, without a filename, what became of
// the pages of a job deleted while it ran.
type PageError struct {
	SourceFilename string `json:"sourceFilename"`
	Message        string `json:"message"`
}

// Cause is why a page was not translated.
type Cause int

// The causes of a failed page; each makes its own message.
const (
	// Refused: the engine (or the page itself) rules translation out; the reason says why.
	Refused Cause = iota + 1
	// Exhausted: every attempt failed.
	Exhausted
	// Deleted: the job was deleted before the page was translated.
	Deleted
)

// PageFailed is what a user reads about a page that failed for cause; reason is the engine's,
// for Refused. Deleted without a source is about the job's remaining pages.
func PageFailed(source string, cause Cause, reason string) PageError {
	msg := reason
	switch cause {
	case Exhausted:
		msg = "translation failed after several attempts; the page's credits were refunded"
	case Deleted:
		msg = "the job was deleted before this page was translated"
		if source == "" {
			msg = "the job was deleted before all pages were translated"
		}
	}
	return PageError{SourceFilename: source, Message: msg}
}
