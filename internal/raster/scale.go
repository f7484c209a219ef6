package raster

import (
	"fmt"
	"math"
	"slices"

	"blueprint/internal/catalog"
)

// PageScale says when a page is looked at smaller. A page's symbol scale
// is the median, over its confident proposals, of the proposal's longer
// side in pixels over the longer side of its class's glyph in the catalog
// (pixels per glyph unit; the generator draws symbols about 11.9 of them
// at symbol scale 1 and 300 DPI). Above High (pages drawn at a large
// symbol scale and scanned at 300 DPI, symbols of 80–150 pixels) the
// detector proposes the two ends of a beam detector, or half of a linear
// luminaire, on their own, and the classifier names the part. Such a page
// is resampled so that its symbol scale is Target, proposed and
// classified again there, and the boxes are mapped back. Pages of tiny
// symbols are not enlarged: measured, it cost four times the time and
// found as many false symbols as true ones (docs/raster.md).
type PageScale struct {
	// High is the symbol scale (pixels per glyph unit) above which a
	// page is looked at smaller.
	High float64 `json:"high"`
	// Target is the symbol scale such a page is resampled to.
	Target float64 `json:"target"`
	// MinScore is the detector score a proposal needs to count: below it
	// lie text, walls and furniture the classifier rejects.
	MinScore float64 `json:"min_score"`
	// MinProposals is how many confident proposals a page needs for its
	// symbol scale to be trusted; a page with fewer is looked at as it is.
	MinProposals int `json:"min_proposals"`
}

// check reports a PageScale that cannot work.
func (s *PageScale) check() error {
	switch {
	case !(s.Target > 0 && s.Target < s.High):
		return fmt.Errorf("page_scale: need 0 < target %g < high %g", s.Target, s.High)
	case !(s.MinScore >= 0 && s.MinScore < 1):
		return fmt.Errorf("page_scale: min_score %g is outside [0, 1)", s.MinScore)
	case s.MinProposals < 1:
		return fmt.Errorf("page_scale: min_proposals %d must be at least 1", s.MinProposals)
	}
	return nil
}

// factor is how much a page whose proposals are props should be
// resampled, given each class's glyph side (glyph units) by index: 1
// where it is looked at as it is, else below 1.
func (s *PageScale) factor(props []cand, glyphSide []float64) float64 {
	if s == nil {
		return 1
	}
	var units []float64
	for _, p := range props {
		if p.score >= s.MinScore && glyphSide[p.class] > 0 {
			units = append(units, math.Max(p.box.W, p.box.H)/glyphSide[p.class])
		}
	}
	if len(units) < s.MinProposals {
		return 1
	}
	slices.Sort(units)
	n := len(units)
	if unit := (units[(n-1)/2] + units[n/2]) / 2; unit > s.High {
		return s.Target / unit
	}
	return 1
}

// glyphSides returns the longer side of each class's catalog glyph, in
// glyph units, by class index.
func glyphSides(classes []string) ([]float64, error) {
	cat, err := catalog.Load("")
	if err != nil {
		return nil, err
	}
	sides := make([]float64, len(classes))
	for i, c := range classes {
		sym, ok := cat.Lookup(c)
		if !ok {
			return nil, fmt.Errorf("class %q is not in the catalog", c)
		}
		lo, hi := sym.Glyph.Bounds()
		sides[i] = math.Max(hi.X-lo.X, hi.Y-lo.Y)
	}
	return sides, nil
}

// scaled returns the page resampled by f (the luma pixels with Pillow's
// bilinear filter, widened by the scale when shrinking so every pixel
// counts, as the classifier's crops are; then its blocks and paper
// level). Detect only shrinks; TestPageScaleDetect enlarges a fixture.
func (g *gray) scaled(f float64) *gray {
	w, h := max(int(math.Round(float64(g.w)*f)), 1), max(int(math.Round(float64(g.h)*f)), 1)
	xs := filterTaps(0, float64(g.w), g.w, w)
	ys := filterTaps(0, float64(g.h), g.h, h)
	rows := make([]uint8, g.h*w)
	for y := 0; y < g.h; y++ {
		src := g.pix[y*g.w : (y+1)*g.w]
		out := rows[y*w : (y+1)*w]
		for i, tp := range xs {
			var acc float64
			for k, wt := range tp.weights {
				acc += wt * float64(src[tp.first+k])
			}
			out[i] = clamp8(acc)
		}
	}
	s := &gray{w: w, h: h, pix: make([]uint8, w*h)}
	acc := make([]float64, w)
	for j, tp := range ys {
		clear(acc)
		for k, wt := range tp.weights {
			row := rows[(tp.first+k)*w : (tp.first+k+1)*w]
			for i, v := range row {
				acc[i] += wt * float64(v)
			}
		}
		out := s.pix[j*w : (j+1)*w]
		for i, v := range acc {
			out[i] = clamp8(v)
		}
	}
	s.blockMeans()
	return s
}

// scaleCands maps candidates found on a page resampled by f back to the
// page.
func scaleCands(cs []cand, f float64) []cand {
	for i := range cs {
		cs[i].box.X /= f
		cs[i].box.Y /= f
		cs[i].box.W /= f
		cs[i].box.H /= f
	}
	return cs
}
