package translator

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestDeepLTranslatesPageInOneRequest(t *testing.T) {
	var seen deeplRequest
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v2/translate" {
			t.Errorf("got %s %s", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("Authorization"); got != "DeepL-Auth-Key key-123:fx" {
			t.Errorf("Authorization = %q", got)
		}
		if err := json.NewDecoder(r.Body).Decode(&seen); err != nil {
			t.Errorf("decoding: %v", err)
		}
		type tr struct {
			DetectedSourceLanguage string `json:"detected_source_language"`
			Text                   string `json:"text"`
		}
		var resp struct {
			Translations []tr `json:"translations"`
		}
		for _, s := range seen.Text {
			resp.Translations = append(resp.Translations, tr{"EN", "¡" + s + "!"})
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()
	d, err := NewDeepL(DeepLConfig{BaseURL: srv.URL, APIKey: "key-123:fx"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := d.Translate(context.Background(), Request{Src: "en", Dst: "es", Texts: []string{"Hola", "Adiós"}, CustomPrompt: ""})
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	got := res.Translations
	if len(got) != 2 || got[0] != "¡Hola!" || got[1] != "¡Adiós!" {
		t.Fatalf("got %q", got)
	}
	if seen.SourceLang != "EN" || seen.TargetLang != "ES" || len(seen.Text) != 2 || seen.Context == "" {
		t.Fatalf("request: %+v", seen)
	}
}

func TestDeepLTargetVariantsAndErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req deeplRequest
		json.NewDecoder(r.Body).Decode(&req)
		if req.TargetLang != "EN-US" {
			t.Errorf("target_lang = %q, want EN-US", req.TargetLang)
		}
		w.WriteHeader(456) // DeepL: quota exceeded
		w.Write([]byte(`{"message":"Quota exceeded"}`))
	}))
	defer srv.Close()
	d, _ := NewDeepL(DeepLConfig{BaseURL: srv.URL, APIKey: "k"})
	_, err := d.Translate(context.Background(), Request{Src: "es", Dst: "en", Texts: []string{"hola"}, CustomPrompt: ""})
	var se *StatusError
	if !errors.As(err, &se) || se.StatusCode != 456 || se.Temporary() || se.Message != "Quota exceeded" {
		t.Fatalf("err = %v", err)
	}
	if !d.Supports("ja", "en") || d.Supports("xx", "en") || d.Supports("en", "en") {
		t.Fatal("Supports answers wrongly")
	}
}
