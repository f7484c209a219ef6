// Package search finds every instance of what a box on a page holds: "find
// more like this". On a page drawn as vectors the drawing inside the box is
// cut into a glyph template (as a legend row's glyph is cut) and the vector
// matcher finds it on each page searched, at any rotation, mirrored, and
// from half to twice its size; a match must not be part of a larger symbol
// and must be drawn in the template's colour. Image pages (scans and
// photos) are searched by an ImageSearcher: Images, package glyphsearch's
// search of the ink inside the box.
package search

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"sort"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/glyphsearch"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

// ErrEmptyRegion is the error of a box that holds no drawing to search for.
var ErrEmptyRegion = errors.New("the box holds no drawing to search for")

// ErrRegionTooLarge is the error of a box that holds far more drawing than
// one symbol (legend.MaxCutPieces, legend.MaxCutChars): a room, a sheet.
var ErrRegionTooLarge = errors.New("the box holds more drawing than one symbol")

// MaxBoxSide is the longest side, in raster pixels of its page, of a box
// searched for: more is never one symbol (glyphsearch.MaxExemplarSide: a
// 40 mm panel is 470 pixels at 300 DPI), and is refused before any work.
const MaxBoxSide = glyphsearch.MaxExemplarSide

// NearMiss is a candidate the search looked at and did not take: it
// scored under the match floor (down to NearMissFloor on vector pages,
// ImageNearMissFloor on image pages) or was refused for its colour, with
// Reason, one of the Reason constants, saying what fell short.
type NearMiss struct {
	Box   detect.Box // raster pixels of the page
	Score float64
	// Reason says in words what keeps it from being a match.
	Reason string
}

// Reasons of near misses: what a search can tell apart.
const (
	// ReasonMissingStroke: part of the searched drawing is not drawn
	// there (vector: the page explains under minScore of it; image: less
	// of the exemplar's ink is found there than the page's ink there is
	// explained).
	ReasonMissingStroke = "missing_stroke"
	// ReasonExtraStroke: drawing joined to it inside its box that the
	// searched drawing does not have (a letter, a bar across it).
	ReasonExtraStroke = "extra_stroke"
	// ReasonLargerSymbol: drawing joined to it runs on past its box: it
	// is part of a larger symbol (vector pages).
	ReasonLargerSymbol = "part_of_larger_symbol"
	// ReasonOtherColour: the shape fits but is drawn in another colour:
	// another device drawn with the same glyph (vector pages).
	ReasonOtherColour = "another_colour"
	// ReasonOtherSize: on an image page, drawn at another size than the
	// box's drawing or the page's good matches (more than
	// ImageSizeTolerance times larger or smaller than it, or than their
	// median).
	ReasonOtherSize = "another_size"
)

// NearMissFloor is the least fit of a near miss on a vector page: the
// vector matcher's own floor (it reports nothing explaining less of a
// template), under minScore, the match floor.
const NearMissFloor = 0.8

// Result is what a search finds on one page: its matches, best first,
// and its near misses, best first, none overlapping a match.
type Result struct {
	Matches    []Match
	NearMisses []NearMiss
}

// Match is one instance found on a page.
type Match struct {
	Box detect.Box // raster pixels of the page, clipped to it
	// Score is the fraction of the template's drawing that the page's
	// drawing explains at the instance (0..1).
	Score float64
}

// Scale ranges searched, relative to the size the box's drawing is drawn
// at. A drawing with little to tell it apart (a lone circle, a bare box) is
// searched only near its own size, as the engine does with such legend
// glyphs: at another size it is any circle or any box.
const (
	minScale     = vector.MinScale
	maxScale     = vector.MaxScale
	weakMinScale = 0.8
	weakMaxScale = 1.25
)

// minScore is the least fraction of the template that the page must
// explain for a match. The matcher takes 0.8 (a symbol drawn slightly
// differently from its catalog glyph); the template of a search is cut
// from the drawing itself, whose copies explain it whole, while another
// symbol sharing most of its drawing leaves a stroke of it unexplained.
const minScore = 0.9

// Template is the drawing of a box, ready to be found on pages. It is
// immutable and safe for concurrent use.
type Template struct {
	glyph   glyph.Glyph
	content float64       // the glyph's length, mm, its text counted at its height a character
	pen     drawing.Style // the paint that draws most of it
	drawn   detect.Box
	m       *vector.Matcher
	// anyColour takes matches drawn in any colour (WithAnyColour).
	anyColour bool
	// hatch is the directions (degrees, glyph frame, modulo 180) of the
	// inner hatching cut from the box, left out of glyph (innerHatch): a
	// match must hold hatching of each inside its box.
	hatch []float64
	// own is the drawing joined to the template where it was cut that
	// it leaves unexplained (foreign and outside, as a candidate's):
	// what the box could not hold of the symbol as the sheet draws it
	// (a wall socket's back line running on to the next socket). A
	// candidate is judged by what it has joined to it beyond that.
	own joined
}

// joined is the drawing joined to a posed template that it leaves
// unexplained, over the template's length (surroundings.foreignOutside):
// all of it, the part outside the posed template's box, the part that is
// fill inside the template's own outline, and the rest by distance from
// the template's centre (radial[i]: from i to i+1 radialBinMM glyph
// millimetres).
type joined struct {
	foreign, outside, outlined float64
	radial                     []float64
	// penShare is the share of the template's lines drawn there that
	// the match's pen draws (a line left out there counts for neither).
	penShare float64
}

// beyond is what candidate c has joined to it beyond own, the template's
// own context where it was cut: its foreign drawing and the part of that
// outside its box. Own excuses at a copy as much drawing as it had at
// each distance from the centre (a bin either side, for the tolerance):
// a wall socket's back line running on to the next socket, wires leaving
// a downlight in other directions than at the exemplar. Distance, unlike
// place, does not change as a copy turns or its wires leave elsewhere,
// while a figure of its own, such as the second ring of a spotlight drawn
// round a downlight's glyph, lies at one distance in far more length
// than the exemplar's rays crossing it. When the template's own drawing
// is filled inside its outline (a speaker's disc painted under its white
// face), so is every copy, and that fill is left out: the spans a PDF
// writer cuts a fill into differ from copy to copy. When it is not, a
// copy's such fill stays foreign (a downlight's dot is not a push
// button's ring).
func (own joined) beyond(c joined) (foreign, outside float64) {
	f := c.foreign
	if own.outlined > 0 {
		f -= c.outlined
	}
	excused := 0.0
	for i, v := range c.radial {
		allow := 0.0
		for j := max(0, i-1); j <= i+1 && j < len(own.radial); j++ {
			allow = math.Max(allow, own.radial[j])
		}
		excused += math.Min(v, allow)
	}
	f = math.Max(0, f-excused)
	return f, math.Min(f, math.Max(0, c.outside-own.outside))
}

// templateClass is the class the matcher reports; search reports none.
const templateClass = "search"

// Cut cuts the drawing that lies wholly inside box on pg (raster pixels)
// into a template (legend.CutGlyph): drawing that crosses the box's edge
// (wires, walls) or is drawn in another colour than most of it is left
// out, and text counts only where it touches the drawing kept. It returns
// ErrEmptyRegion when the box holds no drawing and ErrRegionTooLarge when
// it holds far more than one symbol.
func Cut(pg *drawing.Page, box detect.Box) (*Template, error) {
	r := legend.Rect{Min: glyph.Point{X: box.X, Y: box.Y}, Max: glyph.Point{X: box.X + box.W, Y: box.Y + box.H}}
	c, err := legend.CutGlyph(pg, r)
	switch {
	case errors.Is(err, legend.ErrCutEmpty):
		return nil, ErrEmptyRegion
	case errors.Is(err, legend.ErrCutTooLarge):
		return nil, ErrRegionTooLarge
	case err != nil:
		return nil, fmt.Errorf("search: cut: %w", err)
	}
	g, hatch := innerHatch(c.Glyph)
	drawn := c.Drawn
	t := vector.Template{Class: templateClass, Glyph: g, MinScale: minScale, MaxScale: maxScale, InkFill: true}
	if g.Weak() {
		t.MinScale, t.MaxScale = weakMinScale, weakMaxScale
	}
	m, err := vector.NewMatcher([]vector.Template{t})
	if err != nil {
		return nil, fmt.Errorf("search: template: %w", err)
	}
	tpl := &Template{glyph: g, hatch: hatch, content: content(g), pen: c.Pen, m: m, drawn: detect.Box{X: drawn.Min.X, Y: drawn.Min.Y, W: drawn.Max.X - drawn.Min.X, H: drawn.Max.Y - drawn.Min.Y}}
	tpl.own = ownContext(pg, g, tpl.drawn, c.Pen)
	return tpl, nil
}

// ownContext is the drawing joined to g where it was cut, at drawn on pg,
// that g leaves unexplained: g posed where it was drawn (its frame is
// centred on drawn at the drawn size) and judged as a candidate there is,
// against the pieces of pg that come near it.
func ownContext(pg *drawing.Page, g glyph.Glyph, drawn detect.Box, pen drawing.Style) joined {
	at := glyph.Point{X: drawn.X + drawn.W/2, Y: drawn.Y + drawn.H/2}
	p := pose(g, glyph.Placement{At: at, Scale: 1}, drawn)
	p.pen = pen
	grow := math.Max(surroundMinPx, surroundGrow*math.Max(drawn.W, drawn.H))
	area := detect.Box{X: drawn.X - grow, Y: drawn.Y - grow, W: drawn.W + 2*grow, H: drawn.H + 2*grow}
	j, _ := newSurroundings(meetingArea(pg, area)).foreignOutside(p, nil)
	return j
}

// meetingArea is pg with only the segments and arcs whose boxes meet area,
// in their order.
func meetingArea(pg *drawing.Page, area detect.Box) *drawing.Page {
	sub := &drawing.Page{Width: pg.Width, Height: pg.Height, Styles: pg.Styles, ImageArea: pg.ImageArea}
	meets := func(b detect.Box) bool {
		return b.X <= area.X+area.W && b.Y <= area.Y+area.H && b.X+b.W >= area.X && b.Y+b.H >= area.Y
	}
	for _, sg := range pg.Segments {
		lo, hi := glyph.MinPoint(sg.A, sg.B), glyph.MaxPoint(sg.A, sg.B)
		if meets(detect.Box{X: lo.X, Y: lo.Y, W: hi.X - lo.X, H: hi.Y - lo.Y}) {
			sub.Segments = append(sub.Segments, sg)
		}
	}
	for _, a := range pg.Arcs {
		if meets(arcBox(a)) {
			sub.Arcs = append(sub.Arcs, a)
		}
	}
	return sub
}

// content is the length of g's drawing in mm, each text character
// counted as its height.
func content(g glyph.Glyph) float64 {
	n := 0.0
	for _, sh := range g.Shapes {
		if sh.Text != "" {
			n += float64(len([]rune(sh.Text))) * sh.Size
			continue
		}
		for _, ch := range (glyph.Glyph{Shapes: []glyph.Shape{sh}}).Polylines(0.25) {
			for i := 1; i < len(ch); i++ {
				n += math.Hypot(ch[i].X-ch[i-1].X, ch[i].Y-ch[i-1].Y)
			}
		}
	}
	return n
}

// Glyph returns the template's drawing in the glyph frame (millimetres at
// the drawn size, centred on the drawing).
func (t *Template) Glyph() glyph.Glyph { return t.glyph }

// Drawn returns the extent of the drawing the template was cut from, in
// raster pixels of its page.
func (t *Template) Drawn() detect.Box { return t.drawn }

// WithAnyColour returns a copy of t that takes matches drawn in any
// colour: where a sheet's colours say zone or circuit, not device (one
// legend row, its speakers drawn green, red or magenta by zone), what the
// reviewer asks for. Near misses are then never "another_colour".
func (t *Template) WithAnyColour() *Template {
	c := *t
	c.anyColour = true
	return &c
}

// Find returns every instance of the template on pg, best first: where the
// page explains at least minScore of the template, the template explains
// the drawing joined to it there (it is not part of a larger symbol), and
// that drawing is in the template's colour (devices that share a glyph
// and differ by colour stay apart). Glyphs shown in a legend table (a key
// to the drawing, not an instance) are left out, as the engine leaves
// them out.
func (t *Template) Find(ctx context.Context, pg *drawing.Page) ([]Match, error) {
	r, err := t.FindExcluding(ctx, pg, nil)
	return r.Matches, err
}

// FindExcluding is Find that also returns the near misses on pg (NearMiss:
// the candidates that fell short, down to NearMissFloor, with why) and
// leaves out every match and near miss that fits one of exclude (templates
// cut around look-alikes: "not like that") at least as well as it fits t.
// A candidate's fit to a template is the share of the template the page
// explains there over 1 plus the drawing joined to it there that the
// template leaves unexplained (as a share of the template's length): a
// triangle inside a square fits the triangle-in-a-square better than the
// bare triangle, and a bare triangle fits the triangle better.
func (t *Template) FindExcluding(ctx context.Context, pg *drawing.Page, exclude []*Template) (Result, error) {
	out := Result{Matches: []Match{}, NearMisses: []NearMiss{}}
	if pg == nil {
		return out, nil
	}
	cs, err := t.candidates(ctx, pg, nil)
	if err != nil || len(cs) == 0 {
		return out, err
	}
	var nears []candidate
	for _, c := range cs {
		if c.match {
			out.Matches = append(out.Matches, Match{Box: c.box, Score: round3(c.cov)})
		} else if c.reason != "" {
			nears = append(nears, c)
		}
	}
	// Near misses best first, none on a match or on a better near miss.
	sort.SliceStable(nears, func(i, j int) bool { return nears[i].fit > nears[j].fit })
	var kept []candidate
	for _, c := range nears {
		if overlapsAny(c.box, out.Matches) || overlapsCand(c.box, kept) {
			continue
		}
		kept = append(kept, c)
	}
	for _, c := range kept {
		out.NearMisses = append(out.NearMisses, NearMiss{Box: c.box, Score: round3(c.fit), Reason: c.reason})
	}
	if len(exclude) == 0 || len(out.Matches)+len(out.NearMisses) == 0 {
		return out, nil
	}
	byBox := map[detect.Box]candidate{}
	for _, c := range cs {
		if _, ok := byBox[c.box]; !ok {
			byBox[c.box] = c
		}
	}
	var boxes []detect.Box
	for _, m := range out.Matches {
		boxes = append(boxes, m.Box)
	}
	for _, n := range out.NearMisses {
		boxes = append(boxes, n.Box)
	}
	var looks []candidate
	for _, x := range exclude {
		xs, err := x.candidates(ctx, pg, boxes)
		if err != nil {
			return out, err
		}
		looks = append(looks, xs...)
	}
	// A tie (both fit as well, within fitTie) goes to the template that
	// explains more of the drawing there: an earthed socket's template
	// fits an IP44 socket as well as the IP44 socket's own does where
	// its label is not drawing the fit counts, but explains less of it.
	likeExcluded := func(b detect.Box) bool {
		c := byBox[b]
		for _, x := range looks {
			if !sameInstance(b, x.box) {
				continue
			}
			if x.fit > c.fit+fitTie || x.fit >= c.fit-fitTie && x.drawn >= c.drawn*(1-fitTie) {
				return true
			}
		}
		return false
	}
	ms := out.Matches[:0]
	for _, m := range out.Matches {
		if !likeExcluded(m.Box) {
			ms = append(ms, m)
		}
	}
	out.Matches = ms
	ns := out.NearMisses[:0]
	for _, n := range out.NearMisses {
		if !likeExcluded(n.Box) {
			ns = append(ns, n)
		}
	}
	out.NearMisses = ns
	return out, nil
}

// candidate is a place the matcher found the template at, judged.
type candidate struct {
	box     detect.Box
	cov     float64 // the share of the template the page explains there
	foreign float64 // drawing joined to it the template leaves unexplained, over the template's length
	outside float64 // of that, what lies outside the box
	fit     float64 // cov / (1 + foreign)
	drawn   float64 // how much of the page's drawing the template explains there, pixels (text: its height a character)
	match   bool
	reason  string // why a near miss is not a match; "" when it is neither
}

// fitTie: fits within this of each other are as good.
const fitTie = 0.01

// maxNearLooks bounds the candidates under minScore judged for near
// misses on a page, best first: a circle's template meets every circle.
const maxNearLooks = 64

// candidates returns the places the matcher finds t at on pg (legend
// glyphs left out), judged: matches (Find's rules), near misses with their
// reason, the rest neither. With only given, just the candidates sharing
// an instance with one of only are judged (an excluded template's), and
// those not are left out.
func (t *Template) candidates(ctx context.Context, pg *drawing.Page, only []detect.Box) ([]candidate, error) {
	ms, err := t.m.Match(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	var strong, weak []vector.Match
	for _, m := range ms {
		if m.Legend || m.Box.W <= 0 || m.Box.H <= 0 {
			continue
		}
		if only != nil && !sameInstanceAny(m.Box, only) {
			continue
		}
		if m.Coverage >= minScore {
			strong = append(strong, m)
		} else {
			weak = append(weak, m)
		}
	}
	sort.SliceStable(weak, func(i, j int) bool { return weak[i].Coverage > weak[j].Coverage })
	if len(weak) > maxNearLooks {
		weak = weak[:maxNearLooks]
	}
	if len(strong)+len(weak) == 0 {
		return nil, nil
	}
	// What another strong candidate explains is not foreign to one: the
	// next instance of a row.
	poses := make([]posed, len(strong))
	for i, m := range strong {
		poses[i] = pose(t.glyph, m.Placement, m.Box)
	}
	around := newSurroundings(pg)
	out := make([]candidate, 0, len(strong)+len(weak))
	judge := func(m vector.Match, p posed) {
		if len(p.pts) < 2 {
			return
		}
		p.pen = t.pen
		j, pen := around.foreignOutside(p, poses)
		foreign, outside := t.own.beyond(j)
		c := candidate{box: m.Box, cov: m.Coverage, foreign: foreign, outside: outside, fit: m.Coverage / (1 + foreign),
			drawn: m.Coverage * t.content * m.Placement.Scale * vector.PixelsPerMM}
		colour := true
		if a, b := t.pen.Paint(), pen.Paint(); !t.anyColour && a != "" && b != "" && a != b {
			colour = false
		}
		// Lines the exemplar draws in one pen are drawn in one pen at a
		// copy: a floodlight's heavier cross where a ceiling light draws
		// its bow tie's fine diagonals is another symbol. And a copy
		// drawn at a clearly other weight is another device.
		if j.penShare < minScore*t.own.penShare || !t.anyColour && otherWeight(t.pen, pen) {
			colour = false
		}
		whole := m.Coverage >= minScore && foreign <= maxForeign // the shape fits
		switch {
		case whole && colour && t.hatchedAt(around, m):
			c.match = true
		case c.fit < NearMissFloor:
		case whole && colour:
			c.reason = ReasonMissingStroke // its outline without the hatch
		case whole:
			c.reason = ReasonOtherColour
		case !colour:
			// short of the template and in another colour: two things
			// wrong, not a near miss
		case foreign > maxForeign && 2*outside >= foreign:
			c.reason = ReasonLargerSymbol
		case foreign > maxForeign:
			c.reason = ReasonExtraStroke
		default:
			c.reason = ReasonMissingStroke
		}
		out = append(out, c)
	}
	for i, m := range strong {
		judge(m, poses[i])
	}
	for _, m := range weak {
		judge(m, pose(t.glyph, m.Placement, m.Box))
	}
	return out, nil
}

// otherWeight reports whether pens a and b, both stroking, draw at
// clearly different weights: one at least heavyPenPx and the other under
// half of it (a hairline against a 2 px pen). A sheet may tell devices
// of one colour and one outline apart by weight alone (newmark's bold
// switched sockets and hairline double sockets).
func otherWeight(a, b drawing.Style) bool {
	if a.Stroke == "" || b.Stroke == "" {
		return false
	}
	lo, hi := math.Min(a.Width, b.Width), math.Max(a.Width, b.Width)
	return hi >= heavyPenPx && math.Max(lo, minPenPx) < hi/2
}

// heavyPenPx and minPenPx: pen weights (pixels) for otherWeight; a
// hairline (width 0) draws about minPenPx.
const (
	heavyPenPx = 1.0
	minPenPx   = 0.5
)

// sameInstance reports whether boxes a and b hold the same instance: they
// overlap by at least half of the smaller (a triangle inside the square
// of the look-alike it belongs to).
func sameInstance(a, b detect.Box) bool {
	inter := a.Intersection(b)
	return inter > 0 && inter >= 0.5*math.Min(a.W*a.H, b.W*b.H)
}

func sameInstanceAny(a detect.Box, bs []detect.Box) bool {
	for _, b := range bs {
		if sameInstance(a, b) {
			return true
		}
	}
	return false
}

// nearMissIoU: a near miss overlapping a match or a better near miss by
// more than this is the same place read again.
const nearMissIoU = 1.0 / 3

func overlapsAny(b detect.Box, ms []Match) bool {
	for _, m := range ms {
		if b.IoU(m.Box) > nearMissIoU {
			return true
		}
	}
	return false
}

func overlapsCand(b detect.Box, cs []candidate) bool {
	for _, c := range cs {
		if b.IoU(c.box) > nearMissIoU {
			return true
		}
	}
	return false
}

func round3(v float64) float64 { return math.Round(v*1000) / 1000 }

// ImageSearcher finds, on page images, every instance of what a box on one
// of them holds (the raster glyph search of scans and photos). query is
// the page the box is on, box its region in query's pixels; the result
// holds one list of matches per page of pages, in their pixels.
type ImageSearcher interface {
	Search(ctx context.Context, query image.Image, box detect.Box, pages []image.Image) ([][]Match, error)
}

// PageMatches are the instances found on one page, and its near misses.
type PageMatches struct {
	Page       int
	Matches    []Match
	NearMisses []NearMiss
}

// Region is a box on a page of a document (raster pixels of the page).
type Region struct {
	Page int
	Box  detect.Box
}

// ExcludeError is the error of the Index-th excluded region: its box holds
// no drawing (ErrEmptyRegion), more than a symbol (ErrRegionTooLarge), or
// is on an image page while the searched box is on a vector page
// (ErrImagePage).
type ExcludeError struct {
	Index int
	Err   error
}

func (e *ExcludeError) Error() string {
	return fmt.Sprintf("search: exclude[%d]: %v", e.Index, e.Err)
}

func (e *ExcludeError) Unwrap() error { return e.Err }

// InDocument cuts the drawing inside box on page query of doc into a
// template (Cut) and finds it on each page of pages, in the order given.
// A page without a drawing of its own (an image, a scanned sheet) is
// searched by no template and gets no matches; so is the query page when
// it is one, which returns ErrImagePage. The next page's drawing is read
// on another goroutine while a page is searched (MuPDF reads, the matcher
// matches: two cores), so at most two pages' drawings besides the
// query's are held. On an error (ctx's end among them) it returns the
// pages searched before it with the error; nothing reads doc after it
// returns.
//
// Each of exclude is cut into a template too, and a match or near miss
// that fits one of them at least as well as the box's is left out
// (Template.FindExcluding); an excluded region that cannot be cut is an
// *ExcludeError.
func InDocument(ctx context.Context, doc detect.Drawings, query int, box detect.Box, pages []int, exclude ...Region) ([]PageMatches, error) {
	return InDocumentWith(ctx, doc, query, box, pages, Options{Exclude: exclude})
}

// Options are the choices of a search beyond its box and pages.
type Options struct {
	// Exclude are regions around look-alikes ("not like that").
	Exclude []Region
	// AnyColour takes matches drawn in any colour
	// (Template.WithAnyColour).
	AnyColour bool
}

// InDocumentWith is InDocument with opt: its exclude regions and whether
// matches of any colour are taken.
func InDocumentWith(ctx context.Context, doc detect.Drawings, query int, box detect.Box, pages []int, opt Options) ([]PageMatches, error) {
	exclude := opt.Exclude
	qpg, err := doc.Drawing(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("search: page %d: %w", query, err)
	}
	if qpg == nil || qpg.Scan() {
		return nil, ErrImagePage
	}
	t, err := Cut(qpg, box)
	if err != nil {
		return nil, err
	}
	if opt.AnyColour {
		t = t.WithAnyColour()
	}
	xs := make([]*Template, len(exclude))
	for i, r := range exclude {
		xpg := qpg
		if r.Page != query {
			if xpg, err = doc.Drawing(ctx, r.Page); err != nil {
				return nil, fmt.Errorf("search: page %d: %w", r.Page, err)
			}
		}
		if xpg == nil || xpg.Scan() {
			return nil, &ExcludeError{Index: i, Err: ErrImagePage}
		}
		if xs[i], err = Cut(xpg, r.Box); err != nil {
			return nil, &ExcludeError{Index: i, Err: err}
		}
	}
	type read struct {
		page int
		pg   *drawing.Page
		err  error
	}
	rctx, cancel := context.WithCancel(ctx)
	next := make(chan read, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(next)
		for _, p := range pages {
			r := read{page: p, pg: qpg}
			if p != query {
				r.pg, r.err = doc.Drawing(rctx, p)
			}
			select {
			case next <- r:
			case <-rctx.Done():
				return
			}
			if r.err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		<-done
	}()
	out := make([]PageMatches, 0, len(pages))
	for r := range next {
		if r.err != nil {
			return out, fmt.Errorf("search: page %d: %w", r.page, r.err)
		}
		pm := PageMatches{Page: r.page}
		if r.pg != nil && !r.pg.Scan() {
			res, err := t.FindExcluding(ctx, r.pg, xs)
			if err != nil {
				return out, fmt.Errorf("search: page %d: %w", r.page, err)
			}
			pm.Matches, pm.NearMisses = res.Matches, res.NearMisses
		}
		out = append(out, pm)
	}
	if err := ctx.Err(); err != nil && len(out) < len(pages) {
		return out, fmt.Errorf("search: page %d: %w", pages[len(out)], err)
	}
	return out, nil
}

// ErrImagePage is the error of a box on a page that has no drawing of its
// own to cut (an image upload, a scanned sheet): an ImageSearcher reads
// such pages.
var ErrImagePage = errors.New("the page is an image: it has no drawing to cut a template from")
