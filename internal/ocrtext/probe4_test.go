package ocrtext

import (
	"context"
	"fmt"
	"os"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/glyph"
)

func TestProbe4(t *testing.T) {
	name := os.Getenv("PROBE")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(name)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	pg, _ := doc.Drawing(ctx, 0)
	ink := components(pg, maxLetter, maxLetter)
	k := 200.0 / 72
	// legend area x 200-700 y 1820-2320 pt
	n := 0
	for _, c := range ink {
		if !filledOnly(pg, c) || c.min.X < 200*k || c.max.X > 700*k || c.min.Y < 1820*k || c.max.Y > 2320*k {
			continue
		}
		deg := map[uint64]int{}
		at := map[uint64]glyph.Point{}
		for _, p := range c.pieces {
			pts := polyline(pg, p)
			for _, q := range []glyph.Point{pts[0], pts[len(pts)-1]} {
				deg[endKey(q)]++
				at[endKey(q)] = q
			}
		}
		odd := 0
		for _, d := range deg {
			if d%2 == 1 {
				odd++
			}
		}
		if odd > 0 && n < 5 {
			n++
			fmt.Printf("comp %v-%v pieces %d odd %d\n", c.min, c.max, len(c.pieces), odd)
			for _, p := range c.pieces {
				if p.arc {
					a := pg.Arcs[p.i]
					e1, e2 := arcEnds(a)
					fmt.Printf("  arc %d c %v r %.2f st %.1f sw %.1f ends %v %v\n", p.i, a.C, a.R, a.Start, a.Sweep, e1, e2)
				} else {
					s := pg.Segments[p.i]
					fmt.Printf("  seg %d %v %v\n", p.i, s.A, s.B)
				}
			}
		}
	}
}
