//go:build ignore

// gen writes the hostile-input corpus of api/hostile_test.go into testdata/hostile/, and seeds
// the fuzz targets' corpora from it. Run it from the repository root:
//
//	go run testdata/hostile/gen.go
//
// The files are committed; rerunning gives the same bytes (except animated.webp and the images
// drawn here, which are deterministic too). Everything stays small: the decompression bomb is a
// header that declares 50000×50000 pixels and carries none.
package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"log"
	"mime/multipart"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/HugoSmits86/nativewebp"
)

const dir = "testdata/hostile"

func main() {
	files := map[string][]byte{}
	page := encodePNG(drawRGBA(32, 24))
	files["page.png"] = page
	files["empty.png"] = nil
	files["text.png"] = []byte("This is a plain text file wearing a .png name.\n")
	files["pdf.png"] = []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	files["svg.png"] = []byte(`<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>`)
	files["html.jpg"] = []byte("<!DOCTYPE html><html><body><img src=x onerror=alert(1)></body></html>")

	files["truncated.png"] = page[:len(page)*2/3]
	jpg := encodeJPEG(drawRGBA(32, 24))
	files["truncated.jpg"] = jpg[:len(jpg)*2/3]
	webp := encodeWebP(drawRGBA(32, 24))
	files["truncated.webp"] = webp[:len(webp)-10]

	files["bomb.png"] = bomb(50000, 50000)
	files["animated.webp"] = animated(drawRGBA(16, 16), drawRGBA(16, 16))

	// Go's own CMYK test image (Adobe APP14, four components): no encoder here writes CMYK.
	cmyk, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src/image/testdata/video-001.cmyk.jpeg"))
	if err != nil {
		log.Fatal(err)
	}
	files["cmyk.jpg"] = cmyk
	// 48×32 stored, EXIF orientation 6: shown (and translated) as 32×48.
	files["exif-rotated.jpg"] = withOrientation(encodeJPEG(drawRGBA(48, 32)), 6)
	files["png16.png"] = encodePNG(draw64(20, 14))

	archives(files, page, jpg)

	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for name, data := range files {
		write(filepath.Join(dir, name), data)
	}
	seedFuzzCorpora(files)
}

func write(path string, data []byte) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		log.Fatal(err)
	}
}

// seedFuzzCorpora writes seed inputs in the `go test fuzz v1` format.
func seedFuzzCorpora(files map[string][]byte) {
	for _, name := range []string{"page.png", "truncated.png", "truncated.jpg", "truncated.webp", "bomb.png",
		"animated.webp", "cmyk.jpg", "exif-rotated.jpg", "png16.png", "svg.png"} {
		seed("internal/imageio/testdata/fuzz/FuzzInspect", name, []byte(files[name]))
	}
	for name, data := range files {
		if strings.HasSuffix(name, ".cbz") && name != "zip-too-many.cbz" && name != "zip-bomb.cbz" && name != "zip-bomb-lying.cbz" {
			seed("internal/archive/testdata/fuzz/FuzzOpen", name, data)
		}
	}
	for i, s := range []string{"../../etc/passwd", "/abs/page.png", "a\x00b.png", strings.Repeat("x", 1000) + ".png",
		"evil\u202egnp.exe", "ページ 1.png", "bad\xff\xfeutf8.png", "CON.png", " . ", "a/b\\c..png", "\u200f\u0627.png"} {
		writeSeed("internal/filename/testdata/fuzz/FuzzSanitize", fmt.Sprintf("seed-%02d", i), "string("+strconv.Quote(s)+")")
	}
	bodies := map[string][]byte{
		"one-page":      form([][2]string{{"userId", "u"}}, [][2]string{{"page.png", string(files["page.png"])}}),
		"user-last":     form(nil, [][2]string{{"page.png", string(files["page.png"])}}, [2]string{"userId", "u"}),
		"options":       form([][2]string{{"userId", "u"}, {"mode", "fast"}, {"resolution", "2K"}, {"targetLang", "es"}, {"customPrompt", "keep honorifics"}}, [][2]string{{"a.png", string(files["page.png"])}, {"a.png", string(files["page.png"])}}),
		"bad-mode":      form([][2]string{{"userId", "u"}, {"mode", "turbo"}}, [][2]string{{"p.png", string(files["page.png"])}}),
		"truncated":     form([][2]string{{"userId", "u"}}, [][2]string{{"t.png", string(files["truncated.png"])}}),
		"text":          form([][2]string{{"userId", "u"}}, [][2]string{{"t.png", string(files["text.png"])}}),
		"bomb":          form([][2]string{{"userId", "u"}}, [][2]string{{"b.png", string(files["bomb.png"])}}),
		"no-user":       form(nil, [][2]string{{"p.png", string(files["page.png"])}}),
		"invalid-utf8":  form([][2]string{{"userId", "u"}, {"customPrompt", "\xff\xfe"}}, [][2]string{{"p.png", string(files["page.png"])}}),
		"unterminated":  []byte("--vtsfuzz\r\nContent-Disposition: form-data; name=\"userId\"\r\n\r\nu\r\n--vtsfuzz\r\nContent-Disposition: form-data; name=\"images\"; filename=\"x.png\"\r\n\r\n\x89PNG"),
		"empty":         nil,
		"chapter":       form([][2]string{{"userId", "u"}}, [][2]string{{"ch.cbz", string(files["chapter.cbz"])}, {"p.png", string(files["page.png"])}}),
		"zip-bomb":      form([][2]string{{"userId", "u"}}, [][2]string{{"b.cbz", string(files["zip-bomb.cbz"])}}),
		"zip-escaping":  form([][2]string{{"userId", "u"}}, [][2]string{{"e.cbz", string(files["zip-escaping.cbz"])}}),
		"zip-truncated": form([][2]string{{"userId", "u"}}, [][2]string{{"t.cbz", string(files["zip-truncated.cbz"])}}),
		"traversal-nul": form([][2]string{{"userId", "u"}}, [][2]string{{"../../a\x00.png", string(files["page.png"])}}),
	}
	for name, body := range bodies {
		seed("api/testdata/fuzz/FuzzUpload", name, body)
	}
}

func seed(dir, name string, data []byte) {
	writeSeed(dir, strings.NewReplacer(".", "-").Replace(name), "[]byte("+strconv.Quote(string(data))+")")
}

func writeSeed(dir, name, value string) {
	write(filepath.Join(dir, name), []byte("go test fuzz v1\n"+value+"\n"))
}

// form is a multipart body with the boundary FuzzUpload uses: fields, files, then more fields.
func form(fields [][2]string, files [][2]string, after ...[2]string) []byte {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if err := mw.SetBoundary("vtsfuzz"); err != nil {
		log.Fatal(err)
	}
	for _, f := range fields {
		_ = mw.WriteField(f[0], f[1])
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name="images"; filename=%q`, f[0]))
		h.Set("Content-Type", "image/png")
		w, _ := mw.CreatePart(h)
		_, _ = w.Write([]byte(f[1]))
	}
	for _, f := range after {
		_ = mw.WriteField(f[0], f[1])
	}
	_ = mw.Close()
	return buf.Bytes()
}

func drawRGBA(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 7), uint8(y * 9), uint8((x + y) * 3), 255})
		}
	}
	return img
}

func draw64(w, h int) *image.RGBA64 {
	img := image.NewRGBA64(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA64{uint16(x * 3001), uint16(y * 4001), 0x1234, 0xffff})
		}
	}
	return img
}

func encodePNG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func encodeJPEG(img image.Image) []byte {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 90}); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

func encodeWebP(img image.Image) []byte {
	var buf bytes.Buffer
	if err := nativewebp.Encode(&buf, img, nil); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

// bomb is a PNG signature, an IHDR declaring w×h RGB pixels and an IEND, with valid CRCs.
func bomb(w, h uint32) []byte {
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk(&buf, binary.BigEndian, "IHDR", ihdr)
	chunk(&buf, binary.BigEndian, "IEND", nil)
	return buf.Bytes()
}

// chunk writes a PNG chunk (big-endian length, CRC) or a RIFF chunk (little-endian, padded).
func chunk(buf *bytes.Buffer, order binary.ByteOrder, typ string, data []byte) {
	var n [4]byte
	order.PutUint32(n[:], uint32(len(data)))
	if order == binary.BigEndian {
		buf.Write(n[:])
		buf.WriteString(typ)
		buf.Write(data)
		crc := crc32.NewIEEE()
		crc.Write([]byte(typ))
		crc.Write(data)
		binary.BigEndian.PutUint32(n[:], crc.Sum32())
		buf.Write(n[:])
		return
	}
	buf.WriteString(typ)
	buf.Write(n[:])
	buf.Write(data)
	if len(data)%2 == 1 {
		buf.WriteByte(0)
	}
}

func put24(b []byte, v int) { b[0], b[1], b[2] = byte(v), byte(v>>8), byte(v>>16) }

// animated is an extended WebP (VP8X with the animation flag, ANIM, one ANMF per frame) whose
// frames are lossless still images.
func animated(frames ...image.Image) []byte {
	b := frames[0].Bounds()
	var body bytes.Buffer
	body.WriteString("WEBP")
	vp8x := make([]byte, 10)
	vp8x[0] = 0x02 // animation
	put24(vp8x[4:], b.Dx()-1)
	put24(vp8x[7:], b.Dy()-1)
	chunk(&body, binary.LittleEndian, "VP8X", vp8x)
	chunk(&body, binary.LittleEndian, "ANIM", []byte{0, 0, 0, 0, 0, 0})
	for _, f := range frames {
		still := encodeWebP(f)
		frame := make([]byte, 16)
		put24(frame[6:], b.Dx()-1)
		put24(frame[9:], b.Dy()-1)
		put24(frame[12:], 100) // ms
		chunk(&body, binary.LittleEndian, "ANMF", append(frame, still[12:]...))
	}
	var out bytes.Buffer
	out.WriteString("RIFF")
	binary.Write(&out, binary.LittleEndian, uint32(body.Len()))
	out.Write(body.Bytes())
	return out.Bytes()
}

// withOrientation inserts an APP1 EXIF segment with the orientation tag after the SOI marker.
func withOrientation(jpg []byte, o uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")
	be := binary.BigEndian
	binary.Write(&tiff, be, uint32(8))
	binary.Write(&tiff, be, uint16(1))
	binary.Write(&tiff, be, uint16(0x0112))
	binary.Write(&tiff, be, uint16(3))
	binary.Write(&tiff, be, uint32(1))
	binary.Write(&tiff, be, o)
	binary.Write(&tiff, be, uint16(0))
	binary.Write(&tiff, be, uint32(0))
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xFF, 0xE1})
	binary.Write(&out, be, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

// entry is one file of a generated archive.
type entry struct {
	name   string
	data   []byte
	method uint16
	flags  uint16
}

func zipOf(entries ...entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method, Flags: e.flags})
		if err != nil {
			log.Fatal(err)
		}
		_, _ = w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}

// archives adds the chapters: one good CBZ (pages in nested folders, PNG and JPEG, named out of
// order, with the non-pages a CBZ carries) and one of each hostile kind. The zip bomb is a page
// that deflates 64 MB of zeros into about 64 KB: far over both the ratio and a Free page's size.
func archives(files map[string][]byte, page, jpg []byte) {
	files["chapter.cbz"] = zipOf(
		entry{name: "ComicInfo.xml", data: []byte("<ComicInfo><Title>t</Title></ComicInfo>"), method: zip.Deflate},
		entry{name: "vol1/ch10/page1.png", data: page},
		entry{name: "vol1/ch2/page10.jpg", data: jpg},
		entry{name: "vol1/ch2/page2.png", data: page},
		entry{name: "vol1/ch2/Thumbs.db", data: []byte("thumbs")},
		entry{name: "__MACOSX/vol1/ch2/._page2.png", data: []byte("fork")},
	)
	files["zip-bomb.cbz"] = zipOf(entry{name: "p1.png", data: append(append([]byte{}, page[:16]...), make([]byte, 64<<20)...), method: zip.Deflate})
	files["zip-bomb-lying.cbz"] = lyingBomb(page)
	files["zip-nested.cbz"] = zipOf(entry{name: "p1.png", data: page}, entry{name: "inner.cbz", data: zipOf(entry{name: "p.png", data: page})})
	files["zip-nested-renamed.cbz"] = zipOf(entry{name: "p1.png", data: zipOf(entry{name: "p.png", data: page})})
	files["zip-escaping.cbz"] = zipOf(entry{name: "../../etc/p1.png", data: page})
	files["zip-absolute.cbz"] = zipOf(entry{name: "/tmp/p1.png", data: page})
	files["zip-encrypted.cbz"] = zipOf(entry{name: "p1.png", data: page, flags: 0x1})
	ch := files["chapter.cbz"]
	files["zip-truncated.cbz"] = ch[:len(ch)/2]
	corrupt := append([]byte{}, ch...)
	corrupt[len(corrupt)/3] ^= 0xff // a page's bytes: its CRC no longer matches
	files["zip-corrupt.cbz"] = corrupt
	files["zip-no-page.cbz"] = zipOf(entry{name: "ComicInfo.xml", data: []byte("<ComicInfo/>")}, entry{name: "notes.txt", data: []byte("hi")})
	var many []entry
	for i := 0; i < 201; i++ {
		many = append(many, entry{name: fmt.Sprintf("p%03d.png", i), data: page})
	}
	files["zip-too-many.cbz"] = zipOf(many...)
}

// lyingBomb is a page whose headers declare 4 KB but which inflates to 64 MB: only a bound held
// while inflating stops it.
func lyingBomb(page []byte) []byte {
	data := append(append([]byte{}, page[:16]...), make([]byte, 64<<20)...)
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	_, _ = fw.Write(data)
	_ = fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "p1.png", Method: zip.Deflate, CRC32: crc32.ChecksumIEEE(data),
		CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 4096})
	if err != nil {
		log.Fatal(err)
	}
	_, _ = w.Write(deflated.Bytes())
	_ = zw.Close()
	return buf.Bytes()
}
