package ink

import (
	"image"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBinariseWindowMean checks the sliding window sums against each
// pixel's window mean summed directly, on noisy gray with dark strokes:
// every pixel dark enough against its window mean is ink, and any other
// pixel taken for ink is faint ink on a ridge beside ink.
func TestBinariseWindowMean(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 9))
	g := image.NewGray(image.Rect(0, 0, 137, 91))
	for i := range g.Pix {
		g.Pix[i] = uint8(200 + r.IntN(56))
		if r.IntN(9) == 0 {
			g.Pix[i] = uint8(r.IntN(200))
		}
	}
	m := Binarise(g)
	w, h := 137, 91
	rad := inkWindow / 2
	faint := 0
	for y := range h {
		for x := range w {
			var sum, n int
			for yy := max(0, y-rad); yy < min(h, y+rad+1); yy++ {
				for xx := max(0, x-rad); xx < min(w, x+rad+1); xx++ {
					sum += int(g.Pix[yy*g.Stride+xx])
					n++
				}
			}
			v := int(g.Pix[y*g.Stride+x])
			ink := m[y*w+x]
			if v < Ceiling && v <= sum/n-inkContrast {
				if !ink {
					t.Fatalf("pixel (%d, %d) of %d against a mean of %d: not ink", x, y, v, sum/n)
				}
				continue
			}
			if !ink {
				continue
			}
			faint++
			if v >= faintCeiling || v > sum/n-faintContrast || !ridge(g, x, y) {
				t.Fatalf("pixel (%d, %d) of %d against a mean of %d: ink, but not faint ink on a ridge", x, y, v, sum/n)
			}
			beside := false
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					xx, yy := x+dx, y+dy
					if (dx != 0 || dy != 0) && xx >= 0 && yy >= 0 && xx < w && yy < h && m[yy*w+xx] {
						beside = true
					}
				}
			}
			if !beside {
				t.Fatalf("pixel (%d, %d): faint ink alone", x, y)
			}
		}
	}
	if faint == 0 {
		t.Fatal("no faint ink joined: the test shows nothing")
	}
}

// TestFaintInkJoinsInk: a faint line (a pale outline thinned by JPEG) is
// ink where it runs on from a dark stroke, and paper where it stands
// alone; the shaded edge of a dark stroke stays paper.
func TestFaintInkJoinsInk(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 120, 60))
	for i := range g.Pix {
		g.Pix[i] = 250
	}
	for x := 10; x < 50; x++ {
		for y := 19; y <= 21; y++ {
			g.Pix[y*120+x] = 100 // a dark stroke 3 pixels wide
		}
		g.Pix[18*120+x] = 228 // its shaded edge: as faint, but not a ridge
	}
	for x := 50; x < 90; x++ {
		g.Pix[20*120+x] = 228 // faint line running on from it
	}
	for x := 10; x < 90; x++ {
		g.Pix[40*120+x] = 228 // the same faint line alone
	}
	m := Binarise(g)
	for x := 50; x < 90; x++ {
		if !m[20*120+x] {
			t.Fatalf("faint line beside ink, x=%d: paper", x)
		}
	}
	for x := 10; x < 90; x++ {
		if m[40*120+x] {
			t.Fatalf("faint line alone, x=%d: ink", x)
		}
	}
	for x := 12; x < 48; x++ {
		if m[18*120+x] {
			t.Fatalf("shaded edge of the stroke, x=%d: ink", x)
		}
	}
}

// TestFineKeepsHairlines: on clean paper (an image rendered from a
// drawing) a hairline faded by anti-aliasing to a few levels under white
// is ink, gaps and all, though it touches no dark ink; on noisy paper (a
// scan) Fine reads as Binarise does.
func TestFineKeepsHairlines(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 200, 100))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for x := 20; x < 180; x++ {
		g.Pix[50*200+x] = uint8(246 - 5*(x%3)) // 246, 241, 236, ...
	}
	if !Clean(g) {
		t.Fatal("white paper is not clean")
	}
	m := Fine(g)
	for x := 22; x < 178; x++ {
		if !m[50*200+x] {
			t.Fatalf("hairline pixel at x=%d (level %d) is paper", x, g.Pix[50*200+x])
		}
	}
	if n := count(Binarise(g)); n != 0 {
		t.Errorf("Binarise keeps %d pixels of a hairline touching no ink: the test shows nothing", n)
	}
	noisePaper(g, 3, 244)
	if Clean(g) {
		t.Error("noisy paper is clean")
	}
	if a, b := Fine(g), Binarise(g); count(a) != count(b) {
		t.Errorf("on noisy paper Fine keeps %d pixels, Binarise %d", count(a), count(b))
	}
}

func count(m []bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// TestCleanDenseDrawing: a render dense with strokes is clean paper
// though the light grays its anti-aliasing lays along them are many of
// its light pixels (a sheet of text: cp4's legend page at 200 DPI read
// as a scan, its pale hairlines no ink), and so is one with a light gray
// fill; paper with noise between the strokes is not.
func TestCleanDenseDrawing(t *testing.T) {
	g := image.NewGray(image.Rect(0, 0, 400, 400))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	for y := 0; y < 400; y += 12 { // strokes 12 px apart, light grays along them
		for x := 0; x < 400; x++ {
			g.Pix[y*400+x] = 40
			if y > 0 {
				g.Pix[(y-1)*400+x] = 245
			}
			g.Pix[(y+1)*400+x] = 242
		}
	}
	for y := 300; y < 400; y++ { // a light gray fill
		for x := 300; x < 400; x++ {
			if g.Pix[y*400+x] == 255 {
				g.Pix[y*400+x] = 247
			}
		}
	}
	if !Clean(g) {
		t.Error("a dense clean render is not clean")
	}
	noisePaper(g, 5, 246)
	if Clean(g) {
		t.Error("noisy paper between the strokes is clean")
	}
}

// noisePaper gives g's white paper a scan's noise: levels from lo to 255,
// drawn from a generator seeded with seed.
func noisePaper(g *image.Gray, seed uint64, lo int) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	for i := range g.Pix {
		if g.Pix[i] == 255 {
			g.Pix[i] = uint8(lo + r.IntN(256-lo))
		}
	}
}

// TestLabelRunsOf: runs of one class join where they touch (diagonally
// too); touching runs of two classes stay two pieces, and class 0 is
// paper.
func TestLabelRunsOf(t *testing.T) {
	const w, h = 8, 3
	m := []uint8{
		1, 1, 2, 2, 0, 0, 1, 0,
		0, 1, 0, 2, 0, 0, 0, 1,
		1, 1, 1, 2, 0, 0, 0, 0,
	}
	runs, root := LabelRunsOf(w, h, func(i int) uint8 { return m[i] })
	ps := Pieces(runs, root)
	var areas []int
	for _, p := range ps {
		areas = append(areas, p.Area(runs))
	}
	// the 1s at the left (6 pixels), the 2s (4), the diagonal pair of 1s (2)
	if want := []int{6, 4, 2}; !slices.Equal(areas, want) {
		t.Errorf("pieces of areas %v, want %v", areas, want)
	}
}
