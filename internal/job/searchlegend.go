package job

import "blueprint/internal/detect"

// OffPlan reports whether a search match (box, raster pixels of page) is a
// legend row's glyph or lies where the document pass found the page draws
// no installed device (regions: its legend and schedule tables, its title
// block), which Search leaves out of its matches and near misses. It lets
// cmd/searcheval measure the search as the service answers it.
func OffPlan(rows []LegendRow, regions []OffPlanRegion, page int, box detect.Box) bool {
	if inLegend(rows, page, box) {
		return true
	}
	cx, cy := box.X+box.W/2, box.Y+box.H/2
	for _, r := range regions {
		b := r.Box
		if r.PageIndex == page && cx >= b.X && cx <= b.X+b.W && cy >= b.Y && cy <= b.Y+b.H {
			return true
		}
	}
	return false
}
