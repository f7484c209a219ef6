package drawing

import (
	"context"
	"fmt"
	"image"
	"math"
	"testing"

	fitz "github.com/gen2brain/go-fitz"

	"blueprint/internal/document/documenttest"
	"blueprint/internal/glyph"
)

// pxPerPt is the service's raster scale: 200 DPI.
const pxPerPt = 200.0 / 72

// darkBounds returns the box and centroid of dark pixels of img inside r.
func darkBounds(img image.Image, r image.Rectangle) (image.Rectangle, glyph.Point, int) {
	box := image.Rectangle{}
	var sx, sy float64
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if (cr+cg+cb)/3 > 0x8000 {
				continue
			}
			p := image.Rect(x, y, x+1, y+1)
			if n == 0 {
				box = p
			} else {
				box = box.Union(p)
			}
			sx += float64(x) + 0.5
			sy += float64(y) + 0.5
			n++
		}
	}
	if n == 0 {
		return box, glyph.Point{}, 0
	}
	return box, glyph.Point{X: sx / float64(n), Y: sy / float64(n)}, n
}

// TestExtractMatchesRaster draws known primitives (through nested form
// XObjects, under a clip, on pages with a CropBox and each /Rotate), renders
// the page with go-fitz at 200 DPI and checks that every extracted primitive
// sits where the raster has its ink, to within one pixel.
func TestExtractMatchesRaster(t *testing.T) {
	// Each primitive sits alone in its own area so its ink can be found.
	content := "1 w " +
		"60 60 m 140 100 l S " + // a plain segment
		documenttest.CircleOps(250, 80, 20) + " " + // a circle from four curves
		"q 1 0 0 1 300 150 cm 0.5 0 0 0.5 0 0 cm /X1 Do Q " + // nested forms
		"q 40 200 60 40 re W n 20 220 m 120 220 l S Q " + // clipped segment
		"BT /F1 14 Tf 200 230 Td (OX) Tj ET"
	form := "q 2 0 0 2 0 0 cm /X2 Do Q 30 0 m 30 40 l S" // /X2 is a rotated 20-pt line
	for _, rot := range []int{0, 90, 180, 270} {
		t.Run(fmt.Sprintf("rotate%d", rot), func(t *testing.T) {
			pdf := documenttest.FormPDF(420, 300, content, form, "1 0 0 1 10 5", fmt.Sprintf("/CropBox [10 20 400 290] /Rotate %d", rot))
			doc, err := fitz.NewFromMemory(pdf)
			if err != nil {
				t.Fatal(err)
			}
			defer doc.Close()
			svg, err := doc.SVG(0)
			if err != nil {
				t.Fatal(err)
			}
			img, err := doc.ImageDPI(0, 200)
			if err != nil {
				t.Fatal(err)
			}
			pg, err := FromSVG(context.Background(), []byte(svg), pxPerPt)
			if err != nil {
				t.Fatal(err)
			}
			b := img.Bounds()
			if math.Abs(pg.Width-float64(b.Dx())) > 1 || math.Abs(pg.Height-float64(b.Dy())) > 1 {
				t.Fatalf("page size %.1f×%.1f, raster %d×%d", pg.Width, pg.Height, b.Dx(), b.Dy())
			}
			// Expected: 1 plain + 1 from X2 + 1 from X1 + 1 clipped
			// segment, one 360° arc, two characters.
			if len(pg.Segments) != 4 || len(pg.Arcs) != 1 || len(pg.Chars) != 2 {
				t.Fatalf("got %d segments, %d arcs, %d chars; want 4, 1, 2", len(pg.Segments), len(pg.Arcs), len(pg.Chars))
			}
			if pg.Chars[0].Text != "O" || pg.Chars[1].Text != "X" {
				t.Errorf("chars %q %q, want O X", pg.Chars[0].Text, pg.Chars[1].Text)
			}
			clipped := false
			for _, s := range pg.Segments {
				if l := math.Hypot(s.B.X-s.A.X, s.B.Y-s.A.Y); math.Abs(l-60*pxPerPt) < 1.5 {
					clipped = true
				}
			}
			if !clipped {
				t.Errorf("no segment cut to the 60-pt clip box: %+v", pg.Segments)
			}
			a := pg.Arcs[0]
			if math.Abs(math.Abs(a.Sweep)-360) > 1e-6 || math.Abs(a.R-20*pxPerPt) > 0.5 {
				t.Errorf("circle: sweep %.1f radius %.2f, want 360 and %.2f", a.Sweep, a.R, 20*pxPerPt)
			}
			check := func(name string, mn, mx glyph.Point, centre glyph.Point) {
				t.Helper()
				// Search a margin around the primitive, but
				// not so wide that it catches another one.
				r := image.Rect(int(mn.X)-8, int(mn.Y)-8, int(mx.X)+9, int(mx.Y)+9).Intersect(b)
				box, c, n := darkBounds(img, r)
				if n == 0 {
					t.Errorf("%s: no ink in the raster around %v-%v", name, mn, mx)
					return
				}
				// Stroke 1 pt is 2.8 px: the ink extends half a
				// width around the centreline geometry.
				hw := 0.5 * pxPerPt
				if dx, dy := math.Abs(c.X-centre.X), math.Abs(c.Y-centre.Y); dx > 1 || dy > 1 {
					t.Errorf("%s: ink centroid %.2f,%.2f, extracted %.2f,%.2f", name, c.X, c.Y, centre.X, centre.Y)
				}
				// Each ink edge lies between the geometry's edge
				// (butt caps along a line) and that edge pushed out
				// by the half width (across a line), give or take
				// one pixel.
				lo := []float64{float64(box.Min.X) - mn.X, float64(box.Min.Y) - mn.Y}
				hi := []float64{float64(box.Max.X) - mx.X, float64(box.Max.Y) - mx.Y}
				for k := range lo {
					if lo[k] > 1 || lo[k] < -hw-1 || hi[k] < -1 || hi[k] > hw+1 {
						t.Errorf("%s: ink box %v, extracted %.1f,%.1f-%.1f,%.1f", name, box, mn.X, mn.Y, mx.X, mx.Y)
						break
					}
				}
			}
			for i, s := range pg.Segments {
				mid := glyph.Point{X: (s.A.X + s.B.X) / 2, Y: (s.A.Y + s.B.Y) / 2}
				check(fmt.Sprintf("segment %d", i), glyph.MinPoint(s.A, s.B), glyph.MaxPoint(s.A, s.B), mid)
			}
			check("circle", glyph.Point{X: a.C.X - a.R, Y: a.C.Y - a.R}, glyph.Point{X: a.C.X + a.R, Y: a.C.Y + a.R}, a.C)
		})
	}
}

func TestParsePathData(t *testing.T) {
	for _, tc := range []struct {
		d    string
		want []byte
	}{
		{"M10 10 100 50", []byte("ML")},
		{"M0 0H10V10H0Z", []byte("MLLLZ")},
		{"m1 1l2 2c1 1 2 2 3 3s1 1 2 2q1 1 2 2t1 1z", []byte("MLCCCCZ")},
		{"M.5.5-1-1", []byte("ML")},
		{"M0 0A10 10 0 1 1 20 0", []byte("MCC")},
	} {
		cmds, err := parsePathData(tc.d)
		if err != nil {
			t.Fatalf("%q: %v", tc.d, err)
		}
		var ops []byte
		for _, c := range cmds {
			ops = append(ops, c.Op)
		}
		if string(ops) != string(tc.want) {
			t.Errorf("%q: ops %s, want %s", tc.d, ops, tc.want)
		}
	}
	if _, err := parsePathData("10 10"); err == nil {
		t.Error("number before command: no error")
	}
}

func TestPolylineCircleBecomesArc(t *testing.T) {
	var cmds []PathCmd
	for i := 0; i <= 36; i++ {
		a := float64(i) * 10 * math.Pi / 180
		op := byte('L')
		if i == 0 {
			op = 'M'
		}
		cmds = append(cmds, PathCmd{Op: op, P: [3]glyph.Point{{X: 100 + 30*math.Cos(a), Y: 100 + 30*math.Sin(a)}}})
	}
	pg := &Page{}
	appendPieces(pg, cmds, glyph.Identity, 0)
	if len(pg.Arcs) != 1 || len(pg.Segments) > 2 {
		t.Fatalf("polyline circle: %d arcs, %d segments; want one arc", len(pg.Arcs), len(pg.Segments))
	}
	if a := pg.Arcs[0]; math.Abs(a.R-30) > 0.3 || math.Hypot(a.C.X-100, a.C.Y-100) > 0.3 {
		t.Errorf("arc %+v, want centre 100,100 radius 30", a)
	}
}
