package api

import (
	"strconv"

	"github.com/vtsproject/vts/internal/job"
)

// The job as clients see it lives here, with the routes that make its addresses: the job keeps
// its results by name (job.PageResult), and only the API knows where it serves them.

// State is a job's state as clients see it: the SSE message and GET /api/jobs/{id}. The API
// makes it from a job.Report, giving each result the addresses it serves the page's files at.
type State = job.Snapshot[Result]

// Result is one translated page as clients see it: the spec's Result, with the addresses of the
// page and of its companions.
type Result struct {
	SourceFilename string `json:"sourceFilename"`
	URL            string `json:"url"`
	// SourceLang is the page's language as detected (or as the upload named it); "" if unknown.
	SourceLang string `json:"sourceLang"`
	// Transcript and Cleaned are the URLs of the page's transcript and cleaned page, when the
	// engine produced them.
	Transcript string `json:"transcript,omitempty"`
	Cleaned    string `json:"cleaned,omitempty"`
	// Revision counts the edits applied to the page (0: the machine's output); the page's and
	// transcript's URLs name it, so that no cache serves an older one. Editing is the revision
	// being applied, EditError why the last edit failed.
	Revision  int    `json:"revision"`
	Editing   int    `json:"editing,omitempty"`
	EditError string `json:"editError,omitempty"`
}

// clientState is a job's state as clients see it: each result with the addresses of its files.
func clientState(r job.Report) State {
	return job.View(r, func(p job.PageResult) Result {
		rev := ""
		if p.Revision > 0 {
			rev = "?rev=" + strconv.Itoa(p.Revision)
		}
		res := Result{SourceFilename: p.SourceFilename, URL: outputURL(r.ID, p.OutputName) + rev, SourceLang: p.SourceLang,
			Revision: p.Revision, Editing: p.Editing, EditError: p.EditError}
		if p.HasTranscript {
			res.Transcript = transcriptURL(r.ID, p.OutputName) + rev
		}
		if p.HasCleaned {
			res.Cleaned = cleanedURL(r.ID, p.OutputName)
		}
		return res
	})
}

// clientView is clientState for the lifecycle's hub, which encodes each update once for every
// stream and knows nothing of the API's types.
func clientView(r job.Report) any { return clientState(r) }
