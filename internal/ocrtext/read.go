// Package ocrtext reads text that a PDF page draws as outlines (CAD
// exports that turn every character into paths, leaving no text layer):
// it finds the letter-like outlines in the page's vector geometry, draws
// them line by line into images, reads those with OCR, and returns the
// words as positioned characters in the page's own coordinates, so that
// whatever reads a page's text (legend tables, tags, titles) reads them as
// it reads a PDF's text.
//
// Only the outlines are drawn, never the page's other drawing, so the
// images hold clean text and their size follows the text, not the sheet:
// an A0 sheet's words are read in a few images of stacked lines instead
// of one render of the whole sheet. Lines read along either axis; the
// longest are read in both directions of their axis, keeping the reading
// OCR is surer of, and the others the way those read, so text in any of
// the four orientations is read.
//
// A CAD export draws each character of a font with one outline wherever
// it writes it, so most of a page's lines are made of outlines OCR has
// already read on a few of them: those lines are spelled from their
// outlines' shapes without OCR (spell.go), and only lines holding a
// shape not read that way go to OCR.
package ocrtext

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"slices"
	"time"
	"unicode"
	"unicode/utf8"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocr"
)

// Recognizer reads the lines of text of an image (ocr.Reader). It is
// called from several goroutines at once (Options.Workers).
type Recognizer interface {
	Lines(ctx context.Context, img image.Image, mode ocr.Mode) ([]ocr.Line, error)
}

// Options bound what reading one page may cost.
type Options struct {
	// Budget is the most time reading one page may take; lines not read
	// by then stay unread (Result.Unread). Zero means DefaultBudget.
	Budget time.Duration
	// MaxPixels bounds the pixels of the lines' strips OCR reads for
	// one page (OCR's time follows them: about 0.2 s of one core a
	// million; the white a mosaic leaves beside narrow strips costs
	// little): lines that would pass it stay unread. Zero means
	// DefaultMaxPixels.
	MaxPixels int
	// MaxLines is the most lines of text read on one page, longest
	// first; zero means DefaultMaxLines.
	MaxLines int
	// Workers is how many images OCR reads at a time (one process each);
	// zero means DefaultWorkers.
	Workers int
}

// Defaults of Options.
const (
	DefaultBudget    = 120 * time.Second
	DefaultMaxPixels = 40_000_000
	DefaultMaxLines  = 4000
	// DefaultWorkers: two OCR processes at a time. Each reads on one
	// core (internal/ocr), so two halve a page's reading time where the
	// job has two cores, for the same CPU time; more would hold more
	// processes' memory (each loads its language data) for a page that
	// is read alongside other work.
	DefaultWorkers = 2
)

// Geometry of outlined text, in page pixels (200 DPI) and text heights.
const (
	// minLetter and maxLetter bound a letter's larger side: 0.3 mm to
	// 25 mm on the sheet. An outline is drawn at stripHeight whatever its
	// size, so a small letter reads as well as a large one: the floor
	// only leaves out specks. At 0.6 mm, voice_alarm_ro_floor1 plotted at
	// 0.7 of its size lost its speakers' "DIF x/y/z" labels (lower-case
	// letters under 5 px) to the speaker glyph, and every speaker with
	// them.
	minLetter = 2.5
	maxLetter = 200.0
	// minPieces is the fewest pieces a letter's outline has: a filled
	// letter is a closed outline of three pieces or more.
	minPieces = 3
	// minLetters is the fewest letters a line is read with: a lone
	// outline is a symbol's piece more often than a one-letter word.
	minLetters = 2
	// stripHeight is the height, in image pixels, letters are drawn at
	// (Tesseract reads capitals 20 to 40 pixels high best).
	stripHeight = 32.0
	// retryLetters is the most letters of a line read again where OCR
	// was unsure of it.
	retryLetters = 6
	// stripPad is the white margin around each line, in image pixels.
	stripPad = 12
	// mosaicMaxH, mosaicMaxW and mosaicMaxPixels bound one image of
	// stacked lines (tesseract holds several copies of the image it
	// reads).
	mosaicMaxH      = 8000
	mosaicMaxW      = 5000
	mosaicMaxPixels = 20_000_000
	// minConf is the least OCR confidence (0-100) of a word kept.
	minConf = 25
	// emPerCap: a font's em is about 1.4 times its capitals' height.
	emPerCap = 1.4
	// maxCapRatio: no character of a font stands more than this many
	// times its capitals' height across its line (a J, a bracket, a
	// descender's g stand up to about 1.3).
	maxCapRatio = 1.5
)

// Reader reads outlined text with a Recognizer.
type Reader struct {
	rec Recognizer
	opt Options
	// byOCR reads every line with OCR, none by its letters' shapes (to
	// measure the shapes' reading against OCR's).
	byOCR bool
}

// New returns a Reader that reads with rec within opt's bounds.
func New(rec Recognizer, opt Options) *Reader {
	if opt.Budget <= 0 {
		opt.Budget = DefaultBudget
	}
	if opt.MaxPixels <= 0 {
		opt.MaxPixels = DefaultMaxPixels
	}
	if opt.MaxLines <= 0 {
		opt.MaxLines = DefaultMaxLines
	}
	if opt.Workers <= 0 {
		opt.Workers = DefaultWorkers
	}
	return &Reader{rec: rec, opt: opt}
}

// Result is the text read on one page.
type Result struct {
	// Chars are the characters read, in page pixels, words separated
	// by a space character, each with its line's baseline angle (0 reads
	// left to right, 90 top to bottom, -90 bottom to top, 180 upside
	// down).
	Chars []drawing.Char
	// Lines is how many lines of letter-like outlines were found; Read
	// how many of them OCR read words on; Unread how many were not read
	// for the bounds (Options); ByShape how many of those read were
	// spelled from their letters' shapes, learned from the lines OCR
	// read, without OCR.
	Lines, Read, Unread, ByShape int
	// Segments and Arcs mark the page's pieces that are the outlines of
	// the words read (true at the piece's index): drawn text, not
	// drawing.
	Segments, Arcs []bool
}

// Read finds the lines of outlined text on pg and reads them. It returns
// what it read within the budget; an error only when OCR fails or ctx
// ends (the budget passing is no error: Result.Unread says what it
// left).
func (r *Reader) Read(ctx context.Context, pg *drawing.Page) (*Result, error) {
	res := &Result{Segments: make([]bool, len(pg.Segments)), Arcs: make([]bool, len(pg.Arcs))}
	// Ink: every filled outline small enough to be a letter or part of
	// one (a dot, an accent, a comma); letters: those large enough and
	// made of enough pieces to be letters themselves.
	ink := slices.DeleteFunc(components(pg, maxLetter, maxLetter), func(c component) bool { return !filledOnly(pg, c) })
	ink = dropPainted(pg, ink)
	var cs []component
	for _, c := range ink {
		if letterLike(c) {
			cs = append(cs, c)
		}
	}
	cs = dropCounters(cs)
	if len(cs) == 0 {
		return res, nil
	}
	g := newGrid(cs, 2*maxLetter/5)
	ls := lines(cs, g, 1)
	// Longest lines first: legends and titles before stray pairs.
	slices.SortStableFunc(ls, func(a, b line) int { return len(b.members) - len(a.members) })
	cs, g = ink, newGrid(ink, 2*maxLetter/5)
	for i := range ls {
		ls[i].members = nil // indexes into the letters, not the ink
	}
	// Lone outlines are read last, and only by their shapes (alone).
	n := slices.IndexFunc(ls, func(l line) bool { return len(l.boxes) < minLetters })
	var lone []line
	if n >= 0 {
		ls, lone = slices.Clip(ls[:n]), ls[n:] // appending to ls keeps lone
	}
	res.Lines = len(ls)
	if len(ls) > r.opt.MaxLines {
		res.Unread += len(ls) - r.opt.MaxLines
		ls = ls[:r.opt.MaxLines]
	}
	bctx, cancel := context.WithTimeout(ctx, r.opt.Budget)
	defer cancel()
	rd := &pageReading{r: r, pg: pg, cs: cs, g: g, ls: ls, pixels: r.opt.MaxPixels, best: make([]reading, len(ls))}
	// The longest lines along each axis (the sample) are read both ways;
	// where one way reads nearly all of them better, the rest along that
	// axis are read that way only.
	axes := [][2]float64{{0, 180}, {90, -90}}
	var samples, rests [][]int
	for _, axisAngles := range axes {
		var idx []int
		for i, l := range ls {
			if l.vertical == (axisAngles[0] == 90) {
				idx = append(idx, i)
			}
		}
		n, letters := 0, 0
		for n < len(idx) && n < sampleLines && letters < sampleLetters {
			letters += len(ls[idx[n]].boxes)
			n++
		}
		samples = append(samples, idx[:n])
		rests = append(rests, idx[n:])
	}
	// Lines made of shapes the sample holds are spelled from them once it
	// is read (spell.go); so that more can be, the first pass also reads
	// lines holding shapes that many others hold (cover.go), at the angle
	// the letters along their axis stand at, or both ways where that does
	// not show.
	var abc *alphabet
	covers := make([][]int, len(axes))
	coverAngles := make([][]float64, len(axes))
	if !r.byOCR {
		abc = newAlphabet()
		rd.shapes = newShapes()
		rd.chars = lineShapes(rd.shapes, pg, cs, g, ls)
		for k, axisAngles := range axes {
			coverAngles[k] = axisAngles[:]
			if angle, ok := baselineSide(ls, rests[k]); ok {
				coverAngles[k] = []float64{angle}
			}
			covers[k], rests[k] = cover(rd.chars, samples[k], rests[k])
		}
	}
	var todo []task
	for k, axisAngles := range axes {
		for _, angle := range axisAngles {
			for _, i := range samples[k] {
				todo = append(todo, task{line: i, angle: angle})
			}
		}
		for _, angle := range coverAngles[k] {
			for _, i := range covers[k] {
				todo = append(todo, task{line: i, angle: angle})
			}
		}
	}
	if err := rd.read(ctx, bctx, todo); err != nil {
		return nil, err
	}
	if abc != nil {
		rd.learn(abc, todo)
	}
	// The rests, and the lines read for their shapes at an angle the
	// sample does not read at.
	todo = todo[:0]
	for k, axisAngles := range axes {
		angles := preferred(rd.best, samples[k], axisAngles)
		for _, i := range covers[k] {
			if len(angles) > 1 || !rd.best[i].done || rd.best[i].angle != angles[0] {
				for _, angle := range angles {
					todo = append(todo, task{line: i, angle: angle})
				}
			}
		}
		for _, i := range rests[k] {
			if len(angles) == 1 && abc != nil && rd.spell(abc, i, angles[0]) {
				continue
			}
			for _, angle := range angles {
				todo = append(todo, task{line: i, angle: angle})
			}
		}
	}
	// A short line (a code, a tag: at most retryLetters letters) the
	// first pass read unsure of a word is read again word by word
	// (ocr.Sparse), beside the rests: the surer reading stays. Read as a
	// block of lines, a short word has no neighbours to tell a letter by
	// and the strips around it sway what OCR makes of it (building2 with
	// its words outlined: its bill's code "L9" read "LS" at 77 among 121
	// strips, and so no plan tag "L9" named its row). A long line's words
	// are read for their vocabulary, which bears a letter misread.
	for i, b := range rd.best {
		if b.done && len(rd.ls[i].boxes) <= retryLetters && unsure(b.words) {
			todo = append(todo, task{line: i, angle: b.angle, sparse: true})
		}
	}
	if err := rd.read(ctx, bctx, todo); err != nil {
		return nil, err
	}
	if abc != nil && len(lone) > 0 {
		var angles [2]float64 // the angle each axis reads at, NaN where not one
		for k, axisAngles := range axes {
			angles[k] = math.NaN()
			if a := preferred(rd.best, samples[k], axisAngles); len(a) == 1 {
				angles[k] = a[0]
			}
		}
		res.Lines += rd.alone(abc, lone, angles)
	}
	res.ByShape = rd.byShape
	for i, b := range rd.best {
		if !b.done {
			res.Unread++
			continue
		}
		if len(b.words) == 0 {
			continue
		}
		res.Read++
		res.addLine(pg, cs, g, rd.ls[i], b)
	}
	return res, nil
}

// alone reads the lone outlines of lone (one-letter lines) that are a
// digit OCR read in words elsewhere on the page, shape for shape, at the
// angle the page's text along either axis reads at (angles: horizontal,
// vertical; NaN where not settled), and adds them to the lines read; it
// returns how many it read. A lone outline is a symbol's piece more often
// than a one-letter word, so none goes to OCR; but a schedule's
// quantities (3, 7, 9) stand alone. Letters stay drawing: a symbol's
// letter (the F of a pull station) was read on the legend page, where
// words of its size teach its shape, and not on the plans, where none
// do, so the legend's glyph held an F that no plan's did (cp4 with its
// words outlined: 10 pull stations found, then none).
func (rd *pageReading) alone(abc *alphabet, lone []line, angles [2]float64) int {
	// Only outlines the size of a shape spelled as a digit can be one:
	// the rest are not drawn at all.
	known := map[[3]int]bool{}
	for key, r := range abc.spelled {
		if unicode.IsDigit(r) && (key.angle == angles[0] || key.angle == angles[1]) {
			k := boxKey(&rd.shapes.all[key.shape])
			for dw := -1; dw <= 1; dw++ {
				for dh := -1; dh <= 1; dh++ {
					known[[3]int{k[0], k[1] + dw, k[2] + dh}] = true
				}
			}
		}
	}
	read := 0
	for _, l := range lone {
		w, h := l.max.X-l.min.X, l.max.Y-l.min.Y
		for k, vertical := range []bool{false, true} {
			v := 0
			if vertical {
				v = 1
			}
			if math.IsNaN(angles[k]) || !known[[3]int{v, int(math.Round(w)), int(math.Round(h))}] {
				continue
			}
			l.vertical = vertical
			i := len(rd.ls)
			rd.ls = append(rd.ls, l)
			rd.chars = append(rd.chars, lineShapes(rd.shapes, rd.pg, rd.cs, rd.g, rd.ls[i:])...)
			rd.best = append(rd.best, reading{})
			if rd.spell(abc, i, angles[k]) && oneDigit(rd.best[i].words) {
				read++
				break
			}
			if rd.best[i].done {
				rd.byShape--
			}
			rd.ls, rd.chars, rd.best = rd.ls[:i], rd.chars[:i], rd.best[:i]
		}
	}
	return read
}

// unsure reports whether OCR read a word of ws with less confidence than
// a word that teaches its shapes (minVoteConf).
func unsure(ws []ocr.Word) bool {
	for _, w := range ws {
		if w.Conf < minVoteConf {
			return true
		}
	}
	return false
}

// oneDigit reports whether ws is one word of one digit.
func oneDigit(ws []ocr.Word) bool {
	if len(ws) != 1 || utf8.RuneCountInString(ws[0].Text) != 1 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(ws[0].Text)
	return unicode.IsDigit(r)
}

// pageReading is one page's reading in progress.
type pageReading struct {
	r      *Reader
	pg     *drawing.Page
	cs     []component
	g      *grid
	ls     []line
	chars  [][]cluster // each line's characters, where lines are spelled
	shapes *shapes     // the page's character shapes, where lines are spelled
	pixels int         // left to read (Options.MaxPixels)
	best   []reading   // each line's surest reading so far
	// byShape counts the lines spelled from their shapes.
	byShape int
}

// read reads the tasks with OCR into rd.best. Past bctx's deadline (the
// page's budget) it returns no error: the lines not read stay unread.
func (rd *pageReading) read(ctx, bctx context.Context, todo []task) error {
	if len(todo) == 0 {
		return nil
	}
	ms := rd.r.plan(rd.ls, todo, &rd.pixels)
	if err := rd.r.readMosaics(bctx, rd.pg, rd.cs, rd.g, rd.ls, ms, rd.best); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("ocrtext: %w", ctx.Err())
		}
		if !errors.Is(bctx.Err(), context.DeadlineExceeded) {
			return err
		}
	}
	return nil
}

// learn takes what OCR read of the tasks' lines into abc.
func (rd *pageReading) learn(abc *alphabet, todo []task) {
	seen := map[int]bool{}
	for _, t := range todo {
		b := rd.best[t.line]
		if seen[t.line] || !b.done {
			continue
		}
		seen[t.line] = true
		if len(b.words) > 0 {
			abc.learn(rd.chars[t.line], b)
		} else {
			abc.nothing(rd.chars[t.line], b.angle)
		}
	}
	abc.settle()
}

// spell spells line i at angle from its characters' shapes where abc
// knows them all, into rd.best, and reports whether it did.
func (rd *pageReading) spell(abc *alphabet, i int, angle float64) bool {
	l := rd.ls[i]
	f := newFrame(angle, stripHeight/math.Max(l.height, 1))
	f.place(l.min, l.max, glyph.Point{X: stripPad, Y: stripPad})
	words, ok := abc.spell(rd.chars[i], angle, f)
	if !ok {
		return false
	}
	rd.best[i] = reading{done: true, angle: angle, f: f, words: words, score: score(words)}
	rd.byShape++
	return true
}

// letterLike reports whether c is large enough and made of enough pieces
// to be a letter by itself (not a dot, an accent or a comma).
func letterLike(c component) bool {
	return math.Max(c.w(), c.h()) >= minLetter && len(c.pieces) >= minPieces
}

// dropCounters returns the letters of cs that lie inside no other: a
// filled letter's counters (the holes of B, O, 8) are closed contours of
// their own inside its outline, and two of them stacked would read as a
// line of two letters. They stay ink, drawn with their letter.
func dropCounters(cs []component) []component {
	g := newGrid(cs, 2*maxLetter/5)
	inside := make([]bool, len(cs))
	for i := range cs {
		c := &cs[i]
		// A container's centre lies within half a letter of the counter.
		const r = maxLetter / 2
		g.near(glyph.Point{X: c.min.X - r, Y: c.min.Y - r}, glyph.Point{X: c.max.X + r, Y: c.max.Y + r}, func(j int) {
			o := &cs[j]
			if j != i && o.min.X <= c.min.X && o.min.Y <= c.min.Y && o.max.X >= c.max.X && o.max.Y >= c.max.Y &&
				o.w()*o.h() > c.w()*c.h() {
				inside[i] = true
			}
		})
	}
	out := cs[:0]
	for i, c := range cs {
		if !inside[i] {
			out = append(out, c)
		}
	}
	return out
}

// filledOnly reports whether every piece of c belongs to a filled,
// unstroked path: a font's letters drawn as paths are their filled glyph
// outlines. A plan's hatching, walls and symbols are stroked; the
// stroked letters of CAD stroke fonts (SHX) are not read (their strokes
// cannot be told from hatching by their geometry alone).
func filledOnly(pg *drawing.Page, c component) bool {
	for _, p := range c.pieces {
		if !filledPiece(pg, p) {
			return false
		}
	}
	return true
}

// The sample: the longest lines along an axis, read in both directions
// to learn which way the page's text along it reads, up to sampleLines
// lines or until they hold sampleLetters letters. A few long lines tell
// the way as surely as many, and reading the wrong way is wasted OCR.
const (
	sampleLines   = 16
	sampleLetters = 240
)

// oneWay is the share of the sample's lines that must read better one
// way for the other lines along the axis to be read that way only.
const oneWay = 0.9

// preferred returns the angles the lines along an axis other than the
// sample's are read at: the one the sample's lines read better at, where
// at least oneWay of them do, else both.
func preferred(best []reading, sample []int, angles [2]float64) []float64 {
	n := [2]int{}
	for _, i := range sample {
		b := best[i]
		if !b.done || b.score == 0 {
			continue
		}
		if b.angle == angles[0] {
			n[0]++
		} else {
			n[1]++
		}
	}
	total := float64(n[0] + n[1])
	switch {
	case total == 0:
		return angles[:]
	case float64(n[0]) >= oneWay*total:
		return angles[:1]
	case float64(n[1]) >= oneWay*total:
		return angles[1:]
	}
	return angles[:]
}

// reading is what OCR read of one line at one angle.
type reading struct {
	done  bool // the line was read at some angle
	angle float64
	f     frame
	words []ocr.Word
	score float64
}

// score weighs a reading by how many letters and digits it read and how
// sure OCR was of them.
func score(ws []ocr.Word) float64 {
	var s float64
	for _, w := range ws {
		n := 0
		for _, c := range w.Text {
			if unicode.IsLetter(c) || unicode.IsDigit(c) {
				n++
			}
		}
		s += float64(n) * w.Conf / 100
	}
	return s
}

// linePieces are the pieces of the letter-like components whose centres
// lie in the line's box, a little widened across it (accents, commas and
// dots are letters too small to chain), and that stand no more than
// maxCapRatio times the line's capitals across it: a symbol's filled part
// at a line's end (the black half of a distribution board beside
// "BUILDING 2", building2 with its words outlined) is read with the line
// but stays drawing.
func linePieces(cs []component, g *grid, l line) []piece {
	var ps []piece
	for _, i := range lineInk(cs, g, l) {
		if c0, c1 := across(&cs[i], l.vertical); c1-c0 > maxCapRatio*l.cap {
			continue
		}
		ps = append(ps, cs[i].pieces...)
	}
	return ps
}

// addLine adds a line's words as characters (each word's box split
// evenly among its letters, a space after each word) and marks the
// outlines inside the words as text.
func (res *Result) addLine(pg *drawing.Page, cs []component, g *grid, l line, b reading) {
	size := emPerCap * l.cap
	base := baseline(l, b.f)
	for _, w := range b.words {
		n := utf8.RuneCountInString(w.Text)
		x0, x1 := float64(w.Box.Min.X), float64(w.Box.Max.X)
		top, bot := float64(w.Box.Min.Y), float64(w.Box.Max.Y)
		k := 0
		for _, c := range w.Text {
			u0 := x0 + (x1-x0)*float64(k)/float64(n)
			u1 := x0 + (x1-x0)*float64(k+1)/float64(n)
			res.Chars = append(res.Chars, pageChar(b.f, string(c), u0, u1, top, bot, base, size, b.angle))
			k++
		}
		res.Chars = append(res.Chars, pageChar(b.f, " ", x1, x1+0.3*stripHeight, top, bot, base, size, b.angle))
	}
	// The line's outlines are its letters, those of the words OCR was
	// not sure of too: text, not drawing (left as drawing, an unread
	// word would pass for a glyph beside the words read).
	for _, p := range linePieces(cs, g, l) {
		if p.arc {
			res.Arcs[p.i] = true
		} else {
			res.Segments[p.i] = true
		}
	}
}

// pageChar maps a character's box in a strip (u along the line, top and
// bottom across it, on the line's baseline base) to a page character.
func pageChar(f frame, text string, u0, u1, top, bot, base, size, angle float64) drawing.Char {
	a, b := f.from(glyph.Point{X: u0, Y: top}), f.from(glyph.Point{X: u1, Y: bot})
	return drawing.Char{
		Text:   text,
		Min:    glyph.MinPoint(a, b),
		Max:    glyph.MaxPoint(a, b),
		Origin: f.from(glyph.Point{X: u0, Y: base}),
		Size:   size,
		Angle:  angle,
	}
}
