package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// A client that spells a job's ID in upper case (Swift's UUID.uuidString) or without hyphens
// deletes the job and its files, black-box against `vts dev`, exactly as by the ID it was given.
func TestDevDeletesByAnySpellingOfTheID(t *testing.T) {
	env := apitest.Start(t, apitest.Options{NoWorker: true}) // for its Temporal dev server
	p := startDev(t, env.TemporalAddress)
	p.waitUp(t)
	const user = "spelling-user"
	spellings := map[string]func(string) string{
		"upper case":      strings.ToUpper,
		"without hyphens": func(id string) string { return strings.ReplaceAll(id, "-", "") },
	}
	for name, spell := range spellings {
		t.Run(name, func(t *testing.T) {
			body, ct := apitest.Form([][2]string{{"userId", user}, {"sourceLang", "en"}, {"targetLang", "es"}},
				apitest.File{Name: "page1.png", Data: apitest.PNG(t, 200, 150, 1)},
				apitest.File{Name: "page2.png", Data: apitest.PNG(t, 200, 150, 2)})
			resp, err := http.Post(p.url+"/api/translate", ct, body)
			if err != nil {
				t.Fatal(err)
			}
			var accepted struct {
				JobID string `json:"jobId"`
			}
			err = json.NewDecoder(resp.Body).Decode(&accepted)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusAccepted {
				t.Fatalf("upload: %d %v\n%s", resp.StatusCode, err, p.logs.String())
			}
			id := accepted.JobID
			for status := ""; status != "completed"; {
				resp, err := http.Get(p.url + "/api/jobs/" + id + "?userId=" + user)
				if err != nil {
					t.Fatal(err)
				}
				var st struct {
					Status string `json:"status"`
				}
				_ = json.NewDecoder(resp.Body).Decode(&st)
				resp.Body.Close()
				if status = st.Status; status == "failed" {
					t.Fatalf("the job failed:\n%s", p.logs.String())
				}
				time.Sleep(100 * time.Millisecond)
			}
			if len(filesOf(t, p.dataDir, id)) == 0 {
				t.Fatal("the finished job has no files in storage: the check below would prove nothing")
			}
			req, _ := http.NewRequest(http.MethodDelete, p.url+"/api/projects/"+spell(id), strings.NewReader(`{"userId":"`+user+`"}`))
			req.Header.Set("Content-Type", "application/json")
			resp, err = http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNoContent {
				t.Fatalf("DELETE by %s: %d", name, resp.StatusCode)
			}
			if left := filesOf(t, p.dataDir, id); len(left) > 0 {
				t.Fatalf("after DELETE by %s the job's files stay: %v", name, left)
			}
			resp, err = http.Get(p.url + "/api/jobs/" + id + "?userId=" + user)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusNotFound {
				t.Fatalf("the job deleted by %s still answers %d", name, resp.StatusCode)
			}
		})
	}
}

// filesOf lists the files under dir whose path names the job.
func filesOf(t *testing.T, dir, jobID string) []string {
	t.Helper()
	var out []string
	for _, f := range files(t, dir) {
		if strings.Contains(f, jobID) {
			out = append(out, f)
		}
	}
	return out
}
