package gemini

import "github.com/vtsproject/vts/internal/lang"

// Auto is the source language that asks the model to detect the language itself.
const Auto = lang.Auto

// Languages returns the language codes the engine accepts, sorted. "auto" is accepted as a
// source language in addition.
func Languages() []string { return lang.Named() }

// LanguageName returns the English name of a code, matching case-insensitively (zh-hans and
// ZH-HANS are zh-Hans), and whether the code is known.
func LanguageName(code string) (string, bool) { return lang.Name(code) }
