package translator

import (
	"context"
	"strings"
	"testing"
)

func newApertium(t *testing.T) *Apertium {
	t.Helper()
	a, err := NewApertium(context.Background(), ApertiumConfig{})
	if err != nil {
		t.Fatalf("NewApertium: %v", err)
	}
	return a
}

func TestApertiumDiscoversInstalledPairs(t *testing.T) {
	a := newApertium(t)
	if !a.Supports("en", "es") || !a.Supports("es", "en") {
		t.Fatalf("en↔es not found among %v", a.Pairs())
	}
	if a.Supports("en", "ja") {
		t.Fatalf("en→ja reported supported without a pair installed")
	}
}

func TestApertiumBatchKeepsBlocksApart(t *testing.T) {
	a := newApertium(t)
	// The second block would be reordered into the first ("el perro grande") if a separator
	// did not hold; the third carries unknown words Apertium marks with '*'.
	texts := []string{
		"I have to find my brother.",
		"The big",
		"dog runs",
		"Where is the xyzzy?",
		"Hello\nworld",
	}
	res, err := a.Translate(context.Background(), Request{Src: "en", Dst: "es", Texts: texts, CustomPrompt: "ignored"})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	got := res.Translations
	if len(got) != len(texts) {
		t.Fatalf("got %d translations for %d texts: %q", len(got), len(texts), got)
	}
	want := []string{"Tengo que encontrar mi hermano.", "El grande", "", "xyzzy?", "Hola"}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("block %d: got %q, want it to contain %q", i, got[i], w)
		}
	}
	for i, g := range got {
		if strings.ContainsAny(g, "*#@") || strings.Contains(g, "[[[") {
			t.Errorf("block %d keeps a mark: %q", i, g)
		}
	}
	if strings.Contains(strings.ToLower(got[2]), "grande") {
		t.Errorf("words leaked between blocks: %q", got)
	}
}

func TestApertiumUnsupportedPair(t *testing.T) {
	a := newApertium(t)
	if _, err := a.Translate(context.Background(), Request{Src: "en", Dst: "ja", Texts: []string{"hi"}, CustomPrompt: ""}); err == nil {
		t.Fatal("en→ja translated without a pair installed")
	}
}

func TestApertiumMissingBinary(t *testing.T) {
	_, err := NewApertium(context.Background(), ApertiumConfig{Path: "/nonexistent/apertium"})
	if err == nil || !strings.Contains(err.Error(), "apt-get install apertium") {
		t.Fatalf("err = %v, want a hint to install apertium", err)
	}
}

func TestApertiumModePair(t *testing.T) {
	for mode, want := range map[string]Pair{
		"eng-spa":    {"en", "es"},
		"spa-eng_US": {"es", "en"},
		"en-es":      {"en", "es"},
		"zho-eng":    {"zh-Hans", "en"},
	} {
		got, ok := apertiumModePair(mode)
		if !ok || got != want {
			t.Errorf("%s: got %v %v, want %v", mode, got, ok, want)
		}
	}
	for _, mode := range []string{"eng-spa-anmor", "xxx-yyy", "eng"} {
		if _, ok := apertiumModePair(mode); ok {
			t.Errorf("%s accepted", mode)
		}
	}
}
