package search

import (
	"math/rand/v2"
	"testing"

	"blueprint/internal/glyph"
)

// TestPointSetNear holds pointSet.near to near's answer on random sets:
// clustered and spread out, queried inside, at the edge of and far from
// their extent.
func TestPointSetNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		n := rng.IntN(300)
		spread := []float64{2, 50, 5000}[trial%3]
		pts := make([]glyph.Point, n)
		for i := range pts {
			pts[i] = glyph.Point{X: 100 + rng.Float64()*spread, Y: -40 + rng.Float64()*spread/3}
		}
		tol := 0.2 + rng.Float64()*3
		s := newPointSet(pts, tol+sampleStepPx)
		for range 300 {
			p := glyph.Point{X: 100 - 10 + rng.Float64()*(spread+20), Y: -40 - 10 + rng.Float64()*(spread/3+20)}
			if n > 0 && rng.IntN(3) == 0 {
				q := pts[rng.IntN(n)]
				p = glyph.Point{X: q.X + (rng.Float64()-0.5)*3*tol, Y: q.Y + (rng.Float64()-0.5)*3*tol}
			}
			if got, want := s.near(p), near(p, pts, tol); got != want {
				t.Fatalf("trial %d: near(%v) = %v, want %v", trial, p, got, want)
			}
		}
	}
}
