package api

import (
	"archive/zip"
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
	log := s.Log.With("job", j.ID)
	gone := newError(http.StatusGone, "expired", "the job's files are no longer kept")
	if len(j.Results) == 0 {
		writeError(w, r, log, gone)
		return
	}
	// The first page is opened before the answer starts, so that files gone are a 410, not a
	// truncated archive.
	first, err := s.Bucket.NewReader(r.Context(), job.OutputKey(j.ID, j.Results[0].OutputName), nil)
	if err != nil {
		if blobstore.IsNotFound(err) {
			err = gone
		}
		writeError(w, r, log, err)
		return
	}
	defer first.Close()
	h := w.Header()
	h.Set("Content-Type", "application/vnd.comicbook+zip")
	h.Set("Content-Disposition", mimeDisposition("attachment", "translated-"+j.ID+".cbz"))
	dw, done := s.downloadWriter(w)
	defer done()
	zw := zip.NewWriter(dw)
	for i, res := range j.Results {
		var src io.ReadCloser = first
		if i > 0 {
			if src, err = s.Bucket.NewReader(r.Context(), job.OutputKey(j.ID, res.OutputName), nil); err != nil {
				log.Warn("cbz download cut short", "page", res.OutputName, "err", err)
				return // a truncated archive is what the client sees; its central directory is missing
			}
		}
		err = addStored(zw, cbzName(i, len(j.Results), res.OutputName), src)
		_ = src.Close()
		if err != nil {
			log.Warn("cbz download cut short", "page", res.OutputName, "err", err)
			return
		}
	}
	info, _ := xml.MarshalIndent(comicInfo{XSI: "http://www.w3.org/2001/XMLSchema-instance",
		XSD: "http://www.w3.org/2001/XMLSchema", Notes: "Translated by vts, job " + j.ID,
		PageCount: len(j.Results), LanguageISO: j.TargetLang}, "", "  ")
	dst, err := zw.CreateHeader(&zip.FileHeader{Name: "ComicInfo.xml", Method: zip.Deflate, Modified: time.Now()})
	if err == nil {
		_, err = dst.Write(append([]byte(xml.Header), info...))
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		log.Warn("cbz download cut short", "err", err)
	}
}

// addStored copies src into the archive uncompressed: pages are already compressed images.
func addStored(zw *zip.Writer, name string, src io.Reader) error {
	dst, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: time.Now()})
	if err != nil {
		return fmt.Errorf("adding %s: %w", name, err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		return fmt.Errorf("copying %s: %w", name, err)
	}
	return nil
}
