package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// tally adds up the scores of dialogue bubbles.
type tally struct {
	Pages, Failed int
	Bubbles, Read int
	CER           float64 // sum over bubbles
	WordsTotal    int
	WordsFound    int
	Measured      int // bubbles whose emptying could be measured
	Emptied       int
	Blocks, Extra int
	// Sent and Unmatched count the blocks sent to the translator and those of them that match
	// no annotated text, to which the oracle answers nothing.
	Sent, Unmatched int
	Seconds         []float64
	// BaselineSeconds is Tesseract alone over the BaselinePages it finished, on which the engine
	// took BaselineEngineSeconds.
	BaselineSeconds       float64
	BaselinePages         int
	BaselineEngineSeconds float64
	BaselineStopped       int
	Transcripts           int
	CleanedResponses      int
	// Spaced counts the bubbles read without a wrong character whose lettering has word
	// spaces; SpacedRight those of them read with the spaces where the lettering has them.
	Spaced, SpacedRight int
}

func (t *tally) add(r pageResult) {
	t.Pages++
	if r.Error != "" {
		t.Failed++
	}
	t.Blocks += r.Blocks
	t.Extra += r.ExtraBlocks
	for _, x := range r.Oracle {
		t.Sent++
		if x.Answer == "" {
			t.Unmatched++
		}
	}
	t.Seconds = append(t.Seconds, r.Seconds)
	if r.BaselineSeconds > 0 {
		t.BaselineSeconds += r.BaselineSeconds
		t.BaselinePages++
		t.BaselineEngineSeconds += r.Seconds
	}
	if r.BaselineStopped {
		t.BaselineStopped++
	}
	if r.Transcript {
		t.Transcripts++
	}
	if r.Cleaned {
		t.CleanedResponses++
	}
	for _, b := range r.Bubbles {
		if !b.Scored {
			continue
		}
		t.Bubbles++
		t.CER += b.Reading.CER
		if b.Reading.Read {
			t.Read++
		}
		if b.Reading.Spaced {
			t.Spaced++
			if b.Reading.SpacedRight {
				t.SpacedRight++
			}
		}
		t.WordsTotal += b.WordsTotal
		t.WordsFound += b.WordsFound
		// A bubble that cannot be measured (no ink, no contrast) is not counted at all, but a
		// page the engine failed on counts as not emptied.
		if b.Emptying.Measured || r.Error != "" {
			t.Measured++
			if b.Emptying.Emptied {
				t.Emptied++
			}
		}
	}
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func (t tally) meanCER() float64 {
	if t.Bubbles == 0 {
		return 0
	}
	return t.CER / float64(t.Bubbles)
}

func (t tally) meanSeconds() float64 {
	if len(t.Seconds) == 0 {
		return 0
	}
	s := 0.0
	for _, v := range t.Seconds {
		s += v
	}
	return s / float64(len(t.Seconds))
}

// percentile is the nearest-rank p-th percentile of the page times.
func (t tally) percentile(p float64) float64 {
	if len(t.Seconds) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(t.Seconds))
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func (t tally) pagesPerSecond() float64 {
	total := 0.0
	for _, v := range t.Seconds {
		total += v
	}
	if total == 0 {
		return 0
	}
	return float64(len(t.Seconds)) / total
}

func pct(a, b int) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f %% (%d/%d)", 100*ratio(a, b), a, b)
}

// line is the one-line progress report of a page.
func (r pageResult) line() string {
	var t tally
	t.add(r)
	s := fmt.Sprintf("%4d×%-4d %-4s %5.1fs blocks %2d read %d/%d cer %.2f words %d/%d emptied %d/%d",
		r.Width, r.Height, r.Format, r.Seconds, r.Blocks, t.Read, t.Bubbles, t.meanCER(), t.WordsFound, t.WordsTotal, t.Emptied, t.Measured)
	if r.Error != "" {
		s += " ERROR " + r.Error
	}
	return s
}

// hardTable writes recall by hard kind of lettering, when the pages have any (-set hard).
func hardTable(b *strings.Builder, c config, results map[string][]pageResult) {
	tallies := map[string]*publishTally{}
	hard := false
	for _, src := range c.Srcs {
		t := &publishTally{}
		for _, r := range results[src] {
			t.add(r)
		}
		tallies[src] = t
		for _, k := range mangapage.HardKinds {
			hard = hard || t.HardTotal[k] > 0
		}
	}
	if !hard {
		return
	}
	b.WriteString("\nDialogue found and read (similarity ≥ 0.5) by hard kind of lettering: short shouts (one to four letters), balloons open on one side or cut by the panel's frame, text on tone or hatching (with or without a white halo), square blocks of two or more columns; and the page's ordinary dialogue.\n\n")
	b.WriteString("| source |")
	for _, k := range mangapage.HardKinds {
		fmt.Fprintf(b, " %s |", k)
	}
	b.WriteString(" ordinary |\n|---|" + strings.Repeat("---|", len(mangapage.HardKinds)+1) + "\n")
	for _, src := range c.Srcs {
		t := tallies[src]
		fmt.Fprintf(b, "| %s |", src)
		for _, k := range append(slices.Clone(mangapage.HardKinds), "") {
			fmt.Fprintf(b, " %s |", pct(t.HardRead[k], t.HardTotal[k]))
		}
		b.WriteString("\n")
	}
}

// markdown is the report: an overall table per source language, then one row per page.
func markdown(what string, c config, results map[string][]pageResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "### Manga pages: %s engine, mode %s, to English\n\n", c.Engine, c.Mode)
	fmt.Fprintf(&b, "%s; translator: the oracle (the known English of the closest annotated text, over the real OpenAI client). ", what)
	b.WriteString("Scored: dialogue, captions and free text; sound effects are not.\n\n")
	b.WriteString("| source | pages | bubbles | found & read (sim ≥ 0.5) | mean CER | English words read back | emptied (≥ 90 % of ink) | s/page mean | s/page p90 | pages/s | Tesseract alone (one thread) s/page | × Tesseract alone |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	var notes []string
	for _, src := range c.Srcs {
		var t tally
		for _, r := range results[src] {
			t.add(r)
		}
		base, ratio := "–", "–"
		if t.BaselineSeconds > 0 {
			base = fmt.Sprintf("%.2f", t.BaselineSeconds/float64(t.BaselinePages))
			ratio = fmt.Sprintf("%.2f", t.BaselineEngineSeconds/t.BaselineSeconds)
		}
		if t.BaselineStopped > 0 {
			notes = append(notes, fmt.Sprintf("%s: Tesseract alone was stopped after %s on %d of %d pages; its time and the ratio to it are over the other pages.", src, baselineLimit, t.BaselineStopped, t.Pages))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %s | %.3f | %s | %s | %.2f | %.2f | %.2f | %s | %s |\n",
			src, t.Pages, t.Bubbles, pct(t.Read, t.Bubbles), t.meanCER(), pct(t.WordsFound, t.WordsTotal),
			pct(t.Emptied, t.Measured), t.meanSeconds(), t.percentile(90), t.pagesPerSecond(), base, ratio)
		if t.Failed > 0 {
			notes = append(notes, fmt.Sprintf("%s: the engine failed on %d of %d pages (their bubbles count as missed).", src, t.Failed, t.Pages))
		}
		if t.Transcripts < t.Pages {
			notes = append(notes, fmt.Sprintf("%s: %d of %d responses carry no transcript, so their bubbles count as not found (CER 1).", src, t.Pages-t.Transcripts, t.Pages))
		}
		if t.CleanedResponses < t.Pages {
			notes = append(notes, fmt.Sprintf("%s: %d of %d responses carry no cleaned page; emptying was measured on the translated page.", src, t.Pages-t.CleanedResponses, t.Pages))
		}
		if t.Spaced > 0 {
			notes = append(notes, fmt.Sprintf("%s: word spaces (which the CER ignores) where the lettering has them in %s of the bubbles read without a wrong character whose lettering has any.", src, pct(t.SpacedRight, t.Spaced)))
		}
		if t.Transcripts > 0 {
			notes = append(notes, fmt.Sprintf("%s: the engine counted %d blocks; %d transcript blocks lay on no annotated lettering.", src, t.Blocks, t.Extra))
			notes = append(notes, fmt.Sprintf("%s: of %d blocks sent to the translator, %d matched no annotated text: art or a misreading taken for lettering, which the oracle leaves untranslated and a real translator would have painted over.", src, t.Sent, t.Unmatched))
		} else {
			notes = append(notes, fmt.Sprintf("%s: the engine counted %d blocks.", src, t.Blocks))
		}
	}
	b.WriteString("\nWhat a reader of the finished page sees: bubbles clean of ghost glyphs (of the emptied ones, the share whose residue, the pixels on and around the former glyphs still visibly darker than the paper, or, where the page drawn without its lettering is known, visibly darker or lighter than anything it shows there, is at most 1 %), the mean residue over every measured bubble, recall by kind of lettering (short: one to four characters; sfx are found but not scored above), sound effects whose block the engine marked sfx (to be left in the art), the transcript's blocks kept as skipped (found, left untouched for a person), the median extent of the lettering as a share of its balloon's width and height, and the balloons whose lettering spills out of them (over a tenth of it outside the balloon).\n\n")
	b.WriteString("| source | clean of ghosts | mean residue | found & read: bubble | caption | free | short | sfx | sfx marked sfx | skipped blocks | lettering width / balloon | height / balloon | lettering outside its balloon |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, src := range c.Srcs {
		var t publishTally
		for _, r := range results[src] {
			t.add(r)
		}
		mean := 0.0
		for _, v := range t.Residues {
			mean += v / float64(len(t.Residues))
		}
		fmt.Fprintf(&b, "| %s, finished page | %s | %.3f | %s | %s | %s | %s | %s | %s | %s | %.2f | %.2f | %s |\n", src, pct(t.Clean, t.Erased), mean,
			pct(t.KindRead[mangapage.KindBubble], t.KindTotal[mangapage.KindBubble]), pct(t.KindRead[mangapage.KindCaption], t.KindTotal[mangapage.KindCaption]),
			pct(t.KindRead[mangapage.KindFree], t.KindTotal[mangapage.KindFree]), pct(t.KindRead["short"], t.KindTotal["short"]),
			pct(t.KindRead[mangapage.KindSFX], t.KindTotal[mangapage.KindSFX]), pct(t.SFXMarked, t.KindTotal[mangapage.KindSFX]),
			pct(t.Skipped, t.Blocks), medianOf(t.FillW), medianOf(t.FillH), pct(t.Outside, t.Lettered))
	}
	hardTable(&b, c, results)
	b.WriteString("\n")
	for _, n := range notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	for _, src := range c.Srcs {
		fmt.Fprintf(&b, "\n<details><summary>Per page, source %s</summary>\n\n", src)
		b.WriteString("| page | size | format | bubbles | blocks | read | mean CER | words | emptied | s | drawn |\n")
		b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, r := range results[src] {
			var t tally
			t.add(r)
			drawn := r.Notes
			if r.Error != "" {
				drawn = "ERROR: " + r.Error
			}
			fmt.Fprintf(&b, "| %s | %d×%d | %s | %d | %d | %d/%d | %.2f | %d/%d | %d/%d | %.2f | %s |\n",
				r.Name, r.Width, r.Height, r.Format, t.Bubbles, r.Blocks, t.Read, t.Bubbles, t.meanCER(),
				t.WordsFound, t.WordsTotal, t.Emptied, t.Measured, r.Seconds, strings.ReplaceAll(drawn, "|", "/"))
		}
		b.WriteString("\n</details>\n")
	}
	return b.String()
}
