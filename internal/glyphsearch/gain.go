package glyphsearch

import (
	"image"
	"slices"
)

// Faint strokes. Many drawings draw part of a symbol faint: a pale
// hexagon or a light gray box round dark letters ("S", "FACP"), a coloured
// frame printed light. Measured against the page's typical stroke, such a
// frame is a third of full ink: under the stroke threshold, so the
// template would be its letters alone and every letter of the page's text
// would match it. A template whose box holds a faint stroke is searched
// with a gain: the page's ink (and its own) multiplied until that stroke
// counts as fully as the dark ones. Gains come in a few steps, so the
// templates of one page share the gained page's levels.
var gainSteps = [...]float64{1, 1.5, 2, 3}

const (
	// faintOn is the ink from which a pixel may belong to a faint stroke
	// (above JPEG ringing and the paper's noise, which the ink already
	// leaves out).
	faintOn = 40
	// faintStrokeLevel is the ink a stroke should reach to count fully:
	// coverFull.
	faintStrokeLevel = coverFull
	// faintMinLength: a stroke is a piece whose middle runs at least
	// half this share of the box's larger side in pixels (a frame, an
	// outline; not a speck).
	faintMinLength = 0.5
)

// ridge returns the ink at (x, y) when it is a stroke's middle there:
// strictly darker than a neighbour on one side and no lighter than the
// other, across or along the rows. A piece's level is the median of its
// middles: a 1-pixel frame is as dark as its middle, not as its
// anti-aliased edges, and its light long sides count as much as its
// darker short ones.
func ridge(ink *plane, x, y int) (uint8, bool) {
	v := ink.at(x, y)
	l, r, u, d := ink.at(x-1, y), ink.at(x+1, y), ink.at(x, y-1), ink.at(x, y+1)
	across := (v > l && v >= r) || (v >= l && v > r)
	along := (v > u && v >= d) || (v >= u && v > d)
	return v, across || along
}

// gainFor returns the index in gainSteps of the gain a template of the
// strokes in r of ink needs: the largest step that brings its faintest
// stroke to at most faintStrokeLevel (give or take 5 %).
func gainFor(ink *plane, r image.Rectangle) int {
	r = r.Intersect(image.Rect(0, 0, ink.w, ink.h))
	if r.Empty() {
		return 0
	}
	w, h := r.Dx(), r.Dy()
	seen := make([]bool, w*h)
	minLen := int(faintMinLength * float64(max(w, h)))
	faintest := 255.0
	var stack []int
	var vals []uint8
	for i := range seen {
		x, y := r.Min.X+i%w, r.Min.Y+i/w
		if seen[i] || ink.pix[y*ink.w+x] < faintOn {
			continue
		}
		seen[i] = true
		stack = append(stack[:0], i)
		vals = vals[:0]
		for len(stack) > 0 {
			j := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			jx, jy := j%w, j/w
			if v, ok := ridge(ink, r.Min.X+jx, r.Min.Y+jy); ok {
				vals = append(vals, v)
			}
			for dy := -1; dy <= 1; dy++ {
				for dx := -1; dx <= 1; dx++ {
					nx, ny := jx+dx, jy+dy
					if nx < 0 || ny < 0 || nx >= w || ny >= h {
						continue
					}
					n := ny*w + nx
					if !seen[n] && ink.pix[(r.Min.Y+ny)*ink.w+r.Min.X+nx] >= faintOn {
						seen[n] = true
						stack = append(stack, n)
					}
				}
			}
		}
		if len(vals) < minLen/2 {
			continue
		}
		slices.Sort(vals)
		faintest = min(faintest, float64(vals[len(vals)/2]))
	}
	g := 0
	for i, s := range gainSteps {
		if faintest*s <= faintStrokeLevel*1.05 {
			g = i
		}
	}
	return g
}

// gained returns ink multiplied by gainSteps[g], at most 255: a plane
// sharing ink's pixels, read through the gain's table.
func gained(ink *plane, g int) *plane {
	if g == 0 {
		return ink
	}
	lut := new([256]uint8)
	for v := range lut {
		lut[v] = uint8(min(255, float64(v)*gainSteps[g]))
	}
	return &plane{w: ink.w, h: ink.h, pix: ink.pix, gain: lut}
}
