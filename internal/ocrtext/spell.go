package ocrtext

import (
	"image"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"blueprint/internal/median"
	"blueprint/internal/ocr"
)

// What OCR must have read of a shape for it to be spelled: only words
// read with at least minVoteConf confidence vote; at least voteShare of
// the votes, and minVotes of them (or one, from a word read with onceConf
// confidence), must agree. One misread word would otherwise misspell
// every line that holds its shapes.
const (
	voteShare   = 0.8
	minVoteConf = 85
	minVotes    = 2
	onceConf    = 93
)

// reads keys what a shape reads as by the angle it was read at: one
// outline reads as a b one way and a q the other.
type reads struct {
	shape int
	angle float64
}

// alphabet is what the page's shapes read as, learned from OCR's
// readings of its lines.
type alphabet struct {
	votes map[reads]map[rune]int
	// surest is the highest confidence of a word that voted for a shape.
	surest map[reads]float64
	// intra and inter are the gaps between the letters of a word and
	// between words, on the lines read.
	intra, inter []gap
	// right and left are how much wider than the font's usual gap a
	// shape stands from its neighbour after and before it (a 1, drawn
	// narrow in a digit's full width, stands far from both), in line
	// heights; side is the usual gap's half, for shapes not seen so.
	right, left map[reads]float64
	side        float64
	spelled     map[reads]rune      // what a shape reads as, where settled
	alike       map[reads]lookalike // shapes read as both letters of a pair: their size or word tells
	// empty counts the lines OCR read nothing on that hold a shape;
	// blank is the shapes seen only on such lines.
	empty map[reads]int
	blank map[reads]bool
	space float64 // the gap from which letters stand in two words; 0: not learned
	// words is what OCR read each word as, by its shapes (wordKey); ""
	// where it read one word two ways.
	words map[string]string
}

// wordKey keys a word by its characters' shapes and the angle it reads
// at.
func wordKey(shapes []int, angle float64) string {
	b := strconv.AppendFloat(nil, angle, 'g', -1, 64)
	for _, s := range shapes {
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(s), 10)
	}
	return string(b)
}

func newAlphabet() *alphabet {
	return &alphabet{votes: map[reads]map[rune]int{}, surest: map[reads]float64{}, spelled: map[reads]rune{}, alike: map[reads]lookalike{}, empty: map[reads]int{}, blank: map[reads]bool{}, right: map[reads]float64{}, left: map[reads]float64{}, words: map[string]string{}}
}

// gap is the space between two characters read one after the other, in
// line heights.
type gap struct {
	a, b reads
	size float64
}

// excess is the gap between characters a and b less what their shapes
// stand apart inside a word.
func (a *alphabet) excess(g gap) float64 {
	return g.size - a.rightOf(g.a) - a.leftOf(g.b)
}

// learn takes the words OCR read on a line (its characters cl, reading
// b): a word that spans as many characters as it has gives each its
// shape's reading.
func (a *alphabet) learn(cl []cluster, b reading) {
	sp := inReading(cl, b.f)
	prevEnd := -1 // the last character of the word before, where that word voted
	for _, w := range b.words {
		x0, x1 := float64(w.Box.Min.X), float64(w.Box.Max.X)
		first, n := -1, 0
		for k, c := range sp {
			if m := (c.u0 + c.u1) / 2; m >= x0 && m <= x1 {
				if first < 0 {
					first = k
				}
				n++
			}
		}
		if n == 0 || utf8.RuneCountInString(w.Text) != n || !contiguous(sp, first, n, x0, x1) || w.Conf < minVoteConf {
			prevEnd = -1
			continue
		}
		ids := make([]int, n)
		for q := range n {
			ids[q] = sp[first+q].shape
		}
		key := wordKey(ids, b.angle)
		if text, seen := a.words[key]; seen && text != w.Text {
			a.words[key] = "" // read two ways: not settled
		} else {
			a.words[key] = w.Text
		}
		k := first
		for _, r := range w.Text {
			key := reads{sp[k].shape, b.angle}
			if a.votes[key] == nil {
				a.votes[key] = map[rune]int{}
			}
			a.votes[key][r]++
			a.surest[key] = math.Max(a.surest[key], w.Conf)
			if k > first {
				a.intra = append(a.intra, gap{reads{sp[k-1].shape, b.angle}, key, (sp[k].u0 - sp[k-1].u1) / stripHeight})
			}
			k++
		}
		if prevEnd >= 0 && prevEnd == first-1 {
			prev := sp[prevEnd]
			a.inter = append(a.inter, gap{reads{prev.shape, b.angle}, reads{sp[first].shape, b.angle}, (sp[first].u0 - prev.u1) / stripHeight})
		}
		prevEnd = first + n - 1
	}
}

// contiguous reports whether the n characters from first are those whose
// middles lie in [x0, x1] and no others: one run.
func contiguous(sp []spanned, first, n int, x0, x1 float64) bool {
	for k := first; k < first+n; k++ {
		if m := (sp[k].u0 + sp[k].u1) / 2; m < x0 || m > x1 {
			return false
		}
	}
	return true
}

// settle decides what each shape reads as and where words split.
func (a *alphabet) settle() {
	clear(a.spelled)
	clear(a.alike)
	clear(a.blank)
	for k := range a.empty {
		if a.votes[k] == nil {
			a.blank[k] = true
		}
	}
	for key, votes := range a.votes {
		total, best, top := 0, rune(0), 0
		pair, paired := lookalike(0), true
		for r, n := range votes {
			total += n
			if n > top || n == top && r < best {
				best, top = r, n
			}
			p, ok := lookalikeOf(r)
			paired = paired && ok && (pair == 0 || p == pair)
			pair = p
		}
		switch {
		case top < minVotes && a.surest[key] < onceConf:
		case float64(top) >= voteShare*float64(total):
			a.spelled[key] = best
		case paired:
			// Read both ways: its size or its neighbours tell (spell).
			a.alike[key] = pair
		}
	}
	// Each shape's side bearings, from the gaps inside words: a gap is
	// what stands right of the one plus what stands left of the other.
	a.space = 0
	if len(a.intra) < 10 || len(a.inter) < 5 {
		return
	}
	sizes := make([]float64, len(a.intra))
	for k, g := range a.intra {
		sizes[k] = g.size
	}
	a.side = median.Of(sizes) / 2
	for range 4 {
		rs, ls := map[reads][]float64{}, map[reads][]float64{}
		for _, g := range a.intra {
			rs[g.a] = append(rs[g.a], g.size-a.leftOf(g.b))
			ls[g.b] = append(ls[g.b], g.size-a.rightOf(g.a))
		}
		a.right, a.left = median.ByKey(rs, 1), median.ByKey(ls, 1)
	}
	// The space: between the widest excess inside words and the
	// narrowest between them, leaving out the odd one of each (an OCR
	// split or join) where there are many.
	in := make([]float64, len(a.intra))
	for k, g := range a.intra {
		in[k] = a.excess(g)
	}
	out := make([]float64, len(a.inter))
	for k, g := range a.inter {
		out[k] = a.excess(g)
	}
	slices.Sort(in)
	slices.Sort(out)
	hi, lo := in[len(in)*49/50], out[len(out)/50]
	if hi < lo {
		a.space = (hi + lo) / 2
	}
}

func (a *alphabet) rightOf(k reads) float64 {
	if v, ok := a.right[k]; ok {
		return v
	}
	return a.side
}

func (a *alphabet) leftOf(k reads) float64 {
	if v, ok := a.left[k]; ok {
		return v
	}
	return a.side
}

// nothing records that OCR read nothing on a line of the characters cl at
// angle: a row of small marks (arrow heads, a hatch's dots), not words.
func (a *alphabet) nothing(cl []cluster, angle float64) {
	for _, c := range cl {
		a.empty[reads{c.shape, angle}]++
	}
}

// lookalike is a pair of characters that one outline draws: a lower
// case letter drawn as its capital, smaller (c C, o O, s S, u U, v V,
// w W, x X, z Z; their size on the line tells them apart, which one
// shape does not know), or l and I drawn as one bar. It is held as the
// lower case letter.
type lookalike rune

// lookalikeOf returns the pair r belongs to.
func lookalikeOf(r rune) (lookalike, bool) {
	switch r {
	case 'I', 'l':
		return 'l', true
	}
	if lo := unicode.ToLower(r); strings.ContainsRune("cosuvwxz", lo) {
		return lookalike(lo), true
	}
	return 0, false
}

// in returns the pair's letter in a word of capitals or not.
func (p lookalike) in(capitals bool) rune {
	switch {
	case !capitals:
		return rune(p)
	case p == 'l':
		return 'I'
	}
	return unicode.ToUpper(rune(p))
}

// spell reads the line of characters cl at angle from their shapes: its
// words, in the coordinates of frame f, as OCR would give them. It
// reports false where a shape is not known.
func (a *alphabet) spell(cl []cluster, angle float64, f frame) ([]ocr.Word, bool) {
	if a.space == 0 {
		return nil, false
	}
	sp := inReading(cl, f)
	type char struct {
		r      rune
		pair   lookalike // a lookalike pair's: r is decided below
		height float64   // across the line, in f's pixels
		box    image.Rectangle
		word   int
		read   bool // from a word OCR read elsewhere
	}
	chars := make([]char, len(sp))
	word, blank := 0, 0
	for k, c := range sp {
		if k > 0 && a.excess(gap{reads{sp[k-1].shape, angle}, reads{c.shape, angle}, (c.u0 - sp[k-1].u1) / stripHeight}) > a.space {
			word++
		}
		key := reads{c.shape, angle}
		if a.blank[key] {
			blank++
		}
		r, pair := a.spelled[key], a.alike[key]
		if p, ok := lookalikeOf(r); ok && r != 0 {
			pair = p
		}
		lo, hi := frameBox(f, c.min, c.max)
		chars[k] = char{r: r, pair: pair, height: hi.Y - lo.Y, word: word,
			box: image.Rect(int(math.Floor(lo.X)), int(math.Floor(lo.Y)), int(math.Ceil(hi.X)), int(math.Ceil(hi.Y)))}
	}
	// A line of shapes that only lines OCR read nothing on hold reads
	// nothing too; one with letters beside them is read.
	switch {
	case blank == len(chars):
		return nil, true
	case blank > 0:
		return nil, false
	}
	// A word OCR read elsewhere, shape for shape, reads as it did there
	// (OCR's dictionary settled its I or l, its case); any other word
	// needs each of its shapes spelled.
	for k := 0; k < len(chars); {
		j := k
		for j < len(chars) && chars[j].word == chars[k].word {
			j++
		}
		ids := make([]int, 0, j-k)
		for q := k; q < j; q++ {
			ids = append(ids, sp[q].shape)
		}
		if text, ok := a.words[wordKey(ids, angle)]; ok && text != "" {
			for q, r := range []rune(text) {
				chars[k+q].r, chars[k+q].pair, chars[k+q].read = r, 0, true
			}
		} else {
			for q := k; q < j; q++ {
				if chars[q].r == 0 && chars[q].pair == 0 {
					return nil, false
				}
			}
		}
		k = j
	}
	// A lower case letter drawn as its capital is told by its size
	// against the line's capitals and x-height letters; I and l by their
	// neighbours.
	var caps, xs []float64
	for _, c := range chars {
		switch {
		case c.pair != 0:
		case unicode.IsUpper(c.r):
			caps = append(caps, c.height)
		case strings.ContainsRune("aemnr", c.r):
			xs = append(xs, c.height)
		}
	}
	capH, xH := 0.0, 0.0
	if len(caps) > 0 {
		capH = median.Of(caps)
	}
	if len(xs) > 0 {
		xH = median.Of(xs)
	}
	for k := range chars {
		c := &chars[k]
		switch {
		case c.pair == 0:
		case c.pair != 'l':
			capital := false
			switch {
			case capH > 0 && xH > 0:
				capital = math.Abs(c.height-capH) < math.Abs(c.height-xH)
			case capH > 0:
				capital = c.height >= 0.85*capH
			case xH > 0:
				capital = c.height >= 1.2*xH
			default:
				capital = !slices.ContainsFunc(chars, func(o char) bool { return o.word == c.word && o.pair == 0 && unicode.IsLower(o.r) })
			}
			c.r = c.pair.in(capital)
		}
	}
	for k := range chars {
		c := &chars[k]
		if c.pair != 'l' {
			continue
		}
		prev, next := rune(0), rune(0)
		if k > 0 && chars[k-1].word == c.word {
			prev = chars[k-1].r
		}
		if k+1 < len(chars) && chars[k+1].word == c.word {
			next = chars[k+1].r
		}
		switch {
		case unicode.IsLower(prev), prev != 0 && unicode.IsLower(next):
			c.r = 'l' // "all", "Florin"
		case prev != 0 || next == 0 || !unicode.IsLower(next):
			c.r = 'I' // "DIF", "II"
		default:
			// At the head of a word in lower case ("Investitor",
			// "la"), not a word OCR read elsewhere: only a dictionary
			// tells, and OCR has one.
			return nil, false
		}
	}
	// Fonts that draw O and 0 alike: a word of letters spells O, one of
	// digits 0.
	for k := range chars {
		c := &chars[k]
		if c.read || c.r != '0' && c.r != 'O' {
			continue
		}
		letters, digits := 0, 0
		for _, o := range chars {
			if o.word != c.word || o.r == '0' || o.r == 'O' {
				continue
			}
			if unicode.IsLetter(o.r) {
				letters++
			} else if unicode.IsDigit(o.r) {
				digits++
			}
		}
		switch {
		case letters > 0 && digits == 0:
			c.r = 'O'
		case digits > 0 && letters == 0:
			c.r = '0'
		}
	}
	var words []ocr.Word
	for k := 0; k < len(chars); {
		j := k
		var text []rune
		box := chars[k].box
		for ; j < len(chars) && chars[j].word == chars[k].word; j++ {
			text = append(text, chars[j].r)
			box = box.Union(chars[j].box)
		}
		if slices.ContainsFunc(text, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			words = append(words, ocr.Word{Text: string(text), Box: box, Conf: 100})
		}
		k = j
	}
	return words, true
}
