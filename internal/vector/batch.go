package vector

import (
	"context"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
)

// Poses verified ahead on every core (matchTemplate): the batches of a
// template's corner, line and stretch poses, and the cells where a
// template found whole is not looked for again.

// cell is a doneCell cell of the page.
type cell struct{ x, y int32 }

// doneCell is the side, in raster pixels, of the cells where a template
// found whole is not looked for again.
const doneCell = 4.0

func cellOf(h hypothesis) cell {
	return cell{int32(math.Floor(h.pl.At.X / doneCell)), int32(math.Floor(h.pl.At.Y / doneCell))}
}

// near is the key of the cell dx, dy cells from c.
func (c cell) near(dx, dy int32) int64 {
	return int64(c.x+dx)<<32 | int64(uint32(c.y+dy))
}

// poseBatch is how many poses of corners, lines and stretches are taken
// at a time (matchTemplate): enough to share out among the cores, few
// enough that finds early in a batch spare little verified work later in
// it (on the real sets, 0–7 % more verifications than one after
// another).
const poseBatch = 64

// soloPoses is how many poses of corners, lines and stretches a template
// tries one after another before it takes them in batches: most
// templates have fewer on a page, and share the cores with the others.
const soloPoses = 16384

// verification is a pose's verify, refined (verifyRefined).
type verification struct {
	s  scored
	ok bool
}

// verifyRefined verifies a pose and refines one that covers nearly all of
// its template.
func (ix *pageIndex) verifyRefined(h hypothesis) verification {
	s, ok := ix.verify(h)
	if ok && s.cov < wholeCoverage && s.cov >= refineFrom {
		s = ix.refine(s)
	}
	return verification{s, ok}
}

// verifyAhead verifies the poses hs[j] for j in need on every core and
// returns the verifications by index into hs (nil where not verified).
// Once ctx ends it verifies no more.
func (ix *pageIndex) verifyAhead(ctx context.Context, hs []hypothesis, need []int) []*verification {
	out := make([]*verification, len(hs))
	vs := make([]verification, len(need))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range max(1, min(runtime.GOMAXPROCS(0), len(need)/minPerWorker)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				n := int(next.Add(1)) - 1
				if n >= len(need) {
					return
				}
				vs[n] = ix.verifyRefined(hs[need[n]])
				out[need[n]] = &vs[n]
			}
		}()
	}
	wg.Wait()
	return out
}

// minPerWorker is the fewest poses a goroutine of verifyAhead is started
// for.
const minPerWorker = 16
