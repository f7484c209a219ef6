package legend

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"blueprint/internal/document"
)

func TestDebugCands(t *testing.T) {
	f := os.Getenv("LEG_PDF")
	if f == "" {
		t.Skip()
	}
	page, _ := strconv.Atoi(os.Getenv("LEG_PAGE"))
	data, _ := os.ReadFile(f)
	doc, err := document.Open(context.Background(), data, "application/pdf", document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := doc.Drawing(context.Background(), page)
	ix := newIndex(pg)
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || r.letters() < 2 || r.min.X > 1500 || r.min.Y < 1530 || r.min.Y > 1700 {
			continue
		}
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em)
		fmt.Printf("%q at %.0f,%.0f em %.1f ok=%v box=%v\n", r.text, r.min.X, r.min.Y, em, ok, c.box)
	}
}

func TestDebugRows(t *testing.T) {
	f := os.Getenv("LEG_PDF")
	if f == "" {
		t.Skip()
	}
	page, _ := strconv.Atoi(os.Getenv("LEG_PAGE"))
	data, _ := os.ReadFile(f)
	doc, _ := document.Open(context.Background(), data, "application/pdf", document.DefaultLimits())
	pg, _ := doc.Drawing(context.Background(), page)
	ix := newIndex(pg)
	for i := range ix.runs {
		r := &ix.runs[i]
		if !r.upright() || r.letters() < 2 || r.min.X > 1500 || r.min.Y < 1530 || r.min.Y > 1700 {
			continue
		}
		em := r.size
		cy := (r.min.Y + r.max.Y) / 2
		c, ok := ix.glyphLeftOf(r.min.X-0.2*em, cy-0.8*em, cy+0.8*em, glyphReach*em, em)
		fmt.Printf("%q ok=%v box=%v crossed=%v\n", r.text, ok, c.box, ix.crossed(c.box, em))
	}
}

func TestDebugCols(t *testing.T) {
	f := os.Getenv("LEG_PDF")
	if f == "" {
		t.Skip()
	}
	page, _ := strconv.Atoi(os.Getenv("LEG_PAGE"))
	data, _ := os.ReadFile(f)
	doc, _ := document.Open(context.Background(), data, "application/pdf", document.DefaultLimits())
	pg, _ := doc.Drawing(context.Background(), page)
	debugCols = func(col []candidate) {
		fmt.Println("col", len(col))
		for _, c := range col {
			fmt.Printf("   %q %v\n", "", c.glyph.box)
		}
	}
	debugRow = func(s string) { fmt.Println("   row:", s) }
	Find(pg, page)
}
