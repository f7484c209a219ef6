package detect

// Detections of classes the drawing does not name. A legend row is the
// drawing's own word for what a symbol is; the catalog's glyphs and the
// raster detector know only the catalog's symbols, drawn as our generator
// draws them. Where a job's legends name a class, its detections stand on
// that word. Where they do not (no legend read, or a legend naming other
// classes), a catalog glyph match or a raster detection is a guess that
// the drawing's symbol is the catalog's: on real drawings such guesses
// are mostly wrong (push buttons on a nurse-call plan, heaters and motion
// detectors on a socket sheet sent as an image). They are counted only
// from a confidence that real drawings showed they earn, and withheld to
// review below it.
//
// The floors were measured with `make calibrate-unnamed` (cmd/realeval
// -calibrate): every development set of ../shared/realdata, its vector
// pages and each plan page rendered at 200 DPI and sent alone as an image
// (which the raster detector never trained on), each detection no legend
// row found, of a class no legend row of its job names, labelled right
// when the set's count truth (testdata/realtruth) holds that class and
// wrong when it does not. Each floor is the lowest confidence from which
// at least UnnamedTarget of those detections are right; docs/decisions.md
// ("Answers that say when they do not know") gives the distributions. The
// two are apart because the scores differ in meaning: a vector match's is
// how well the drawing's strokes fit the catalog glyph (an exact glyph
// scores near 1), a raster detection's is the classifier's probability,
// which it gives a look-alike of its training glyphs as readily.
const (
	// UnnamedVectorFloor is the floor of a catalog glyph match (the
	// vector matcher's, confirmed by the raster detector or not).
	UnnamedVectorFloor = 0.95
	// UnnamedRasterFloor is the floor of a raster detection no vector
	// match confirms.
	UnnamedRasterFloor = 0.95
	// UnnamedTarget is the share of right-class detections the floors
	// are chosen to reach on the development sets (issue 48's measure:
	// at least 80 % of the detections reported on images in a class the
	// sheet has).
	UnnamedTarget = 0.8
)

// UnnamedFloor is the confidence a detection of source s, of a class no
// legend row of its job names, must reach to be counted.
func UnnamedFloor(s Source) float64 {
	if s.VectorMatching {
		return UnnamedVectorFloor
	}
	return UnnamedRasterFloor
}

// Unnamed reports whether d was found by the catalog's glyphs or the
// raster detector alone (no legend row's glyph found it) and is of a
// class that named, the classes the job's legend rows name, does not
// hold.
func Unnamed(d Detection, named map[string]bool) bool {
	return d.LegendRow == 0 && d.Class != "" && !named[d.Class]
}

// Withheld reports whether d is withheld to review as a guess the drawing
// does not back: Unnamed and below UnnamedFloor of its source. A withheld
// detection is stored, listed for review and counted once a reviewer
// accepts it, never counted before.
func Withheld(d Detection, named map[string]bool) bool {
	return Unnamed(d, named) && d.Confidence < UnnamedFloor(d.Source)
}

// NamedClasses returns the classes legend rows name (rows of no class
// name none).
func NamedClasses(rows []LegendRow) map[string]bool {
	named := make(map[string]bool, len(rows))
	for _, r := range rows {
		if r.Class != "" {
			named[r.Class] = true
		}
	}
	return named
}
