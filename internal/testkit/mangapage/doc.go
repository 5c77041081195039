// Package mangapage draws synthetic, annotated manga pages for tests and benchmarks of the
// translation engines. It is a test kit: only tests and benchmark commands import it.
//
// A page is deterministic from its seed and meant to look like published manga rather than
// like a lettering exercise, because engines are finally judged on real annotated pages:
//
//   - off-white paper cut into 3–6 framed panels with gutters (now and then slanted, or
//     bleeding off the page), filled with screentone (dots of various pitch and angle, flat
//     or graded), hatching and cross-hatching, speed and focus lines, black fills, night
//     skies, buildings and simple characters drawn with thick outlines;
//   - 3–9 pieces of dialogue in balloons of irregular shapes (hand-drawn ellipses, rounded
//     rectangles, thought clouds with puffs, spiky shouts, borderless white balloons on tone)
//     with tails, some over the frames; narration captions, some horizontal; text on the
//     art with or without a white outline; sound effects in large outlined katakana, turned
//     and staggered, annotated with kind "sfx" since they are not dialogue;
//   - vertical Japanese set as letterers do: columns top to bottom and right to left, broken
//     between phrases, 。and 、in the upper right of their cell, ー 〜 … and brackets turned,
//     small kana shifted up and right, "！？" side by side in one cell, and furigana beside
//     some kanji; in IPA Gothic and Mincho, VL Gothic, and Noto Sans and Serif CJK;
//   - degradations: resampling that turns tone into moiré, rotation up to 2°, blur, noise,
//     scanner dust, ink and paper levels, yellowed paper, greyscale or RGB, PNG or JPEG at
//     quality 55–92, at sizes from phone screenshots (720×1024) to 300-dpi scans
//     (2400×3400).
//
// Korean pages are webtoon strips (about 800×4000–5800, in colour, horizontal Hangul in
// balloons) and Chinese pages are like the Japanese ones with horizontal simplified Chinese.
//
// Every piece of lettering is annotated with its ink box, its balloon's box, its kind, its
// text as lettered and a natural English translation, and the exact coverage of its glyphs
// (Bubble.Ink), so that an evaluation can tell whether a cleaned page still shows them.
// WritePage and ReadPage store pages as an image beside a JSON annotation (see Annotation),
// the format real annotated pages are given in too.
package mangapage
