package main

import (
	"image"
	"strings"
	"sync"
	"unicode"

	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Oracle thresholds. A block gets the translation of the annotated text most similar to it
// (similarity = 1 - edit distance / the longer length) when that similarity is at least
// oracleWhole. Failing that, a block of three characters or more that covers at least
// oracleCover of some annotated text and matches part of it at least oracleFragment well gets
// that text's translation, as when an engine reads one column of a balloon as a block of its
// own. Blocks of one or two characters match only a text of the same letters (punctuation
// aside): two kana in common with some bubble are chance, not a reading.
const (
	oracleWhole    = 0.5
	oracleFragment = 0.75
	oracleCover    = 0.3
)

// oracle is a perfect translator for the page being evaluated: it answers each source block
// with the known English of the annotated lettering its text is closest to. What the benchmark
// then measures is the engine (finding, reading, cleaning, lettering), not a translator.
type oracle struct {
	mu      sync.Mutex
	bubbles []mangapage.Bubble
	plate   image.Image // the page without its lettering, when known (for the reference engine)
	n       int         // requests answered
	log     []exchange
}

// exchange is one block the engine sent and what the oracle answered.
type exchange struct {
	Source string `json:"source"`
	Answer string `json:"answer"`
}

// take returns the exchanges since the last call.
func (o *oracle) take() []exchange {
	o.mu.Lock()
	defer o.mu.Unlock()
	l := o.log
	o.log = nil
	return l
}

// calls is how many requests the oracle has answered.
func (o *oracle) calls() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.n
}

// set makes the oracle answer for a page, whose plate may be nil.
func (o *oracle) set(b []mangapage.Bubble, plate image.Image) {
	o.mu.Lock()
	o.bubbles, o.plate = b, plate
	o.log = nil
	o.mu.Unlock()
}

// translate answers sources, the blocks of one request.
func (o *oracle) translate(_ llmfake.Request, sources []string) []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.n++
	out := make([]string, len(sources))
	for i, s := range sources {
		out[i] = o.lookup(s)
		o.log = append(o.log, exchange{Source: s, Answer: out[i]})
	}
	return out
}

func (o *oracle) lookup(s string) string {
	src := mangapage.Normalize(s)
	if len(src) == 0 {
		return ""
	}
	best, bestSim := -1, 0.0
	for i, b := range o.bubbles {
		ref := mangapage.Normalize(b.Text)
		var v float64
		if len(src) <= 2 || len(ref) <= 2 {
			if l := letters(src); l != "" && l == letters(ref) {
				v = 1
			}
		} else {
			v = 1 - float64(mangapage.Levenshtein(src, ref))/float64(max(len(src), len(ref)))
		}
		if v >= oracleWhole && v > bestSim {
			best, bestSim = i, v
		}
	}
	if best < 0 && len(src) >= 3 {
		bestSim = oracleFragment
		for i, b := range o.bubbles {
			ref := mangapage.Normalize(b.Text)
			if float64(len(src)) < oracleCover*float64(len(ref)) {
				continue
			}
			if v := fragmentSimilarity(ref, src); v >= bestSim {
				best, bestSim = i, v
			}
		}
	}
	if best < 0 {
		return ""
	}
	return o.bubbles[best].Translation
}

// letters is s without punctuation and symbols.
func letters(s []rune) string {
	var b strings.Builder
	for _, r := range s {
		if !unicode.IsPunct(r) && !unicode.IsSymbol(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
