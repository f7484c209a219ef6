package glyphsearch

import (
	"math"
	"sort"
)

// Variants: the sizes and stretches a search tries, apart enough that the
// ring stage tells them apart and close enough that an instance between
// two still correlates with one of them; the verification refines the
// size and stretch continuously.
const (
	scaleStep   = 1.1
	stretchStep = 1.12
	// verifyMinRadius: the verification level is the coarsest on which
	// the smallest instance is still this many pixels in radius.
	verifyMinRadius = 16
	// sparsePoints: the points of each kind a first look at a pose reads;
	// maxPoints: the most a pose is refined on.
	sparsePoints = 48
	maxPoints    = 400
)

// variant is one size and stretch of the template.
type variant struct {
	scale, stretch float64
	lin, inv       mat2    // template offsets → page offsets, and back
	radius         float64 // page pixels at full resolution

	// ring stage, at the coarse level
	rc    float64
	bnd   [rings + 1]float64
	mass  [rings]float64 // template's ink per ring, as a page's strokes would hold it
	need  int            // the largest disk radius its rings read
	img   *fplane        // the variant drawn at the coarse level, centre at (c, c)
	sums  []float64      // its disk sums
	sig   [rays]float64  // its radial signature
	sigOK bool
}

// fplane is a small float raster.
type fplane struct {
	n   int // side
	pix []float64
}

func (f *fplane) bilinear(x, y float64) float64 {
	if x < 0 || y < 0 {
		return 0
	}
	x0, y0 := int(x), int(y)
	if x0 >= f.n-1 || y0 >= f.n-1 {
		return 0
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*f.n + x0
	return (f.pix[i]*(1-fx)+f.pix[i+1]*fx)*(1-fy) + (f.pix[i+f.n]*(1-fx)+f.pix[i+f.n+1]*fx)*fy
}

// fgrid is a float raster.
type fgrid struct {
	w, h int
	pix  []float64
}

// bilinear samples g as plane.bilinear samples a plane, 0 outside.
func (g *fgrid) bilinear(x, y float64) float64 {
	if x < 0 || y < 0 {
		return 0
	}
	x0, y0 := int(x), int(y)
	if x0 >= g.w-1 || y0 >= g.h-1 {
		if x0 < g.w && y0 < g.h {
			return g.pix[y0*g.w+x0]
		}
		return 0
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*g.w + x0
	return (g.pix[i]*(1-fx)+g.pix[i+1]*fx)*(1-fy) + (g.pix[i+g.w]*(1-fx)+g.pix[i+g.w+1]*fx)*fy
}

// plan is one search of one template: its variants and the levels it
// looks at.
type plan struct {
	t       *Template
	opt     Options
	workers int

	variants   []variant
	kc, kv     int // coarse (ring, radial) and verification levels
	ringRmax   int
	gateRadius int
	gateMass   float64
	ringMin    float64   // least ring likeness of a candidate
	unit       int       // the variant nearest the exemplar's own size and length
	order      []int     // variants by need
	ceiling    []float64 // by radius: the most ink a place may hold there and still be like a variant not yet scored

	// verification, at level kv (offsets from the centre in level pixels)
	vfg, vfgSparse []tpoint  // stroke centre lines; all, and a few spread out
	vbg, vbgSparse []tpoint  // box points away from strokes, w their distance
	vwidth         float64   // stroke width
	vdist          []float64 // distance to the template's strokes, vw×vh
	vink, vinkDil  *plane    // the template's ink, and within a pixel
	vblur          *fgrid    // the template's ink blurred by blurSigma
	vignore        *plane    // the template's stray strokes (nil: none), not judged
	vw, vh         int
	vcx, vcy       float64    // centre in the template's level raster
	vrect          [4]float64 // template box (x0, y0, x1, y1) around the centre
}

// geometric returns n ≥ 1 values from lo to hi in equal ratios no larger
// than step.
func geometric(lo, hi, step float64) []float64 {
	if hi <= lo*1.0001 {
		return []float64{math.Sqrt(lo * hi)}
	}
	n := int(math.Ceil(math.Log(hi/lo)/math.Log(step))) + 1
	out := make([]float64, n)
	for i := range out {
		out[i] = lo * math.Pow(hi/lo, float64(i)/float64(n-1))
	}
	return out
}

func newPlan(t *Template, opt Options) *plan {
	pl := &plan{t: t, opt: opt, workers: opt.workers()}
	stretches := []float64{1}
	if t.Elongated() && opt.maxStretch() > 1 {
		stretches = geometric(1/opt.maxStretch(), opt.maxStretch(), stretchStep)
	}
	minR, maxR := math.Inf(1), 0.0
	for _, s := range geometric(opt.minScale(), opt.maxScale(), scaleStep) {
		for _, st := range stretches {
			v := variant{scale: s, stretch: st, lin: stretchMap(s, st, t.axis)}
			v.inv = v.lin.inv()
			for _, p := range t.pts {
				x, y := v.lin.apply(p.x, p.y)
				v.radius = max(v.radius, math.Hypot(x, y))
			}
			v.radius += 0.5
			minR, maxR = min(minR, v.radius), max(maxR, v.radius)
			pl.variants = append(pl.variants, v)
		}
	}
	for i, v := range pl.variants {
		u := pl.variants[pl.unit]
		if math.Abs(math.Log(v.scale))+math.Abs(math.Log(v.stretch)) < math.Abs(math.Log(u.scale))+math.Abs(math.Log(u.stretch)) {
			pl.unit = i
		}
	}
	pl.kc = max(1, int(minR/ringMinRadius))
	if len(stretches) > 1 {
		// The ring stage's cost grows with the square of the largest
		// variant's radius at every place: a glyph searched stretched
		// as well as scaled spans radii of 1 to 4 and more (a double
		// socket's outline with its stems, 16 to 69 pixels: 20 s a
		// search), so its coarse level also keeps the largest under
		// ringMaxRadius (Options.RingMaxRadius).
		pl.kc = max(pl.kc, int(math.Ceil(maxR/float64(opt.ringMaxRadius()))))
	}
	// The verification level keeps the strokes at least about 1.5 pixels
	// wide: averaged thinner, they fade under the stroke threshold.
	fullMask := threshold(t.ink, inkOn)
	width := strokeWidth(fullMask, thin(fullMask))
	pl.kv = max(1, min(int(minR/verifyMinRadius), int(width/1.5)))
	maxRc := 0.0
	for i := range pl.variants {
		v := &pl.variants[i]
		v.rc = v.radius / float64(pl.kc)
		maxRc = max(maxRc, v.rc)
	}
	pl.ringRmax = int(math.Ceil(maxRc)) + 1
	pl.gateRadius = max(1, int(minR/float64(pl.kc)))
	gate := math.Inf(1)
	for i := range pl.variants {
		v := &pl.variants[i]
		pl.drawVariant(v)
		for j := 0; j <= rings; j++ {
			v.bnd[j] = v.rc * float64(j) / rings
		}
		ringMasses(v.sums, &v.bnd, &v.mass)
		// Drawn bigger, the template's strokes grew thicker; a page's
		// strokes keep their width: ink grows with length only.
		f := 1 / (v.scale * math.Sqrt(v.stretch))
		for j := range v.mass {
			v.mass[j] *= f
		}
		v.sig, v.sigOK = radialSignature(v.img.bilinear, float64(v.img.n/2), float64(v.img.n/2), v.rc)
		gate = min(gate, v.sums[min(pl.gateRadius, len(v.sums)-1)]/(v.scale*math.Sqrt(v.stretch)))
	}
	pl.gateMass = gateShare * gate
	for i := range pl.variants {
		v := &pl.variants[i]
		v.need = min(pl.ringRmax, int(math.Ceil(v.bnd[rings]))+1)
		pl.order = append(pl.order, i)
	}
	pl.setRingMin(opt.ringFloor())
	sort.SliceStable(pl.order, func(a, b int) bool { return pl.variants[pl.order[a]].need < pl.variants[pl.order[b]].need })
	pl.prepareVerify(t.ink)
	return pl
}

// setRingMin sets the least ring likeness of a candidate, and with it the
// most ink a place may hold within each radius. A variant's likeness is at
// most the ratio of the smaller total ink to the larger, so a place that
// already holds more than the variant's total over ringMin cannot be like
// it.
func (pl *plan) setRingMin(m float64) {
	pl.ringMin = m
	pl.ceiling = make([]float64, pl.ringRmax+1)
	for i := range pl.variants {
		v := &pl.variants[i]
		total := 0.0
		for _, x := range v.mass {
			total += x
		}
		for r := 0; r <= v.need; r++ {
			pl.ceiling[r] = max(pl.ceiling[r], total/m)
		}
	}
}

// drawVariant draws the variant at the coarse level (each coarse pixel the
// mean of kc×kc samples of the template's ink, as the page's level is the
// mean of its pixels) and measures its disk sums.
func (pl *plan) drawVariant(v *variant) {
	k := pl.kc
	half := pl.ringRmax + 1
	n := 2*half + 1
	img := &fplane{n: n, pix: make([]float64, n*n)}
	t := pl.t
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			sum := 0.0
			for sy := 0; sy < k; sy++ {
				for sx := 0; sx < k; sx++ {
					// page offset of this sample at full resolution
					px := float64((i-half)*k) + float64(sx) - float64(k-1)/2
					py := float64((j-half)*k) + float64(sy) - float64(k-1)/2
					ox, oy := v.inv.apply(px, py)
					sum += t.ink.bilinear(t.cx+ox, t.cy+oy)
				}
			}
			img.pix[j*n+i] = sum / float64(k*k)
		}
	}
	v.img = img
	dk := newDisk(pl.ringRmax)
	v.sums = make([]float64, pl.ringRmax+1)
	for r := 0; r <= pl.ringRmax; r++ {
		s := 0.0
		for dy := -r; dy <= r; dy++ {
			h := dk.hw[r][abs(dy)]
			for dx := -h; dx <= h; dx++ {
				s += img.pix[(half+dy)*n+half+dx]
			}
		}
		v.sums[r] = s
	}
}

// prepareVerify makes the template's shape at the verification level:
// the centre lines of its strokes (which a placed instance must find on
// ink), points of its box away from its strokes (which must find paper),
// and the distance from its strokes (which says whether page ink is
// explained).
func (pl *plan) prepareVerify(full *plane) {
	t, k := pl.t, pl.kv
	ink := downsample(full, k)
	pl.vcx, pl.vcy = toLevel(t.cx, k), toLevel(t.cy, k)
	on := uint8(inkOn)
	if k > 1 {
		on = 96 // averaging thins strokes
	}
	m := threshold(ink, on)
	centre := thin(m)
	pl.vwidth = strokeWidth(m, centre)
	pl.vdist = distance(m)
	pl.vink, pl.vinkDil = ink, maxFilter3(ink)
	pl.vblur = &fgrid{w: ink.w, h: ink.h, pix: make([]float64, len(ink.pix))}
	for i, v := range ink.pix {
		pl.vblur.pix[i] = float64(v)
	}
	pl.vblur.pix = blurFloat(pl.vblur.pix, ink.w, ink.h, gaussKernel(blurSigma))
	pl.vw, pl.vh = ink.w, ink.h
	pl.vignore = nil
	if t.ignore != nil {
		pl.vignore = downsample(t.ignore, k)
	}
	kf := float64(k)
	pl.vrect = [4]float64{
		(-t.width/2 - 1) / kf, (-t.height/2 - 1) / kf,
		(t.width/2 + 1) / kf, (t.height/2 + 1) / kf,
	}
	var fg, bg []tpoint
	for y := 0; y < ink.h; y++ {
		for x := 0; x < ink.w; x++ {
			i := y*ink.w + x
			px, py := float64(x)-pl.vcx, float64(y)-pl.vcy
			switch {
			case centre.on[i]:
				fg = append(fg, tpoint{px, py, 1})
			case pl.vignore != nil && pl.vignore.pix[i] != 0:
			case px >= pl.vrect[0] && px <= pl.vrect[2] && py >= pl.vrect[1] && py <= pl.vrect[3] && pl.vdist[i] >= pl.vwidth/2+1:
				bg = append(bg, tpoint{px, py, pl.vdist[i]})
			}
		}
	}
	pl.vfg, pl.vfgSparse = spread(fg, maxPoints), spread(fg, sparsePoints)
	pl.vbg, pl.vbgSparse = spread(bg, maxPoints), spread(bg, sparsePoints)
}

// ignored reports whether the template's pixel nearest (x, y), in the
// verification level's raster, belongs to a stray stroke. Beyond the
// template's edge (the correlation looks a little further) the nearest
// edge pixel answers: a stray stroke runs on out of the box.
func (pl *plan) ignored(x, y float64) bool {
	if pl.vignore == nil {
		return false
	}
	xi := min(max(int(math.Floor(x+0.5)), 0), pl.vignore.w-1)
	yi := min(max(int(math.Floor(y+0.5)), 0), pl.vignore.h-1)
	return pl.vignore.pix[yi*pl.vignore.w+xi] != 0
}

// spread returns at most n of pts, every so many.
func spread(pts []tpoint, n int) []tpoint {
	step := (len(pts) + n - 1) / n
	if step <= 1 {
		return pts
	}
	var out []tpoint
	for i := step / 2; i < len(pts); i += step {
		out = append(out, pts[i])
	}
	return out
}
