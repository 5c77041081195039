package gemini

import (
	"slices"
	"strings"
)

// languageNames maps the codes this engine accepts to the English names the prompt uses. Gemini
// reads and writes far more languages than any offline pipeline, so the list is broad: every
// ISO 639-1 language with a living written tradition the models handle, plus the two Chinese
// scripts, which matter more for lettering than the spoken variety does.
var languageNames = map[string]string{
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

// Auto is the source language that asks the model to detect the language itself.
const Auto = "auto"

// Languages returns the language codes the engine accepts, sorted. "auto" is accepted as a
// source language in addition.
func Languages() []string {
	codes := make([]string, 0, len(languageNames))
	for c := range languageNames {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	return codes
}

// LanguageName returns the English name of a code, matching case-insensitively (zh-hans and
// ZH-HANS are zh-Hans), and whether the code is known.
func LanguageName(code string) (string, bool) {
	if name, ok := languageNames[code]; ok {
		return name, true
	}
	for c, name := range languageNames {
		if strings.EqualFold(c, code) {
			return name, true
		}
	}
	return "", false
}
