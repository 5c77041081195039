package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
)

// runEdit sends a page's edited transcript, waits for the page to be lettered again and prints
// its new revision and URL.
func runEdit(ctx context.Context, stdout io.Writer, args []string) error {
	fs := flag.NewFlagSet("edit", flag.ContinueOnError)
	server := fs.String("server", envOr("VTS_SERVER", "http://127.0.0.1:8080"), "the service's address")
	user := fs.String("user", envOr("VTS_USER", os.Getenv("USER")), "your user ID")
	token := fs.String("token", os.Getenv("VTS_API_KEY"), "API key or ID token (sent as a bearer token)")
	retranslate := fs.String("retranslate", "", "block IDs to translate again, comma-separated (costs one credit)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: vts edit [flags] <jobId> <file> transcript.json")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 3 {
		fs.Usage()
		return errors.New("edit: name the job, the page's file name and the edited transcript")
	}
	jobID, file, path := fs.Arg(0), fs.Arg(1), fs.Arg(2)
	transcript, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("reading the transcript: %w", err)
	}
	if !json.Valid(transcript) {
		return fmt.Errorf("%s is not JSON", path)
	}
	body := map[string]any{"userId": *user, "transcript": json.RawMessage(transcript)}
	if *retranslate != "" {
		body["retranslate"] = strings.Split(*retranslate, ",")
	}
	data, _ := json.Marshal(body)
	base := strings.TrimRight(*server, "/")
	resp, err := send(ctx, http.MethodPut, base+"/api/jobs/"+url.PathEscape(jobID)+"/pages/"+url.PathEscape(file)+"/transcript",
		bytes.NewReader(data), "application/json", *token, "")
	if err != nil {
		return fmt.Errorf("sending the edit: %w", err)
	}
	var accepted struct {
		Revision int `json:"revision"`
	}
	if err := decodeOrError(resp, &accepted); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "revision %d of %s being lettered\n", accepted.Revision, file)
	page, err := followEdit(ctx, base, jobID, file, accepted.Revision)
	if err != nil {
		return err
	}
	if page.EditError != "" && page.Revision < accepted.Revision {
		return fmt.Errorf("the edit failed: %s", page.EditError)
	}
	fmt.Fprintf(stdout, "revision %d %s\n", page.Revision, base+page.URL)
	return nil
}

// editedPage is a page's result as the job's state shows it.
type editedPage struct {
	URL       string `json:"url"`
	Revision  int    `json:"revision"`
	Editing   int    `json:"editing"`
	EditError string `json:"editError"`
}

// followEdit reads the job's stream until the page's edit to revision rev is applied or failed.
func followEdit(ctx context.Context, base, jobID, file string, rev int) (*editedPage, error) {
	suffix := "/" + url.PathEscape(file)
	var page *editedPage
	err := readStates(ctx, base, jobID, func(data []byte) (bool, error) {
		var st struct {
			Results []editedPage `json:"results"`
		}
		if err := json.Unmarshal(data, &st); err != nil {
			return false, fmt.Errorf("reading the job's state: %w", err)
		}
		for _, p := range st.Results {
			if strings.HasSuffix(strings.SplitN(p.URL, "?", 2)[0], suffix) && p.Editing != rev {
				page = &p
				return true, nil
			}
		}
		return false, nil
	})
	return page, err
}
