package qr_test

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/makiuchi-d/gozxing"
	qrreader "github.com/makiuchi-d/gozxing/qrcode"

	"github.com/switchboard-dev/switchboard/backend/qr"
)

// A scanner reads back what was drawn (gozxing, a port of ZXing, as a phone would).
func TestPNGScansBack(t *testing.T) {
	const text = "switchboard-sandbox://pair?instance=inst_01jr8d0c3b5n7q9s1u3w5y7a9c&code=ABCD-EFGH"
	raw, err := qr.PNG(text, 256)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 256 || b.Dy() != 256 {
		t.Fatalf("image is %v, want 256×256", b)
	}
	if got := scan(t, img); got != text {
		t.Fatalf("scanned %q, want %q", got, text)
	}
}

// Every size of the links API's range is exactly that size and scans.
func TestPNGExactSizesScan(t *testing.T) {
	const text = "https://sb.example/l/pricing?qr=1"
	for _, size := range []int{64, 100, 333, 512, 2048} {
		raw, err := qr.PNG(text, size)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(raw))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size || b.Dy() != size {
			t.Fatalf("size %d: image is %v", size, b)
		}
		if got := scan(t, img); got != text {
			t.Fatalf("size %d: scanned %q, want %q", size, got, text)
		}
	}
}

func scan(t *testing.T, img image.Image) string {
	t.Helper()
	bmp, err := gozxing.NewBinaryBitmapFromImage(img)
	if err != nil {
		t.Fatal(err)
	}
	res, err := qrreader.NewQRCodeReader().Decode(bmp, nil)
	if err != nil {
		t.Fatalf("the code does not scan: %v", err)
	}
	return res.GetText()
}

// The SVG is a well-formed document with one path of modules inside a white quiet zone, and
// opens at the size asked for.
func TestSVGIsWellFormed(t *testing.T) {
	svg, err := qr.SVG("https://sb.example/l/abc1234", 300)
	if err != nil {
		t.Fatal(err)
	}
	if err := xml.Unmarshal([]byte(svg), new(struct{})); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if !strings.HasPrefix(svg, `<svg xmlns="http://www.w3.org/2000/svg" width="300" height="300" viewBox="0 0 `) || strings.Count(svg, "<path") != 1 {
		t.Fatalf("unexpected SVG: %.120s", svg)
	}
}
