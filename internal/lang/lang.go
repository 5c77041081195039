// Package lang knows the language codes the API accepts: ISO 639-1 plus zh-Hans and zh-Hant.
package lang

import "strings"

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
