package engine

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"testing"

	"golang.org/x/image/font"
	fx "golang.org/x/image/math/fixed"

	"blueprint/internal/document"
	"blueprint/internal/ocr"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
)

// labelPlan is a plan image with no legend that labels its equipment in
// words, as US sheets do: three chargers tagged EVSE#P1-1 to EVSE#P1-3 beside
// small wall boxes, each tag's leader drawn to its first letter, and a
// panel named twice.
func labelPlan(t *testing.T) []byte {
	t.Helper()
	img := image.NewGray(image.Rect(0, 0, 1600, 1000))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	hline := func(x0, x1, y int) {
		for x := x0; x <= x1; x++ {
			for d := -1; d <= 1; d++ {
				img.SetGray(x, y+d, color.Gray{})
			}
		}
	}
	vline := func(x, y0, y1 int) {
		for y := y0; y <= y1; y++ {
			for d := -1; d <= 1; d++ {
				img.SetGray(x+d, y, color.Gray{})
			}
		}
	}
	face := goFace(t, 26)
	text := func(s string, x, y int) int {
		d := &font.Drawer{Dst: img, Src: image.Black, Face: face, Dot: fx.P(x, y)}
		d.DrawString(s)
		return d.Dot.X.Round()
	}
	hline(100, 1500, 150) // walls
	hline(100, 1500, 900)
	vline(100, 150, 900)
	vline(1500, 150, 900)
	for i, s := range []string{"EVSE#P1-1", "EVSE#P1-2", "EVSE#P1-3"} {
		x := 250 + 400*i
		hline(x, x+40, 170) // the charger's wall box
		hline(x, x+40, 185)
		vline(x, 170, 185)
		vline(x+40, 170, 185)
		vline(x+20, 185, 300) // its leader, met by the tag's first letter
		hline(x+20, x+60, 300)
		text(s, x+61, 310)
	}
	text(`NEW PANEL "EV1" 400A`, 300, 600)
	text(`FEEDER FROM PANEL "EV1"`, 300, 750)
	text("EVSE INSTALLED ON WALL", 900, 600)
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestImageLabelsCounted: on an image page read by the raster detector,
// the words OCR reads count the equipment they label: one charger per
// tag, the panel once however often named, nothing for a note; where
// the job's legend names a class, its labels are not counted twice.
func TestImageLabelsCounted(t *testing.T) {
	e := ocrEngineWith(t, func(o *ocr.Reader) Options {
		return Options{Raster: raster.Config{Library: rastertest.Library(t)}, Outlines: o}
	})
	doc, eng, _ := prepared(t, e, labelPlan(t), document.MimePNG)
	_, ds := detectPage(t, eng, doc, 0)
	got := map[string]int{}
	for _, d := range ds {
		if d.Source.Tag {
			got[d.Class]++
			if d.LegendRow != 0 || d.Confidence != labelConfidence {
				t.Errorf("label detection %+v: want no legend row, confidence %v", d, labelConfidence)
			}
		}
	}
	if got["ev_charger"] != 3 || got["distribution_board"] != 1 || len(got) != 2 {
		t.Errorf("counted from labels %v, want 3 chargers and 1 panel", got)
	}
	de := eng.(*fused).labels
	de.named = map[string]bool{"ev_charger": true}
	_, ds = detectPage(t, eng, doc, 0)
	for _, d := range ds {
		if d.Source.Tag && d.Class == "ev_charger" {
			t.Errorf("charger %+v counted from its label where a legend row names the class", d)
		}
	}
}
