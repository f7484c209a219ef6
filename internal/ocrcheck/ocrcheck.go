// Package ocrcheck is the OCR self-check of a deployed binary: it opens
// Tesseract the way the service does (internal/ocr.Open with the
// BLUEPRINT_OCR setting), draws a few lines of English and Finnish text and
// reads them back. The processing function runs it as `bootstrap ocr-check`,
// which is how `make process-rootfs-check` proves, without Docker, that the
// processing image reads text (docs/deploy.md, "Reading text on images").
package ocrcheck

import (
	"context"
	"fmt"
	"image"
	"image/draw"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"blueprint/internal/config"
	"blueprint/internal/ocr"
)

// Arg is the argument that makes a binary run the check instead of its
// usual work.
const Arg = "ocr-check"

// English and Finnish are the text drawn and expected back: legend text in
// English, and Finnish with its letters outside ASCII (ä, ö).
var (
	English = []string{"SMOKE DETECTOR", "Manual call point"}
	Finnish = []string{"Hätäpoistumistie", "Sähkökeskus", "Paloilmoitin"}
)

// Run opens Tesseract as the service would with getenv's BLUEPRINT_OCR
// (whatever BLUEPRINT_IMAGE_LEGENDS says: the check is of the program and
// its data) and reads English and Finnish drawn in Go Regular: with the
// service's languages (eng+fin) every line must come back, the Finnish ones
// at least without their diacritics (eng+fin reads "Hätä" as "Hata" on this
// image, where fin alone reads it right); and with fin alone, from the same
// program, the Finnish lines exactly, which only the fin data does. It
// returns what was read.
func Run(ctx context.Context, getenv func(string) string) (string, error) {
	rc, err := config.LoadRaster(getenv)
	if err != nil {
		return "", err
	}
	if rc.OCR == "off" {
		return "", fmt.Errorf("ocr-check: %s=off", config.EnvOCR)
	}
	r, err := ocr.Open(ctx, true, rc.OCR)
	if err != nil {
		return "", err
	}
	if r == nil {
		return "", fmt.Errorf("ocr-check: %w: no tesseract with eng and fin data on PATH and %s unset", ocr.ErrUnavailable, config.EnvOCR)
	}
	fin, err := ocr.New(ctx, r.Path(), "fin")
	if err != nil {
		return "", err
	}
	img, err := drawLines(append(append([]string{}, English...), Finnish...), 32)
	if err != nil {
		return "", err
	}
	var report strings.Builder
	for _, c := range []struct {
		name string
		r    *ocr.Reader
		want []string
		fold bool
	}{
		{ocr.DefaultLanguages, r, append(append([]string{}, English...), Finnish...), true},
		{"fin", fin, Finnish, false},
	} {
		lines, err := c.r.Lines(ctx, img, ocr.Sparse)
		if err != nil {
			return report.String(), err
		}
		var got []string
		for _, l := range lines {
			got = append(got, l.Text())
		}
		read := strings.Join(got, " | ")
		fmt.Fprintf(&report, "%s (%s): %s\n", r.Path(), c.name, read)
		var missing []string
		for _, w := range c.want {
			if !strings.Contains(read, w) && !(c.fold && strings.Contains(read, fold(w))) {
				missing = append(missing, w)
			}
		}
		if len(missing) > 0 {
			return report.String(), fmt.Errorf("ocr-check: %s read %q, missing %q", c.name, read, missing)
		}
	}
	return report.String(), nil
}

// fold drops the Finnish letters' diacritics.
func fold(s string) string {
	return strings.NewReplacer("ä", "a", "ö", "o", "å", "a", "Ä", "A", "Ö", "O", "Å", "A").Replace(s)
}

// drawLines draws lines in Go Regular at size px, black on white.
func drawLines(lines []string, size float64) (*image.Gray, error) {
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		return nil, err
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72})
	if err != nil {
		return nil, err
	}
	img := image.NewGray(image.Rect(0, 0, 900, int(size*2)*len(lines)+int(size)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(int(size), int(size*2)*(i+1))
		d.DrawString(l)
	}
	return img, nil
}
