package main

import (
	"sync"

	"github.com/vtsproject/vts/internal/testkit/llmfake"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// Oracle thresholds: a block gets a bubble's translation when its text is at least
// oracleWhole similar to the whole bubble, or is (at least oracleFragment similar to) a part of
// it of two characters or more, as when an engine reads one column of a balloon as a block.
const (
	oracleWhole    = 0.3
	oracleFragment = 0.7
)

// oracle is a perfect translator for the page being evaluated: it answers each source block
// with the known English of the annotated lettering its text is closest to. What the benchmark
// then measures is the engine (finding, reading, cleaning, lettering), not a translator.
type oracle struct {
	mu      sync.Mutex
	bubbles []mangapage.Bubble
	n       int // requests answered
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

// set makes the oracle answer for a page.
func (o *oracle) set(b []mangapage.Bubble) {
	o.mu.Lock()
	o.bubbles = b
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
	src := normalize(s)
	if len(src) == 0 {
		return ""
	}
	best, bestSim := -1, oracleWhole
	for i, b := range o.bubbles {
		v := similarity(b.Text, s)
		if len(src) == 1 && v < 1 {
			continue // a lone character matches only itself
		}
		if v >= bestSim {
			best, bestSim = i, v
		}
	}
	if best < 0 && len(src) >= 2 {
		bestSim = oracleFragment
		for i, b := range o.bubbles {
			if v := fragmentSimilarity(normalize(b.Text), src); v >= bestSim {
				best, bestSim = i, v
			}
		}
	}
	if best < 0 {
		return ""
	}
	return o.bubbles[best].Translation
}
