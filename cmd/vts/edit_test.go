package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vtsproject/vts/internal/engine"
	"github.com/vtsproject/vts/internal/testkit/apitest"
)

// vts edit sends an edited transcript, waits for the page to be lettered again and prints the
// new revision and its URL; the page's transcript then says what was sent.
func TestEditCommand(t *testing.T) {
	env := apitest.Start(t, apitest.Options{})
	a := env.UploadAccepted(t, [][2]string{{"userId", "cli-user"}, {"targetLang", "es"}, {"mode", "fast"}},
		apitest.File{Name: "one.png", Data: apitest.PNG(t, 60, 40, 1)})
	if _, err := follow(context.Background(), env.URL, a.JobID); err != nil {
		t.Fatal(err)
	}
	var st struct {
		Status  string
		Results []struct{ URL, Transcript string }
	}
	env.Do("GET", "/api/jobs/"+a.JobID, nil, nil).JSON(t, &st)
	if st.Status != "completed" {
		t.Fatalf("job %s", st.Status)
	}
	var ts engine.Transcript
	env.Do("GET", st.Results[0].Transcript, nil, nil).JSON(t, &ts)
	ts.Blocks[0].Translation = "Hola, corregido"
	data, _ := json.Marshal(ts)
	path := filepath.Join(t.TempDir(), "t.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runEdit(context.Background(), &out, []string{"-server", env.URL, "-user", "cli-user", a.JobID, "one.png", path}); err != nil {
		t.Fatal(err)
	}
	want := "revision 1 " + env.URL + "/api/outputs/" + a.JobID + "/one.png?rev=1\n"
	if out.String() != want {
		t.Fatalf("printed %q, want %q", out.String(), want)
	}
	var got engine.Transcript
	env.Do("GET", "/api/outputs/"+a.JobID+"/transcripts/one.png.json", nil, nil).JSON(t, &got)
	if got.Blocks[0].Translation != "Hola, corregido" || got.Blocks[0].Status != "lettered" {
		t.Errorf("the page's transcript after the edit: %+v", got.Blocks[0])
	}
	// A refusal is the command's error, with the service's message.
	err := runEdit(context.Background(), &out, []string{"-server", env.URL, "-user", "someone-else", a.JobID, "one.png", path})
	if err == nil || !strings.Contains(err.Error(), "forbidden") {
		t.Errorf("an edit of another user's job: %v", err)
	}
}
