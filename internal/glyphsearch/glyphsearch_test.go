package glyphsearch

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
)

// icon returns a catalog class's icon as ink (0 paper .. 1 stroke),
// side pixels square.
func icon(t *testing.T, class string, side int) (w, h int, ink []float64) {
	t.Helper()
	c, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.IconPNG(class, side)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	r := img.Bounds()
	ink = make([]float64, r.Dx()*r.Dy())
	for y := 0; y < r.Dy(); y++ {
		for x := 0; x < r.Dx(); x++ {
			_, _, _, a := img.At(r.Min.X+x, r.Min.Y+y).RGBA()
			ink[y*r.Dx()+x] = float64(a) / 0xffff
		}
	}
	return r.Dx(), r.Dy(), ink
}

// placement is where a test draws a glyph.
type placement struct {
	cx, cy         float64 // centre on the page
	angle          float64 // degrees, clockwise
	mirror         bool
	scale, stretch float64 // stretch along x of the icon
}

// paint draws an icon's ink on a gray page (255 paper) under p, and
// returns the bounds of the ink drawn.
func paint(page *image.Gray, w, h int, ink []float64, p placement) detect.Box {
	if p.stretch == 0 {
		p.stretch = 1
	}
	s, c := math.Sincos(p.angle * math.Pi / 180)
	// page offset → icon coordinates: inverse of rotate·mirror·scale
	lo, hi := vec{math.Inf(1), math.Inf(1)}, vec{math.Inf(-1), math.Inf(-1)}
	reach := p.scale * math.Max(p.stretch, 1) * math.Hypot(float64(w), float64(h)) / 2
	b := page.Bounds()
	for y := int(p.cy - reach - 1); y <= int(p.cy+reach+1); y++ {
		for x := int(p.cx - reach - 1); x <= int(p.cx+reach+1); x++ {
			if x < 0 || y < 0 || x >= b.Dx() || y >= b.Dy() {
				continue
			}
			dx, dy := float64(x)-p.cx, float64(y)-p.cy
			u, v := c*dx+s*dy, -s*dx+c*dy
			if p.mirror {
				u = -u
			}
			u /= p.scale * p.stretch
			v /= p.scale
			ix, iy := u+float64(w)/2-0.5, v+float64(h)/2-0.5
			x0, y0 := int(math.Floor(ix)), int(math.Floor(iy))
			if x0 < 0 || y0 < 0 || x0+1 >= w || y0+1 >= h {
				continue
			}
			fx, fy := ix-float64(x0), iy-float64(y0)
			a := (ink[y0*w+x0]*(1-fx)+ink[y0*w+x0+1]*fx)*(1-fy) + (ink[(y0+1)*w+x0]*(1-fx)+ink[(y0+1)*w+x0+1]*fx)*fy
			if a <= 0.02 {
				continue
			}
			i := y*page.Stride + x
			page.Pix[i] = uint8(math.Min(float64(page.Pix[i]), 255*(1-a)))
			if a >= 0.5 {
				lo.x, lo.y = math.Min(lo.x, float64(x)), math.Min(lo.y, float64(y))
				hi.x, hi.y = math.Max(hi.x, float64(x)), math.Max(hi.y, float64(y))
			}
		}
	}
	return detect.Box{X: lo.x, Y: lo.y, W: hi.x - lo.x + 1, H: hi.y - lo.y + 1}
}

// scan degrades a page as a scanner does: a faded, noisy JPEG.
func scan(t *testing.T, page *image.Gray, seed uint64) image.Image {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 1))
	out := image.NewGray(page.Bounds())
	for i, v := range page.Pix {
		f := 235 - (235-float64(v))*0.75 + r.NormFloat64()*6
		out.Pix[i] = uint8(math.Max(0, math.Min(255, f)))
	}
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, out, &jpeg.Options{Quality: 70}); err != nil {
		t.Fatal(err)
	}
	img, err := jpeg.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

func blank(w, h int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for i := range g.Pix {
		g.Pix[i] = 255
	}
	return g
}

// matched returns the match overlapping box by IoU ≥ 0.5, if any.
func matched(ms []Match, box detect.Box) (Match, bool) {
	for _, m := range ms {
		if m.Box.IoU(box) >= 0.5 {
			return m, true
		}
	}
	return Match{}, false
}

func rect(b detect.Box) image.Rectangle {
	return image.Rect(int(math.Floor(b.X)), int(math.Floor(b.Y)), int(math.Ceil(b.X+b.W)), int(math.Ceil(b.Y+b.H)))
}

// angleDiff is the distance between two angles in degrees, modulo
// period.
func angleDiff(a, b, period float64) float64 {
	d := math.Mod(math.Abs(a-b), period)
	return math.Min(d, period-d)
}

// TestFindsTurnedMirroredScaled draws one glyph at right angles, free
// angles, mirrored and at other sizes among other glyphs on a degraded
// scan, boxes one of them, and expects every instance found, with its
// angle and mirror, and no other glyph.
func TestFindsTurnedMirroredScaled(t *testing.T) {
	page := blank(1400, 1000)
	w, h, ink := icon(t, "ev_charger", 48)
	var want []detect.Box
	var poses []placement
	for i, p := range []placement{
		{cx: 150, cy: 150, scale: 1},
		{cx: 400, cy: 150, angle: 90, scale: 1},
		{cx: 650, cy: 150, angle: 180, scale: 1.2},
		{cx: 900, cy: 150, angle: 270, mirror: true, scale: 1},
		{cx: 1150, cy: 150, angle: 12, scale: 0.8},
		{cx: 150, cy: 450, angle: 100, mirror: true, scale: 1.4},
		{cx: 400, cy: 450, angle: 347, scale: 0.75},
		{cx: 650, cy: 450, angle: 196, scale: 1.1},
	} {
		p.scale *= 1 + 0.01*float64(i%3)
		want = append(want, paint(page, w, h, ink, p))
		poses = append(poses, p)
	}
	var others []detect.Box
	for i, class := range []string{"luminaire", "smoke_detector", "socket_outlet", "switch_one_way", "junction_box", "fan"} {
		ow, oh, oink := icon(t, class, 48)
		others = append(others, paint(page, ow, oh, oink, placement{cx: 150 + 250*float64(i%5), cy: 750 + 150*float64(i/5), angle: 30 * float64(i), scale: 1}))
	}
	img := scan(t, page, 7)
	ms, err := Search(context.Background(), img, rect(want[0]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range want {
		m, ok := matched(ms, b)
		if !ok {
			t.Errorf("instance %d (%+v) not found; matches %+v", i, poses[i], ms)
			continue
		}
		if m.Mirrored != poses[i].mirror {
			t.Errorf("instance %d: mirrored %v, want %v", i, m.Mirrored, poses[i].mirror)
		}
		if d := angleDiff(m.Angle, poses[i].angle, 360); d > 6 {
			t.Errorf("instance %d: angle %.1f, want %.1f", i, m.Angle, poses[i].angle)
		}
		if r := m.Scale / poses[i].scale; r < 0.9 || r > 1.1 {
			t.Errorf("instance %d: scale %.2f, want %.2f", i, m.Scale, poses[i].scale)
		}
	}
	for i, b := range others {
		if m, ok := matched(ms, b); ok {
			t.Errorf("other glyph %d matched: %+v", i, m)
		}
	}
	if len(ms) != len(want) {
		t.Errorf("%d matches, want %d: %+v", len(ms), len(want), ms)
	}
}

// TestSearchImage searches with a separate exemplar image drawn at
// another size and in colour, as a legend row's glyph is.
func TestSearchImage(t *testing.T) {
	page := blank(900, 500)
	w, h, ink := icon(t, "exit_sign", 56)
	var want []detect.Box
	for i, p := range []placement{
		{cx: 150, cy: 150, scale: 1}, {cx: 450, cy: 150, angle: 90, scale: 1},
		{cx: 700, cy: 300, angle: 180, mirror: true, scale: 1},
	} {
		p.scale += 0.02 * float64(i)
		want = append(want, paint(page, w, h, ink, p))
	}
	img := scan(t, page, 3)
	// the exemplar: the icon in red on white at 0.8 of the page's size
	ew, eh, eink := icon(t, "exit_sign", 45)
	ex := image.NewRGBA(image.Rect(0, 0, ew+8, eh+8))
	for y := 0; y < eh+8; y++ {
		for x := 0; x < ew+8; x++ {
			a := 0.0
			if x >= 4 && y >= 4 && x < ew+4 && y < eh+4 {
				a = eink[(y-4)*ew+x-4]
			}
			ex.Set(x, y, color.RGBA{255, uint8(255 * (1 - a)), uint8(255 * (1 - a)), 255})
		}
	}
	ms, err := SearchImage(context.Background(), img, ex, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range want {
		m, ok := matched(ms, b)
		if !ok {
			t.Errorf("instance %d not found; matches %+v", i, ms)
			continue
		}
		if m.Scale < 1.1 || m.Scale > 1.4 {
			t.Errorf("instance %d: scale %.2f, want about 1.25", i, m.Scale)
		}
	}
}

// TestStretched finds an elongated glyph drawn longer and shorter along
// its long axis.
func TestStretched(t *testing.T) {
	page := blank(1000, 600)
	w, h, ink := icon(t, "luminaire_linear", 80)
	var want []detect.Box
	for _, p := range []placement{
		{cx: 200, cy: 150, scale: 1}, {cx: 600, cy: 150, scale: 1, stretch: 1.35},
		{cx: 300, cy: 400, angle: 90, scale: 1, stretch: 0.8}, {cx: 700, cy: 420, angle: 30, scale: 1, stretch: 1.2},
	} {
		want = append(want, paint(page, w, h, ink, p))
	}
	ms, err := Search(context.Background(), scan(t, page, 5), rect(want[0]), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range want {
		if _, ok := matched(ms, b); !ok {
			t.Errorf("instance %d (box %+v) not found; matches %+v", i, b, ms)
		}
	}
}

func TestBadInput(t *testing.T) {
	ctx := context.Background()
	page := blank(300, 300)
	w, h, ink := icon(t, "fan", 40)
	box := paint(page, w, h, ink, placement{cx: 150, cy: 150, scale: 1})
	if _, err := Search(ctx, page, image.Rect(10, 10, 40, 40), Options{}); !errors.Is(err, ErrNoGlyph) {
		t.Errorf("blank exemplar: %v, want ErrNoGlyph", err)
	}
	if _, err := Search(ctx, page, image.Rect(400, 400, 450, 450), Options{}); !errors.Is(err, ErrNoGlyph) {
		t.Errorf("exemplar off the page: %v, want ErrNoGlyph", err)
	}
	for _, o := range []Options{{MinScale: 0.1}, {MaxScale: 9}, {MaxTilt: 60}, {MaxStretch: 4}, {RingFloor: 1}, {RingFloor: -0.1}} {
		if _, err := Search(ctx, page, rect(box), o); err == nil {
			t.Errorf("options %+v: no error", o)
		}
	}
	if _, err := Search(ctx, blank(4, 4), image.Rect(0, 0, 2, 2), Options{}); err == nil {
		t.Error("tiny page: no error")
	}
	if _, err := SearchImage(ctx, page, blank(40, 40), Options{}); !errors.Is(err, ErrNoGlyph) {
		t.Errorf("blank exemplar image: %v, want ErrNoGlyph", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Search(cctx, page, rect(box), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestMaxTiltAndNoMirror keeps only the poses the options allow.
func TestMaxTiltAndNoMirror(t *testing.T) {
	page := blank(1000, 400)
	w, h, ink := icon(t, "exit_sign", 56)
	a := paint(page, w, h, ink, placement{cx: 150, cy: 200, scale: 1})
	b := paint(page, w, h, ink, placement{cx: 400, cy: 200, angle: 45, scale: 1})
	paint(page, w, h, ink, placement{cx: 650, cy: 200, angle: 90, mirror: true, scale: 1})
	d := paint(page, w, h, ink, placement{cx: 850, cy: 200, angle: 275, scale: 1})
	ms, err := Search(context.Background(), page, rect(a), Options{MaxTilt: 15, NoMirror: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]struct {
		box   detect.Box
		found bool
	}{"upright": {a, true}, "45°": {b, false}, "275°": {d, true}} {
		if _, ok := matched(ms, want.box); ok != want.found {
			t.Errorf("%s: found %v, want %v", name, ok, want.found)
		}
	}
	// The mirrored one may still be found unmirrored at another angle
	// (a glyph that is nearly symmetric), never as mirrored.
	for _, m := range ms {
		if m.Mirrored {
			t.Errorf("NoMirror: mirrored match %+v", m)
		}
	}
}

// TestSearchAllIsEachSearch searches several exemplars of two sizes
// together, as a legend's rows are, and expects each template's matches
// to be exactly those of its own search: the shared ring stage must not
// change what any one template finds.
func TestSearchAllIsEachSearch(t *testing.T) {
	page := blank(1200, 800)
	classes := []string{"luminaire", "smoke_detector", "socket_outlet", "switch_one_way", "heat_detector"}
	var exemplars []image.Rectangle
	for i, class := range classes {
		side := 40
		if i%2 == 1 {
			side = 72 // on another coarse level
		}
		w, h, ink := icon(t, class, side)
		for j := range 3 {
			b := paint(page, w, h, ink, placement{cx: 120 + 220*float64(i), cy: 150 + 220*float64(j), angle: 37 * float64(j), mirror: j == 2, scale: 1 + 0.1*float64(j)})
			if j == 0 {
				exemplars = append(exemplars, rect(b).Inset(-3))
			}
		}
	}
	img := scan(t, page, 11)
	ctx := context.Background()
	p, err := NewPage(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	var ts []*Template
	levels := map[int]bool{}
	for _, r := range exemplars {
		tp, err := p.Template(r)
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, tp)
		levels[newPlan(tp, Options{}).kc] = true
	}
	if len(levels) < 2 {
		t.Fatalf("exemplars all on one coarse level %v: the test wants two", levels)
	}
	all, err := p.SearchAll(ctx, ts, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, tp := range ts {
		one, err := p.Search(ctx, tp, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if len(one) == 0 {
			t.Errorf("%s: nothing found", classes[i])
		}
		if len(all[i]) != len(one) {
			t.Errorf("%s: %d matches searched together, %d alone", classes[i], len(all[i]), len(one))
			continue
		}
		for j := range one {
			if all[i][j] != one[j] {
				t.Errorf("%s match %d: %+v together, %+v alone", classes[i], j, all[i][j], one[j])
			}
		}
	}
}

// TestSameSize keeps the matches at the size of the strong ones, and all
// of them where none is strong.
func TestSameSize(t *testing.T) {
	ms := []Match{
		{Score: 0.97, Scale: 1.8}, {Score: 0.95, Scale: 1.7}, {Score: 0.93, Scale: 0.8},
		{Score: 0.91, Scale: 1.9}, {Score: 0.85, Scale: 1.6}, {Score: 0.84, Scale: 0.78},
	}
	got := SameSize(ms)
	if len(got) != 4 {
		t.Fatalf("kept %+v, want the four near 1.8", got)
	}
	for _, m := range got {
		if m.Scale < 1.5 {
			t.Errorf("kept %+v, at another size than the strong matches'", m)
		}
	}
	weak := []Match{{Score: 0.85, Scale: 1.6}, {Score: 0.84, Scale: 0.78}}
	if got := SameSize(weak); len(got) != 2 {
		t.Errorf("no strong match: kept %+v, want both", got)
	}
}

// line draws a straight stroke of width px and gray level v on page.
func line(page *image.Gray, x0, y0, x1, y1, width float64, v uint8) {
	n := int(math.Hypot(x1-x0, y1-y0)*2) + 1
	for i := 0; i <= n; i++ {
		f := float64(i) / float64(n)
		cx, cy := x0+f*(x1-x0), y0+f*(y1-y0)
		for y := int(cy - width); y <= int(cy+width); y++ {
			for x := int(cx - width); x <= int(cx+width); x++ {
				if math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy) <= width/2 && (image.Point{x, y}).In(page.Bounds()) {
					page.Pix[y*page.Stride+x] = min(page.Pix[y*page.Stride+x], v)
				}
			}
		}
	}
}

// TestWiresThroughTheExemplarBox boxes a glyph on a plan as a reviewer
// does, with the wires that run to it crossing the box, and expects the
// instances whose wires run elsewhere found, and the exemplar's own match
// boxing the glyph, not its wires.
func TestWiresThroughTheExemplarBox(t *testing.T) {
	page := blank(1300, 700)
	w, h, ink := icon(t, "motion_detector", 44)
	// wire directions from each instance's box: left, right, up, down
	type wire struct{ dx, dy float64 }
	sets := [][]wire{
		{{-1, 0}, {0, 1}}, // the exemplar
		{{1, 0}, {0, -1}},
		{{0, -1}},
		{{1, 0}, {-1, 0}},
		{{0, 1}, {1, 0}},
		{},
	}
	var want []detect.Box
	for i, ws := range sets {
		b := paint(page, w, h, ink, placement{cx: 150 + 200*float64(i), cy: 200 + 200*float64(i%2), scale: 1})
		want = append(want, b)
		cx, cy := b.X+b.W/2, b.Y+b.H/2
		for _, d := range ws {
			// from the glyph's edge outwards, and a little into it
			x0, y0 := cx+d.dx*(b.W/2-2), cy+d.dy*(b.H/2-2)
			line(page, x0, y0, x0+d.dx*90, y0+d.dy*90, 2.5, 40)
		}
	}
	img := scan(t, page, 11)
	ex := want[0]
	pad := math.Max(3, 0.2*math.Max(ex.W, ex.H))
	box := image.Rect(int(ex.X-pad), int(ex.Y-pad), int(ex.X+ex.W+pad), int(ex.Y+ex.H+pad))
	ms, err := Search(context.Background(), img, box, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range want {
		m, ok := matched(ms, b)
		if !ok {
			t.Errorf("instance %d (wires %v) not found; matches %+v", i, sets[i], ms)
			continue
		}
		if u := m.Box.IoU(b); u < 0.75 {
			t.Errorf("instance %d: box %+v, IoU %.2f with the glyph %+v", i, m.Box, u, b)
		}
	}
	if len(ms) != len(want) {
		t.Errorf("%d matches, want %d: %+v", len(ms), len(want), ms)
	}
}

// TestFaintFrame searches for a dark letter in a faint frame (a light
// gray box round an abbreviation, a pale hexagon round "S", as real
// legends draw them) on a page that also writes the letter bare, and
// expects the framed instances found and the bare letters not: the frame
// is the glyph as much as the letter.
func TestFaintFrame(t *testing.T) {
	page := blank(1000, 500)
	letter := func(cx, cy float64) {
		line(page, cx-8, cy-10, cx+8, cy-10, 3, 20)
		line(page, cx, cy-10, cx, cy+10, 3, 20)
	}
	var framed []detect.Box
	for i := 0; i < 4; i++ {
		cx, cy := 100+220*float64(i), 120.0
		letter(cx, cy)
		for _, s := range [][4]float64{{-18, -18, 18, -18}, {18, -18, 18, 18}, {18, 18, -18, 18}, {-18, 18, -18, -18}} {
			line(page, cx+s[0], cy+s[1], cx+s[2], cy+s[3], 1.5, 205)
		}
		framed = append(framed, detect.Box{X: cx - 19, Y: cy - 19, W: 38, H: 38})
	}
	var bare []detect.Box
	for i := 0; i < 6; i++ {
		cx, cy := 80+150*float64(i), 350.0
		letter(cx, cy)
		bare = append(bare, detect.Box{X: cx - 10, Y: cy - 12, W: 20, H: 24})
	}
	img := scan(t, page, 5)
	ms, err := Search(context.Background(), img, rect(framed[0]).Inset(-4), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range framed {
		if _, ok := matched(ms, b); !ok {
			t.Errorf("framed letter %d not found; matches %+v", i, ms)
		}
	}
	for _, m := range ms {
		for i, b := range bare {
			if m.Box.IoU(b) > 0 {
				t.Errorf("the bare letter %d matched: %+v", i, m)
			}
		}
	}
}

// TestGainedLevelsShareInk: a page's gained levels read its ink through
// the gain's table instead of copying it, and read the same values a
// copy would: at full resolution, dilated and averaged.
func TestGainedLevelsShareInk(t *testing.T) {
	page := blank(300, 200)
	w, h, ink := icon(t, "exit_sign", 56)
	paint(page, w, h, ink, placement{cx: 150, cy: 100, scale: 1})
	p, err := NewPage(context.Background(), scan(t, page, 7))
	if err != nil {
		t.Fatal(err)
	}
	for g := 1; g < len(gainSteps); g++ {
		lv := p.level(g, 1)
		if &lv.ink.pix[0] != &p.ink.pix[0] {
			t.Fatalf("gain %d: the level copies the page's ink", g)
		}
		want := newPlane(p.ink.w, p.ink.h)
		for i, v := range p.ink.pix {
			want.pix[i] = uint8(min(255, float64(v)*gainSteps[g]))
		}
		wantDil, wantDown := maxFilter3(want), downsample(want, 4)
		gotDil, gotDown := lv.dilated(), p.level(g, 4).ink
		for i := range want.pix {
			if lv.ink.v(i) != want.pix[i] || gotDil.v(i) != wantDil.pix[i] {
				t.Fatalf("gain %d, pixel %d: %d and dilated %d, want %d and %d", g, i, lv.ink.v(i), gotDil.v(i), want.pix[i], wantDil.pix[i])
			}
		}
		for i := range wantDown.pix {
			if gotDown.v(i) != wantDown.pix[i] {
				t.Fatalf("gain %d, averaged pixel %d: %d, want %d", g, i, gotDown.v(i), wantDown.pix[i])
			}
		}
	}
}

// TestExemplarTooLarge: a box over MaxExemplarSide pixels a side, or one
// holding more than MaxExemplarPieces pieces of ink (a room, a sheet), is
// ErrTooLarge at once instead of a template that costs minutes to look
// for; a box round one symbol among them is a template.
func TestExemplarTooLarge(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 2000, 1200))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	// 12 × 8 small squares 40 px apart: 96 pieces.
	for gy := range 8 {
		for gx := range 12 {
			x0, y0 := 100+gx*40, 100+gy*40
			for y := y0; y < y0+12; y++ {
				for x := x0; x < x0+12; x++ {
					if x == x0 || y == y0 || x == x0+11 || y == y0+11 {
						img.SetGray(x, y, color.Gray{})
					}
				}
			}
		}
	}
	ctx := context.Background()
	p, err := NewPage(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := p.Template(img.Bounds()); !errors.Is(err, ErrTooLarge) {
		t.Errorf("the whole page: %v, want ErrTooLarge", err)
	}
	if _, err := p.Template(image.Rect(90, 90, 600, 440)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a box of 96 pieces: %v, want ErrTooLarge", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("refusing two large boxes took %v", d)
	}
	if _, err := p.Template(image.Rect(95, 95, 118, 118)); err != nil {
		t.Errorf("a box round one square: %v", err)
	}
	if _, err := p.Template(image.Rect(95, 95, 400, 200)); err != nil {
		t.Errorf("a box of 24 pieces: %v", err)
	}
}

// TestStretchedPlanStaysCoarse: an elongated glyph searched stretched as
// well as scaled spans radii of 1 to more than 4; at every size, its ring
// stage reads a level coarse enough that the largest variant stays within
// ringMaxRadius, or Options.RingMaxRadius (measured at every place, its
// cost grows with that radius squared; a level chosen from the smallest
// variant alone let it reach twice that), and it is still found at every
// stretch (TestStretched).
func TestStretchedPlanStaysCoarse(t *testing.T) {
	for side := 40; side <= 200; side += 8 {
		w, h, ink := icon(t, "luminaire_linear", side)
		page := blank(w+20, h+20)
		paint(page, w, h, ink, placement{cx: float64(w+20) / 2, cy: float64(h+20) / 2, scale: 1})
		tpl, err := TemplateFromImage(context.Background(), page)
		if err != nil {
			t.Fatal(err)
		}
		if !tpl.Elongated() {
			t.Fatalf("%d px: the linear luminaire is not elongated", side)
		}
		for _, o := range []Options{{}, {RingMaxRadius: 32}} {
			if pl := newPlan(tpl, o); pl.ringRmax > o.ringMaxRadius()+1 {
				t.Errorf("%d px, bound %d: ring radius up to %d at level %d, want at most %d", side, o.ringMaxRadius(), pl.ringRmax, pl.kc, o.ringMaxRadius()+1)
			}
		}
	}
}
