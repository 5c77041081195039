// Package job is the vocabulary of a translation job, which every layer shares: what the upload
// asked for (Spec, Page, Upload), where the job stands (Status, Report, State), what it produced
// (PageResult, PageError, Outcome), why it was refused (Refusal), and how its workflows and files
// are named. It imports nothing of the project, so that anything may import it.
package job

import "time"

// Spec is how the upload asked for the job's pages to be translated.
type Spec struct {
	Mode         Mode
	Resolution   Resolution
	SourceLang   string // a language code (internal/lang), or "auto"
	TargetLang   string
	CustomPrompt string
	// Glossary is the upload's glossary, normalised (internal/glossary); "" when none was sent.
	Glossary string
	// Lettering is "mixed" or "upper" (Lettering); "" in jobs from before it existed, which
	// are mixed.
	Lettering Lettering
}

// Page is one uploaded page, already in blob storage.
type Page struct {
	SourceFilename string // as uploaded, sanitized
	OutputName     string // unique within the job; the name in the ZIP and in the output URL
	InputKey       string
	Format         string
}

// Upload is a job as its upload asked for it: whose, how, and which pages. Image bytes never
// enter it, only blob keys.
type Upload struct {
	JobID  string
	UserID string
	Spec
	Pages []Page
}

// Status is where a job stands, as the spec names it.
type Status string

// A job is pending until its pages start, processing while they are translated, and then
// completed (at least one page translated) or failed.
const (
	Pending    Status = "pending"
	Processing Status = "processing"
	Completed  Status = "completed"
	Failed     Status = "failed"
)

// Terminal reports whether the job has ended: completed or failed.
func (s Status) Terminal() bool { return s == Completed || s == Failed }

// Outcome is the end of a job's translation, which settles its credits.
type Outcome struct {
	JobID      string
	Status     Status // completed or failed
	PagesDone  int    // pages translated; only these are charged
	Progress   int
	Results    []PageResult
	Errors     []PageError
	ZipKey     string
	ZipSize    int64
	FinishedAt time.Time
	// ZipPending settles a completed job whose ZIP is still to be built: its credits are settled
	// and its slot freed, but it reads as processing until the ZIP is recorded (or its failure),
	// so that a client that sees completed can download at once.
	ZipPending bool
}
