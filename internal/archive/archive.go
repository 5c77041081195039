// Package archive reads uploaded chapters: a CBZ or ZIP of page images, listed in natural reading
// order, with every way a hostile archive could hurt the service refused before a page is stored.
package archive

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
)

// MaxRatio bounds how much one entry may inflate relative to its compressed size. Page images
// are already compressed (a PNG or JPEG deflates by a few percent), so a far larger ratio is a bomb.
const MaxRatio = 100

// minInflate lets a tiny entry inflate to this much whatever its ratio: a blank page compresses well.
const minInflate = 1 << 20

// Why an archive is refused.
var (
	ErrCorrupt       = errors.New("the archive is truncated or corrupt")
	ErrEncrypted     = errors.New("the archive has encrypted entries")
	ErrNested        = errors.New("the archive holds another archive")
	ErrEscapingName  = errors.New("an entry's name escapes the archive")
	ErrNoPage        = errors.New("the archive holds no page image")
	ErrTooManyPages  = errors.New("the archive holds too many pages")
	ErrBomb          = errors.New("an entry inflates far beyond its compressed size")
	ErrEntryTooLarge = errors.New("an entry is larger than a page may be")
)

// IsZip reports whether head, the first bytes of a file, open a ZIP archive (an empty one too).
func IsZip(head []byte) bool {
	return bytes.HasPrefix(head, []byte("PK\x03\x04")) || bytes.HasPrefix(head, []byte("PK\x05\x06"))
}

// pageExts are the names taken for pages; each is still checked by its content like an upload.
var pageExts = []string{".png", ".jpg", ".jpeg", ".jpe", ".webp"}

// archiveExts are the names of archives, which an archive may not hold.
var archiveExts = []string{".zip", ".cbz", ".rar", ".cbr", ".7z", ".cb7", ".tar", ".cbt", ".gz", ".tgz"}

// Page is one page of an archive.
type Page struct {
	Name string // the entry's path inside the archive
	file *zip.File
}

// Chapter is an opened archive: its pages in reading order.
type Chapter struct {
	Pages []Page
	limit int64
}

// Open reads the archive's central directory and lists its pages, refusing, before anything is
// inflated, an archive that is corrupt, has encrypted entries, holds archives, names an entry
// outside itself, holds more than maxPages pages or none, or declares a page over limit bytes.
func Open(r io.ReaderAt, size int64, maxPages int, limit int64) (*Chapter, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	c := &Chapter{limit: limit}
	for _, f := range zr.File {
		name := strings.ReplaceAll(f.Name, `\`, "/")
		if !localName(name) {
			return nil, fmt.Errorf("%w: %q", ErrEscapingName, f.Name)
		}
		if f.Flags&0x1 != 0 {
			return nil, fmt.Errorf("%w: %q", ErrEncrypted, f.Name)
		}
		if f.FileInfo().IsDir() || strings.HasSuffix(name, "/") || hidden(name) {
			continue
		}
		ext := strings.ToLower(path.Ext(name))
		if slices.Contains(archiveExts, ext) {
			return nil, fmt.Errorf("%w: %q", ErrNested, f.Name)
		}
		if !slices.Contains(pageExts, ext) {
			continue // ComicInfo.xml, Thumbs.db, a readme
		}
		if f.UncompressedSize64 > max(f.CompressedSize64*MaxRatio, minInflate) {
			return nil, fmt.Errorf("%w: %q", ErrBomb, f.Name)
		}
		if f.UncompressedSize64 > uint64(limit) {
			return nil, fmt.Errorf("%w: %q", ErrEntryTooLarge, f.Name)
		}
		if len(c.Pages) == maxPages {
			return nil, fmt.Errorf("%w: more than %d", ErrTooManyPages, maxPages)
		}
		c.Pages = append(c.Pages, Page{Name: name, file: f})
	}
	if len(c.Pages) == 0 {
		return nil, ErrNoPage
	}
	slices.SortStableFunc(c.Pages, func(a, b Page) int { return ComparePaths(a.Name, b.Name) })
	return c, nil
}

// localName reports whether an entry's name stays inside the archive: relative, without "..",
// and no drive letter.
func localName(name string) bool {
	if name == "" || strings.HasPrefix(name, "/") || strings.ContainsRune(name, 0) ||
		(len(name) >= 2 && name[1] == ':') {
		return false
	}
	return !slices.Contains(strings.Split(name, "/"), "..")
}

// hidden is the debris archivers add: macOS resource forks and dot-files.
func hidden(name string) bool {
	for _, el := range strings.Split(name, "/") {
		if el == "__MACOSX" || strings.HasPrefix(el, ".") {
			return true
		}
	}
	return false
}

// OpenPage inflates one page. The reader stops with ErrEntryTooLarge one byte past the chapter's
// limit and with ErrBomb one byte past the entry's ratio bound, so a bomb costs at most that much
// inflating; an entry that inflates past the size its header declared (archive/zip stops it
// there) or fails its CRC reads as ErrCorrupt.
func (c *Chapter) OpenPage(p Page) (io.ReadCloser, error) {
	rc, err := p.file.Open()
	if err != nil {
		if errors.Is(err, zip.ErrAlgorithm) {
			return nil, fmt.Errorf("%w: %q uses an unsupported compression method", ErrCorrupt, p.Name)
		}
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return &boundedReader{rc: rc, limit: c.limit, ratio: max(int64(p.file.CompressedSize64)*MaxRatio, minInflate)}, nil
}

type boundedReader struct {
	rc           io.ReadCloser
	n            int64
	limit, ratio int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	// Never ask the inflater for more than one byte past the tighter bound.
	room := min(b.limit, b.ratio) + 1 - b.n
	if int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.rc.Read(p)
	b.n += int64(n)
	switch {
	case b.n > b.limit:
		return n, ErrEntryTooLarge
	case b.n > b.ratio:
		return n, ErrBomb
	case err != nil && !errors.Is(err, io.EOF):
		return n, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return n, err
}

func (b *boundedReader) Close() error { return b.rc.Close() }
