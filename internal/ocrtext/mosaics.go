package ocrtext

import (
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocr"
	"blueprint/internal/unionfind"
)

// task is one line to read at one angle; sparse reads it as words
// scattered on the page (ocr.Sparse), each word on its own, where a
// mosaic is read as a block of lines.
type task struct {
	line   int
	angle  float64
	sparse bool
}

// strip is one line drawn into a mosaic at its angle.
type strip struct {
	task
	f   frame
	box image.Rectangle // in the mosaic
}

// mosaic is one image of lines stacked as strips.
type mosaic struct {
	strips []strip
	bounds image.Rectangle
}

// Packing the strips into mosaics. Each image read costs a process's
// start (about 0.3 s of a core, most of it loading the language data)
// besides its text, so strips of every angle share images; where the
// strips' area passes splitArea (about as long to read as a start), the
// stack is cut into Options.Workers parts of about equal area, so that
// the workers share the reading.
const splitArea = 1_500_000

// plan packs todo's lines, each drawn at its angle, into mosaics of
// stacked strips and takes the strips' pixels off *pixels: the lines of
// a mosaic that would pass it stay unread.
func (r *Reader) plan(ls []line, todo []task, pixels *int) []mosaic {
	type placed struct {
		strip
		w, h, pad int
	}
	var all []placed
	total := 0
	for _, t := range todo {
		l := ls[t.line]
		f := newFrame(t.angle, stripHeight/math.Max(l.height, 1))
		sw, sh := f.place(l.min, l.max, glyph.Point{X: stripPad, Y: stripPad})
		// A line taller than its letters' height (a large letter in
		// it, or a symbol's pieces) keeps as much white above and below
		// as it passes them by, so that OCR does not take it and its
		// neighbours for one line.
		pad := max(stripPad, int(math.Ceil(sh-stripHeight)))
		bw, bh := int(math.Ceil(sw))+2*stripPad, int(math.Ceil(sh))+2*pad
		if bw > mosaicMaxW || bh > mosaicMaxH {
			continue // a "line" no sheet writes: a hatch of small shapes
		}
		all = append(all, placed{strip: strip{task: t, f: f}, w: bw, h: bh, pad: pad})
		total += bw * bh
	}
	// Widest first: strips are set at a mosaic's left edge, so one wide
	// strip among narrow ones leaves the mosaic mostly white (an image
	// OCR holds and scans). The page's pixels count the strips alone:
	// packed in the order the lines came and counted by the mosaic,
	// cp4's legend page sent as an image spent its 40 Mpx on mosaics
	// half white and left 701 of its 1 091 lines unread, its legend's
	// rows among them (388 read; now 1 071, and none left unread).
	// A mosaic is read in one mode: the strips read word by word go
	// after the others, in mosaics of their own.
	slices.SortStableFunc(all, func(a, b placed) int {
		if a.sparse != b.sparse {
			if a.sparse {
				return 1
			}
			return -1
		}
		return b.w - a.w
	})
	// Cut where a mosaic's share of the strips' area (what OCR's time
	// follows) reaches its part, or its height the most an image holds.
	target := total
	if total > splitArea {
		target = (total + r.opt.Workers - 1) / r.opt.Workers
	}
	var ms []mosaic
	var strips []strip
	y, w, area := 0, 0, 0
	flush := func() {
		if len(strips) == 0 {
			return
		}
		if area <= *pixels {
			*pixels -= area
			ms = append(ms, mosaic{strips: strips, bounds: image.Rect(0, 0, w, y)})
		}
		strips, y, w, area = nil, 0, 0, 0
	}
	for _, p := range all {
		if y > 0 && (y+p.h > mosaicMaxH || max(w, p.w)*(y+p.h) > mosaicMaxPixels || area >= target || p.sparse != strips[0].sparse) {
			flush()
		}
		p.f.place(ls[p.line].min, ls[p.line].max, glyph.Point{X: stripPad, Y: float64(y + p.pad)})
		p.box = image.Rect(0, y, p.w, y+p.h)
		strips = append(strips, p.strip)
		y += p.h
		w = max(w, p.w)
		area += p.w * p.h
	}
	flush()
	return ms
}

// readMosaics reads the mosaics ms, up to Options.Workers at a time, and
// keeps in best each line's surer reading. The readings are taken in the
// order of ms, so best is what reading them one after another gives. It
// returns the first error in that order, after taking every reading that
// succeeded.
func (r *Reader) readMosaics(ctx context.Context, pg *drawing.Page, cs []component, g *grid, ls []line, ms []mosaic, best []reading) error {
	words := make([][][]ocr.Word, len(ms))
	errs := make([]error, len(ms))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(r.opt.Workers, len(ms)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1)) - 1
				if k >= len(ms) {
					return
				}
				words[k], errs[k] = r.readMosaic(ctx, pg, cs, g, ls, ms[k])
			}
		}()
	}
	wg.Wait()
	for k, m := range ms {
		if errs[k] != nil {
			continue
		}
		for j, s := range m.strips {
			b := &best[s.line]
			sc := score(words[k][j])
			if !b.done || sc > b.score {
				*b = reading{done: true, angle: s.angle, f: s.f, words: words[k][j], score: sc}
			}
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// readMosaic draws m's strips into one image, reads it, and returns each
// strip's words that are kept: confident enough, with a letter or digit.
func (r *Reader) readMosaic(ctx context.Context, pg *drawing.Page, cs []component, g *grid, ls []line, m mosaic) ([][]ocr.Word, error) {
	img := image.NewGray(m.bounds)
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for _, s := range m.strips {
		for _, ps := range letterGroups(cs, lineInk(cs, g, ls[s.line])) {
			paint(img, pg, ps, s.f, s.box)
		}
	}
	mode := ocr.Block
	if len(m.strips) > 0 && m.strips[0].sparse {
		mode = ocr.Sparse
	}
	lines, err := r.rec.Lines(ctx, img, mode)
	if err != nil {
		return nil, fmt.Errorf("ocrtext: read %d lines: %w", len(m.strips), err)
	}
	strips := m.strips
	words := make([][]ocr.Word, len(strips))
	for _, l := range lines {
		for _, w := range l.Words {
			if w.Conf < minConf || strings.IndexFunc(w.Text, func(c rune) bool { return unicode.IsLetter(c) || unicode.IsDigit(c) }) < 0 {
				continue
			}
			cy := (w.Box.Min.Y + w.Box.Max.Y) / 2
			k, _ := slices.BinarySearchFunc(strips, cy, func(s strip, y int) int {
				if s.box.Max.Y <= y {
					return -1
				}
				if s.box.Min.Y > y {
					return 1
				}
				return 0
			})
			if k < len(strips) && strips[k].box.Min.Y <= cy && cy < strips[k].box.Max.Y {
				words[k] = append(words[k], w)
			}
		}
	}
	return words, nil
}

// letterGroups are the pieces of the components idx of cs, grouped where
// their boxes meet (a letter and the counters inside it, an accent on
// its letter), to be filled group by group. Filled as one, a contour
// left open (a curve fitted as an arc that ends off its neighbour, as
// cp4's legend sheet with its words converted to outlines has them)
// shifts the even-odd parity of every row to its right, and the white
// between the line's letters is painted instead of the letters: the
// strips read as struck through, and long lines read upside down better
// than upright.
func letterGroups(cs []component, idx []int) [][]piece {
	uf := unionfind.New[int](len(idx))
	for a := range idx {
		ca := &cs[idx[a]]
		for b := a + 1; b < len(idx); b++ {
			cb := &cs[idx[b]]
			if ca.min.X <= cb.max.X && cb.min.X <= ca.max.X && ca.min.Y <= cb.max.Y && cb.min.Y <= ca.max.Y {
				uf.Join(a, b)
			}
		}
	}
	var out [][]piece
	for _, grp := range uf.Groups() {
		var ps []piece
		for _, a := range grp {
			ps = append(ps, cs[idx[a]].pieces...)
		}
		out = append(out, ps)
	}
	return out
}
