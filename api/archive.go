package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"

	"github.com/vtsproject/vts/internal/archive"
	"github.com/vtsproject/vts/internal/filename"
	"github.com/vtsproject/vts/internal/job"
	"github.com/vtsproject/vts/internal/plans"
)

// storePart stores one `images` part: a page, or every page of a CBZ or ZIP archive (known by
// its content, whatever its name or type), in reading order. It answers each page with its size.
func (s *Server) storePart(ctx context.Context, part *multipart.Part, f *uploadForm, seen map[string]bool, limit int64, names *filename.Deduper) ([]job.Page, []int64, error) {
	source := filename.Sanitize(part.FileName(), fmt.Sprintf("page-%03d", len(f.Pages)+1))
	br, head, err := peekHead(part, source)
	if err != nil {
		return nil, nil, err
	}
	if !archive.IsZip(head) {
		page, size, err := s.storeImage(ctx, br, head, source, f.JobID, len(f.Pages), limit, names)
		if err != nil {
			return nil, nil, err
		}
		return []job.Page{page}, []int64{size}, nil
	}
	return s.storeArchive(ctx, br, source, f, seen, limit, names)
}

// peekHead buffers the first sniffBytes of a file, enough to tell what it is.
func peekHead(r io.Reader, source string) (*bufio.Reader, []byte, error) {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, err := br.Peek(sniffBytes)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, nil, readError(err)
	}
	if len(head) == 0 {
		return nil, nil, newError(http.StatusBadRequest, "empty_file", fmt.Sprintf("%s is empty", source))
	}
	return br, head, nil
}

// storeArchive expands an archive into pages. A ZIP is read from its end (the central
// directory), so the part is spooled to a temporary file first, bounded while writing by what
// its pages could weigh; then every entry is refused or inflated under the bounds of
// archive.Open and archive.OpenPage, and each page is checked and stored like an uploaded image.
// Credits are counted on the pages before the first is stored.
func (s *Server) storeArchive(ctx context.Context, br *bufio.Reader, source string, f *uploadForm, seen map[string]bool, limit int64, names *filename.Deduper) ([]job.Page, []int64, error) {
	room := plans.MaxFilesPerJob - len(f.Pages)
	tmp, err := os.CreateTemp("", "vts-archive-*")
	if err != nil {
		return nil, nil, fmt.Errorf("spooling %s: %w", source, err)
	}
	defer func() {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
	}()
	bound := limit * int64(room)
	if f.UserID == "" { // nothing more is kept for an unknown user than its pages could be
		bound = min(bound, maxBytesBeforeUser)
	}
	n, err := io.Copy(tmp, io.LimitReader(br, bound+1))
	if err != nil {
		return nil, nil, readError(err)
	}
	if n > bound {
		return nil, nil, newError(http.StatusRequestEntityTooLarge, "archive_too_large",
			fmt.Sprintf("%s is larger than %d pages of %d MB", source, room, limit/plans.MB))
	}
	ch, err := archive.Open(tmp, n, room, limit)
	if err != nil {
		return nil, nil, archiveError(source, err, room, limit)
	}
	if err := f.affords(len(f.Pages)+len(ch.Pages), seen); err != nil {
		return nil, nil, err // before any page is stored
	}
	pages := make([]job.Page, 0, len(ch.Pages))
	sizes := make([]int64, 0, len(ch.Pages))
	for _, p := range ch.Pages {
		page, size, err := s.storeEntry(ctx, ch, p, f.JobID, len(f.Pages)+len(pages), limit, names)
		if err != nil {
			return nil, nil, archiveError(source, err, room, limit)
		}
		pages, sizes = append(pages, page), append(sizes, size)
	}
	return pages, sizes, nil
}

// storeEntry stores one page of an archive, named after its entry.
func (s *Server) storeEntry(ctx context.Context, ch *archive.Chapter, p archive.Page, jobID string, idx int, limit int64, names *filename.Deduper) (job.Page, int64, error) {
	rc, err := ch.OpenPage(p)
	if err != nil {
		return job.Page{}, 0, err
	}
	defer rc.Close()
	source := filename.Sanitize(p.Name, fmt.Sprintf("page-%03d", idx+1))
	br, head, err := peekHead(rc, source)
	if err != nil {
		return job.Page{}, 0, err
	}
	if archive.IsZip(head) {
		return job.Page{}, 0, fmt.Errorf("%w: %q", archive.ErrNested, p.Name)
	}
	return s.storeImage(ctx, br, head, source, jobID, idx, limit, names)
}

// archiveError is the 4xx of an archive refused for err; any other error passes through.
func archiveError(source string, err error, pages int, limit int64) error {
	refuse := func(status int, code, msg string) error {
		return newError(status, code, source+": "+msg)
	}
	switch {
	case errors.Is(err, archive.ErrTooManyPages):
		return refuse(http.StatusRequestEntityTooLarge, "too_many_pages",
			fmt.Sprintf("the archive holds more pages than the %d this upload has room for", pages))
	case errors.Is(err, archive.ErrEntryTooLarge):
		return refuse(http.StatusRequestEntityTooLarge, "file_too_large",
			fmt.Sprintf("a page of the archive is larger than %d MB", limit/plans.MB))
	case errors.Is(err, archive.ErrBomb):
		return refuse(http.StatusRequestEntityTooLarge, "archive_bomb",
			fmt.Sprintf("an entry inflates more than %d times its compressed size", archive.MaxRatio))
	case errors.Is(err, archive.ErrNested):
		return refuse(http.StatusUnprocessableEntity, "nested_archive", "archives inside an archive are not read; put the pages in one archive")
	case errors.Is(err, archive.ErrEscapingName):
		return refuse(http.StatusUnprocessableEntity, "unsafe_archive_entry", "an entry's name is absolute or climbs out of the archive with ..")
	case errors.Is(err, archive.ErrEncrypted):
		return refuse(http.StatusUnprocessableEntity, "encrypted_archive", "the archive has encrypted entries; upload it without a password")
	case errors.Is(err, archive.ErrNoPage):
		return refuse(http.StatusUnprocessableEntity, "empty_archive", "the archive holds no JPG, PNG or WebP page")
	case errors.Is(err, archive.ErrCorrupt):
		return refuse(http.StatusUnprocessableEntity, "corrupt_archive", "the archive is truncated or corrupt")
	}
	return err
}

// readError maps a failure to read a page: from the request body, or from an archive's entry.
func readError(err error) error {
	for _, e := range []error{archive.ErrEntryTooLarge, archive.ErrBomb, archive.ErrCorrupt} {
		if errors.Is(err, e) {
			return err // archiveError names it
		}
	}
	return bodyError(err)
}
