// Package imageio recognises page images by their content, bounds their size before any pixel is
// decoded, and encodes translated pages back into the source's format.
package imageio

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"io"

	"github.com/HugoSmits86/nativewebp"
	_ "golang.org/x/image/webp" // registers the WebP decoder with package image
)

// Formats of page images the service accepts, as sniffed from content.
const (
	PNG  = "png"
	JPEG = "jpeg"
	WebP = "webp"
)

// MaxPixels is the largest page accepted: 40 megapixels. A header that claims more is refused
// before decoding, which is what stops decompression bombs.
const MaxPixels = 40_000_000

// SniffLen is how many leading bytes Sniff needs.
const SniffLen = 16

var (
	// ErrUnknownFormat means the content is not a PNG, JPEG or WebP image, whatever its name says.
	ErrUnknownFormat = errors.New("not a PNG, JPEG or WebP image")
	// ErrTooManyPixels means the image's header declares more than MaxPixels pixels.
	ErrTooManyPixels = errors.New("image has more than 40 megapixels")
	// ErrCorrupt means the header or data could not be decoded.
	ErrCorrupt = errors.New("image is truncated or corrupt")
	// ErrAnimated means an animated image, which has no single page to translate.
	ErrAnimated = errors.New("animated images are not supported")
)

// Sniff names the format of an image from its first bytes, or returns ErrUnknownFormat.
func Sniff(head []byte) (string, error) {
	switch {
	case len(head) >= 8 && bytes.Equal(head[:8], []byte("\x89PNG\r\n\x1a\n")):
		return PNG, nil
	case len(head) >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF:
		return JPEG, nil
	case len(head) >= 12 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return WebP, nil
	}
	return "", ErrUnknownFormat
}

// Info is what the header of an image says about it.
type Info struct {
	Format        string
	Width, Height int
}

// Inspect reads only the header of r: the format by content, the dimensions, and whether the
// image is animated. It never decodes pixels, so it is safe on hostile input.
func Inspect(r io.Reader) (Info, error) {
	br := bufio.NewReaderSize(r, 4096)
	head, _ := br.Peek(64)
	format, err := Sniff(head)
	if err != nil {
		return Info{}, err
	}
	if format == WebP && webpAnimated(head) {
		return Info{}, ErrAnimated
	}
	cfg, gotFormat, err := image.DecodeConfig(br)
	if err != nil {
		return Info{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if gotFormat != format {
		return Info{}, ErrUnknownFormat
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		return Info{}, fmt.Errorf("%w: zero-sized image", ErrCorrupt)
	}
	if int64(cfg.Width)*int64(cfg.Height) > MaxPixels {
		return Info{Format: format, Width: cfg.Width, Height: cfg.Height}, ErrTooManyPixels
	}
	return Info{Format: format, Width: cfg.Width, Height: cfg.Height}, nil
}

// webpAnimated reports whether an extended WebP header (VP8X) sets its animation flag.
func webpAnimated(head []byte) bool {
	return len(head) >= 21 && string(head[12:16]) == "VP8X" && head[20]&0x02 != 0
}

// Decode inspects data and then decodes it, so the size bound holds before any allocation for
// pixels. The page comes back as a viewer would show it: upright (JPEG EXIF orientation applied)
// and opaque (transparency flattened onto white paper).
func Decode(data []byte) (image.Image, Info, error) {
	info, err := Inspect(bytes.NewReader(data))
	if err != nil {
		return nil, info, err
	}
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, info, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if info.Format == JPEG {
		img = applyOrientation(img, jpegOrientation(data))
		b := img.Bounds()
		info.Width, info.Height = b.Dx(), b.Dy()
	}
	return flatten(img), info, nil
}

// flatten returns img laid onto white when any of its pixels is not opaque. A page exported
// with a transparent background (a cleaned raw, a layer of lettering) is read by a person on a
// white page; read as it is stored, its transparent paper is black (zero in every channel), and
// not one bubble of it was found.
func flatten(img image.Image) image.Image {
	if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
		return img
	}
	// A PNG with an alpha channel decodes as NRGBA, which is laid on white where it lies: a
	// 40-megapixel page is not copied.
	if n, ok := img.(*image.NRGBA); ok {
		for i := 0; i < len(n.Pix); i += 4 {
			a := int(n.Pix[i+3])
			for c := range 3 {
				n.Pix[i+c] = uint8((int(n.Pix[i+c])*a + 255*(255-a) + 127) / 255)
			}
			n.Pix[i+3] = 255
		}
		return n
	}
	b := img.Bounds()
	dst := image.NewRGBA(b)
	draw.Draw(dst, b, image.White, image.Point{}, draw.Src)
	draw.Draw(dst, b, img, b.Min, draw.Over)
	return dst
}

// Encode writes img in format. JPEG uses quality 92, a good trade for lettering. A page all of
// whose pixels are opaque grey is written as greyscale (PNG and JPEG).
func Encode(w io.Writer, img image.Image, format string) error {
	if g, ok := grey(img); ok && format != WebP {
		img = g
	}
	switch format {
	case PNG:
		enc := png.Encoder{CompressionLevel: png.BestSpeed}
		return enc.Encode(w, img)
	case JPEG:
		return jpeg.Encode(w, img, &jpeg.Options{Quality: 92})
	case WebP:
		return nativewebp.Encode(w, img, nil)
	}
	return fmt.Errorf("encode: %w: %q", ErrUnknownFormat, format)
}

// grey is img in one channel when every pixel of it is an opaque grey (most manga pages are):
// encoded so, a page is a quarter of the data to compress, and a smaller file.
func grey(img image.Image) (*image.Gray, bool) {
	m, ok := img.(*image.RGBA)
	if !ok {
		return nil, false
	}
	b := m.Rect
	g := image.NewGray(b)
	for y := range b.Dy() {
		row, out := m.Pix[y*m.Stride:][:4*b.Dx()], g.Pix[y*g.Stride:][:b.Dx()]
		for x := range out {
			p := row[4*x : 4*x+4]
			if p[0] != p[1] || p[1] != p[2] || p[3] != 255 {
				return nil, false
			}
			out[x] = p[0]
		}
	}
	return g, true
}

// EncodeBytes is Encode into a fresh buffer.
func EncodeBytes(img image.Image, format string) ([]byte, error) {
	var buf bytes.Buffer
	if err := Encode(&buf, img, format); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Extension is the file extension (with dot) for a format.
func Extension(format string) string {
	switch format {
	case PNG:
		return ".png"
	case JPEG:
		return ".jpg"
	case WebP:
		return ".webp"
	}
	return ""
}

// ContentType is the MIME type for a format.
func ContentType(format string) string {
	switch format {
	case PNG:
		return "image/png"
	case JPEG:
		return "image/jpeg"
	case WebP:
		return "image/webp"
	}
	return "application/octet-stream"
}
