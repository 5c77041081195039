package api

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/vtsproject/vts/internal/blobstore"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/store"
)

// comicInfo is the ComicInfo.xml that comic readers read (the Anansi Project's schema, v2.0).
type comicInfo struct {
	XMLName     xml.Name `xml:"ComicInfo"`
	XSI         string   `xml:"xmlns:xsi,attr"`
	XSD         string   `xml:"xmlns:xsd,attr"`
	Notes       string   `xml:"Notes"`
	PageCount   int      `xml:"PageCount"`
	LanguageISO string   `xml:"LanguageISO"`
}

// cbzName is a page's name in the CBZ: its place, zero-padded so that every reader (which sorts
// by name) shows the pages in order, then its output name.
func cbzName(idx, pages int, outputName string) string {
	return fmt.Sprintf("%0*d-%s", max(3, len(strconv.Itoa(pages))), idx+1, outputName)
}

// serveCBZ streams the translated pages as a CBZ: only the pages, in reading order, and a
// ComicInfo.xml; the transcripts and cleaned pages of the ZIP would read as extra pages.
func (s *Server) serveCBZ(w http.ResponseWriter, r *http.Request, j *store.Job) {
	var pages []zipEntry
	for i, res := range j.Results {
		pages = append(pages, zipEntry{cbzName(i, len(j.Results), res.OutputName), job.OutputKey(j.ID, res.OutputName), zip.Store})
	}
	s.streamZip(w, r, j, "cbz", "application/vnd.comicbook+zip", pages, func(zw *zip.Writer) error {
		info, _ := xml.MarshalIndent(comicInfo{XSI: "http://www.w3.org/2001/XMLSchema-instance",
			XSD: "http://www.w3.org/2001/XMLSchema", Notes: "Translated by vts, job " + j.ID,
			PageCount: len(j.Results), LanguageISO: j.TargetLang}, "", "  ")
		return addEntry(zw, "ComicInfo.xml", zip.Deflate, bytes.NewReader(append([]byte(xml.Header), info...)))
	})
}

// serveLatestZip streams the ZIP of a job whose pages were edited: the latest revision of every
// page, transcript and cleaned page, in the stored ZIP's order (pages, transcripts/, cleaned/).
// The ZIP is built at download rather than again after every edit: an edit then costs its page
// alone, however long the chapter, and two edits of different pages cannot race to write an
// archive that misses one of them. Such a download cannot resume (no Range), as a CBZ cannot.
func (s *Server) serveLatestZip(w http.ResponseWriter, r *http.Request, j *store.Job) {
	var pages, transcripts, cleaned []zipEntry
	for _, res := range j.Results {
		pages = append(pages, zipEntry{res.OutputName, job.OutputKey(j.ID, res.OutputName), zip.Store})
		if res.HasTranscript {
			transcripts = append(transcripts, zipEntry{"transcripts/" + res.OutputName + ".json", job.TranscriptKey(j.ID, res.OutputName), zip.Deflate})
		}
		if res.HasCleaned {
			cleaned = append(cleaned, zipEntry{"cleaned/" + res.OutputName, job.CleanedKey(j.ID, res.OutputName), zip.Store})
		}
	}
	s.streamZip(w, r, j, "zip", "application/zip", append(append(pages, transcripts...), cleaned...), nil)
}

// zipEntry is one file of a streamed archive: its name there, the stored object it copies, and
// its method (pages are already compressed images, so they are stored as they are).
type zipEntry struct {
	name, key string
	method    uint16
}

// streamZip streams the job's entries as the archive translated-<job>.<ext>, then what finish
// adds, if not nil. The first entry is opened before the answer starts, so that files gone are a
// 410, not a truncated archive; a failure after that cuts the archive short, which is what the
// client sees (its central directory is missing).
func (s *Server) streamZip(w http.ResponseWriter, r *http.Request, j *store.Job, ext, contentType string, entries []zipEntry, finish func(*zip.Writer) error) {
	log := s.Log.With("job", j.ID)
	gone := newError(http.StatusGone, "expired", "the job's files are no longer kept")
	if len(entries) == 0 {
		writeError(w, r, log, gone)
		return
	}
	first, err := s.Bucket.NewReader(r.Context(), entries[0].key, nil)
	if err != nil {
		if blobstore.IsNotFound(err) {
			err = gone
		}
		writeError(w, r, log, err)
		return
	}
	defer first.Close()
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Set("Content-Disposition", mimeDisposition("attachment", "translated-"+j.ID+"."+ext))
	dw, done := s.downloadWriter(w)
	defer done()
	zw := zip.NewWriter(dw)
	for i, e := range entries {
		var src io.ReadCloser = first
		if i > 0 {
			if src, err = s.Bucket.NewReader(r.Context(), e.key, nil); err != nil {
				log.Warn(ext+" download cut short", "entry", e.name, "err", err)
				return
			}
		}
		err = addEntry(zw, e.name, e.method, src)
		_ = src.Close()
		if err != nil {
			log.Warn(ext+" download cut short", "entry", e.name, "err", err)
			return
		}
	}
	if finish != nil {
		err = finish(zw)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		log.Warn(ext+" download cut short", "err", err)
	}
}

// addEntry copies src into the archive with the given method.
func addEntry(zw *zip.Writer, name string, method uint16, src io.Reader) error {
	dst, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Now()})
	if err != nil {
		return fmt.Errorf("adding %s: %w", name, err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		return fmt.Errorf("copying %s: %w", name, err)
	}
	return nil
}
