package imageio_test

import (
	"bytes"
	"image"
	"image/jpeg"
	"image/png"
	"testing"

	"github.com/vtsproject/vts/internal/imageio"
	"github.com/vtsproject/vts/internal/testkit/mangapage"
)

// BenchmarkEncodeGreyPage encodes a generated manga page (grey, as most are) as it comes from the
// engine, in RGBA: "colour" writes its four channels, as every page was written before; "grey"
// is Encode, which writes one. The ratio of the two is the figure; the sizes are reported too.
//
//	go test ./internal/imageio -run '^$' -bench EncodeGreyPage
func BenchmarkEncodeGreyPage(b *testing.B) {
	p, err := mangapage.Generate(6, mangapage.Options{Lang: "ja"}) // 2409×3477, PNG
	if err != nil {
		b.Fatal(err)
	}
	src := p.Image
	page := image.NewRGBA(src.Bounds())
	for y := range page.Rect.Dy() {
		for x := range page.Rect.Dx() {
			page.Set(x, y, src.At(x, y))
		}
	}
	colour := func(img image.Image, format string) ([]byte, error) {
		// What Encode did before: the same settings, on the four channels.
		var buf bytes.Buffer
		var err error
		if format == imageio.PNG {
			err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img)
		} else {
			err = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 92})
		}
		return buf.Bytes(), err
	}
	for _, format := range []string{imageio.PNG, imageio.JPEG} {
		for _, c := range []struct {
			name   string
			encode func(image.Image, string) ([]byte, error)
		}{{"colour", colour}, {"grey", imageio.EncodeBytes}} {
			b.Run(format+"/"+c.name, func(b *testing.B) {
				var n int
				for b.Loop() {
					data, err := c.encode(page, format)
					if err != nil {
						b.Fatal(err)
					}
					n = len(data)
				}
				b.ReportMetric(float64(n)/1e6, "MB")
			})
		}
	}
}
