package imagelegend

import (
	"context"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	fx "golang.org/x/image/math/fixed"

	"blueprint/internal/document"
	"blueprint/internal/legend"
	"blueprint/internal/ocr"
	"blueprint/internal/synth"
)

// newReader returns a Reader on this machine's tesseract, skipping where
// it is not installed unless BLUEPRINT_REQUIRE_OCR is set (.ci/run).
func newReader(t *testing.T) *Reader {
	t.Helper()
	o, err := ocr.New(context.Background(), "tesseract", "")
	if err != nil {
		if os.Getenv("BLUEPRINT_REQUIRE_OCR") != "" {
			t.Fatalf("tesseract is required here: %v", err)
		}
		t.Skipf("tesseract not installed: %v", err)
	}
	v, err := legend.DefaultVocabulary()
	if err != nil {
		t.Fatal(err)
	}
	return &Reader{OCR: o, Vocab: v}
}

// The legends of generated sets scanned (synth KIND=scan-legend) read as
// the same sets' PDF legends do: each PDF row is found on the scan, near
// the same place, with the same class.
func TestScannedLegendsReadLikeThePDF(t *testing.T) {
	r := newReader(t)
	_, g, err := synth.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	opt := synth.Options{MaxPaper: "A3", MaxDPI: 200}
	var rows, found, classed int
	for i := range 4 {
		vec, err := g.Legend(31, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := document.Open(ctx, vec.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pg, err := doc.Drawing(ctx, 0)
		doc.Close()
		if err != nil {
			t.Fatal(err)
		}
		var want []legend.Row
		for _, tb := range legend.Find(pg, 0, r.Vocab) {
			want = append(want, tb.Rows...)
		}
		scan, err := g.ScanLegend(ctx, 31, i, opt)
		if err != nil {
			t.Fatal(err)
		}
		sdoc, err := document.Open(ctx, scan.Data, document.MimePDF, document.DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		page, err := sdoc.Page(ctx, 0)
		if err != nil {
			sdoc.Close()
			t.Fatal(err)
		}
		read, err := r.Find(ctx, page.Raster)
		sdoc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if read.Text {
			t.Errorf("set %d: a plan taken for a text sheet", i)
		}
		var got []Row
		for _, tb := range read.Tables {
			got = append(got, tb.Rows...)
		}
		if os.Getenv("IL_ROWS") != "" {
			for _, o := range got {
				t.Logf("set %d: got %q (%s) tags %v qty %v glyph %v", i, o.Description, o.Class, o.Tags, o.Quantity, o.Glyph)
			}
		}
		// A scan is skewed by up to 2°: rows are matched by their words,
		// not their place.
		for _, w := range want {
			rows++
			wc, _ := r.Vocab.Class(w.Description)
			best, bestShare := -1, 0.6
			for k, o := range got {
				if s := wordShare(w.Description, o.Description); s >= bestShare {
					best, bestShare = k, s
				}
			}
			if best < 0 {
				t.Logf("set %d: row %q (%s) not found", i, w.Description, wc)
				continue
			}
			found++
			if got[best].Class == wc {
				classed++
			} else {
				t.Logf("set %d: row %q (%s) read as %q (%s)", i, w.Description, wc, got[best].Description, got[best].Class)
			}
		}
	}
	t.Logf("%d PDF legend rows: %d found on the scans, %d with the same class", rows, found, classed)
	// Measured: 45 of 55 found, every one with the PDF's class
	// (docs/raster.md, "Legends on images").
	if rows == 0 || float64(found) < 0.75*float64(rows) || classed < found*95/100 {
		t.Errorf("%d PDF legend rows: %d found on the scans, %d with the same class; want 75 %% found, 95 %% of those with the class", rows, found, classed)
	}
}

// wordShare is the share of a's words (upper case, letters and digits)
// found in b.
func wordShare(a, b string) float64 {
	norm := func(s string) []string {
		return strings.FieldsFunc(strings.ToUpper(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	wa, wb := norm(a), norm(b)
	if len(wa) == 0 {
		return 0
	}
	n := 0
	for _, w := range wa {
		if slices.Contains(wb, w) {
			n++
		}
	}
	return float64(n) / float64(len(wa))
}

// goFace returns Go Regular at size points (72 DPI), fully hinted.
func goFace(t *testing.T, size float64) font.Face {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	fc, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		t.Fatal(err)
	}
	return fc
}

// ruledLegend draws a legend as the US fire-alarm development set prints
// one, at 200 DPI: a ruled table whose symbol column holds faint 1-pixel
// outlines (light gray boxes round abbreviations, pale green and pink
// hexagons round letters), with each description centred in a wide
// column far right of its glyph, and a quantity column.
func ruledLegend(t *testing.T) (image.Image, []string) {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 1700, 800))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	body, small := goFace(t, 22), goFace(t, 17)
	text := func(s string, fc font.Face, x, y int, c color.Color) int {
		d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: fc, Dot: fx.P(x, y)}
		w := d.MeasureString(s).Ceil()
		d.DrawString(s)
		return w
	}
	centred := func(s string, fc font.Face, cx, y int, c color.Color) {
		w := (&font.Drawer{Face: fc}).MeasureString(s).Ceil()
		text(s, fc, cx-w/2, y, c)
	}
	hline := func(x0, x1, y int, c color.Color) {
		for x := x0; x <= x1; x++ {
			img.Set(x, y, c)
		}
	}
	vline := func(x, y0, y1 int, c color.Color) {
		for y := y0; y <= y1; y++ {
			img.Set(x, y, c)
		}
	}
	seg := func(x0, y0, x1, y1 float64, c color.Color) {
		n := int(math.Hypot(x1-x0, y1-y0)) + 1
		for i := 0; i <= n; i++ {
			f := float64(i) / float64(n)
			img.Set(int(x0+f*(x1-x0)), int(y0+f*(y1-y0)), c)
		}
	}
	faint := color.RGBA{204, 204, 204, 255}
	green, paleGreen := color.RGBA{40, 200, 40, 255}, color.RGBA{190, 240, 180, 255}
	pink, palePink := color.RGBA{230, 40, 230, 255}, color.RGBA{245, 190, 245, 255}
	grid := color.RGBA{90, 90, 90, 255}
	boxed := func(s string, cx, cy int) {
		w := (&font.Drawer{Face: small}).MeasureString(s).Ceil()
		x0, x1, y0, y1 := cx-w/2-12, cx+w/2+12, cy-13, cy+13
		hline(x0, x1, y0, faint)
		hline(x0, x1, y1, faint)
		vline(x0, y0, y1, faint)
		vline(x1, y0, y1, faint)
		centred(s, small, cx, cy+7, color.Black)
	}
	hexagon := func(s string, cx, cy int, ink, outline color.Color) {
		r := 17.0
		for k := range 6 {
			a0, a1 := float64(k)*math.Pi/3, float64(k+1)*math.Pi/3
			seg(float64(cx)+r*math.Cos(a0), float64(cy)+r*math.Sin(a0), float64(cx)+r*math.Cos(a1), float64(cy)+r*math.Sin(a1), outline)
		}
		centred(s, body, cx, cy+8, ink)
	}
	// A speaker/strobe: a faint box round a circle, a dark triangle a
	// few pixels right of it (the box fades there on real scans), and
	// its rating in small type beside it.
	tiny := goFace(t, 9)
	strobe := func(cx, cy int) {
		x0, x1, y0, y1 := cx-25, cx+3, cy-14, cy+14
		hline(x0, x1, y0, faint)
		hline(x0, x1, y1, faint)
		vline(x0, y0, y1, faint)
		vline(x1, y0, y1, faint)
		for k := range 24 {
			a0, a1 := float64(k)*math.Pi/12, float64(k+1)*math.Pi/12
			seg(float64(cx-11)+6*math.Cos(a0), float64(cy)+6*math.Sin(a0), float64(cx-11)+6*math.Cos(a1), float64(cy)+6*math.Sin(a1), faint)
		}
		for y := y0; y <= y1; y++ {
			d := y - cy
			if d < 0 {
				d = -d
			}
			hline(cx+10+d/2, cx+24, y, color.RGBA{20, 20, 230, 255})
		}
		text("15CD 0.25W", tiny, cx+28, cy+4, color.RGBA{20, 20, 230, 255})
	}
	// columns: symbol 40–200, description 200–1250, quantity 1250–1400
	rows := []struct {
		glyph func(cx, cy int)
		desc  string
		qty   string
	}{
		{func(cx, cy int) { boxed("FACP", cx, cy) }, "ENCLOSURE, COMMAND CENTER, BLACK", "1"},
		{func(cx, cy int) { boxed("NAC", cx, cy) }, "9 AMP NAC POWER SUPPLY W/SYNCH", "1"},
		{func(cx, cy int) { hexagon("F", cx, cy, pink, palePink) }, "PULL STATION, DOUBLE ACTION, ADDRESSABLE", "11"},
		{func(cx, cy int) { hexagon("S", cx, cy, green, paleGreen) }, "SMOKE, PHOTO, ADDRESSABLE", "3"},
		{func(cx, cy int) { hexagon("D", cx, cy, green, paleGreen) }, "INTELLIGENT DUCT DETECTOR HOUSING", "2"},
		{func(cx, cy int) { boxed("AOM", cx, cy) }, "OUTPUT RELAY CONTROL MODULE, ADDRESSABLE", "4"},
		{func(cx, cy int) { strobe(cx, cy) }, "L-SERIES SPEAKER/STROBE, WHITE, WALL", "5"},
	}
	centred("SYMBOL", body, 120, 70, color.Black)
	centred("DESCRIPTION", body, 725, 70, color.Black)
	centred("QUANTITY", body, 1325, 70, color.Black)
	top, pitch := 85, 70
	hline(40, 1400, top, grid)
	var want []string
	for i, r := range rows {
		cy := top + pitch*i + pitch/2
		r.glyph(120, cy)
		centred(r.desc, body, 725, cy+8, color.Black)
		centred(r.qty, body, 1325, cy+8, color.Black)
		hline(40, 1400, top+pitch*(i+1), grid)
		want = append(want, r.desc)
	}
	bottom := top + pitch*len(rows)
	for _, x := range []int{40, 200, 1250, 1400} {
		vline(x, top, bottom, grid)
	}
	return img, want
}

// A ruled legend whose glyphs are faint outlines round text, with the
// descriptions centred far from them (as the US fire-alarm set prints
// its legend), is read: every row, with its class and printed quantity.
func TestRuledLegendWithFaintGlyphs(t *testing.T) {
	r := newReader(t)
	img, want := ruledLegend(t)
	found, err := r.Find(context.Background(), img)
	if err != nil {
		t.Fatal(err)
	}
	var got []Row
	for _, tb := range found.Tables {
		got = append(got, tb.Rows...)
	}
	classes := []string{"fire_alarm_panel", "power_supply", "manual_call_point", "smoke_detector", "duct_detector", "io_module", "speaker_visual"}
	quantities := []int{1, 1, 11, 3, 2, 4, 5}
	for i, d := range want {
		var row *Row
		for k := range got {
			if wordShare(got[k].Description, d) >= 0.6 {
				row = &got[k]
				break
			}
		}
		switch {
		case row == nil:
			t.Errorf("row %q not read; read %+v", d, got)
		case row.Class != classes[i]:
			t.Errorf("row %q: class %q, want %q", d, row.Class, classes[i])
		case row.Quantity == nil || *row.Quantity != quantities[i]:
			t.Errorf("row %q: quantity %v, want %d", d, row.Quantity, quantities[i])
		case classes[i] == "speaker_visual":
			// the glyph is the box and the triangle, not the rating
			// beside them; the rating is the row's tag
			if row.Glyph.Min.X > 120-25+2 || row.Glyph.Max.X > 120+28 {
				t.Errorf("row %q: glyph %v, want the box and triangle (95–145)", d, row.Glyph)
			}
			if !strings.Contains(strings.Join(row.Tags, " "), "15CD") {
				t.Errorf("row %q: tags %q, want the rating 15CD", d, row.Tags)
			}
		}
	}
}

// TestCodeLabel: plan labels made of codes are not legend descriptions;
// descriptions with sizes and ratings are.
func TestCodeLabel(t *testing.T) {
	for _, c := range []struct {
		desc string
		want bool
	}{
		{"FACP SLC1 #18 FACP SPK1 #18 FAPS1 NAC1 #14", true},
		{"FACP:SPK1-002 FAPS1:NAC1-001", true},
		{"9 AMP NAC POWER SUPPLY W/SYNCH", false},
		{"DOCUMENT STORAGE BOX, 12 IN. X 13 IN. X 2.25 IN. W/4GB FLASH DRIVE", false},
		{"30A Isolator Switch@ 2000mm above FFL.", false},
		{"", false},
	} {
		if got := codeLabel(strings.Fields(c.desc)); got != c.want {
			t.Errorf("codeLabel(%q) = %v, want %v", c.desc, got, c.want)
		}
	}
}

// TestTitleNamesTheSheet: a drawing's title in large type names its kind
// (a riser is not counted); a plan's title names a floor plan; a
// drawing with no large type names none.
func TestTitleNamesTheSheet(t *testing.T) {
	r := newReader(t)
	sheet := func(title string) image.Image {
		img := image.NewRGBA(image.Rect(0, 0, 1600, 900))
		draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
		small := goFace(t, 18)
		// labels in text type and boxes, as a drawing has
		for i := range 12 {
			x, y := 80+120*(i%6), 120+200*(i/6)
			d := &font.Drawer{Dst: img, Src: image.Black, Face: small, Dot: fx.P(x, y)}
			d.DrawString("SPK-" + string(rune('A'+i)))
			draw.Draw(img, image.Rect(x, y+20, x+60, y+22), image.Black, image.Point{}, draw.Src)
			draw.Draw(img, image.Rect(x, y+20, x+2, y+80), image.Black, image.Point{}, draw.Src)
		}
		if title != "" {
			d := &font.Drawer{Dst: img, Src: image.Black, Face: goFace(t, 64), Dot: fx.P(500, 800)}
			d.DrawString(title)
		}
		return img
	}
	for _, c := range []struct{ title, want string }{
		{"01 RISER DIAGRAM", "riser"},
		{"FIRST FLOOR PLAN", "floor_plan"},
		{"", ""},
	} {
		p, err := r.Find(context.Background(), sheet(c.title))
		if err != nil {
			t.Fatal(err)
		}
		if p.Kind != c.want {
			t.Errorf("title %q: kind %q, want %q", c.title, p.Kind, c.want)
		}
	}
}
