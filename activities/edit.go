package activities

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"go.temporal.io/sdk/temporal"
	"gocloud.dev/blob"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
)

// ApplyEditInput is one edit of a translated page: the revision it makes, the edited transcript
// waiting at job.EditKey, and what the job says of the page.
type ApplyEditInput struct {
	JobID      string
	OutputName string
	Revision   int
	// InputKey is the uploaded page, read only when a block is kept as it was.
	InputKey     string
	Mode         job.Mode
	CustomPrompt string
	// Retranslate names the blocks to translate again.
	Retranslate []string
}

// ApplyEditResult says what the new revision holds.
type ApplyEditResult struct {
	Blocks int
}

// ApplyEdit letters the page again from its cleaned version and the edited transcript, and
// writes the result over the page and its transcript, where every reader (the output URL, the
// ZIP) finds the latest revision. The machine's transcript, which the cleaned page was made
// with, is kept aside at the first edit (revision 0's edit key): the engine needs it to tell the
// blocks it erased from those it left. Every step may run again: the result is the same.
func (a *Activities) ApplyEdit(ctx context.Context, in ApplyEditInput) (*ApplyEditResult, error) {
	log := a.log(ctx, in.JobID).With("file", in.OutputName, "revision", in.Revision)
	eng, err := a.Engines.For(in.Mode)
	if err != nil {
		return nil, temporal.NewNonRetryableApplicationError("no engine for this mode", ErrTypePermanentPage, err)
	}
	editor, ok := eng.(engine.Editor)
	if !ok {
		return nil, engineError(log, engine.NotEditable(), "editing")
	}
	gone := func(key string, err error) error {
		if blobstore.IsNotFound(err) {
			return temporal.NewNonRetryableApplicationError("the page's files are gone", ErrTypePermanentPage, err)
		}
		return fmt.Errorf("reading %s: %w", key, err)
	}
	var edited engine.Transcript
	key := job.EditKey(in.JobID, in.OutputName, in.Revision)
	data, err := a.Bucket.ReadAll(ctx, key)
	if err != nil {
		return nil, gone(key, err)
	}
	if err := json.Unmarshal(data, &edited); err != nil {
		return nil, temporal.NewNonRetryableApplicationError("the edited transcript does not decode", ErrTypePermanentPage, err)
	}
	machine, err := a.machineTranscript(ctx, in)
	if err != nil {
		return nil, gone(job.TranscriptKey(in.JobID, in.OutputName), err)
	}
	cleanedKey := job.CleanedKey(in.JobID, in.OutputName)
	cleaned, err := a.Bucket.ReadAll(ctx, cleanedKey)
	if err != nil {
		return nil, gone(cleanedKey, err)
	}
	var source []byte
	if in.InputKey != "" && slices.ContainsFunc(edited.Blocks, func(b engine.TranscriptBlock) bool { return b.Status == engine.StatusKeep }) {
		if source, err = a.Bucket.ReadAll(ctx, in.InputKey); err != nil {
			return nil, gone(in.InputKey, err)
		}
	}
	started := time.Now()
	out, err := editor.Edit(ctx, engine.EditRequest{Cleaned: cleaned, Source: source, Machine: machine, Transcript: &edited,
		Retranslate: in.Retranslate, Mode: in.Mode, CustomPrompt: in.CustomPrompt})
	if err != nil {
		return nil, engineError(log, err, "lettering "+in.OutputName+" again")
	}
	t := *out.Transcript
	t.Page = in.OutputName
	if data, err = json.MarshalIndent(t, "", "  "); err != nil {
		return nil, fmt.Errorf("encoding transcript: %w", err)
	}
	// The transcript first, as a translated page's: a page whose revision shows has its transcript.
	if err := a.Bucket.WriteAll(ctx, job.TranscriptKey(in.JobID, in.OutputName), data, &blob.WriterOptions{ContentType: transcriptType}); err != nil {
		return nil, fmt.Errorf("writing transcript: %w", err)
	}
	if err := a.Bucket.WriteAll(ctx, job.OutputKey(in.JobID, in.OutputName), out.Image,
		&blob.WriterOptions{ContentType: imageio.ContentType(out.Format)}); err != nil {
		return nil, fmt.Errorf("writing page: %w", err)
	}
	log.Info("page lettered again", "blocks", out.Blocks, "retranslated", len(in.Retranslate), "took", time.Since(started).Round(time.Millisecond))
	return &ApplyEditResult{Blocks: out.Blocks}, nil
}

// machineTranscript is the transcript the cleaned page was made with: kept aside at the first
// edit, before any revision overwrites the page's transcript.
func (a *Activities) machineTranscript(ctx context.Context, in ApplyEditInput) (*engine.Transcript, error) {
	key := job.EditKey(in.JobID, in.OutputName, 0)
	data, err := a.Bucket.ReadAll(ctx, key)
	if blobstore.IsNotFound(err) {
		if data, err = a.Bucket.ReadAll(ctx, job.TranscriptKey(in.JobID, in.OutputName)); err != nil {
			return nil, err
		}
		if err := a.Bucket.WriteAll(ctx, key, data, &blob.WriterOptions{ContentType: transcriptType}); err != nil {
			return nil, fmt.Errorf("keeping the machine's transcript: %w", err)
		}
	} else if err != nil {
		return nil, err
	}
	var t engine.Transcript
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("decoding the machine's transcript: %w", err)
	}
	return &t, nil
}

// SettleEditInput is how an edit ended: Failure is "" when it was applied.
type SettleEditInput struct {
	JobID      string
	OutputName string
	Revision   int
	Failure    string
}

// SettleEditResult says what settling did.
type SettleEditResult struct {
	Refunded int64
	Already  bool
	// Closed: the job was deleted or expired while the edit ran; its files were removed again.
	Closed bool
}

// SettleEdit records the edit's outcome and settles its credit exactly once (the store guards it
// by the page's edit in flight). A job deleted or expired meanwhile loses the files the edit
// wrote after its own removal.
func (a *Activities) SettleEdit(ctx context.Context, in SettleEditInput) (*SettleEditResult, error) {
	s, err := a.Store.SettleEdit(ctx, store.EditOutcome{JobID: in.JobID, OutputName: in.OutputName, Revision: in.Revision, Failure: in.Failure})
	if err != nil {
		return nil, err
	}
	if s.Closed {
		if _, err := blobstore.DeletePrefix(ctx, a.Bucket, job.Prefix(in.JobID)); err != nil {
			return nil, err
		}
	}
	a.log(ctx, in.JobID).Info("edit settled", "file", in.OutputName, "revision", in.Revision, "failure", in.Failure,
		"refunded", s.Refunded, "replayed", s.Already, "closed", s.Closed)
	return &SettleEditResult{Refunded: s.Refunded, Already: s.Already, Closed: s.Closed}, nil
}

// reconcileEdits settles, as failed, the edits claimed before the grace whose workflow is gone:
// the API died between claiming the revision and starting the workflow, or an operator ended it.
// SettleEdit's guard makes a workflow that settles at the same moment harmless.
func (a *Activities) reconcileEdits(ctx context.Context, in ReconcileInput, now time.Time, res *ReconcileResult) {
	stale, err := a.Store.StaleEdits(ctx, now.Add(-in.Grace))
	if err != nil {
		res.failed(a.log(ctx, ""), "listing stale edits", err)
		return
	}
	for _, e := range stale {
		gone, err := a.workflowGone(ctx, job.EditWorkflowID(e.JobID, e.OutputName, e.Revision))
		if err != nil || !gone {
			continue
		}
		e.Failure = "the edit stopped before it could be applied; try again"
		s, err := a.Store.SettleEdit(ctx, e)
		if err != nil {
			res.failed(a.log(ctx, e.JobID), "edit "+e.JobID+"/"+e.OutputName, err)
			continue
		}
		if !s.Already {
			res.SettledEdits = append(res.SettledEdits, e.JobID+"/"+e.OutputName)
		}
	}
}
