package legend

import (
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

// textHeavy: a page with this many characters per drawn piece or more is
// text (schedules, notes, title sheets), not a drawing.
const textHeavy = 2.5

// Kind says what a page is (one of detect's Kind constants) from its
// drawing and the legend tables found on it: a page of mostly text is a
// legend or title sheet when it holds a legend table, else a schedule;
// otherwise the sheet-title cue written largest decides, and a drawing
// without one is a floor plan. A page without a drawing is an image.
func Kind(pg *drawing.Page, tables []Table) string {
	if pg == nil {
		return detect.KindImage
	}
	pieces := len(pg.Segments) + len(pg.Arcs)
	if float64(len(pg.Chars)) >= textHeavy*float64(pieces) && len(pg.Chars) > 0 {
		if len(tables) > 0 {
			return detect.KindLegend
		}
		return detect.KindSchedule
	}
	best, bestSize := detect.KindFloorPlan, 0.0
	for _, r := range runs(pg) {
		for _, c := range kindCues {
			if r.size > bestSize && hasWord(r.text, c.words) {
				best, bestSize = c.kind, r.size
			}
		}
	}
	return best
}
