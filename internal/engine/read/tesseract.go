// Package read is the stage that reads lettering with Tesseract: the client, the crops each
// line is read from, and the batched reading of a page's blocks.
package read

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/vtsproject/vts/internal/engine/page"
)

// Tesseract runs the Tesseract CLI. The image travels on stdin as binary PGM, which Leptonica
// reads without decompression and which needs no temporary file; TSV comes back on stdout.
type Tesseract struct {
	path        string
	tessdataDir string
	// sem bounds concurrent tesseract processes: each takes a core and up to a few hundred MB.
	sem chan struct{}
	// runs counts the processes started: what a page costs, in the unit that dominates it.
	runs atomic.Int64
	// env is the processes' environment: one OpenMP thread each, unless the operator set
	// OMP_THREAD_LIMIT. Tesseract is built with OpenMP, which otherwise starts a thread per core
	// in every process, and its waiting threads spin; the engine already runs processes side by
	// side (the two reading directions, pages at once). On a busy 2-core machine one page's 26
	// crops took 9 s (5 s of CPU) with the threads, 1.4 s (0.8 s) with one. The text is the same.
	env []string
}

// NewTesseract runs the binary at path with the language data of tessdataDir (Tesseract's own
// when empty), at most conc processes at a time.
func NewTesseract(path, tessdataDir string, conc int) *Tesseract {
	t := &Tesseract{path: path, tessdataDir: tessdataDir, sem: make(chan struct{}, conc)}
	if _, set := os.LookupEnv("OMP_THREAD_LIMIT"); !set {
		t.env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	}
	return t
}

// Runs counts the processes started.
func (t *Tesseract) Runs() int64 { return t.runs.Load() }

func (t *Tesseract) baseArgs() []string {
	if t.tessdataDir != "" {
		return []string{"--tessdata-dir", t.tessdataDir}
	}
	return nil
}

func (t *Tesseract) acquire(ctx context.Context) error {
	select {
	case t.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (t *Tesseract) release() { <-t.sem }

// run feeds img to tesseract with args after "stdin stdout" and returns stdout.
func (t *Tesseract) run(ctx context.Context, img *image.Gray, args ...string) ([]byte, error) {
	return t.exec(ctx, "stdin", bytes.NewReader(encodePGM(img)), args)
}

func (t *Tesseract) exec(ctx context.Context, input string, stdin io.Reader, args []string) ([]byte, error) {
	if err := t.acquire(ctx); err != nil {
		return nil, err
	}
	defer t.release()
	t.runs.Add(1)
	all := append(t.baseArgs(), input, "stdout")
	all = append(all, args...)
	cmd := exec.CommandContext(ctx, t.path, all...)
	cmd.Stdin, cmd.Env = stdin, t.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, t.failed(args, err, stderr.String())
	}
	return stdout.Bytes(), nil
}

// failed says which run of Tesseract failed, how, and what it printed about it.
func (t *Tesseract) failed(args []string, err error, stderr string) error {
	return fmt.Errorf("running %s %s: %w: %s", t.path, strings.Join(args, " "), err, strings.TrimSpace(stderr))
}

// Words runs recognition with page segmentation mode psm and returns the words of the TSV.
func (t *Tesseract) Words(ctx context.Context, img *image.Gray, langs string, psm int) ([]page.Word, error) {
	out, err := t.run(ctx, img, "-l", langs, "--psm", strconv.Itoa(psm), "--dpi", "300", "tsv")
	if err != nil {
		return nil, err
	}
	return parseTSV(out)
}

// parseTSV reads Tesseract's TSV: level page_num block_num par_num line_num word_num left top
// width height conf text, one row per layout element; level 5 rows are words.
func parseTSV(data []byte) ([]page.Word, error) {
	var words []page.Word
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" { // the header's level is "level"
			continue
		}
		var n [4]int
		for i := range n {
			v, err := strconv.Atoi(f[6+i])
			if err != nil {
				return nil, fmt.Errorf("tesseract TSV: bad box field %q: %w", f[6+i], err)
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("tesseract TSV: bad confidence %q: %w", f[10], err)
		}
		text := strings.TrimSpace(f[11])
		if text == "" || conf < 0 {
			continue
		}
		words = append(words, page.Word{Box: image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]), Conf: conf, Text: text})
	}
	return words, sc.Err()
}

// Script asks orientation and script detection which writing system dominates the page, e.g.
// "Latin", "Han", "Japanese", "Hangul", "Cyrillic". It needs the osd language data.
func (t *Tesseract) Script(ctx context.Context, img *image.Gray) (string, error) {
	out, err := t.run(ctx, img, "--psm", "0", "--dpi", "300")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(line, "Script:"); ok {
			return strings.TrimSpace(v), nil
		}
	}
	return "", fmt.Errorf("tesseract OSD named no script")
}

// ListLangs returns the installed language data, e.g. ["eng", "osd", "spa"].
func (t *Tesseract) ListLangs(ctx context.Context) ([]string, error) {
	args := append(t.baseArgs(), "--list-langs")
	out, err := exec.CommandContext(ctx, t.path, args...).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("running %s --list-langs: %w: %s", t.path, err, strings.TrimSpace(string(out)))
	}
	var langs []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "List of available") {
			continue
		}
		langs = append(langs, line)
	}
	return langs, nil
}

// encodePGM writes img as binary PGM (P5).
func encodePGM(img *image.Gray) []byte {
	b := img.Bounds()
	header := fmt.Sprintf("P5\n%d %d\n255\n", b.Dx(), b.Dy())
	buf := make([]byte, 0, len(header)+b.Dx()*b.Dy())
	buf = append(buf, header...)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		off := img.PixOffset(b.Min.X, y)
		buf = append(buf, img.Pix[off:off+b.Dx()]...)
	}
	return buf
}
