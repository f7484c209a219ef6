package engine

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/drawing"
)

// drawingPage serves a drawing read by the document pass as a page's
// vector side, so the test needs no raster.
type drawingPage struct{ pg *drawing.Page }

func (d drawingPage) Drawing(context.Context) (*drawing.Page, error) { return d.pg, nil }

// countRealData runs the document pass and the page pass over a real PDF
// and returns the detections per class at the catalog's default thresholds.
func countRealData(t *testing.T, name string) (map[string]int, detect.DocumentInfo) {
	counts, _, info := countRealDataPages(t, name)
	return counts, info
}

// countRealDataPages is countRealData with the counts of each page too.
func countRealDataPages(t *testing.T, name string) (map[string]int, []map[string]int, detect.DocumentInfo) {
	t.Helper()
	path := filepath.Join("..", "..", "..", "shared", "realdata", name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Skipf("real drawing %s not available (%v): the real-data check runs where ../shared/realdata is present", name, err)
	}
	if testing.Short() {
		t.Skip("real drawings are slow; skipped with -short")
	}
	ctx := context.Background()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	eng, err := New(cat, Options{RasterOff: true}) // the pages below carry drawings, not rasters
	if err != nil {
		t.Fatal(err)
	}
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	defer doc.Close()
	pe, info, err := eng.Prepare(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	pages := countPages(t, cat, pe, doc, info.Legend)
	counts := map[string]int{}
	for _, pc := range pages {
		for c, n := range pc {
			counts[c] += n
		}
	}
	return counts, pages, info
}

// countPages runs the page pass of pe over every page of doc (its
// drawings, no raster) and returns each page's detections per class at
// the catalog's default thresholds, less the matches the service
// withholds as off scale against legend's rows (detect.MarkOffScale).
// Detections of no class (legend rows naming none) are left out.
func countPages(t *testing.T, cat *catalog.Catalog, pe detect.Engine, doc *document.Document, legend []detect.LegendRow) []map[string]int {
	t.Helper()
	found := detectPages(t, pe, doc)
	detect.MarkOffScale(found, detect.RowKeys(legend))
	pages := make([]map[string]int, doc.NumPages())
	for i, ds := range found {
		pages[i] = map[string]int{}
		for _, d := range ds {
			if th, _ := cat.Threshold(d.Class); d.Class != "" && d.Confidence >= th && !d.OffScale {
				pages[i][d.Class]++
			}
		}
	}
	return pages
}

// detectPages runs pe on each page of doc's drawing.
func detectPages(t *testing.T, pe detect.Engine, doc *document.Document) [][]detect.Detection {
	t.Helper()
	ctx := context.Background()
	found := make([][]detect.Detection, doc.NumPages())
	for i := range doc.NumPages() {
		pg, err := doc.Drawing(ctx, i)
		if err != nil {
			t.Fatal(err)
		}
		if found[i], err = pe.Detect(ctx, detect.Page{Index: i, PDF: drawingPage{pg}}); err != nil {
			t.Fatal(err)
		}
	}
	return found
}

// within is the tolerance on a printed quantity: exact below 10,
// within 1 from 10 to 29, within 5 % from 30 up.
func within(got, want int) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	switch {
	case want < 10:
		return d == 0
	case want < 30:
		return d <= 1
	}
	return float64(d) <= 0.05*float64(want)
}

// TestRealDataFireAlarmLegend: the US fire-alarm set's F0 legend prints a
// quantity per row; every class with a printed quantity is counted within
// tolerance (../shared/realdata/README.md lists the mapping).
func TestRealDataFireAlarmLegend(t *testing.T) {
	counts, info := countRealData(t, "fire_alarm_us_cp4.pdf")
	printed := map[string]int{
		"fire_alarm_panel": 1, "power_supply": 1, "fire_brigade_panel": 1, "alarm_transmitter": 1,
		"manual_call_point": 11, "smoke_detector": 1, "duct_detector": 4, "io_module": 6,
		"speaker_visual": 53, "visual_alarm": 4, "speaker": 4, "sounder_visual": 1,
	}
	for class, want := range printed {
		if got := counts[class]; !within(got, want) {
			t.Errorf("%s: detected %d, printed %d", class, got, want)
		}
	}
	for class, n := range counts {
		if _, ok := printed[class]; !ok {
			t.Errorf("%s: %d detections of a class the legend does not list", class, n)
		}
	}
	wantKinds := []string{detect.KindLegend, detect.KindFloorPlan, detect.KindFloorPlan, detect.KindSchedule, detect.KindRiser}
	for i, k := range wantKinds {
		if i >= len(info.Kinds) || info.Kinds[i] != k {
			t.Errorf("page kinds %v, want %v", info.Kinds, wantKinds)
			break
		}
	}
	if len(info.Legend) != 19 {
		t.Errorf("%d legend rows, want the 19 symbol rows of F0", len(info.Legend))
	}
	t.Logf("detected %v", counts)
}

// zaFixture is a hand count of the four plans of electrical_za_newmark.pdf
// (1-based page: class: instances), by legend row mapped to our classes
// the way the service maps them (internal/legend/vocabulary.tsv). Counted
// by eye from mutool renders at 250 DPI (600 DPI crops where a glyph was
// unclear), each plan cut into overlapping tiles, every symbol ticked off
// once in the tile holding its centre; the legend tables and title block
// are not counted.
//
// Lighting plans, page 4 (first floor) and 6 (ground floor): "18W LED
// ceiling light" = luminaire, "30W LED flood light" = spotlight, "600 x
// 1200 recessed" (the striped bars: 2 in the parking, 1 in the carport
// beside it, 4 in the solar carport, 1 in the battery room; a first count
// had 7, a recount from 400 DPI crops 8) = luminaire_linear, the faint pink "2 lever, 1 way switch" =
// switch_series (no red 1-lever switch is drawn on either), the red flag
// "Distribution Board" = distribution_board.
//
// Power plans, page 5 (first floor) and 7 (ground floor): "16A Single
// Switched Socket" = socket_outlet_switched, "16A Double Switched Socket"
// = socket_outlet_double (the 300 mm rows, faint pink outline, and the
// 1100 mm rows, black filled, map alike; a double is the glyph with two
// stems), "DATA SOCKET OUTLET CAT 6" = data_outlet, "Distribution Board"
// = distribution_board. "FLOOR BOX" maps to no class, so a floor box is
// not a device of its own: each outlet drawn in it counts under its own
// row, as an estimator's take-off lists the outlets. Every desk box on
// these plans holds two single outline sockets and one data outlet (13
// boxes on page 5, 4 on page 7). Wall outlets: page 5, 17 data and 19
// faint doubles on the walls plus 2 black 1100 mm doubles in the
// kitchenettes; page 7, 14 data and 18 faint doubles. No switch,
// isolator or light is drawn on either power plan.
var zaFixture = map[int]map[string]int{
	4: {"luminaire": 41, "switch_series": 11, "distribution_board": 3},
	5: {"socket_outlet_switched": 26, "socket_outlet_double": 21, "data_outlet": 30, "distribution_board": 3},
	6: {"luminaire": 33, "spotlight": 5, "luminaire_linear": 8, "switch_series": 10, "distribution_board": 3},
	7: {"socket_outlet_switched": 8, "socket_outlet_double": 18, "data_outlet": 18, "distribution_board": 3},
}

// zaPlanPages are the pages of zaFixture in order.
var zaPlanPages = []int{4, 5, 6, 7}

// zaMaxError is the summed |detected - counted| over the fixture's pages
// (classes of either): a guard against regressions, lowered as detection
// improves. It was 70 when the fixture was made; the floor boxes' single
// sockets (nested glyphs, drawn without the legend's piece of wall), the
// boards' look-alikes (solid wall piers), a header no longer lent to the
// plan labels below another legend, and poses refined by small steps (the
// ceiling lights whose bow-tie is turned against its circles) took it to
// issue 35's target of 20; the faint switches drawn with one tick, given
// to the 2-lever row by their pen (a hairline), took it to 12; the
// consultant's logo in the title block, whose pieces match a switch glyph
// at a fifth of its size on each plan, withheld as off scale
// (detect.MarkOffScale), to 7; the 600 x 1200 bars, whose plan draws two
// tubes to length where the legend draws three in a squat box (tube
// fittings, internal/vector/tubes.go), to 0.
const zaMaxError = 0

// TestRealDataSouthAfrica: the South African office set's single-line
// diagrams (pages 2-3, titles drawn as outlines) and drawing register
// (page 1) yield nothing; its lighting and power plans are reported
// against the hand count (zaFixture) and may not get worse than
// zaMaxError.
func TestRealDataSouthAfrica(t *testing.T) {
	_, pages, info := countRealDataPages(t, "electrical_za_newmark.pdf")
	t.Logf("kinds %v, %d legend rows", info.Kinds, len(info.Legend))
	for i, p := range pages[:min(3, len(pages))] {
		if len(p) > 0 {
			t.Errorf("page %d (%s): detections %v on a sheet that installs nothing", i+1, info.Kinds[i], p)
		}
	}
	sum := 0
	for _, page := range zaPlanPages {
		want, got := zaFixture[page], pages[page-1]
		classes := map[string]bool{}
		for c := range want {
			classes[c] = true
		}
		for c := range got {
			classes[c] = true
		}
		var names []string
		for c := range classes {
			names = append(names, c)
		}
		sort.Strings(names)
		for _, c := range names {
			d := got[c] - want[c]
			if d < 0 {
				d = -d
			}
			sum += d
			t.Logf("page %d %-22s counted %3d detected %3d", page, c, want[c], got[c])
		}
	}
	t.Logf("summed |detected - counted| on pages %v: %d", zaPlanPages, sum)
	// Issue 35 cases 6 and 7: a board on every plan, no wall pier taken
	// for one; the single sockets of page 5's floor boxes.
	for _, page := range zaPlanPages {
		if got := pages[page-1]["distribution_board"]; !within(got, zaFixture[page]["distribution_board"]) {
			t.Errorf("page %d: %d distribution boards, counted %d", page, got, zaFixture[page]["distribution_board"])
		}
	}
	if got := pages[4]["socket_outlet_switched"]; !within(got, zaFixture[5]["socket_outlet_switched"]) {
		t.Errorf("page 5: %d single switched sockets, counted %d in the floor boxes", got, zaFixture[5]["socket_outlet_switched"])
	}
	if sum > zaMaxError {
		t.Errorf("summed error %d over the hand count, was %d", sum, zaMaxError)
	}
}
