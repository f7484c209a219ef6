// Command contactsheet draws every catalog icon in a labelled grid on one
// PNG, to check the glyphs by eye:
//
//	go run ./cmd/contactsheet -out /tmp/sheet.png [-size 128] [-cols 8] [-catalog override.json]
//
// Each cell shows IconPNG of one class on white, its class key under it,
// and a thin grey frame showing the icon square.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"log"
	"os"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
)

func main() {
	out := flag.String("out", "", "output PNG path (required)")
	size := flag.Int("size", 128, "icon side in pixels")
	cols := flag.Int("cols", 8, "icons per row")
	override := flag.String("catalog", os.Getenv(config.EnvCatalogFile), "operator catalog override file")
	flag.Parse()
	if *out == "" || *cols < 1 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*out, *size, *cols, *override); err != nil {
		log.Fatal(err)
	}
}

func run(out string, size, cols int, override string) error {
	cat, err := catalog.Load(override)
	if err != nil {
		return err
	}
	fnt, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return fmt.Errorf("parse font: %w", err)
	}
	face, err := opentype.NewFace(fnt, &opentype.FaceOptions{Size: 11, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return fmt.Errorf("font face: %w", err)
	}
	defer face.Close()

	syms := cat.Symbols()
	cellW, cellH := max(size+16, 150), size+34
	rows := (len(syms) + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*cellW, rows*cellH))
	draw.Draw(sheet, sheet.Bounds(), image.White, image.Point{}, draw.Src)
	for i, s := range syms {
		x0, y0 := (i%cols)*cellW, (i/cols)*cellH
		b, err := cat.IconPNG(s.Class, size)
		if err != nil {
			return err
		}
		icon, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return fmt.Errorf("decode icon %s: %w", s.Class, err)
		}
		at := image.Pt(x0+(cellW-size)/2, y0+6)
		draw.Draw(sheet, image.Rectangle{Min: at, Max: at.Add(image.Pt(size, size))}, icon, image.Point{}, draw.Over)
		frame(sheet, image.Rect(at.X-1, at.Y-1, at.X+size+1, at.Y+size+1), color.Gray{Y: 0xdd})
		d := font.Drawer{Dst: sheet, Src: image.Black, Face: face}
		w := d.MeasureString(s.Class)
		d.Dot = fixed.Point26_6{X: fixed.I(x0+cellW/2) - w/2, Y: fixed.I(y0 + size + 24)}
		d.DrawString(s.Class)
	}
	f, err := os.Create(out)
	if err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	if err := png.Encode(f, sheet); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", out, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", out, err)
	}
	fmt.Printf("%s: %d icons\n", out, len(syms))
	return nil
}

// frame draws a one-pixel rectangle outline.
func frame(dst *image.RGBA, r image.Rectangle, c color.Color) {
	for x := r.Min.X; x < r.Max.X; x++ {
		dst.Set(x, r.Min.Y, c)
		dst.Set(x, r.Max.Y-1, c)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		dst.Set(r.Min.X, y, c)
		dst.Set(r.Max.X-1, y, c)
	}
}
