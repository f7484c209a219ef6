package detect

import (
	"math"
	"strings"

	"blueprint/internal/median"
)

// Off-scale matches. A drawing set inserts each device's block at one
// size, or at a few (sheets plotted at 1:50 and at 1:100 differ by two):
// a legend row's glyph matched at less than a third, or more than three
// times, the size of the row's other matches in the document is a
// look-alike inside other linework (a logo in the title block, a hatch, a
// part of a larger symbol, a key plan's miniature), not one more device.
const (
	// OffScaleFactor is how far, as a factor either way, a match's size
	// may stand from the median size of its row's matches.
	OffScaleFactor = 3.0
	// offScaleMinSupport is the least number of sure matches
	// (offScaleSure or more) a row needs before its median size is
	// trusted.
	offScaleMinSupport = 5
	// offScaleSure is the confidence of a match that sets a row's size.
	offScaleSure = 0.5
)

// MarkOffScale sets OffScale on the legend-row matches of pages (the
// detections of each page of one document) whose size (the square root of
// the box's area, the same for a symbol turned 90°) is off the median size
// of their row's sure matches in the document by more than OffScaleFactor.
// rows[i] is RowKey of legend row i+1: rows of one key are taken as one (a
// legend drawn on every sheet gives each sheet its own rows). A detection
// found by a tag alone (its box is the tag's, not a glyph's) neither sets
// a size nor is marked. It returns how many it marked.
func MarkOffScale(pages [][]Detection, rows []string) int {
	key := func(row int) string {
		if row <= 0 || row > len(rows) {
			return ""
		}
		return rows[row-1]
	}
	glyph := func(d Detection) bool {
		return d.LegendRow > 0 && (d.Source.VectorMatching || d.Source.Detector) && d.Box.W > 0 && d.Box.H > 0
	}
	sizes := map[string][]float64{}
	for _, ds := range pages {
		for _, d := range ds {
			if k := key(d.LegendRow); k != "" && glyph(d) && d.Confidence >= offScaleSure {
				sizes[k] = append(sizes[k], math.Sqrt(d.Box.W*d.Box.H))
			}
		}
	}
	typical := median.ByKey(sizes, offScaleMinSupport)
	marked := 0
	for _, ds := range pages {
		for i := range ds {
			d := &ds[i]
			med, ok := typical[key(d.LegendRow)]
			if !ok || !glyph(*d) {
				continue
			}
			if s := math.Sqrt(d.Box.W * d.Box.H); s < med/OffScaleFactor || s > med*OffScaleFactor {
				d.OffScale = true
				marked++
			}
		}
	}
	return marked
}

// RowKey is what legend rows of one device share wherever they are drawn:
// their class and their description, in lower case with its spaces
// collapsed.
func RowKey(class, description string) string {
	return class + "\x00" + strings.Join(strings.Fields(strings.ToLower(description)), " ")
}

// RowKeys are the RowKey of each of legend's rows, in order: MarkOffScale's
// rows for a document's legend.
func RowKeys(legend []LegendRow) []string {
	keys := make([]string, len(legend))
	for i, r := range legend {
		keys[i] = RowKey(r.Class, r.Description)
	}
	return keys
}
