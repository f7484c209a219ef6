package raster

import (
	"context"
	"fmt"
	"math"
)

// CoarseLook says how the detector looks at every page once more at a
// lower resolution, for symbols too large for it at full resolution. The
// detector's receptive field is about 150 pixels; a beam detector drawn at
// a large symbol scale and scanned at 300 DPI is 120–160 pixels long, and
// at full resolution the detector proposes its two end boxes on their own,
// so no window the classifier cuts holds the whole beam (docs/raster.md).
// On the page resampled by Factor the beam fits; the proposals found there
// that are at least MinSide page pixels long, score at least MinScore and
// overlap no full-resolution proposal by more than IoU 0.5 join the
// proposals, and the classifier names them on the full-resolution page as
// it does the others. Smaller or weaker coarse proposals are left out:
// those are the symbols the full-resolution look proposes better, and the
// weak long ones are mostly walls and dimension lines the classifier was
// never shown at that size (measured in docs/raster.md).
type CoarseLook struct {
	// Factor is the scale of the coarse page (0.5: half the pixels along
	// each side).
	Factor float64 `json:"factor"`
	// MinSide is the longer side, in page pixels, a coarse proposal needs
	// to be kept.
	MinSide float64 `json:"min_side"`
	// MinScore is the detector score a coarse proposal needs to be kept.
	MinScore float64 `json:"min_score"`
}

// check reports a CoarseLook that cannot work.
func (c *CoarseLook) check() error {
	switch {
	case !(c.Factor >= 0.2 && c.Factor < 1):
		return fmt.Errorf("coarse_look: factor %g is outside [0.2, 1)", c.Factor)
	case !(c.MinSide > 0):
		return fmt.Errorf("coarse_look: min_side %g must be positive", c.MinSide)
	case !(c.MinScore >= 0 && c.MinScore < 1):
		return fmt.Errorf("coarse_look: min_score %g is outside [0, 1)", c.MinScore)
	}
	return nil
}

// coarseProposals returns the proposals of g looked at smaller (the
// page's CoarseLook) that are large and confident enough and that no
// proposal in kept already covers, in g's pixels.
func (d *Detector) coarseProposals(ctx context.Context, g *gray, kept []cand) ([]cand, error) {
	c := d.meta.CoarseLook
	found, err := d.propose(ctx, g.scaled(c.Factor))
	if err != nil {
		return nil, fmt.Errorf("coarse look: %w", err)
	}
	var out []cand
	for _, p := range scaleCands(found, c.Factor) {
		if math.Max(p.box.W, p.box.H) < c.MinSide || p.score < c.MinScore || covered(p.box, kept, suppressIoU) {
			continue
		}
		out = append(out, p)
	}
	return out, nil
}
