package job

import (
	"strings"
	"testing"

	"blueprint/internal/detect"
)

// TestWarnings: a done job says what its take-off cannot stand behind:
// the document pass's stored warnings, a counted page without any legend,
// classes only the catalog or the detector found beside a legend that
// names others, and legend rows that matched far more than they print or
// than a plan draws; pages not counted and pages with nothing found say
// nothing.
func TestWarnings(t *testing.T) {
	plan := Page{Index: 1, Kind: detect.KindFloorPlan}
	codes := func(vs []WarningView) string {
		var s []string
		for _, v := range vs {
			p := "doc"
			if v.PageIndex != nil {
				p = string(rune('0' + *v.PageIndex))
			}
			s = append(s, v.Code+"@"+p)
			if v.Message == "" {
				t.Errorf("warning %s without a message", v.Code)
			}
		}
		return strings.Join(s, " ")
	}

	// No legend anywhere: each counted page with detections says so.
	bare := newWarnings(&Job{Warnings: []Warning{{Code: detect.WarnTextNotRead, Page: 0, Message: "page 0 writes no text"}}})
	bare.page(Page{Index: 0, Kind: detect.KindLegend}, []storedDetection{{Class: "smoke_detector"}}, nil)
	bare.page(plan, []storedDetection{{Class: "smoke_detector"}, {Class: "push_button"}}, nil)
	bare.page(Page{Index: 2, Kind: detect.KindFloorPlan}, nil, nil)
	// A page whose every detection is withheld still says so.
	bare.page(Page{Index: 3, Kind: detect.KindImage}, nil, []storedDetection{{Class: "heater", Withheld: withheldCatalogOnly}, {Class: "heater", Withheld: withheldCatalogOnly}})
	if got, want := codes(bare.views()), "text_not_read@0 no_legend@1 no_legend@3"; got != want {
		t.Errorf("no legend: %s, want %s", got, want)
	}
	if msg := bare.views()[2].Message; !strings.Contains(msg, "2 withheld") || !strings.Contains(msg, "heater 2") || strings.Contains(msg, "counted (") {
		t.Errorf("no legend, all withheld: %q", msg)
	}

	// Devices counted by the equipment labels a page writes are said so,
	// apart: not among the catalog's guesses of no_legend.
	labels := newWarnings(&Job{})
	tagged := detect.Source{Tag: true}
	labels.page(plan, []storedDetection{{Class: "ev_charger", Source: tagged}, {Class: "ev_charger", Source: tagged}, {Class: "distribution_board", Source: tagged}}, nil)
	labels.page(Page{Index: 2, Kind: detect.KindImage}, []storedDetection{{Class: "ev_charger", Source: tagged}, {Class: "motion_detector"}}, nil)
	if got, want := codes(labels.views()), "counted_by_labels@1 counted_by_labels@2 no_legend@2"; got != want {
		t.Errorf("labels: %s, want %s", got, want)
	}
	if vs := labels.views(); !strings.Contains(vs[0].Message, "3 devices") || !strings.Contains(vs[0].Message, "ev_charger 2") ||
		!strings.Contains(vs[2].Message, "its 1 detections") || strings.Contains(vs[2].Message, "ev_charger") {
		t.Errorf("labels messages %+v", vs)
	}

	// A legend naming smoke detectors and sounders: a push button found by
	// the catalog alone is flagged, a catalog smoke detector is not.
	q := 3
	j := &Job{Legend: []LegendRow{{PageIndex: 0, Class: "smoke_detector", Quantity: &q}, {PageIndex: 0, Class: "sounder"}}}
	w := newWarnings(j)
	w.page(plan, []storedDetection{{Class: "smoke_detector", LegendRow: 1}, {Class: "smoke_detector"}, {Class: "push_button"}, {Class: "push_button"}},
		[]storedDetection{{Class: "heater", Withheld: withheldCatalogOnly}, {Class: "sounder", LegendRow: 2, Withheld: withheldFlood}})
	if got, want := codes(w.views()), "catalog_only@1"; got != want {
		t.Errorf("legend and a catalog-only class: %s, want %s", got, want)
	}
	if msg := w.views()[0].Message; !strings.Contains(msg, "3 detections") || !strings.Contains(msg, "2 counted (push_button 2)") || !strings.Contains(msg, "1 withheld") || !strings.Contains(msg, "(heater 1)") {
		t.Errorf("catalog_only message %q", msg)
	}
}

// TestWithholdFloods: a legend row whose matches pass far over its
// printed quantity, or over what one plan draws, is withheld with a flood
// warning; one within them, matches on a page not counted, and matches
// under the class's threshold are not counted against it.
func TestWithholdFloods(t *testing.T) {
	q := 3
	fd := findings{Legend: []LegendRow{
		{PageIndex: 0, Description: "smoke", Class: "smoke_detector", Quantity: &q},
		{PageIndex: 0, Description: "sounder", Class: "sounder"},
		{PageIndex: 0, Description: "bell", Class: "sounder", Quantity: &q},
	}}
	pages := []Page{{Index: 0, Kind: detect.KindLegend}, {Index: 1, Kind: detect.KindFloorPlan}, {Index: 2, Kind: detect.KindFloorPlan}}
	dets := make([][]detect.Detection, 3)
	add := func(page, row, n int, conf float64) {
		for range n {
			dets[page] = append(dets[page], detect.Detection{Class: fd.Legend[row-1].Class, Confidence: conf, LegendRow: row})
		}
	}
	add(0, 1, 500, 0.9)                        // the legend page: not counted
	add(1, 1, floodFactor*q+floodSlack, 0.9)   // at the bound: counted
	add(1, 1, 50, 0.01)                        // under any threshold
	add(1, 2, detect.MaxPerPage/2, 0.9)        // two pages of many: each plausible
	add(2, 2, detect.MaxPerPage/2, 0.9)        //
	add(2, 3, floodFactor*q+floodSlack+1, 0.9) // past its printed quantity
	floor := 0.25
	f := detect.Filter{Flat: &floor}
	fd.withholdFloods(pages, dets, f)
	if len(fd.Withheld) != 1 || fd.Withheld[0] != 3 || len(fd.Warnings) != 1 || fd.Warnings[0].Code != detect.WarnFlood {
		t.Fatalf("withheld %v, warnings %+v; want row 3 withheld with one flood warning", fd.Withheld, fd.Warnings)
	}
	add(2, 2, detect.MaxPerPage, 0.9) // page 2 now past what a plan draws
	fd = findings{Legend: fd.Legend}
	fd.withholdFloods(pages, dets, f)
	if len(fd.Withheld) != 2 || fd.Withheld[0] != 2 || fd.Warnings[0].Page != 2 {
		t.Errorf("withheld %v, warnings %+v; want rows 2 (on page 2) and 3", fd.Withheld, fd.Warnings)
	}
	// A smaller sheet holds fewer: 300 of a row are plausible on an A1
	// sheet, a flood on an A3 (detect.MaxOnPage).
	sized := []Page{{Index: 0, Kind: detect.KindFloorPlan, Width: 6622, Height: 4677}, {Index: 1, Kind: detect.KindFloorPlan, Width: 3309, Height: 2339}}
	many := func(page int) [][]detect.Detection {
		d := make([][]detect.Detection, 2)
		for range 300 {
			d[page] = append(d[page], detect.Detection{Class: "sounder", Confidence: 0.9, LegendRow: 2})
		}
		return d
	}
	for page, flood := range []bool{false, true} {
		fs := findings{Legend: fd.Legend}
		fs.withholdFloods(sized, many(page), f)
		if got := len(fs.Withheld) == 1 && fs.Warnings[0].Page == page; got != flood {
			t.Errorf("300 matches on page %d (%d x %d px): withheld %v, warnings %+v; want a flood %v", page, sized[page].Width, sized[page].Height, fs.Withheld, fs.Warnings, flood)
		}
	}
	// A row the matcher stopped looking for on a page is a flood there
	// however few of its matches are left, even under the threshold.
	dets[1] = append(dets[1], detect.Detection{Class: "smoke_detector", Confidence: 0.01, LegendRow: 1, Flood: true})
	fd = findings{Legend: fd.Legend}
	fd.withholdFloods(pages, dets, f)
	if len(fd.Withheld) != 3 || fd.Withheld[0] != 1 || fd.Warnings[0].Page != 1 || !strings.Contains(fd.Warnings[0].Message, "stopped") {
		t.Errorf("withheld %v, warnings %+v; want row 1 (stopped on page 1), 2 and 3", fd.Withheld, fd.Warnings)
	}

	// A plan that prints its legend's quantities for its own sheet: the
	// row drawn as often as printed there, and more on the next sheet,
	// is no flood; drawn on its own sheet far past its quantity, it is.
	q2 := 80
	own := []LegendRow{{PageIndex: 1, Description: "bell", Class: "sounder", Quantity: &q2}}
	two := []Page{{Index: 1, Kind: detect.KindFloorPlan}, {Index: 2, Kind: detect.KindFloorPlan}}
	mk := func(first, second int) [][]detect.Detection { // by position in two
		ds := make([][]detect.Detection, 2)
		for range first {
			ds[0] = append(ds[0], detect.Detection{Class: "sounder", Confidence: 0.9, LegendRow: 1})
		}
		for range second {
			ds[1] = append(ds[1], detect.Detection{Class: "sounder", Confidence: 0.9, LegendRow: 1})
		}
		return ds
	}
	fo := findings{Legend: own}
	fo.withholdFloods(two, mk(80, 190), f)
	if len(fo.Withheld) != 0 {
		t.Errorf("80 on the legend's sheet (80 printed) and 190 on the next: withheld %v, %+v; want none", fo.Withheld, fo.Warnings)
	}
	fo = findings{Legend: own}
	fo.withholdFloods(two, mk(2*q2+floodSlack+1, 0), f)
	if len(fo.Withheld) != 1 {
		t.Errorf("%d on the legend's sheet (80 printed): withheld %v; want the row", 2*q2+floodSlack+1, fo.Withheld)
	}

	// Withheld matches are not counted, are listed for review, and count
	// once a reviewer accepts them.
	sp := storedPage{Detections: []storedDetection{{ID: "a", Class: "sounder", Confidence: 0.9, LegendRow: 3}, {ID: "b", Class: "sounder", Confidence: 0.9, LegendRow: 3}, {ID: "c", Class: "sounder", Confidence: 0.9}}}
	pr := &PageReviews{Reviews: []Review{{DetectionID: "b", Decision: DecisionAccepted}}}
	rv := sp.reviewed(pr, fd.Legend).withheld(withholding{rows: []int{3}, named: map[string]bool{"sounder": true}})
	var ids []string
	for _, d := range rv.visible(detect.Filter{}) {
		ids = append(ids, d.ID)
	}
	if strings.Join(ids, ",") != "b,c" {
		t.Errorf("counted %v, want the accepted b and the catalog c", ids)
	}
	if n := len(rv.filtered(detect.Filter{}, true)); n != 3 {
		t.Errorf("listed for review: %d, want 3", n)
	}
}

// TestWithholdUnnamed: a detection no legend row found, of a class no
// legend row names, below its finder's floor (for a catalog glyph match,
// the floor of a page whose text was or was not read), is withheld as
// catalog_only:
// not counted, listed with review=all, counted once accepted; one at its
// floor, one of a named class, a legend row's find and one a reviewer
// re-classed are counted.
func TestWithholdUnnamed(t *testing.T) {
	vec := detect.Source{VectorMatching: true}
	ras := detect.Source{Detector: true}
	low := detect.UnnamedUnreadFloor - 0.1
	sp := storedPage{Detections: []storedDetection{
		{ID: "a", Class: "push_button", Confidence: low, Source: vec},
		{ID: "b", Class: "push_button", Confidence: detect.UnnamedUnreadFloor, Source: vec},
		{ID: "c", Class: "heater", Confidence: detect.UnnamedRasterFloor - 0.1, Source: ras},
		{ID: "d", Class: "smoke_detector", Confidence: low, Source: vec},
		{ID: "e", Class: "push_button", Confidence: low, Source: vec, LegendRow: 2},
		{ID: "f", Class: "push_button", Confidence: low, Source: vec},
		{ID: "g", Class: "heater", Confidence: low, Source: ras},
	}}
	legend := []LegendRow{{Class: "smoke_detector"}, {Class: ""}}
	j := &Job{Legend: legend, Warnings: []Warning{{Code: detect.WarnTextNotRead, Page: 0, Message: "outlines"}}}
	pr := &PageReviews{Reviews: []Review{{DetectionID: "f", Decision: DecisionAccepted}, {DetectionID: "g", Class: "sounder"}}}
	rv := sp.reviewed(pr, legend).withheld(j.withholding(0))
	var counted, held []string
	for _, d := range rv.visible(detect.Filter{}) {
		counted = append(counted, d.ID)
	}
	for _, d := range rv.filtered(detect.Filter{}, true) {
		if d.Withheld != "" {
			held = append(held, d.ID+":"+d.Withheld)
		}
	}
	if got, want := strings.Join(counted, ","), "b,d,e,f,g"; got != want {
		t.Errorf("counted %s, want %s", got, want)
	}
	if got, want := strings.Join(held, ","), "a:catalog_only,c:catalog_only"; got != want {
		t.Errorf("withheld %s, want %s", got, want)
	}
	// On a page whose text was read the catalog glyph match stands
	// (UnnamedVectorFloor); the raster detection is still withheld.
	held = held[:0]
	for _, d := range sp.withheld(j.withholding(1)).filtered(detect.Filter{}, true) {
		if d.Withheld != "" {
			held = append(held, d.ID)
		}
	}
	if got, want := strings.Join(held, ","), "c,g"; got != want {
		t.Errorf("text read: withheld %s, want %s", got, want)
	}
}

// TestWithholdOffScale: a legend-row match marked off scale at processing
// (detect.MarkOffScale) is withheld as off_scale: not counted, listed with
// review=all, counted once a reviewer accepts it; its page carries an
// off_scale warning naming the class.
func TestWithholdOffScale(t *testing.T) {
	legend := []LegendRow{{Class: "switch_series", Description: "2 lever switch"}}
	sp := storedPage{Detections: []storedDetection{
		{ID: "a", Class: "switch_series", Confidence: 0.99, LegendRow: 1},
		{ID: "b", Class: "switch_series", Confidence: 0.99, LegendRow: 1, OffScale: true},
		{ID: "c", Class: "switch_series", Confidence: 0.99, LegendRow: 1, OffScale: true},
	}}
	j := &Job{Legend: legend}
	pr := &PageReviews{Reviews: []Review{{DetectionID: "c", Decision: DecisionAccepted}}}
	rv := sp.reviewed(pr, legend).withheld(j.withholding(0))
	var counted, held []string
	for _, d := range rv.visible(detect.Filter{}) {
		counted = append(counted, d.ID)
	}
	var withheld []storedDetection
	for _, d := range rv.filtered(detect.Filter{}, true) {
		if d.Withheld != "" {
			held = append(held, d.ID+":"+d.Withheld)
			withheld = append(withheld, d)
		}
	}
	if got, want := strings.Join(counted, ","), "a,c"; got != want {
		t.Errorf("counted %s, want %s", got, want)
	}
	if got, want := strings.Join(held, ","), "b:off_scale"; got != want {
		t.Errorf("withheld %s, want %s", got, want)
	}
	w := newWarnings(j)
	w.page(Page{Index: 2, Kind: detect.KindFloorPlan}, rv.visible(detect.Filter{}), withheld)
	vs := w.views()
	if len(vs) != 1 || vs[0].Code != detect.WarnOffScale || vs[0].PageIndex == nil || *vs[0].PageIndex != 2 ||
		!strings.Contains(vs[0].Message, "1 legend-glyph match withheld") || !strings.Contains(vs[0].Message, "switch_series 1") {
		t.Errorf("warnings %+v, want one off_scale on page 2 naming switch_series 1", vs)
	}
}
