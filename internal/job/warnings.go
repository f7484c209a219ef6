package job

import (
	"fmt"
	"sort"
	"strings"

	"blueprint/internal/detect"
)

// Flood bounds: a legend row whose glyph matched more than
// floodFactor × its printed quantity + floodSlack places, or more than
// floodPerPage places on one page, is a flood: a glyph plain enough to
// match lines and corners, not that many devices. No plan draws more
// than a few hundred of one device on a sheet.
const (
	floodFactor  = 2
	floodSlack   = 5
	floodPerPage = 400
)

// warnings works out a done job's warnings as its pages are read: the
// stored ones (the document pass's, and the floods withheld when the job
// was done), and those its detections show.
type warnings struct {
	// legendClasses are the classes the job's legend rows name.
	legendClasses map[string]bool
	out           []WarningView
}

func newWarnings(j *Job) *warnings {
	w := &warnings{legendClasses: map[string]bool{}}
	for _, r := range j.Legend {
		if r.Class != "" {
			w.legendClasses[r.Class] = true
		}
	}
	for _, s := range j.Warnings {
		w.add(s.Code, s.Page, s.Message)
	}
	return w
}

func (w *warnings) add(code string, page int, msg string) {
	v := WarningView{Code: code, Message: msg}
	if page >= 0 {
		v.PageIndex = &page
	}
	w.out = append(w.out, v)
}

// page notes the warnings of a counted page's kept detections: a page
// counted without any legend, and classes that only the catalog glyphs
// or the raster detector found where the job's legends name others.
func (w *warnings) page(p Page, kept []storedDetection) {
	if !detect.Counted(p.Kind) || len(kept) == 0 {
		return
	}
	unexplained := map[string]int{}
	for _, d := range kept {
		if d.LegendRow > 0 {
			continue
		}
		if !w.legendClasses[d.Class] {
			unexplained[d.Class]++
		}
	}
	if len(w.legendClasses) == 0 {
		w.add(detect.WarnNoLegend, p.Index, fmt.Sprintf(
			"page %d was counted without a legend: its %d detections come from the catalog's glyphs and the raster detector, which do not know this drawing's own symbols; check them", p.Index, len(kept)))
		return
	}
	if len(unexplained) == 0 {
		return
	}
	classes := make([]string, 0, len(unexplained))
	n := 0
	for c, k := range unexplained {
		classes = append(classes, c)
		n += k
	}
	sort.Slice(classes, func(a, b int) bool {
		if unexplained[classes[a]] != unexplained[classes[b]] {
			return unexplained[classes[a]] > unexplained[classes[b]]
		}
		return classes[a] < classes[b]
	})
	listed := make([]string, 0, maxListed+1)
	for k, c := range classes {
		if k == maxListed {
			listed = append(listed, fmt.Sprintf("and %d more", len(classes)-maxListed))
			break
		}
		listed = append(listed, fmt.Sprintf("%s %d", c, unexplained[c]))
	}
	w.add(detect.WarnCatalogOnly, p.Index, fmt.Sprintf(
		"page %d: %d detections of classes no legend row of the job names were found by the catalog's glyphs or the raster detector alone (%s); check them", p.Index, n, strings.Join(listed, ", ")))
}

// maxListed bounds the classes a catalog_only warning names.
const maxListed = 8

// views returns every warning.
func (w *warnings) views() []WarningView {
	return append([]WarningView{}, w.out...)
}

// withholdFloods finds the legend rows whose matches (those f keeps, on
// counted pages) are a flood: more than floodFactor × the row's printed
// quantity + floodSlack in the document, or more than floodPerPage on
// one page. Their rows join f.Withheld and a flood warning says so.
func (fd *findings) withholdFloods(pages []Page, dets [][]detect.Detection, f detect.Filter) {
	total := map[int]int{}
	perPage := map[[2]int]int{}
	for i, p := range pages {
		if i >= len(dets) || !detect.Counted(p.Kind) {
			continue
		}
		for _, d := range dets[i] {
			if d.LegendRow <= 0 || d.LegendRow > len(fd.Legend) || !f.Keep(d) {
				continue
			}
			total[d.LegendRow]++
			perPage[[2]int{d.LegendRow, p.Index}]++
		}
	}
	for row := 1; row <= len(fd.Legend); row++ {
		r := fd.Legend[row-1]
		name := fmt.Sprintf("legend row %q (page %d)", r.Description, r.PageIndex)
		if r.Quantity != nil && total[row] > floodFactor**r.Quantity+floodSlack {
			fd.Withheld = append(fd.Withheld, row)
			fd.Warnings = append(fd.Warnings, Warning{Code: detect.WarnFlood, Page: -1, Message: fmt.Sprintf(
				"%s matched %d places where it prints a quantity of %d: withheld, not counted; its matches are listed with review=all for review", name, total[row], *r.Quantity)})
			continue
		}
		var worst, at int
		for _, p := range pages {
			if n := perPage[[2]int{row, p.Index}]; n > worst {
				worst, at = n, p.Index
			}
		}
		if worst > floodPerPage {
			fd.Withheld = append(fd.Withheld, row)
			fd.Warnings = append(fd.Warnings, Warning{Code: detect.WarnFlood, Page: at, Message: fmt.Sprintf(
				"%s matched %d places on page %d, more than any plan draws of one device (its glyph matches lines and corners): withheld, not counted; its matches are listed with review=all for review", name, worst, at)})
		}
	}
}
