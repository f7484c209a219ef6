package vector

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"testing"

	"blueprint/internal/eval/dataset"
)

// TestDevDataset prints the errors of the matcher on a generated dataset
// named by VECTOR_DEV_DATA (a development aid; skipped otherwise).
func TestDevDataset(t *testing.T) {
	dir := os.Getenv("VECTOR_DEV_DATA")
	if dir == "" {
		t.Skip("VECTOR_DEV_DATA not set")
	}
	_, m := loadTemplates(t)
	sheets, _, err := dataset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	agg := map[string]int{}
	for _, truth := range sheets {
		if !strings.HasSuffix(truth.File, ".pdf") || (os.Getenv("VECTOR_DEV_LEGEND") == "0" && truth.Legend) {
			continue
		}
		pdf, err := os.ReadFile(truth.Path)
		if err != nil {
			t.Fatal(err)
		}
		pg := pageOf(t, pdf)
		all, err := m.Match(t.Context(), pg)
		if err != nil {
			t.Fatal(err)
		}
		var ms []Match
		for _, d := range all {
			if !d.Legend {
				ms = append(ms, d)
			}
		}
		ix := newPageIndex(pg)
		objs, err := truth.Pages[0].Objects(int(math.Round(pg.Width)), int(math.Round(pg.Height)))
		if err != nil {
			t.Fatal(err)
		}
		var gt []placed
		for _, o := range objs {
			gt = append(gt, placed{o.Class, o.Box})
		}
		used := make([]bool, len(ms))
		for _, g := range gt {
			ok := false
			for i, d := range ms {
				if !used[i] && d.Confidence >= OperatingConfidence && d.Class == g.class && iou(d.Box, g.box) >= 0.5 {
					used[i], ok = true, true
					break
				}
			}
			if !ok {
				near := ""
				for _, d := range ms {
					if v := iou(d.Box, g.box); v > 0.2 {
						near += fmt.Sprintf(" %s(cov %.2f iou %.2f)", d.Class, d.Coverage, v)
					}
				}
				// Why: the best pose of the right class near the truth.
				bestCov, nh := -1.0, 0
				for _, tp := range m.tpls {
					if tp.class != g.class {
						continue
					}
					try := func(h hypothesis) {
						if iou(boxOf(tp, h.pl, pg.Width, pg.Height), g.box) < 0.5 {
							return
						}
						nh++
						if sc, ok := ix.verify(h); ok && sc.cov > bestCov {
							bestCov = sc.cov
						}
					}
					switch tp.kind {
					case anchorCircle:
						ix.circleHypotheses(tp, func(h hypothesis) float64 { try(h); return 0 }, func(hs []hypothesis) []float64 {
							for _, h := range hs {
								try(h)
							}
							return make([]float64, len(hs))
						})
					case anchorCorner:
						ix.cornerHypotheses(tp, try)
					default:
						ix.segmentHypotheses(tp, try)
					}
				}
				for _, d := range all {
					if d.Legend && iou(d.Box, g.box) > 0.2 {
						near += fmt.Sprintf(" legend:%s", d.Class)
					}
				}
				near += fmt.Sprintf(" [own: %d poses, best cov %.2f]", nh, bestCov)
				agg["FN "+g.class+" ->"+near]++
				t.Logf("%s FN %s at %.0f,%.0f %.0fx%.0f near:%s", truth.File, g.class, g.box.X, g.box.Y, g.box.W, g.box.H, near)
			}
		}
		for i, d := range ms {
			b := int(d.Coverage * 100)
			if used[i] {
				agg[fmt.Sprintf("covTP %03d", b)]++
			} else {
				agg[fmt.Sprintf("covFP %03d", b)]++
			}
		}
		for i, d := range ms {
			if used[i] || d.Confidence < OperatingConfidence {
				continue
			}
			near := ""
			for _, g := range gt {
				if v := iou(d.Box, g.box); v > 0.2 {
					near += fmt.Sprintf(" %s(iou %.2f)", g.class, v)
				}
			}
			agg["FP "+d.Class+" on"+near]++
			t.Logf("%s FP %s cov %.2f conf %.2f at %.0f,%.0f %.0fx%.0f s %.2f gt:%s", truth.File, d.Class, d.Coverage, d.Confidence, d.Box.X, d.Box.Y, d.Box.W, d.Box.H, d.Placement.Scale, near)
		}
	}
	var keys []string
	for k := range agg {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return agg[keys[i]] > agg[keys[j]] })
	for _, k := range keys {
		t.Logf("%4d %s", agg[k], k)
	}
}
