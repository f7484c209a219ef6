// Package glyphsearch finds every instance of an exemplar glyph on a page
// image (a scan, a photo, a rendered sheet; gray or colour, 150–300 DPI):
// at any angle, mirrored or not, at 0.7–1.5 times the exemplar's size, and
// for elongated glyphs stretched along their long axis. The exemplar is a
// box on the same page ("find more like this", Search) or a separate image
// such as a legend row's glyph (SearchImage). Pure Go, standard library.
//
// The method follows Kim and Araújo's Ciratefi (circular, radial and
// template-matching filters), on ink rather than gray levels:
//
//  1. Ink: each pixel's darkness (its smallest colour channel) above its
//     local paper and the page's noise, scaled so that a typical stroke
//     saturates (ink.go).
//  2. Rings: on a coarse level (block means) where the smallest instance
//     sought is about eight pixels in radius, every second place's ink in
//     eight rings, from disk sums over row prefix sums, is compared with
//     each size (and stretch) of the template: the sum over rings of the
//     smaller ink over the larger. Rings do not change when a glyph turns
//     or is mirrored about its centre. Local best places above a floor
//     are candidates (cifi.go). Templates searched together (SearchAll,
//     a legend's rows) share this pass over the page.
//  3. Rays: at a candidate, the ink along 72 rays from the centre, lined
//     up with the template's (and with their reverse, for the mirror) by
//     circular correlation, gives the likely angles (rafi.go); the
//     exemplar's four right angles, mirrored and not, are tried too.
//  4. Verification: each angle is refined by hill climbing over position,
//     angle, size and stretch on a finer level, judged by the template's
//     stroke centre lines lying on ink and the points of its box away from
//     its strokes lying on paper; the refined pose is scored by likeness,
//     the share of the template's ink the page holds there within a pixel
//     and the share of the page's ink in the placed box the template
//     explains within a pixel (verify.go).
//  5. Consensus: the exemplar's strokes that its best matches do not
//     share are left out and the matches scored again.
//  6. Correlation: the page's ink and the placed template's, both
//     blurred by 0.6 pixel, over the placed box grown by a tenth: a small
//     inner sign present on one side only, or ink running on outside the
//     box, lowers it where likeness's one-pixel tolerance does not. The
//     score is the geometric mean of likeness and correlation. Matches
//     overlapping by more than a third keep the best.
//
// docs/raster.md ("Glyph search") gives the measured figures and why this
// method.
package glyphsearch
