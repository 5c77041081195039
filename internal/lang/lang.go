// Package lang knows the language codes the API accepts: ISO 639-1 plus zh-Hans and zh-Hant.
package lang

import (
	"slices"
	"strings"
)

// Auto asks the engine to detect the source language.
const Auto = "auto"

// Defaults for omitted fields.
const (
	DefaultSource = Auto
	DefaultTarget = "en"
)

var iso6391 = strings.Fields(`aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv cy
da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io
is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na
nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss
st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh zu zh-Hans zh-Hant`)

var known = func() map[string]string {
	m := make(map[string]string, len(iso6391))
	for _, c := range iso6391 {
		m[strings.ToLower(c)] = c
	}
	return m
}()

// Normalize returns the canonical spelling of code ("ZH-hans" → "zh-Hans", "EN" → "en") and
// whether it is a code the API accepts. "auto" is accepted only where allowAuto is set.
func Normalize(code string, allowAuto bool) (string, bool) {
	c := strings.ToLower(strings.TrimSpace(code))
	if c == Auto {
		return Auto, allowAuto
	}
	canon, ok := known[c]
	return canon, ok
}

// All lists every accepted code.
func All() []string { return append([]string(nil), iso6391...) }

// englishNames are the English names of the languages engines can name in prompts to language
// models: every ISO 639-1 language with a living written tradition that such models handle, plus
// the two Chinese scripts, which matter more for lettering than the spoken variety does.
var englishNames = map[string]string{
	"af": "Afrikaans", "am": "Amharic", "ar": "Arabic", "as": "Assamese", "az": "Azerbaijani",
	"be": "Belarusian", "bg": "Bulgarian", "bn": "Bengali", "bo": "Tibetan", "br": "Breton",
	"bs": "Bosnian", "ca": "Catalan", "co": "Corsican", "cs": "Czech", "cy": "Welsh",
	"da": "Danish", "de": "German", "dv": "Dhivehi", "dz": "Dzongkha", "el": "Greek",
	"en": "English", "eo": "Esperanto", "es": "Spanish", "et": "Estonian", "eu": "Basque",
	"fa": "Persian", "fi": "Finnish", "fo": "Faroese", "fr": "French",
	"fy": "Western Frisian", "ga": "Irish", "gd": "Scottish Gaelic", "gl": "Galician",
	"gn": "Guarani", "gu": "Gujarati", "ha": "Hausa", "he": "Hebrew", "hi": "Hindi",
	"hr": "Croatian", "ht": "Haitian Creole", "hu": "Hungarian", "hy": "Armenian",
	"id": "Indonesian", "ig": "Igbo", "is": "Icelandic", "it": "Italian", "ja": "Japanese",
	"jv": "Javanese", "ka": "Georgian", "kk": "Kazakh", "km": "Khmer", "kn": "Kannada",
	"ko": "Korean", "ku": "Kurdish", "ky": "Kyrgyz", "la": "Latin", "lb": "Luxembourgish",
	"lo": "Lao", "lt": "Lithuanian", "lv": "Latvian", "mg": "Malagasy", "mi": "Maori",
	"mk": "Macedonian", "ml": "Malayalam", "mn": "Mongolian", "mr": "Marathi", "ms": "Malay",
	"mt": "Maltese", "my": "Burmese", "nb": "Norwegian Bokmål", "ne": "Nepali", "nl": "Dutch",
	"nn": "Norwegian Nynorsk", "no": "Norwegian", "ny": "Chichewa", "oc": "Occitan",
	"or": "Odia", "pa": "Punjabi", "pl": "Polish", "ps": "Pashto", "pt": "Portuguese",
	"qu": "Quechua", "rm": "Romansh", "ro": "Romanian", "ru": "Russian", "rw": "Kinyarwanda",
	"sa": "Sanskrit", "sd": "Sindhi", "si": "Sinhala", "sk": "Slovak", "sl": "Slovenian",
	"sm": "Samoan", "sn": "Shona", "so": "Somali", "sq": "Albanian", "sr": "Serbian",
	"st": "Southern Sotho", "su": "Sundanese", "sv": "Swedish", "sw": "Swahili", "ta": "Tamil",
	"te": "Telugu", "tg": "Tajik", "th": "Thai", "ti": "Tigrinya", "tk": "Turkmen",
	"tl": "Tagalog", "tn": "Tswana", "to": "Tongan", "tr": "Turkish", "tt": "Tatar",
	"ug": "Uyghur", "uk": "Ukrainian", "ur": "Urdu", "uz": "Uzbek", "vi": "Vietnamese",
	"wo": "Wolof", "xh": "Xhosa", "yi": "Yiddish", "yo": "Yoruba", "zh": "Chinese",
	"zh-Hans": "Simplified Chinese", "zh-Hant": "Traditional Chinese", "zu": "Zulu",
}

// Name is the English name of code (matched as Normalize matches it) and whether it has one.
func Name(code string) (string, bool) {
	canon, ok := Normalize(code, false)
	if !ok {
		return "", false
	}
	name, ok := englishNames[canon]
	return name, ok
}

// Named lists, sorted, the codes that have an English name: the languages a language model can
// be asked for by name.
func Named() []string {
	codes := make([]string, 0, len(englishNames))
	for c := range englishNames {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}
