package legend

import (
	"math"
	"regexp"
	"strings"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// Sheet-title cues: words that name what a sheet is, looked for in its
// text; the cue written largest decides.
var kindCues = []struct {
	kind  string
	words []string
}{
	{detect.KindRiser, []string{"RISER", "RISER DIAGRAM", "RISER DETAIL", "SCHEMATIC", "BLOCK DIAGRAM", "NOUSUKAAVIO", "PERIAATEKAAVIO", "LOHKOKAAVIO", "STRANGSCHEMA"}},
	{detect.KindSingleLine, []string{"SINGLE LINE", "SINGLE-LINE", "ONE LINE", "ONE-LINE", "LINE DIAGRAM", "SLD", "PÄÄKAAVIO", "KESKUSKAAVIO", "YKSIVIIVAKAAVIO", "ENLINJESCHEMA"}},
	{detect.KindSchedule, []string{"CALCULATIONS", "CALCULATION", "SCHEDULE", "SCHEDULES", "BILL OF MATERIAL", "BILL OF MATERIALS", "DRAWING REGISTER", "DRAWING LIST", "LASKELMA", "LASKELMAT", "PIIRUSTUSLUETTELO", "KAAPELILUETTELO"}},
	{detect.KindLegend, []string{"TITLE SHEET", "COVER SHEET", "LEGEND SHEET", "SYMBOLS AND ABBREVIATIONS", "KANSILEHTI"}},
	{detect.KindFloorPlan, []string{"FLOOR PLAN", "LAYOUT", "PLAN", "TASOPIIRUSTUS", "POHJAPIIRUSTUS", "SUUNNITELMA", "SÄHKÖSUUNNITELMA", "VALAISTUSSUUNNITELMA", "PALOILMOITINSUUNNITELMA"}},
}

// TitleKind says what kind of sheet a title names (one of detect's Kind
// constants), by the same cues as the titles on PDF pages; ok is false
// when it names none. Readers of page images use it on the lines of
// large type they read.
func TitleKind(title string) (kind string, ok bool) {
	for _, c := range kindCues {
		if hasWord(title, c.words) {
			return c.kind, true
		}
	}
	return "", false
}

// textHeavy: a page with this many characters per drawn piece or more is
// text (schedules, notes, title sheets), not a drawing.
const textHeavy = 2.5

// Kind says what a page is (one of detect's Kind constants) from its
// drawing and the legend tables found on it: a page of mostly text is a
// legend or title sheet when it holds a legend table, else a schedule;
// otherwise the sheet-title cue written largest decides, and a drawing
// without one is a floor plan. A page without a drawing is an image.
func Kind(pg *drawing.Page, tables []Table) string {
	var rs []run
	if pg != nil {
		rs = runs(pg)
	}
	k, _ := kindOf(pg, rs, tables)
	return k
}

// kindOf is Kind, also saying whether the page is a plan only by default:
// no title names it, it draws no door swing and writes almost no text
// (titles and tables drawn as outlines). Read takes such a page for a
// schematic where the document's other plans draw doors.
func kindOf(pg *drawing.Page, rs []run, tables []Table) (kind string, bare bool) {
	if pg == nil {
		return detect.KindImage, false
	}
	pieces := len(pg.Segments) + len(pg.Arcs)
	if float64(len(pg.Chars)) >= textHeavy*float64(pieces) && len(pg.Chars) > 0 {
		if len(tables) > 0 {
			return detect.KindLegend, false
		}
		return detect.KindSchedule, false
	}
	best, bestSize := detect.KindFloorPlan, 0.0
	for _, r := range rs {
		for _, c := range kindCues {
			if r.size > bestSize && hasWord(r.text, c.words) {
				best, bestSize = c.kind, r.size
			}
		}
	}
	if bestSize == 0 && !hasDoorSwing(pg) {
		// No title names the sheet and no door is drawn: a
		// single-line diagram where its words say so (circuit
		// tables); without words it may be either (see Read).
		if singleLineContent(rs) {
			return detect.KindSingleLine, false
		}
		return best, letterRuns(rs) < minPlanRuns
	}
	return best, false
}

// Single-line diagram content, for sheets whose title names nothing (CAD
// programs often write titles as outlines, not text): words that only
// distribution diagrams and their circuit tables use, and no door swing.
var (
	singleLineWords = []string{"CIRCUIT NO", "CIRCUIT NO.", "WIRE SIZE", "CABLE SIZE", "BREAKER", "MCB", "MCCB", "RCBO", "ELCB",
		"EARTH LEAKAGE", "BUSBAR", "BUS BAR", "SURGE ARRESTER", "MAIN SWITCH", "INCOMER", "PÄÄKYTKIN", "VIKAVIRTASUOJA", "JOHDONSUOJA", "RYHMÄ NRO"}
	// breakingRe: a breaking capacity ("6kA", "10 kA"), written on
	// boards' feeds, never on a plan.
	breakingRe = regexp.MustCompile(`(?i)(^|[^A-Z0-9])\d+(\.\d+)?\s?KA([^A-Z]|$)`)
)

// minSingleLineCues distinct single-line words make a sheet without a
// title cue and without a door swing a single-line diagram.
const minSingleLineCues = 2

// doorMinRadius is the smallest door swing, in raster pixels: a 0.8 m
// door at 1:200 (4 mm on paper at the raster's 200 DPI).
const doorMinRadius = 32.0

func singleLineContent(rs []run) bool {
	found := map[string]bool{}
	for _, r := range rs {
		for _, w := range singleLineWords {
			if hasWord(r.text, []string{w}) {
				found[w] = true
			}
		}
		if breakingRe.MatchString(strings.ToUpper(r.text)) {
			found["kA"] = true
		}
	}
	return len(found) >= minSingleLineCues
}

// minPlanRuns: a plan names its rooms and labels its devices; a drawing
// with fewer runs of words than this writes its text as outlines.
const minPlanRuns = 10

func letterRuns(rs []run) int {
	n := 0
	for i := range rs {
		if rs[i].letters() >= 2 {
			n++
		}
	}
	return n
}

// hasDoorSwing reports whether the page draws a door swing: a quarter
// arc of a door's radius.
func hasDoorSwing(pg *drawing.Page) bool {
	for _, a := range pg.Arcs {
		if sw := math.Abs(a.Sweep); sw >= 80 && sw <= 100 && a.R >= doorMinRadius {
			return true
		}
	}
	return false
}
