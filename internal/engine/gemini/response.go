package gemini

import (
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/vtsproject/vts/internal/engine"
)

// blocked is how finish reasons and prompt block reasons that mean "refused" map to a
// user-facing message. Reasons not listed (STOP, MAX_TOKENS, NO_IMAGE, OTHER, ...) fall through
// to the "no image" handling.
var blocked = map[string]string{
	"SAFETY":                   msgSafety,
	"PROHIBITED_CONTENT":       msgSafety,
	"IMAGE_SAFETY":             msgSafety,
	"IMAGE_PROHIBITED_CONTENT": msgSafety,
	"BLOCKLIST":                msgSafety,
	"SPII":                     msgSafety,
	"MODEL_ARMOR":              msgSafety,
	"JAILBREAK":                msgSafety,
	"RECITATION":               msgRecitation,
	"IMAGE_RECITATION":         msgRecitation,
}

// maxQuotedText bounds how much of the model's text answer goes into an error.
const maxQuotedText = 300

// pickImage scans every part of every candidate for an image and returns the best one: the
// last final (non-thought) image, or failing that the last thought image, since a thinking
// model's drafts come before its answer. Text parts are never the answer, but they are kept
// to explain an answer without an image.
func pickImage(resp *genai.GenerateContentResponse) (*genai.Blob, error) {
	if resp == nil {
		return nil, engine.Permanent(msgNoImage, errors.New("gemini: empty response"))
	}
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		msg, ok := blocked[string(pf.BlockReason)]
		if !ok {
			msg = msgSafety
		}
		return nil, engine.Permanent(msg, fmt.Errorf("gemini: prompt blocked: %s %s", pf.BlockReason, pf.BlockReasonMessage))
	}
	var final, thought *genai.Blob
	var texts []string
	var reasons []string
	for _, c := range resp.Candidates {
		if c == nil {
			continue
		}
		if c.FinishReason != "" {
			reasons = append(reasons, string(c.FinishReason))
		}
		if c.FinishMessage != "" {
			texts = append(texts, c.FinishMessage)
		}
		if c.Content == nil {
			continue
		}
		for _, p := range c.Content.Parts {
			switch {
			case p == nil:
			case p.InlineData != nil && isImage(p.InlineData.MIMEType) && len(p.InlineData.Data) > 0:
				if p.Thought {
					thought = p.InlineData
				} else {
					final = p.InlineData
				}
			case p.Text != "" && !p.Thought:
				texts = append(texts, p.Text)
			}
		}
	}
	if final != nil {
		return final, nil
	}
	if thought != nil {
		return thought, nil
	}
	detail := fmt.Sprintf("gemini: no image in %d candidate(s), finish reasons %v", len(resp.Candidates), reasons)
	if t := quote(strings.Join(texts, " ")); t != "" {
		detail += ", model said " + t
	}
	for _, r := range reasons {
		if msg, ok := blocked[r]; ok {
			return nil, engine.Permanent(msg, errors.New(detail))
		}
	}
	return nil, engine.Permanent(msgNoImage, errors.New(detail))
}

func isImage(mime string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(mime)), "image/")
}

// quote shortens and quotes the model's text for an error message.
func quote(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return ""
	}
	if r := []rune(s); len(r) > maxQuotedText {
		s = string(r[:maxQuotedText]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
