package engine

import (
	"context"
	"fmt"

	"github.com/vtsproject/vts/internal/job"
)

// The statuses a proofreader gives a block in an edited transcript, beside the engine's own.
const (
	// StatusKeep: the block is left as it was on the source page, its original lettering put back.
	StatusKeep = "keep"
	// StatusRemoved: the block is not lettered.
	StatusRemoved = "removed"
)

// EditRequest is a page to letter again from its edited transcript: no reading, and no
// translation but of the blocks named in Retranslate.
type EditRequest struct {
	// Cleaned is the page with the machine's lettering removed, in the page's output format.
	Cleaned []byte
	// Source is the page as uploaded, for the blocks kept as they were.
	Source []byte
	// Machine is the transcript the cleaned page was made with: blocks it did not erase (added
	// by a person, or skipped) have their box painted over before they are lettered.
	Machine *Transcript
	// Transcript is the edited transcript; every block has its ID.
	Transcript *Transcript
	// Retranslate names the blocks to translate again from their source.
	Retranslate []string
	Mode        job.Mode
	// CustomPrompt and Glossary are the job's, for the retranslated blocks.
	CustomPrompt string
	Glossary     string
}

// Editor is an engine whose pages can be lettered again from an edited transcript. Engines that
// keep no transcript (an image-to-image model) are not editors.
type Editor interface {
	Edit(ctx context.Context, req EditRequest) (*Response, error)
}

// NotEditable is the failure of an edit of a page whose engine is not an Editor.
func NotEditable() error { return Permanent("this page's engine cannot letter it again", nil) }

// NameBlocks gives every block without an ID the name of its place ("b1", "b2", …), as the page
// model does: a transcript written before blocks carried IDs names them so.
func NameBlocks(blocks []TranscriptBlock) []TranscriptBlock {
	out := make([]TranscriptBlock, len(blocks))
	for i, b := range blocks {
		if b.ID == "" {
			b.ID = fmt.Sprintf("b%d", i+1)
		}
		out[i] = b
	}
	return out
}
