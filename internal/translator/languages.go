package translator

// languageNames are the languages the service knows, by the codes its API accepts, with their
// English names for prompts to language models.
var languageNames = map[string]string{
	"af": "Afrikaans", "ar": "Arabic", "bg": "Bulgarian", "bn": "Bengali", "ca": "Catalan",
	"cs": "Czech", "cy": "Welsh", "da": "Danish", "de": "German", "el": "Greek",
	"en": "English", "eo": "Esperanto", "es": "Spanish", "et": "Estonian", "eu": "Basque",
	"fa": "Persian", "fi": "Finnish", "fr": "French", "ga": "Irish", "gl": "Galician",
	"he": "Hebrew", "hi": "Hindi", "hr": "Croatian", "hu": "Hungarian", "id": "Indonesian",
	"is": "Icelandic", "it": "Italian", "ja": "Japanese", "ko": "Korean", "lt": "Lithuanian",
	"lv": "Latvian", "ms": "Malay", "nb": "Norwegian Bokmål", "nl": "Dutch", "nn": "Norwegian Nynorsk",
	"no": "Norwegian", "oc": "Occitan", "pl": "Polish", "pt": "Portuguese", "ro": "Romanian",
	"ru": "Russian", "sk": "Slovak", "sl": "Slovenian", "sq": "Albanian", "sr": "Serbian",
	"sv": "Swedish", "sw": "Swahili", "ta": "Tamil", "th": "Thai", "tl": "Tagalog",
	"tr": "Turkish", "uk": "Ukrainian", "ur": "Urdu", "vi": "Vietnamese",
	"zh-Hans": "Simplified Chinese", "zh-Hant": "Traditional Chinese",
}

// LanguageName is the English name of a language code, or "" when the code is unknown.
func LanguageName(code string) string { return languageNames[code] }

// KnownLanguage reports whether code is a language code the service accepts.
func KnownLanguage(code string) bool { return languageNames[code] != "" }

// KnownLanguages lists every accepted code.
func KnownLanguages() []string {
	out := make([]string, 0, len(languageNames))
	for c := range languageNames {
		out = append(out, c)
	}
	return out
}
