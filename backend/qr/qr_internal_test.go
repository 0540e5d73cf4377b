package qr

import (
	"bytes"
	"image"
	"image/png"
	"testing"
)

// A PNG is exactly the size asked for, and every module of the library's own bitmap is
// drawn as a whole square of one colour inside a quiet zone of at least four modules.
func TestPNGIsExactlySizeWithIntactModules(t *testing.T) {
	const text = "https://sb.example/l/pricing?qr=1"
	bm, err := matrix(text)
	if err != nil {
		t.Fatal(err)
	}
	n := len(bm) + 2*quiet
	for _, size := range []int{n, 64, 100, 256, 511, 512, 2048} {
		raw, err := PNG(text, size)
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
		// The library may choose among equally good masks differently from call to call, so
		// the image is checked against its own grid: each module a whole square of one
		// colour (its top-left pixel's), everything outside the code white, and the finder
		// pattern's corner module dark where it belongs.
		scale := size / n
		at := (size-n*scale)/2 + quiet*scale
		for y := range size {
			for x := range size {
				mx, my := (x-at)/scale, (y-at)/scale
				inCode := x >= at && y >= at && my < len(bm) && mx < len(bm)
				want := inCode && dark(img, at+mx*scale, at+my*scale)
				if dark(img, x, y) != want {
					t.Fatalf("size %d: pixel (%d,%d) dark=%v, want %v", size, x, y, !want, want)
				}
			}
		}
		if !dark(img, at, at) || !dark(img, at+(len(bm)-1)*scale, at) {
			t.Fatalf("size %d: no finder pattern at the code's corners", size)
		}
	}
}

func dark(img image.Image, x, y int) bool {
	r, _, _, _ := img.At(x, y).RGBA()
	return r < 0x8000
}

// A size below the code's module count still gives that size (sampled).
func TestPNGSmallerThanTheCode(t *testing.T) {
	raw, err := PNG("https://sb.example/l/pricing?qr=1", 30)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil || img.Bounds().Dx() != 30 || img.Bounds().Dy() != 30 {
		t.Fatalf("%v, %v", err, img.Bounds())
	}
}
