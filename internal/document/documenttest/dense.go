package documenttest

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// Paper is a landscape sheet size in points.
type Paper struct{ W, H float64 }

// Sheet sizes of the dense fixtures (ISO 216, landscape).
var (
	A1 = Paper{W: 2383.94, H: 1683.78}
	A0 = Paper{W: 3370.39, H: 2383.94}
)

// ClipHeavyPDF writes one page of the paper with n clip groups, the shape
// of ArchiCAD plans exported through PDFTron: each group sets a large
// non-rectangular clip (about a sixth of the sheet), a small one inside it
// around its content, and draws a dozen small operations there (hatching
// strokes and a fill). MuPDF's draw device allocates a mask the size of
// each clip's box when the page runs straight into it; a display list
// bounds each clip by what it holds. Deterministic for a seed.
func ClipHeavyPDF(p Paper, n int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 13))
	var c strings.Builder
	c.WriteString("0.3 w 0 0 0 RG\n")
	for range n {
		cx, cy := 40+rng.Float64()*(p.W-80), 40+rng.Float64()*(p.H-80)
		// Outer clip: a pentagon of radius ~ a fifth of the sheet height.
		c.WriteString("q\n")
		polygon(&c, cx, cy, p.H/5, 5, rng.Float64())
		c.WriteString(" W n\n")
		// Inner clip around the content, nested.
		polygon(&c, cx, cy, 14, 6, rng.Float64())
		c.WriteString(" W n\n")
		for k := range 10 {
			d := float64(k)*2.5 - 12
			fmt.Fprintf(&c, "%.2f %.2f m %.2f %.2f l S\n", cx+d, cy-12, cx+d+8, cy+12)
		}
		fmt.Fprintf(&c, "0.8 0.8 0.8 rg %.2f %.2f 6 4 re f\n", cx-3, cy-2)
		c.WriteString("Q\n")
	}
	return PDF(Page{MediaBox: fmt.Sprintf("[0 0 %.2f %.2f]", p.W, p.H), Content: c.String()})
}

func polygon(c *strings.Builder, cx, cy, r float64, sides int, phase float64) {
	for i := range sides {
		a := 2*math.Pi*float64(i)/float64(sides) + phase
		op := "l"
		if i == 0 {
			op = "m"
		}
		fmt.Fprintf(c, "%.2f %.2f %s ", cx+r*math.Cos(a), cy+r*math.Sin(a), op)
	}
	c.WriteString("h")
}

// DensePlanPDF writes a document of pages sheets of a dense floor plan on
// the paper: a room grid of double walls, hatched and clipped wall
// sections, filled columns, door swings and furniture circles, dimension
// chains, and a text label in every room, in two optional-content layers
// (walls and annotation). Deterministic for a seed.
func DensePlanPDF(p Paper, pages int, seed uint64) []byte {
	var b Builder
	catalog, tree := b.Reserve(), b.Reserve()
	font := b.Add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	walls := b.Add("<< /Type /OCG /Name (A-WALL) >>")
	notes := b.Add("<< /Type /OCG /Name (A-ANNO) >>")
	kids := make([]string, 0, pages)
	for i := range pages {
		content := densePlan(p, seed+uint64(i))
		c := b.Add(Stream("", []byte(content), true))
		page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] /Resources << /Font << /F1 %d 0 R >> /Properties << /W %d 0 R /N %d 0 R >> >> /Contents %d 0 R >>",
			tree, p.W, p.H, font, walls, notes, c))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R /OCProperties << /OCGs [%d 0 R %d 0 R] /D << /Order [%d 0 R %d 0 R] >> >> >>",
		tree, walls, notes, walls, notes))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), pages))
	return b.Bytes(catalog, "")
}

func densePlan(p Paper, seed uint64) string {
	rng := rand.New(rand.NewPCG(seed, 17))
	var c strings.Builder
	c.WriteString("/OC /W BDC\n0 0 0 RG 0.5 w\n")
	var xs, ys []float64
	for x := 30.0; x < p.W-30; x += 90 + 40*rng.Float64() {
		xs = append(xs, x)
	}
	for y := 30.0; y < p.H-30; y += 80 + 40*rng.Float64() {
		ys = append(ys, y)
	}
	for _, x := range xs {
		fmt.Fprintf(&c, "%.2f 30 m %.2f %.2f l S %.2f 30 m %.2f %.2f l S\n", x, x, p.H-30, x+6, x+6, p.H-30)
	}
	for _, y := range ys {
		fmt.Fprintf(&c, "30 %.2f m %.2f %.2f l S 30 %.2f m %.2f %.2f l S\n", y, p.W-30, y, y+6, p.W-30, y+6)
	}
	// Hatched wall sections, each clipped to its wall.
	c.WriteString("0.15 w\n")
	for _, x := range xs {
		for k := 0; k+1 < len(ys); k++ {
			y0, y1 := ys[k]+6, ys[k+1]
			fmt.Fprintf(&c, "q %.2f %.2f 6 %.2f re W n\n", x, y0, y1-y0)
			for y := y0 - 6; y < y1; y += 1.5 {
				fmt.Fprintf(&c, "%.2f %.2f m %.2f %.2f l ", x, y, x+6, y+6)
			}
			c.WriteString("S Q\n")
		}
	}
	// Columns at the crossings.
	c.WriteString("0.3 g\n")
	for _, x := range xs {
		for _, y := range ys {
			fmt.Fprintf(&c, "%.2f %.2f 6 6 re f\n", x, y)
		}
	}
	c.WriteString("EMC\n/OC /N BDC\n0.25 w 0 0 0.6 RG\n")
	for i := 0; i+1 < len(xs); i++ {
		for j := 0; j+1 < len(ys); j++ {
			x0, y0, x1, y1 := xs[i]+6, ys[j]+6, xs[i+1], ys[j+1]
			// Door swing and two furniture circles.
			r := 18 + 8*rng.Float64()
			c.WriteString(arcOps(x0, y0+4, r) + " S\n")
			for range 2 {
				fx, fy := x0+12+rng.Float64()*(x1-x0-24), y0+12+rng.Float64()*(y1-y0-24)
				c.WriteString(CircleOps(fx, fy, 4+6*rng.Float64()) + "\n")
			}
			// Dimension chain with ticks.
			fmt.Fprintf(&c, "%.2f %.2f m %.2f %.2f l S\n", x0, y1-8, x1, y1-8)
			for x := x0; x <= x1; x += (x1 - x0) / 4 {
				fmt.Fprintf(&c, "%.2f %.2f m %.2f %.2f l S\n", x-2, y1-10, x+2, y1-6)
			}
			fmt.Fprintf(&c, "BT /F1 7 Tf %.2f %.2f Td (ROOM %d.%02d) Tj ET\n", (x0+x1)/2-18, (y0+y1)/2, i+1, j+1)
		}
	}
	c.WriteString("EMC\n")
	return c.String()
}

// arcOps draws a quarter circle of radius r from (cx+r, cy) to (cx, cy+r)
// as one Bézier curve, with the door leaf.
func arcOps(cx, cy, r float64) string {
	k := 0.5523 * r
	return fmt.Sprintf("%.2f %.2f m %.2f %.2f l %.2f %.2f m %.2f %.2f %.2f %.2f %.2f %.2f c",
		cx, cy, cx+r, cy, cx+r, cy, cx+r, cy+k, cx+k, cy+r, cx, cy+r)
}
