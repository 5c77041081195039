package translator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/vtsproject/vts/internal/lang"
)

// ApertiumConfig locates the Apertium rule-based translator (Debian package apertium plus one
// package per language pair, such as apertium-eng-spa).
type ApertiumConfig struct {
	// Path is the apertium binary; "apertium" (looked up in PATH) when empty.
	Path string
	// DataDir is passed as -d when set, for pairs installed outside the system directory.
	DataDir string
}

// Apertium translates offline with the installed Apertium language pairs.
type Apertium struct {
	path    string
	dataDir string
	// modes maps a pair of service codes to the Apertium mode that serves it.
	modes map[Pair]string
	pairs []Pair
}

// NewApertium finds the binary and the installed pairs. It fails when the binary is missing or
// no pair that the service can name is installed.
func NewApertium(ctx context.Context, cfg ApertiumConfig) (*Apertium, error) {
	bin := cfg.Path
	if bin == "" {
		bin = "apertium"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("apertium not found (%s): apt-get install apertium apertium-eng-spa: %w", bin, err)
	}
	a := &Apertium{path: path, dataDir: cfg.DataDir, modes: map[Pair]string{}}
	args := a.args("-l")
	out, err := exec.CommandContext(ctx, path, args...).Output()
	if err != nil {
		return nil, fmt.Errorf("listing apertium pairs with %s %s: %w", path, strings.Join(args, " "), err)
	}
	for _, mode := range strings.Fields(string(out)) {
		p, ok := apertiumModePair(mode)
		if !ok {
			continue
		}
		// A regional variant (spa-eng_US) serves the pair only when the plain mode is absent.
		if prev, dup := a.modes[p]; dup && !strings.Contains(prev, "_") {
			continue
		}
		a.modes[p] = mode
	}
	if len(a.modes) == 0 {
		return nil, fmt.Errorf("apertium at %s has no usable language pair installed: apt-get install apertium-eng-spa (or another pair)", path)
	}
	for p := range a.modes {
		a.pairs = append(a.pairs, p)
	}
	slices.SortFunc(a.pairs, func(x, y Pair) int { return strings.Compare(x.String(), y.String()) })
	return a, nil
}

func (a *Apertium) args(rest ...string) []string {
	if a.dataDir != "" {
		return append([]string{"-d", a.dataDir}, rest...)
	}
	return rest
}

// Name implements Translator.
func (a *Apertium) Name() string { return "apertium" }

// Pairs implements Translator.
func (a *Apertium) Pairs() []Pair { return slices.Clone(a.pairs) }

// Supports implements Translator.
func (a *Apertium) Supports(src, dst string) bool {
	_, ok := a.modes[Pair{src, dst}]
	return ok
}

// blockMark separates blocks in the single text stream sent to Apertium. A paragraph of its own
// made of brackets and digits passes through every stage untouched, and the blank lines around it
// are sentence boundaries, so the transfer rules never move words from one block into another.
const blockMarkFormat = "\n\n[[[%d]]]\n\n"

var (
	blockMarkRE = regexp.MustCompile(`\s*\[\[\[(\d+)\]\]\]\s*`)
	// Apertium flags unknown words with *, generation gaps with # and transfer gaps with @. A
	// reader should see the word, not the diagnostics.
	apertiumMarkRE = regexp.MustCompile(`(^|[^\p{L}\p{N}])[*#@]+([\p{L}\p{N}])`)
	spacesRE       = regexp.MustCompile(`\s+`)
)

// Translate implements Translator. customPrompt is ignored: Apertium follows rules, not
// instructions. All texts go through one apertium process.
func (a *Apertium) Translate(ctx context.Context, req Request) (*Result, error) {
	out, err := a.translate(ctx, req.Src, req.Dst, req.Texts)
	if err != nil {
		return nil, err
	}
	return &Result{Translations: out}, nil
}

func (a *Apertium) translate(ctx context.Context, src, dst string, texts []string) ([]string, error) {
	mode, ok := a.modes[Pair{src, dst}]
	if !ok {
		return nil, fmt.Errorf("apertium: no installed pair for %s", Pair{src, dst})
	}
	if len(texts) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for i, t := range texts {
		fmt.Fprintf(&in, blockMarkFormat, i)
		// Newlines inside a block are line breaks of the lettering, not paragraph ends.
		t = blockMarkRE.ReplaceAllString(t, " ")
		in.WriteString(strings.TrimSpace(spacesRE.ReplaceAllString(t, " ")))
	}
	fmt.Fprintf(&in, blockMarkFormat, len(texts))

	cmd := exec.CommandContext(ctx, a.path, a.args("-f", "txt", mode)...)
	cmd.Stdin = strings.NewReader(in.String())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("apertium %s: %w", mode, ctx.Err())
		}
		return nil, fmt.Errorf("apertium %s: %w: %s", mode, err, strings.TrimSpace(stderr.String()))
	}
	return splitBlocks(stdout.String(), len(texts))
}

// splitBlocks cuts Apertium's output at the block marks and cleans each translation.
func splitBlocks(out string, n int) ([]string, error) {
	locs := blockMarkRE.FindAllStringSubmatchIndex(out, -1)
	if len(locs) != n+1 {
		return nil, fmt.Errorf("apertium: %w (found %d block marks for %d texts)", ErrCountMismatch, len(locs), n)
	}
	res := make([]string, n)
	for i := 0; i < n; i++ {
		idx, err := strconv.Atoi(out[locs[i][2]:locs[i][3]])
		if err != nil || idx != i {
			return nil, errors.New("apertium: block marks came back out of order")
		}
		t := out[locs[i][1]:locs[i+1][0]]
		t = apertiumMarkRE.ReplaceAllString(t, "$1$2")
		res[i] = strings.TrimSpace(spacesRE.ReplaceAllString(t, " "))
	}
	return res, nil
}

// apertiumModePair maps a mode name such as "eng-spa" or "spa-eng_US" to service codes.
func apertiumModePair(mode string) (Pair, bool) {
	src, dst, ok := strings.Cut(mode, "-")
	if !ok || strings.Contains(dst, "-") {
		return Pair{}, false // debugging modes such as eng-spa-anmor
	}
	s, ok1 := fromApertiumCode(src)
	d, ok2 := fromApertiumCode(dst)
	return Pair{s, d}, ok1 && ok2 && s != d
}

// fromApertiumCode maps an Apertium language code (ISO 639-3, sometimes ISO 639-1 in older
// pairs, sometimes with a variant after "_") to the service's code.
func fromApertiumCode(code string) (string, bool) {
	base, variant, _ := strings.Cut(code, "_")
	c, ok := lang.FromISO6393(base)
	if !ok && KnownLanguage(base) {
		c, ok = base, true
	}
	if !ok {
		return "", false
	}
	if c == "zh" {
		switch variant {
		case "Hant", "TW", "HK":
			return "zh-Hant", true
		}
		return "zh-Hans", true
	}
	return c, true
}
