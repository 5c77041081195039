// Package lang knows the language codes the API accepts (ISO 639-1 plus zh-Hans and zh-Hant) and
// holds the one table of what each language is called: in English for prompts, by Tesseract and
// by Apertium.
package lang

import (
	"maps"
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

// languages is the one table of the languages that engines name: the code, its English name (how
// prompts to language models name it: every ISO 639-1 language with a living written tradition
// that such models handle, plus the two Chinese scripts, which matter more for lettering than the
// spoken variety does), Tesseract's traineddata name and the ISO 639-3 codes Apertium's pairs call
// it by, where they have one.
var languages = []struct{ code, name, tesseract, apertium string }{
	{"af", "Afrikaans", "afr", "afr"},
	{"am", "Amharic", "", ""},
	{"ar", "Arabic", "ara", "ara"},
	{"as", "Assamese", "", ""},
	{"az", "Azerbaijani", "", ""},
	{"be", "Belarusian", "", ""},
	{"bg", "Bulgarian", "bul", "bul"},
	{"bn", "Bengali", "ben", "ben"},
	{"bo", "Tibetan", "", ""},
	{"br", "Breton", "", ""},
	{"bs", "Bosnian", "", ""},
	{"ca", "Catalan", "cat", "cat"},
	{"co", "Corsican", "", ""},
	{"cs", "Czech", "ces", "ces"},
	{"cy", "Welsh", "cym", "cym"},
	{"da", "Danish", "dan", "dan"},
	{"de", "German", "deu", "deu"},
	{"dv", "Dhivehi", "", ""},
	{"dz", "Dzongkha", "", ""},
	{"el", "Greek", "ell", "ell"},
	{"en", "English", "eng", "eng"},
	{"eo", "Esperanto", "epo", "epo"},
	{"es", "Spanish", "spa", "spa"},
	{"et", "Estonian", "est", "est"},
	{"eu", "Basque", "eus", "eus"},
	{"fa", "Persian", "fas", "fas"},
	{"fi", "Finnish", "fin", "fin"},
	{"fo", "Faroese", "", ""},
	{"fr", "French", "fra", "fra"},
	{"fy", "Western Frisian", "", ""},
	{"ga", "Irish", "gle", "gle"},
	{"gd", "Scottish Gaelic", "", ""},
	{"gl", "Galician", "glg", "glg"},
	{"gn", "Guarani", "", ""},
	{"gu", "Gujarati", "", ""},
	{"ha", "Hausa", "", ""},
	{"he", "Hebrew", "heb", "heb"},
	{"hi", "Hindi", "hin", "hin"},
	{"hr", "Croatian", "hrv", "hbs hrv"},
	{"ht", "Haitian Creole", "", ""},
	{"hu", "Hungarian", "hun", "hun"},
	{"hy", "Armenian", "", ""},
	{"id", "Indonesian", "ind", "ind"},
	{"ig", "Igbo", "", ""},
	{"is", "Icelandic", "isl", "isl"},
	{"it", "Italian", "ita", "ita"},
	{"ja", "Japanese", "jpn", "jpn"},
	{"jv", "Javanese", "", ""},
	{"ka", "Georgian", "", ""},
	{"kk", "Kazakh", "", ""},
	{"km", "Khmer", "", ""},
	{"kn", "Kannada", "", ""},
	{"ko", "Korean", "kor", "kor"},
	{"ku", "Kurdish", "", ""},
	{"ky", "Kyrgyz", "", ""},
	{"la", "Latin", "", ""},
	{"lb", "Luxembourgish", "", ""},
	{"lo", "Lao", "", ""},
	{"lt", "Lithuanian", "lit", "lit"},
	{"lv", "Latvian", "lav", "lav"},
	{"mg", "Malagasy", "", ""},
	{"mi", "Maori", "", ""},
	{"mk", "Macedonian", "", ""},
	{"ml", "Malayalam", "", ""},
	{"mn", "Mongolian", "", ""},
	{"mr", "Marathi", "", ""},
	{"ms", "Malay", "msa", "msa zlm"},
	{"mt", "Maltese", "", ""},
	{"my", "Burmese", "", ""},
	{"nb", "Norwegian Bokmål", "nor", "nob"},
	{"ne", "Nepali", "", ""},
	{"nl", "Dutch", "nld", "nld"},
	{"nn", "Norwegian Nynorsk", "", "nno"},
	{"no", "Norwegian", "nor", ""},
	{"ny", "Chichewa", "", ""},
	{"oc", "Occitan", "", "oci"},
	{"or", "Odia", "", ""},
	{"pa", "Punjabi", "", ""},
	{"pl", "Polish", "pol", "pol"},
	{"ps", "Pashto", "", ""},
	{"pt", "Portuguese", "por", "por"},
	{"qu", "Quechua", "", ""},
	{"rm", "Romansh", "", ""},
	{"ro", "Romanian", "ron", "ron"},
	{"ru", "Russian", "rus", "rus"},
	{"rw", "Kinyarwanda", "", ""},
	{"sa", "Sanskrit", "", ""},
	{"sd", "Sindhi", "", ""},
	{"si", "Sinhala", "", ""},
	{"sk", "Slovak", "slk", "slk"},
	{"sl", "Slovenian", "slv", "slv"},
	{"sm", "Samoan", "", ""},
	{"sn", "Shona", "", ""},
	{"so", "Somali", "", ""},
	{"sq", "Albanian", "sqi", "sqi"},
	{"sr", "Serbian", "srp", "srp"},
	{"st", "Southern Sotho", "", ""},
	{"su", "Sundanese", "", ""},
	{"sv", "Swedish", "swe", "swe"},
	{"sw", "Swahili", "swa", "swa"},
	{"ta", "Tamil", "tam", "tam"},
	{"te", "Telugu", "", ""},
	{"tg", "Tajik", "", ""},
	{"th", "Thai", "tha", "tha"},
	{"ti", "Tigrinya", "", ""},
	{"tk", "Turkmen", "", ""},
	{"tl", "Tagalog", "tgl", "tgl"},
	{"tn", "Tswana", "", ""},
	{"to", "Tongan", "", ""},
	{"tr", "Turkish", "tur", "tur"},
	{"tt", "Tatar", "", ""},
	{"ug", "Uyghur", "", ""},
	{"uk", "Ukrainian", "ukr", "ukr"},
	{"ur", "Urdu", "urd", "urd"},
	{"uz", "Uzbek", "", ""},
	{"vi", "Vietnamese", "vie", "vie"},
	{"wo", "Wolof", "", ""},
	{"xh", "Xhosa", "", ""},
	{"yi", "Yiddish", "", ""},
	{"yo", "Yoruba", "", ""},
	{"zh", "Chinese", "", "zho"},
	{"zh-Hans", "Simplified Chinese", "chi_sim", ""},
	{"zh-Hant", "Traditional Chinese", "chi_tra", ""},
	{"zu", "Zulu", "", ""},
}

var (
	englishNames   = map[string]string{}
	tesseractNames = map[string]string{}
	fromISO6393    = map[string]string{}
)

func init() {
	for _, l := range languages {
		englishNames[l.code] = l.name
		if l.tesseract != "" {
			tesseractNames[l.code] = l.tesseract
		}
		for _, a := range strings.Fields(l.apertium) {
			fromISO6393[a] = l.code
		}
	}
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

// TesseractNames maps each code that Tesseract can read to its traineddata name ("zh-Hans" →
// "chi_sim"). The map is the caller's own.
func TesseractNames() map[string]string { return maps.Clone(tesseractNames) }

// FromISO6393 maps an ISO 639-3 code, as Apertium's pair names spell languages ("eng", "hbs"), to
// the service's code, and says whether it knows it.
func FromISO6393(code string) (string, bool) {
	c, ok := fromISO6393[code]
	return c, ok
}

// IsCJK reports whether a language is written in CJK scripts without spaces between words,
// which decides both the font and how lines are broken.
func IsCJK(code string) bool {
	switch code {
	case "ja", "ko", "zh-Hans", "zh-Hant":
		return true
	}
	return false
}
