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
// at least UnnamedTarget of those detections are right, set where at
// least UnnamedEvidence of them were measured; docs/decisions.md
// ("Answers that say when they do not know") gives the distributions.
//
// They are apart because the scores differ in meaning. A raster
// detection's is the classifier's probability, which it gives a
// look-alike of its training glyphs as readily as the glyph: 412 guesses
// on the renders, 13 % right, and no band of confidence right 80 % of the
// time (25 % from 0.95 up): its floor withholds them all. A vector match's
// is how much of the catalog glyph the drawing's strokes cover, 0.99 for
// a complete fit, and a real sheet's own device drawn as a circle with a
// dot fits the catalog's push button completely: 88 guesses on pages
// whose words are drawn as outlines (their legends unread), all wrong, 83
// at 0.99. Where the page's text was read, real drawings gave none
// where no legend named a class, and guesses all wrong where legends
// drawing their own symbols named other classes (UnnamedLegendFloor says
// what becomes of those); the warning says a class was found by the
// catalog alone.
const (
	// UnnamedRasterFloor is the floor of a raster detection no vector
	// match confirms: above every such guess measured (the highest, a
	// wrong one, 0.9983; the highest right one 0.997).
	UnnamedRasterFloor = 0.999
	// UnnamedUnreadFloor is the floor of a catalog glyph match on a page
	// whose text was not read (words drawn as outlines: a legend there
	// could not be read): above the matcher's highest confidence, 0.99,
	// which every wrong guess measured reached.
	UnnamedUnreadFloor = 1.0
	// UnnamedVectorFloor is the floor of a catalog glyph match on a page
	// whose text was read, in a job whose legends name no class: none,
	// for want of evidence (see above).
	UnnamedVectorFloor = 0.0
	// UnnamedLegendFloor is the floor of a catalog glyph match on a page
	// whose text was read, in a job whose legends name other classes:
	// none. Where the legend draws its own symbols such glyphs are not
	// searched at all (internal/engine, ownStyle): the real sets plotted
	// at 0.5 to 2 times their size gave 34 such guesses, every one wrong
	// at 0.99. Where it draws the catalog's (EN 60617's, as
	// the generated yardsticks do), it keys only some of them and relies
	// on the standard for the rest, and they are counted.
	UnnamedLegendFloor = 0.0
	// UnnamedTarget is the share of right-class detections the floors
	// are chosen to reach on the development sets (issue 48's measure:
	// at least 80 % of the detections reported on images in a class the
	// sheet has).
	UnnamedTarget = 0.8
	// UnnamedEvidence is the least number of detections measured in a
	// kind (finder, and for catalog matches whether the page's text was
	// read) that a floor is set on; with fewer, none is.
	UnnamedEvidence = 20
)

// UnnamedFloor is the confidence a detection of source s, of a class no
// legend row of its job names, must reach to be counted; textRead says
// whether its page's text was read from a text layer (no text_not_read
// or text_read_by_ocr warning). A source
// of neither finder (none measured) has no floor.
func UnnamedFloor(s Source, textRead, legendRead bool) float64 {
	switch {
	case s.VectorMatching && !textRead:
		return UnnamedUnreadFloor
	case s.VectorMatching && legendRead:
		return UnnamedLegendFloor
	case s.VectorMatching:
		return UnnamedVectorFloor
	case s.Detector:
		return UnnamedRasterFloor
	}
	return 0
}

// Unnamed reports whether d was found by the catalog's glyphs or the
// raster detector alone (no legend row's glyph found it) and is of a
// class that named, the classes the job's legend rows name, does not
// hold.
func Unnamed(d Detection, named map[string]bool) bool {
	return d.LegendRow == 0 && d.Class != "" && !named[d.Class]
}

// Withheld reports whether d, on a page whose text was read or not
// (textRead), is withheld to review as a guess the drawing does not
// back: Unnamed and below UnnamedFloor of its source. A withheld
// detection is stored, listed for review and counted once a reviewer
// accepts it, never counted before.
func Withheld(d Detection, named map[string]bool, textRead bool) bool {
	return Unnamed(d, named) && d.Confidence < UnnamedFloor(d.Source, textRead, len(named) > 0)
}

// Held reports whether d is kept out of the service's take-off by a mark
// of its own, whatever its row's count: far off its legend row's size
// (OffScale), of a row the matcher stopped looking for as a flood
// (Flood), or a guess the drawing does not back (Withheld). A row
// withheld as a flood by its count alone is the job's to say.
func Held(d Detection, named map[string]bool, textRead bool) bool {
	return d.OffScale || d.Flood || Withheld(d, named, textRead)
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

// TextUnread returns the pages without a text layer whose text was
// either not read or read by OCR of its outlines, as the text_not_read
// and text_read_by_ocr warnings name them: the pages UnnamedFloor's
// unread floor applies to.
func TextUnread(ws []Warning) map[int]bool {
	out := map[int]bool{}
	for _, w := range ws {
		if (w.Code == WarnTextNotRead || w.Code == WarnTextByOCR) && w.Page >= 0 {
			out[w.Page] = true
		}
	}
	return out
}
