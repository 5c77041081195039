package mangapage

import "math"

// Sound effects in the looks published pages draw them, which Options.SFX adds to a page: the
// default pages letter them black with a white halo, or white outlined in black, in one heavy
// face; published ones are also set straight onto the art without a halo, hollow (an outline
// only), and in any heavy face of the page.

// sfxLook is how a sound effect is drawn.
type sfxLook int

const (
	sfxHalo    sfxLook = iota // black with a white halo (as the default pages draw them)
	sfxWhite                  // white, outlined in black (as the default pages draw them)
	sfxBare                   // black straight on the art
	sfxOutline                // hollow: an outline of the glyphs only, paper inside
)

// letterSFX places two to four more sound effects, each in a face and a look of its own.
func (g *generator) letterSFX(effects []dialogue) error {
	faces := available(sfxFaces[g.lang])
	for _, f := range available(dialogueFaces[g.lang]) {
		if f.Bold {
			faces = append(faces, f)
		}
	}
	keep := g.sfx
	defer func() { g.sfx = keep }()
	for range 2 + g.rng.IntN(3) {
		f, err := pick(g.rng, faces).load()
		if err != nil {
			return err
		}
		g.sfx = f
		if it := g.placeSFX(pick(g.rng, effects)); it != nil {
			it.SFXWhite = false
			it.SFXLook = pick(g.rng, []sfxLook{sfxHalo, sfxWhite, sfxBare, sfxBare, sfxOutline})
			g.items = append(g.items, it)
		}
	}
	return nil
}

// drawSFX draws a sound effect of Options.SFX in its look.
func (g *generator) drawSFX(it *item) {
	switch it.SFXLook {
	case sfxWhite:
		paint(g.page, dilate(it.Mask, g.s*uniform(g.rng, 0.15, 0.35)), nil, 0, 1)
		paint(g.page, it.Mask, nil, 255, 1)
	case sfxBare:
		paint(g.page, it.Mask, nil, 0, 1)
	case sfxOutline:
		w := math.Max(1.5, g.s*uniform(g.rng, 0.08, 0.14))
		paint(g.page, dilate(it.Mask, w), nil, 0, 1)
		paint(g.page, it.Mask, nil, 255, 1)
	default:
		paint(g.page, dilate(it.Mask, g.s*uniform(g.rng, 0.15, 0.35)), nil, 255, 1)
		paint(g.page, it.Mask, nil, 0, 1)
	}
}
