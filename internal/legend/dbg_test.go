package legend

import (
	"blueprint/internal/glyph"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/drawing"
)

func TestDbgCands(t *testing.T) {
	path := os.Getenv("LEGEND_DBG")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pg, err := doc.Drawing(ctx, dbgPage())
	if err != nil {
		t.Fatal(err)
	}
	ix := newIndex(pg)
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || r.letters() < 2 {
			continue
		}
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em)
		bc, bok := ix.glyphIn(Rect{glyph.Point{X: r.min.X - 0.2*em - glyphReach*em, Y: cy - 0.8*em}, glyph.Point{X: r.min.X - 0.2*em, Y: cy + 0.8*em}}, cy-0.8*em, cy+0.8*em, em, false)
		top, bot := ix.rulesAround(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, em, bc, bok)
		t.Logf("  band %.0f-%.0f rules %.1f %.1f core %v", cy-0.8*em, cy+0.8*em, top, bot, fmtBox(bc.box))
		t.Logf("run %q at %.0f,%.0f em %.1f ok %v box %.0f,%.0f-%.0f,%.0f crossed %v", r.text, r.min.X, r.min.Y, em, ok, c.box.Min.X, c.box.Min.Y, c.box.Max.X, c.box.Max.Y, ok && ix.crossed(c.box, em))
		_ = math.Max
	}
}

func TestDbgFind(t *testing.T) {
	path := os.Getenv("LEGEND_DBG")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pg, err := doc.Drawing(ctx, dbgPage())
	if err != nil {
		t.Fatal(err)
	}
	for _, tb := range Find(pg, 0) {
		for _, r := range tb.Rows {
			t.Logf("row %q text %q tags %v gbox %.0f,%.0f-%.0f,%.0f shapes %d", r.Description, r.GlyphText, r.Tags, r.GlyphBox.Min.X, r.GlyphBox.Min.Y, r.GlyphBox.Max.X, r.GlyphBox.Max.Y, len(r.Glyph.Shapes))
		}
	}
}

func TestDbgSame(t *testing.T) {
	path := os.Getenv("LEGEND_DBG")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := doc.Drawing(ctx, dbgPage())
	rows := Find(pg, 0)[0].Rows
	for i := range rows {
		for j := range i {
			pa, pb := glyphPoints(rows[i].Glyph), glyphPoints(rows[j].Glyph)
			t.Logf("%d %d same %v spread %.2f %.2f n %d %d", i, j, sameGlyph(rows[i], rows[j]), spread(pa), spread(pb), len(pa), len(pb))
		}
	}
}

func dbgPage() int {
	var p int
	fmt.Sscan(os.Getenv("LEGEND_DBG_PAGE"), &p)
	return p
}

func TestDbgSegs(t *testing.T) {
	path := os.Getenv("LEGEND_DBG")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	pg, _ := doc.Drawing(ctx, dbgPage())
	var x0, y0, x1, y1 float64
	fmt.Sscan(os.Getenv("LEGEND_DBG_BOX"), &x0, &y0, &x1, &y1)
	for _, s := range pg.Segments {
		if math.Max(s.A.X, s.B.X) >= x0 && math.Min(s.A.X, s.B.X) <= x1 && math.Max(s.A.Y, s.B.Y) >= y0 && math.Min(s.A.Y, s.B.Y) <= y1 {
			t.Logf("seg %.1f,%.1f - %.1f,%.1f style %+v", s.A.X, s.A.Y, s.B.X, s.B.Y, pg.Styles[s.Style])
		}
	}
}

func fmtBox(r Rect) string {
	return fmt.Sprintf("%.0f,%.0f-%.0f,%.0f", r.Min.X, r.Min.Y, r.Max.X, r.Max.Y)
}

func TestDbgDoors(t *testing.T) {
	path := os.Getenv("LEGEND_DBG")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	for p := range doc.NumPages() {
		pg, _ := doc.Drawing(ctx, p)
		hist := map[int]int{}
		for _, a := range pg.Arcs {
			if s := math.Abs(a.Sweep); s >= 80 && s <= 100 {
				hist[int(math.Log2(a.R))]++
			}
		}
		t.Logf("page %d arcs %d quarter arcs by log2 radius %v", p, len(pg.Arcs), hist)
	}
}

func TestDbgDoorsDir(t *testing.T) {
	dir := os.Getenv("LEGEND_DBG_DIR")
	if dir == "" {
		t.Skip()
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.pdf"))
	ctx := context.Background()
	none := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
		for p := range doc.NumPages() {
			pg, _ := doc.Drawing(ctx, p)
			n := 0
			for _, a := range pg.Arcs {
				if s := math.Abs(a.Sweep); s >= 80 && s <= 100 && a.R >= 32 {
					n++
				}
			}
			if n == 0 {
				none++
				t.Logf("%s page %d: no door swing (kind %s)", filepath.Base(f), p, Kind(pg, Find(pg, p)))
			}
		}
		doc.Close()
	}
	t.Logf("%d files, %d pages without door swings", len(files), none)
}

func TestDbgReadProfile(t *testing.T) {
	path := os.Getenv("LEGEND_DBG_PROF")
	if path == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(path)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	var pages []*drawing.Page
	for i := range doc.NumPages() {
		pg, _ := doc.Drawing(ctx, i)
		pages = append(pages, pg)
	}
	for range 3 {
		for i, pg := range pages {
			tb := Find(pg, i)
			Kind(pg, tb)
		}
	}
}
