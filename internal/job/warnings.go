package job

import (
	"fmt"
	"sort"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/vector"
)

// Flood bounds: a legend row whose glyph matched more than
// floodFactor × its printed quantity + floodSlack places, or on one page
// more than detect.MaxOnPage for its size, is a flood: a glyph plain
// enough to match lines and corners, not that many devices.
const (
	floodFactor = 2
	floodSlack  = 5
)

// warnings works out a done job's warnings as its pages are read: the
// stored ones (the document pass's, and the floods withheld when the job
// was done), and those its detections show.
type warnings struct {
	// named are the classes the job's legend rows name.
	named map[string]bool
	out   []WarningView
}

func newWarnings(j *Job) *warnings {
	w := &warnings{named: j.namedClasses()}
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

// page notes the warnings of a counted page from its counted detections
// (kept) and those withheld from the take-off: devices counted by the
// equipment labels the page writes, a page counted without any legend,
// and classes that only the catalog glyphs or the raster detector found
// where no legend row names them, with how many of those were withheld
// as guesses below the confidence they earn on real drawings
// (detect.UnnamedFloor).
func (w *warnings) page(p Page, kept, withheld []storedDetection) {
	if !detect.Counted(p.Kind) {
		return
	}
	w.offScale(p, withheld)
	counted, held, labelled := map[string]int{}, map[string]int{}, map[string]int{}
	for _, d := range kept {
		switch {
		case d.LegendRow != 0 || w.named[d.Class]:
		case d.Source.Tag:
			labelled[d.Class]++ // an equipment label's (legend.Label)
		default:
			counted[d.Class]++
		}
	}
	if n := total(labelled); n > 0 {
		w.add(detect.WarnByLabels, p.Index, fmt.Sprintf(
			"page %d: %d devices of classes no legend row of the job names were counted by the equipment labels the page writes beside them (%s), each boxed by its label rather than by a symbol found; check them",
			p.Index, n, listed(labelled)))
	}
	for _, d := range withheld {
		if d.Withheld == withheldCatalogOnly {
			held[d.Class]++
		}
	}
	nHeld := total(held)
	if len(w.named) == 0 {
		n := len(kept) + nHeld - total(labelled)
		if n == 0 {
			return
		}
		msg := fmt.Sprintf("page %d was counted without a legend: its %d detections come from the catalog's glyphs and the raster detector, which do not know this drawing's own symbols", p.Index, n)
		w.add(detect.WarnNoLegend, p.Index, msg+withheldText(counted, held)+"; check them")
		return
	}
	if len(counted)+len(held) == 0 {
		return
	}
	msg := fmt.Sprintf("page %d: %d detections of classes no legend row of the job names were found by the catalog's glyphs or the raster detector alone", p.Index, total(counted)+nHeld)
	w.add(detect.WarnCatalogOnly, p.Index, msg+withheldText(counted, held)+"; check them")
}

// offScale notes the page's legend-row matches withheld as off scale
// (detect.MarkOffScale), by class.
func (w *warnings) offScale(p Page, withheld []storedDetection) {
	held := map[string]int{}
	for _, d := range withheld {
		if d.Withheld == withheldOffScale {
			c := d.Class
			if c == "" {
				c = "a row of no class"
			}
			held[c]++
		}
	}
	if n := total(held); n > 0 {
		what := fmt.Sprintf("%d legend-glyph matches", n)
		if n == 1 {
			what = "1 legend-glyph match"
		}
		w.add(detect.WarnOffScale, p.Index, fmt.Sprintf(
			"page %d: %s withheld, not counted (%s): under 1/%g or over %g times the size of their legend row's other matches in the document, look-alikes in a logo, a hatch or a larger symbol; they are listed with review=all and count once a reviewer accepts them",
			p.Index, what, listed(held), detect.OffScaleFactor, detect.OffScaleFactor))
	}
}

// withheldText says, for the message of a page's warning, what of its
// guesses (detections of classes no legend row names) was counted and
// what withheld, by class: the counted classes alone where none was
// withheld.
func withheldText(counted, held map[string]int) string {
	var b strings.Builder
	switch n := total(counted); {
	case n > 0 && total(held) == 0:
		fmt.Fprintf(&b, " (%s)", listed(counted))
	case n > 0:
		fmt.Fprintf(&b, "; %d counted (%s)", n, listed(counted))
	}
	if n := total(held); n > 0 {
		fmt.Fprintf(&b, "; %d withheld, not counted, below the confidence such detections reach on real drawings (%s): they are listed with review=all and count once a reviewer accepts them", n, listed(held))
	}
	return b.String()
}

// total is the sum of a count by class.
func total(by map[string]int) int {
	n := 0
	for _, k := range by {
		n += k
	}
	return n
}

// listed names the classes of a count by class with their counts, most
// first, at most maxListed of them.
func listed(by map[string]int) string {
	classes := make([]string, 0, len(by))
	for c := range by {
		classes = append(classes, c)
	}
	sort.Slice(classes, func(a, b int) bool {
		if by[classes[a]] != by[classes[b]] {
			return by[classes[a]] > by[classes[b]]
		}
		return classes[a] < classes[b]
	})
	out := make([]string, 0, maxListed+1)
	for k, c := range classes {
		if k == maxListed {
			out = append(out, fmt.Sprintf("and %d more", len(classes)-maxListed))
			break
		}
		out = append(out, fmt.Sprintf("%s %d", c, by[c]))
	}
	return strings.Join(out, ", ")
}

// maxListed bounds the classes a warning names.
const maxListed = 8

// views returns every warning.
func (w *warnings) views() []WarningView {
	return append([]WarningView{}, w.out...)
}

// withholdFloods finds the legend rows whose matches (those f keeps, on
// counted pages) are a flood: more than floodFactor × the row's printed
// quantity + floodSlack in the document (and on the legend's own page,
// where that page draws the row's devices: the quantity may count that
// sheet alone), more than detect.MaxOnPage for its size on one page, or so
// many on a page that the matcher stopped looking (detect.Detection.Flood).
// Their rows join f.Withheld and a flood warning says so.
func (fd *findings) withholdFloods(pages []Page, dets [][]detect.Detection, f detect.Filter) {
	total := map[int]int{}
	perPage := map[[2]int]int{}
	stopped := map[int]int{} // row: a page where the matcher stopped looking for it, +1
	for i, p := range pages {
		if i >= len(dets) || !detect.Counted(p.Kind) {
			continue
		}
		for _, d := range dets[i] {
			if d.LegendRow <= 0 || d.LegendRow > len(fd.Legend) {
				continue
			}
			if d.Flood && stopped[d.LegendRow] == 0 {
				stopped[d.LegendRow] = p.Index + 1
			}
			if !f.Keep(d) {
				continue
			}
			total[d.LegendRow]++
			perPage[[2]int{d.LegendRow, p.Index}]++
		}
	}
	for row := 1; row <= len(fd.Legend); row++ {
		r := fd.Legend[row-1]
		name := fmt.Sprintf("legend row %q (page %d)", r.Description, r.PageIndex)
		if at := stopped[row] - 1; at >= 0 {
			fd.Withheld = append(fd.Withheld, row)
			fd.Warnings = append(fd.Warnings, Warning{Code: detect.WarnFlood, Page: at, Message: fmt.Sprintf(
				"%s matched so many places on page %d (whole in more than %d, or whole and in part in more than %d), more than any plan draws of one device, that the search for it stopped there (its glyph matches lines and corners): withheld, not counted; the matches found are listed with review=all for review", name, at, vector.FloodFinds, vector.FloodPoses)})
			continue
		}
		// A printed quantity counts the legend's own sheet where that
		// sheet draws the row's devices too (a plan with its legend) and
		// as many, or the document (a legend sheet of the set): a flood
		// passes it on both readings.
		over := func(n int) bool { return n > floodFactor**r.Quantity+floodSlack }
		own := perPage[[2]int{row, r.PageIndex}]
		if r.Quantity != nil && over(total[row]) && (own == 0 || over(own)) {
			fd.Withheld = append(fd.Withheld, row)
			fd.Warnings = append(fd.Warnings, Warning{Code: detect.WarnFlood, Page: -1, Message: fmt.Sprintf(
				"%s matched %d places where it prints a quantity of %d: withheld, not counted; its matches are listed with review=all for review", name, total[row], *r.Quantity)})
			continue
		}
		worst, at := 0, -1 // the page most past its bound, and its count
		for _, p := range pages {
			n := perPage[[2]int{row, p.Index}]
			if n > detect.MaxOnPage(p.Width, p.Height) && n > worst {
				worst, at = n, p.Index
			}
		}
		if at >= 0 {
			fd.Withheld = append(fd.Withheld, row)
			fd.Warnings = append(fd.Warnings, Warning{Code: detect.WarnFlood, Page: at, Message: fmt.Sprintf(
				"%s matched %d places on page %d, more than any plan draws of one device on a sheet of its size (its glyph matches lines and corners): withheld, not counted; its matches are listed with review=all for review", name, worst, at)})
		}
	}
}

// rowKeys are the detect.RowKey of each of legend's rows, in order.
func rowKeys(legend []LegendRow) []string {
	keys := make([]string, len(legend))
	for i, r := range legend {
		keys[i] = detect.RowKey(r.Class, r.Description)
	}
	return keys
}
