package job_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vtsproject/vts/internal/job"
)

// Results recorded before they named their files (rows of finished jobs, the state of a job that
// an older worker still runs) carried their URLs; they read as the same page.
func TestPageResultReadsRecordedURLs(t *testing.T) {
	for _, c := range []struct {
		data string
		want job.PageResult
	}{
		{`{"sourceFilename":"a b.png","url":"/api/outputs/j1/a%20b.png","sourceLang":"ja",` +
			`"transcript":"/api/outputs/j1/transcripts/a%20b.png.json","cleaned":"/api/outputs/j1/cleaned/a%20b.png"}`,
			job.PageResult{SourceFilename: "a b.png", OutputName: "a b.png", SourceLang: "ja", HasTranscript: true, HasCleaned: true}},
		{`{"sourceFilename":"e%f.png","url":"/api/outputs/j1/e%25f.png","sourceLang":""}`,
			job.PageResult{SourceFilename: "e%f.png", OutputName: "e%f.png"}},
		{`{"sourceFilename":"p.png","outputName":"p-2.png","sourceLang":"en","hasTranscript":true}`,
			job.PageResult{SourceFilename: "p.png", OutputName: "p-2.png", SourceLang: "en", HasTranscript: true}},
	} {
		var got job.PageResult
		if err := json.Unmarshal([]byte(c.data), &got); err != nil || got != c.want {
			t.Errorf("%s: %+v %v, want %+v", c.data, got, err, c.want)
		}
	}
	if err := json.Unmarshal([]byte(`{"url":"/api/outputs/j1/%zz"}`), new(job.PageResult)); err == nil {
		t.Error("an undecodable recorded URL was accepted")
	}
}

// A PageResult comes back as it went, whatever its names hold.
func TestPageResultRoundTrips(t *testing.T) {
	want := job.PageResult{SourceFilename: "x/y.png", OutputName: "y.png", SourceLang: "zh-Hans", HasCleaned: true}
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var got job.PageResult
	if err := json.Unmarshal(data, &got); err != nil || got != want {
		t.Fatalf("%s: %+v %v", data, got, err)
	}
}

// View keeps the state and makes each result.
func TestView(t *testing.T) {
	r := job.Report{ID: "j", Status: job.Processing, Progress: 2, Total: 3, CurrentFile: "c.png", Mode: "fast",
		CreditsNeeded: 2, Results: []job.PageResult{{SourceFilename: "a.png", OutputName: "a.png"}},
		Errors: []job.PageError{job.PageFailed("b.png", job.Exhausted, "")}}
	type result struct{ name, url string }
	got := job.View(r, func(p job.PageResult) result { return result{p.SourceFilename, "/" + p.OutputName} })
	want := job.Snapshot[result]{ID: "j", Status: job.Processing, Progress: 2, Total: 3, CurrentFile: "c.png", Mode: "fast",
		CreditsNeeded: 2, Results: []result{{"a.png", "/a.png"}}, Errors: r.Errors}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%+v, want %+v", got, want)
	}
	if empty := job.View[result](job.Report{}, nil); empty.Results == nil {
		t.Fatal("no results must be [], not null")
	}
}
