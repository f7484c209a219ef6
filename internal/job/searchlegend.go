package job

import "blueprint/internal/detect"

// InLegend reports whether a search match (box, raster pixels of page) is a
// legend row's glyph, which Search leaves out of its matches. It lets
// cmd/searcheval measure the search as the service answers it.
func InLegend(rows []LegendRow, page int, box detect.Box) bool {
	return inLegend(rows, page, box)
}
