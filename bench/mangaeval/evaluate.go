package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // decodes translated JPEG pages
	_ "image/png"  // decodes translated PNG pages
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	_ "golang.org/x/image/webp" // decodes translated WebP pages

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// evaluator runs the engine on pages and scores what comes back.
type evaluator struct {
	engine   engine.Engine
	oracle   *oracle
	mode     job.Mode
	read     readBack
	readBack bool
	out      string
	log      io.Writer
	verbose  bool
}

// pageResult is one page translated from one source language, scored.
type pageResult struct {
	Name    string  `json:"name"`
	Seed    int64   `json:"seed,omitempty"`
	Src     string  `json:"src"`
	Width   int     `json:"width"`
	Height  int     `json:"height"`
	Format  string  `json:"format"`
	Notes   string  `json:"notes,omitempty"`
	Seconds float64 `json:"seconds"`
	// BaselineSeconds is Tesseract alone reading the whole page with its vertical Japanese model
	// (-l jpn_vert --psm 5) in one thread (oneThreadEnv), measured in the same run: what
	// reading a page costs at the least.
	BaselineSeconds float64 `json:"baselineSeconds,omitempty"`
	// BaselineStopped says Tesseract alone was stopped at baselineLimit on this page: on some
	// pages its whole-page vertical layout analysis runs on for many minutes (seed 512 did).
	BaselineStopped bool   `json:"baselineStopped,omitempty"`
	Error           string `json:"error,omitempty"`
	Blocks          int    `json:"blocks"` // as the engine counts them
	Transcript      bool   `json:"hasTranscript"`
	Cleaned         bool   `json:"hasCleaned"`
	ExtraBlocks     int    `json:"extraBlocks"` // transcript blocks on no annotated lettering
	// OracleCalls is how many translation requests the engine made.
	OracleCalls int `json:"oracleCalls"`
	// Oracle lists the blocks the engine sent for translation and the answers.
	Oracle  []exchange         `json:"oracle"`
	Bubbles []bubbleResult     `json:"bubbles"`
	Engine  *engine.Transcript `json:"transcript,omitempty"`
}

type bubbleResult struct {
	Kind        string         `json:"kind"`
	Hard        string         `json:"hard,omitempty"` // the hard kind of lettering, on -set hard pages
	Text        string         `json:"text"`
	Translation string         `json:"translation"`
	Box         mangapage.Rect `json:"box"`
	Balloon     mangapage.Rect `json:"balloon"`
	Scored      bool           `json:"scored"` // false for sound effects
	Reading     reading        `json:"reading"`
	WordsTotal  int            `json:"wordsTotal"`
	WordsFound  int            `json:"wordsFound"`
	ReadBack    string         `json:"readBack,omitempty"`
	Emptying    emptying       `json:"emptying"`
	// FillWidth and FillHeight are the lettering's extent as a share of its balloon's.
	FillWidth    float64 `json:"fillWidth,omitempty"`
	FillHeight   float64 `json:"fillHeight,omitempty"`
	FillMeasured bool    `json:"fillMeasured"`
	// Outside is the share of the lettering of the block read for this bubble that lies outside
	// its balloon.
	Outside         float64 `json:"outside,omitempty"`
	OutsideMeasured bool    `json:"outsideMeasured"`
}

func toRect(r image.Rectangle) mangapage.Rect {
	return mangapage.Rect{X: r.Min.X, Y: r.Min.Y, W: r.Dx(), H: r.Dy()}
}

// oneThreadEnv is the environment the harness's Tesseract processes run in: one OpenMP thread,
// unless OMP_THREAD_LIMIT is set (then nil, the environment as it is). It is the engine's rule
// for its own processes (read.NewTesseract), which the harness may not reach into: stages are
// composed by the ocr engine alone (archtest).
func oneThreadEnv() []string {
	if _, set := os.LookupEnv("OMP_THREAD_LIMIT"); set {
		return nil
	}
	return append(os.Environ(), "OMP_THREAD_LIMIT=1")
}

// baselineLimit stops Tesseract alone on a page: a hundred times what it takes on most pages.
const baselineLimit = 90 * time.Second

// evaluate translates p from src to English and scores it. Engine failures are recorded in
// the result; only the harness's own failures are returned.
func (ev *evaluator) evaluate(ctx context.Context, p mangapage.Page, name, src string) (pageResult, error) {
	b := p.Image.Bounds()
	res := pageResult{Name: name, Seed: p.Seed, Src: src, Width: b.Dx(), Height: b.Dy(), Format: p.Format, Notes: p.Notes}
	ev.oracle.set(p.Bubbles, p.Plate)
	calls := ev.oracle.calls()
	req := engine.Request{
		Image: p.Encoded, Format: p.Format, Filename: name + "." + p.Format,
		SourceLang: src, TargetLang: "en", Mode: ev.mode, Resolution: "original",
	}
	if ev.read.path != "" {
		start := time.Now()
		bctx, cancel := context.WithTimeout(ctx, baselineLimit)
		cmd := exec.CommandContext(bctx, ev.read.path, "stdin", "stdout", "-l", "jpn_vert", "--psm", "5")
		cmd.Stdin = bytes.NewReader(p.Encoded)
		// One thread, as the engine's processes run: left to OpenMP, its threads spin while they
		// wait, two to three times slower on two cores and more under load, and the baseline
		// measured the machine's load more than Tesseract.
		cmd.Env = oneThreadEnv()
		err := cmd.Run()
		stopped := bctx.Err() == context.DeadlineExceeded
		cancel()
		switch {
		case stopped:
			res.BaselineStopped = true
		case err != nil:
			return res, fmt.Errorf("running the Tesseract baseline: %w", err)
		default:
			res.BaselineSeconds = time.Since(start).Seconds()
		}
	}
	start := time.Now()
	resp, err := ev.engine.Translate(ctx, req)
	res.Seconds = time.Since(start).Seconds()
	res.OracleCalls = ev.oracle.calls() - calls
	res.Oracle = ev.oracle.take()

	var out, cleaned image.Image
	if err == nil {
		out, _, err = image.Decode(bytes.NewReader(resp.Image))
		if err != nil {
			err = fmt.Errorf("decoding the translated page: %w", err)
		}
	}
	if err == nil && resp.Cleaned != nil {
		cleaned, _, err = image.Decode(bytes.NewReader(resp.Cleaned))
		if err != nil {
			err = fmt.Errorf("decoding the cleaned page: %w", err)
		}
	}
	if err != nil {
		res.Error = err.Error()
	}
	var tr *engine.Transcript
	if resp != nil && err == nil {
		res.Blocks = resp.Blocks
		tr = resp.Transcript
		res.Transcript = tr != nil
		res.Cleaned = cleaned != nil
		res.Engine = tr
		res.ExtraBlocks = extraBlocks(p.Bubbles, tr, b)
	}
	if cleaned == nil {
		cleaned = out
	}
	readings := scoreReading(p.Bubbles, tr, b)
	for i, bb := range p.Bubbles {
		br := bubbleResult{Kind: bb.Kind, Hard: bb.Hard, Text: bb.Text, Translation: bb.Translation, Box: toRect(bb.Box), Balloon: toRect(bb.Balloon), Scored: bb.Dialogue(), Reading: readings[i]}
		if br.Scored {
			want := words(bb.Translation)
			br.WordsTotal = len(want)
			if out != nil && ev.readBack && len(want) > 0 {
				crop := readCrop(balloonBoxes{Box: bb.Box, Balloon: bb.Balloon}, b, out.Bounds())
				text, err := ev.read.read(ctx, out, crop)
				if err != nil {
					return res, err
				}
				br.ReadBack = text
				br.WordsFound = wordsFound(want, words(text))
			}
			if cleaned != nil {
				br.Emptying = scoreEmptying(p.Image, p.Plate, cleaned, bb)
				br.Emptying.Residue, br.Emptying.ResidueMeasured = residue(p.Image, p.Plate, cleaned, bb)
			}
			if res.Cleaned {
				br.FillWidth, br.FillHeight, br.FillMeasured = letteringFill(p.Image, out, cleaned, bb)
				if k := readings[i].Block; tr != nil && k >= 0 && k < len(tr.Blocks) && tr.Blocks[k].Status == "lettered" {
					br.Outside, br.OutsideMeasured = letteringOutside(p.Image, out, cleaned, bb, tr.Blocks[k].Shape)
				}
			}
		}
		if ev.verbose {
			fmt.Fprintf(ev.log, "  %-7s %q read %q cer %.2f words %d/%d cleared %.2f\n", bb.Kind, bb.Text, br.Reading.Source, br.Reading.CER, br.WordsFound, br.WordsTotal, br.Emptying.Cleared)
		}
		res.Bubbles = append(res.Bubbles, br)
	}
	if ev.out != "" {
		if err := ev.save(name, src, res, resp); err != nil {
			return res, err
		}
	}
	return res, nil
}

func (ev *evaluator) save(name, src string, res pageResult, resp *engine.Response) error {
	base := filepath.Join(ev.out, name+"."+src)
	if resp != nil {
		ext := map[string]string{"png": ".png", "jpeg": ".jpg", "webp": ".webp"}[resp.Format]
		if err := os.WriteFile(base+".out"+ext, resp.Image, 0o644); err != nil {
			return err
		}
		if resp.Cleaned != nil {
			if err := os.WriteFile(base+".cleaned"+ext, resp.Cleaned, 0o644); err != nil {
				return err
			}
		}
	}
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the page report: %w", err)
	}
	return os.WriteFile(base+".result.json", append(data, '\n'), 0o644)
}
