// Package qr draws QR codes as PNG and SVG. The encoding (error correction, masks) is the
// maintained github.com/yeqown/go-qrcode library's; this package only paints its modules,
// with the four-module quiet zone scanners need.
package qr

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"

	qrcode "github.com/yeqown/go-qrcode/v2"
)

const quiet = 4 // modules of white border

// matrix returns the dark modules of text's QR code.
func matrix(text string) ([][]bool, error) {
	code, err := qrcode.NewWith(text, qrcode.WithErrorCorrectionLevel(qrcode.ErrorCorrectionMedium))
	if err != nil {
		return nil, err
	}
	var w capture
	if err := code.Save(&w); err != nil {
		return nil, err
	}
	return w.bitmap, nil
}

type capture struct{ bitmap [][]bool }

func (c *capture) Write(m qrcode.Matrix) error { c.bitmap = m.Bitmap(); return nil }
func (c *capture) Close() error                { return nil }

// PNG draws text's QR code as a grey-scale PNG of exactly size×size pixels. Modules are
// whole pixels (a fractional module blurs edges scanners rely on): the code is drawn with
// the largest whole module that fits and centred, the spare pixels widening the white
// quiet zone. Only a size below the code's own module count shrinks modules by sampling.
func PNG(text string, size int) ([]byte, error) {
	bm, err := matrix(text)
	if err != nil {
		return nil, err
	}
	img := image.NewGray(image.Rect(0, 0, size, size))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	n := len(bm) + 2*quiet
	if scale := size / n; scale >= 1 {
		paint(img, bm, scale, (size-n*scale)/2+quiet*scale)
	} else {
		sample(img, bm, n)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// paint draws each dark module as a scale×scale square, the code's corner at (at, at).
func paint(img *image.Gray, bm [][]bool, scale, at int) {
	for y, row := range bm {
		for x, dark := range row {
			if !dark {
				continue
			}
			for dy := range scale {
				for dx := range scale {
					img.SetGray(at+x*scale+dx, at+y*scale+dy, color.Gray{})
				}
			}
		}
	}
}

// sample fills an image smaller than the code's n modules (quiet zone included) by
// nearest-neighbour sampling.
func sample(img *image.Gray, bm [][]bool, n int) {
	size := img.Bounds().Dx()
	for py := range size {
		for px := range size {
			x, y := px*n/size-quiet, py*n/size-quiet
			if y >= 0 && y < len(bm) && x >= 0 && x < len(bm[y]) && bm[y][x] {
				img.SetGray(px, py, color.Gray{})
			}
		}
	}
}

// SVG draws text's QR code as a scalable SVG document, one path for the dark modules. Its
// width and height are size pixels: the size it opens at in a browser or a design tool,
// which would otherwise pick one of their own (150 pixels, or one unit per module).
func SVG(text string, size int) (string, error) {
	bm, err := matrix(text)
	if err != nil {
		return "", err
	}
	n := len(bm) + 2*quiet
	var path strings.Builder
	for y, row := range bm {
		for x, dark := range row {
			if dark {
				fmt.Fprintf(&path, "M%d %dh1v1h-1z", x+quiet, y+quiet)
			}
		}
	}
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" shape-rendering="crispEdges">`+
		`<rect width="%d" height="%d" fill="#fff"/><path d="%s" fill="#000"/></svg>`, size, size, n, n, n, n, path.String()), nil
}
