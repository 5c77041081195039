package translator

import "github.com/vtsproject/vts/internal/lang"

// LanguageName is the English name of a language code, or "" when the code is unknown.
func LanguageName(code string) string {
	name, _ := lang.Name(code)
	return name
}

// KnownLanguage reports whether code is a language a language model can be asked for by name.
func KnownLanguage(code string) bool {
	_, ok := lang.Name(code)
	return ok
}

// KnownLanguages lists every such code.
func KnownLanguages() []string { return lang.Named() }
