package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/uuid"
)

// runTranslate is the command-line client: upload pages, show progress, save the ZIP.
func runTranslate(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("translate", flag.ContinueOnError)
	server := fs.String("server", envOr("VTS_SERVER", "http://127.0.0.1:8080"), "the service's address")
	user := fs.String("user", envOr("VTS_USER", os.Getenv("USER")), "your user ID")
	src := fs.String("from", "auto", "source language")
	dst := fs.String("to", "en", "target language")
	mode := fs.String("mode", "standard", "fast, standard or advanced")
	res := fs.String("resolution", "original", "original, 1K, 2K or 4K")
	lettering := fs.String("lettering", "", "mixed or upper (comic-style capitals); the service's default when empty")
	prompt := fs.String("prompt", "", "custom translation instructions")
	glossaryFile := fs.String("glossary", "", "a file of fixed translations, one source=target per line (# starts a comment)")
	out := fs.String("o", "", "where to save the ZIP (default translated-<jobId>.zip); a name ending in .cbz saves the chapter as a CBZ comic")
	token := fs.String("token", os.Getenv("VTS_API_KEY"), "API key or ID token (sent as a bearer token)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return errors.New("translate: name at least one page image")
	}
	var glossary string
	if *glossaryFile != "" {
		data, err := os.ReadFile(*glossaryFile)
		if err != nil {
			return fmt.Errorf("reading the glossary: %w", err)
		}
		glossary = string(data) // the service checks it, and names the line at fault
	}
	base := strings.TrimRight(*server, "/")
	body, ctype := multipartBody(map[string]string{"userId": *user, "sourceLang": *src, "targetLang": *dst,
		"mode": *mode, "resolution": *res, "lettering": *lettering, "customPrompt": *prompt, "glossary": glossary}, fs.Args())
	// A retry of this same invocation (by a proxy, say) must not start and pay for a second job.
	resp, err := send(ctx, http.MethodPost, base+"/api/translate", body, ctype, *token, "cli-"+uuid.NewString())
	if err != nil {
		return fmt.Errorf("uploading: %w", err)
	}
	var accepted struct {
		JobID         string `json:"jobId"`
		CreditsNeeded int    `json:"creditsNeeded"`
	}
	if err := decodeOrError(resp, &accepted); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "job %s accepted (%d credits)\n", accepted.JobID, accepted.CreditsNeeded)
	final, err := follow(ctx, base, accepted.JobID)
	if err != nil {
		return err
	}
	for _, e := range final.Errors {
		fmt.Fprintf(os.Stderr, "  %s: %s\n", e.SourceFilename, e.Message)
	}
	if final.Status != "completed" {
		return fmt.Errorf("job %s", final.Status)
	}
	if *out == "" {
		*out = "translated-" + accepted.JobID + ".zip"
	}
	download := base + "/api/download/" + accepted.JobID
	if strings.EqualFold(filepath.Ext(*out), ".cbz") {
		download += "?format=cbz"
	}
	dl, _ := http.NewRequestWithContext(ctx, http.MethodGet, download, nil)
	resp, err = http.DefaultClient.Do(dl)
	if err != nil {
		return fmt.Errorf("downloading: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeOrError(resp, nil)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return fmt.Errorf("saving %s: %w", *out, err)
	}
	fmt.Fprintf(os.Stderr, "saved %s\n", *out)
	return f.Close()
}

type jobState struct {
	Status      string `json:"status"`
	Progress    int    `json:"progress"`
	Total       int    `json:"total"`
	CurrentFile string `json:"currentFile"`
	Errors      []struct {
		SourceFilename string `json:"sourceFilename"`
		Message        string `json:"message"`
	} `json:"errors"`
}

// follow reads the SSE stream and draws a progress bar until the job ends.
func follow(ctx context.Context, base, jobID string) (*jobState, error) {
	var st jobState
	err := readStates(ctx, base, jobID, func(data []byte) (bool, error) {
		if err := json.Unmarshal(data, &st); err != nil {
			return false, fmt.Errorf("reading progress: %w", err)
		}
		const width = 30
		filled := 0
		if st.Total > 0 {
			filled = width * st.Progress / st.Total
		}
		fmt.Fprintf(os.Stderr, "\r[%s%s] %d/%d %-10s %s", strings.Repeat("#", filled), strings.Repeat(".", width-filled),
			st.Progress, st.Total, st.Status, truncate(st.CurrentFile, 30))
		if st.Status == "completed" || st.Status == "failed" {
			fmt.Fprintln(os.Stderr)
			return true, nil
		}
		return false, nil
	})
	if err != nil {
		return nil, err
	}
	return &st, nil
}

// readStates reads the job's SSE stream, handing each message's data to on until it reports
// done; a stream that ends first is an error.
func readStates(ctx context.Context, base, jobID string, on func(data []byte) (done bool, err error)) error {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/jobs/"+url.PathEscape(jobID)+"/events", nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("following the job: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeOrError(resp, nil)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "data:")
		if !ok {
			continue
		}
		if done, err := on([]byte(strings.TrimSpace(line))); done || err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading the job's stream: %w", err)
	}
	return errors.New("the job's stream ended before the job did")
}

func multipartBody(fields map[string]string, files []string) (io.Reader, string) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		err := func() error {
			if err := mw.WriteField("userId", fields["userId"]); err != nil { // first, so limits apply early
				return err
			}
			for k, v := range fields {
				if k != "userId" && v != "" {
					if err := mw.WriteField(k, v); err != nil {
						return err
					}
				}
			}
			for _, path := range files {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				w, err := mw.CreateFormFile("images", filepath.Base(path))
				if err == nil {
					_, err = io.Copy(w, f)
				}
				f.Close()
				if err != nil {
					return err
				}
			}
			return mw.Close()
		}()
		pw.CloseWithError(err)
	}()
	return pr, mw.FormDataContentType()
}

// send makes one request of the API with the CLI's credentials; idempotencyKey may be empty.
func send(ctx context.Context, method, url string, body io.Reader, contentType, token, idempotencyKey string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", contentType)
	if idempotencyKey != "" {
		req.Header.Set("Idempotency-Key", idempotencyKey)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return http.DefaultClient.Do(req)
}

func decodeOrError(resp *http.Response, v any) error {
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var e struct {
			Error struct{ Code, Message string } `json:"error"`
		}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&e)
		return fmt.Errorf("%s: %s (%s)", resp.Status, e.Error.Message, e.Error.Code)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
