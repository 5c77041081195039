package imageio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"reflect"
	"testing"
)

func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{uint8(x * 20), uint8(y * 20), 99, 255})
		}
	}
	return img
}

func TestRoundTripEachFormat(t *testing.T) {
	for _, f := range []string{PNG, JPEG, WebP} {
		data, err := EncodeBytes(testImage(12, 7), f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		head := data[:min(len(data), 64)]
		if got, err := Sniff(head); err != nil || got != f {
			t.Fatalf("Sniff = %q, %v; want %s", got, err, f)
		}
		img, info, err := Decode(data)
		if err != nil || info.Width != 12 || info.Height != 7 || img.Bounds().Dx() != 12 {
			t.Fatalf("%s: Decode = %+v, %v", f, info, err)
		}
		tail := data[max(0, len(data)-TailLen):]
		if err := CheckComplete(f, head, tail, int64(len(data))); err != nil {
			t.Fatalf("%s: whole image judged incomplete: %v", f, err)
		}
		cut := data[:len(data)-10]
		if err := CheckComplete(f, head, cut[max(0, len(cut)-TailLen):], int64(len(cut))); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("%s: truncated image accepted: %v", f, err)
		}
	}
}

func TestInspectRefusesBombsBeforeDecoding(t *testing.T) {
	// A PNG header claiming 50000×50000 with no pixel data behind it.
	var buf bytes.Buffer
	buf.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 50000)
	binary.BigEndian.PutUint32(ihdr[4:], 50000)
	ihdr[8], ihdr[9] = 8, 2
	writeChunk(&buf, "IHDR", ihdr)
	_, err := Inspect(bytes.NewReader(buf.Bytes()))
	if !errors.Is(err, ErrTooManyPixels) {
		t.Fatalf("err = %v, want ErrTooManyPixels", err)
	}
}

func writeChunk(buf *bytes.Buffer, typ string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	buf.Write(n[:])
	buf.WriteString(typ)
	buf.Write(data)
	crc := crc32.NewIEEE()
	crc.Write([]byte(typ))
	crc.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	buf.Write(n[:])
}

func TestSniffRejectsOtherContent(t *testing.T) {
	for _, s := range []string{"", "<svg xmlns='http://www.w3.org/2000/svg'/>", "<html><body>", "GIF89a", "%PDF-1.7"} {
		if _, err := Sniff([]byte(s)); !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Sniff(%q) accepted", s)
		}
	}
}

func TestEXIFOrientationApplied(t *testing.T) {
	src := testImage(4, 2)
	var plain bytes.Buffer
	if err := jpeg.Encode(&plain, src, &jpeg.Options{Quality: 100}); err != nil {
		t.Fatal(err)
	}
	data := withOrientation(plain.Bytes(), 6) // rotate 90° clockwise to display
	img, info, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if info.Width != 2 || info.Height != 4 || img.Bounds().Dx() != 2 {
		t.Fatalf("orientation 6 not applied: %+v", info)
	}
}

// withOrientation inserts an APP1 EXIF segment with the orientation tag after the SOI marker.
func withOrientation(jpg []byte, o uint16) []byte {
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")
	binary.Write(&tiff, binary.BigEndian, uint32(8))
	binary.Write(&tiff, binary.BigEndian, uint16(1))
	binary.Write(&tiff, binary.BigEndian, uint16(0x0112))
	binary.Write(&tiff, binary.BigEndian, uint16(3))
	binary.Write(&tiff, binary.BigEndian, uint32(1))
	binary.Write(&tiff, binary.BigEndian, o)
	binary.Write(&tiff, binary.BigEndian, uint16(0))
	binary.Write(&tiff, binary.BigEndian, uint32(0))
	seg := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(jpg[:2])
	out.Write([]byte{0xFF, 0xE1})
	binary.Write(&out, binary.BigEndian, uint16(len(seg)+2))
	out.Write(seg)
	out.Write(jpg[2:])
	return out.Bytes()
}

func TestPNG16BitDecodes(t *testing.T) {
	img := image.NewRGBA64(image.Rect(0, 0, 3, 3))
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if _, info, err := Decode(buf.Bytes()); err != nil || info.Format != PNG {
		t.Fatalf("16-bit PNG: %+v %v", info, err)
	}
}

func FuzzInspect(f *testing.F) {
	for _, format := range []string{PNG, JPEG, WebP} {
		data, _ := EncodeBytes(testImage(3, 3), format)
		f.Add(data)
	}
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8X"))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := Inspect(bytes.NewReader(data))
		if err == nil && (info.Width <= 0 || info.Height <= 0 || int64(info.Width)*int64(info.Height) > MaxPixels) {
			t.Fatalf("accepted %+v", info)
		}
		_ = jpegOrientation(data)
		if format, err := Sniff(data); err == nil {
			_ = CheckComplete(format, data[:min(len(data), 64)], data[max(0, len(data)-TailLen):], int64(len(data)))
		}
		// What the header lets through must decode without panicking, to the size it declared
		// (turned upright for JPEG); small images only, to keep the fuzzer fast.
		if err == nil && info.Width*info.Height <= 1<<16 {
			img, got, derr := Decode(data)
			if derr == nil {
				b := img.Bounds()
				if b.Dx() != got.Width || b.Dy() != got.Height || got.Width*got.Height != info.Width*info.Height {
					t.Fatalf("header said %+v, decoded %v as %+v", info, b, got)
				}
			}
		}
	})
}

// A page all in grey comes back as greyscale, the same pixels in a smaller file; one coloured
// pixel keeps the page in colour.
func TestEncodeWritesAGreyPageAsGreyscale(t *testing.T) {
	const w, h = 120, 90
	page := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			v := uint8((x*7 + y*3) % 256)
			page.SetRGBA(x, y, color.RGBA{v, v, v, 255})
		}
	}
	for _, format := range []string{PNG, JPEG} {
		data, err := EncodeBytes(page, format)
		if err != nil {
			t.Fatal(err)
		}
		got, _, err := image.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		g, ok := got.(*image.Gray)
		if !ok {
			t.Fatalf("%s: a grey page decodes as %T, want greyscale", format, got)
		}
		if format == PNG {
			for i, v := range g.Pix {
				if want := page.Pix[(i/w)*page.Stride+4*(i%w)]; v != want {
					t.Fatalf("pixel %d is %d, want %d", i, v, want)
				}
			}
			var rgba bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&rgba, page); err != nil {
				t.Fatal(err)
			}
			if len(data) >= rgba.Len() {
				t.Errorf("the greyscale PNG is %d bytes, the colour one %d", len(data), rgba.Len())
			}
		}
	}
	page.SetRGBA(5, 5, color.RGBA{200, 10, 10, 255})
	data, err := EncodeBytes(page, PNG)
	if err != nil {
		t.Fatal(err)
	}
	got, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if r, g, b, _ := got.At(5, 5).RGBA(); r>>8 != 200 || g>>8 != 10 || b>>8 != 10 {
		t.Fatalf("the coloured pixel came back as %d,%d,%d", r>>8, g>>8, b>>8)
	}
}

// A page stored with a transparent background is read as a viewer shows it, on white: its
// transparent paper is white, its opaque ink stays black, and half-transparent ink is grey.
// Read as stored, the paper is zero in every channel, black.
func TestTransparencyIsFlattenedOntoWhite(t *testing.T) {
	nrgba := image.NewNRGBA(image.Rect(0, 0, 4, 1))
	nrgba.Set(1, 0, color.NRGBA{A: 255})
	nrgba.Set(2, 0, color.NRGBA{A: 128})
	pal := image.NewPaletted(image.Rect(0, 0, 4, 1), color.Palette{color.NRGBA{}, color.NRGBA{A: 255}, color.NRGBA{A: 128}})
	pal.SetColorIndex(1, 0, 1)
	pal.SetColorIndex(2, 0, 2)
	for name, img := range map[string]image.Image{"RGBA": nrgba, "paletted": pal} {
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			t.Fatal(err)
		}
		got, _, err := Decode(buf.Bytes())
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for x, want := range []uint8{255, 0, 127, 255} {
			r, g, b, a := got.At(x, 0).RGBA()
			if a != 0xffff || r>>8 != g>>8 || g>>8 != b>>8 || int(r>>8) < int(want)-1 || int(r>>8) > int(want)+1 {
				t.Errorf("%s pixel %d: %d %d %d alpha %d, want grey %d, opaque", name, x, r>>8, g>>8, b>>8, a>>8, want)
			}
		}
	}
	// An opaque page is returned as decoded, without a copy.
	var buf bytes.Buffer
	png.Encode(&buf, image.NewGray(image.Rect(0, 0, 2, 2)))
	if got, _, _ := Decode(buf.Bytes()); reflect.TypeOf(got) != reflect.TypeOf(&image.Gray{}) {
		t.Errorf("opaque greyscale page decoded as %T", got)
	}
}
