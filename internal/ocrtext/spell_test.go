package ocrtext

import (
	"cmp"
	"context"
	"fmt"
	"image"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"

	"blueprint/internal/drawing"
	"blueprint/internal/glyph"
	"blueprint/internal/ocr"
)

// counting reads with rec, counting the letter-height strips it is given
// (safe for concurrent use).
type counting struct {
	rec    Recognizer
	mu     sync.Mutex
	pixels int
}

func (c *counting) Lines(ctx context.Context, img image.Image, mode ocr.Mode) ([]ocr.Line, error) {
	c.mu.Lock()
	c.pixels += img.Bounds().Dx() * img.Bounds().Dy()
	c.mu.Unlock()
	return c.rec.Lines(ctx, img, mode)
}

// tagSheet is a plan's worth of outlined text: a legend of long lines
// and many short tags made of the legend's characters, some turned 90°
// (reading down the page, as a legend set in a column turned on the
// sheet writes). It returns the page and, per angle, every line drawn.
func tagSheet(t *testing.T) (*drawing.Page, map[float64][]string) {
	t.Helper()
	f, err := sfnt.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	b := drawing.NewBuilder(4000, 4000, 1)
	drawn := map[float64][]string{}
	legend := []string{
		"SMOKE DETECTOR CEILING MOUNTED",
		"MANUAL CALL POINT FLUSH BOX 2024",
		"SOUNDER BEACON RED 135 DB",
		"LOOP ISOLATOR MODULE 4/3/8",
		"Double socket outlet 16A",
		"Data outlet RJ45 wall box",
		"Ceiling light surface mount",
		"Emergency exit sign 3 hours",
	}
	for i, s := range legend {
		outlined(t, b, f, s, glyph.Point{X: 200, Y: 200 + 60*float64(i)}, 0, 24)
		drawn[0] = append(drawn[0], s)
		outlined(t, b, f, s, glyph.Point{X: 3800 - 60*float64(i), Y: 200}, 90, 24)
		drawn[90] = append(drawn[90], s)
	}
	for i := range 100 {
		tag := fmt.Sprintf("DET %d/%d/%d", 1+i%4, 1+i%3, 10+i)
		x, y := 300+float64(i%10)*340, 900+float64(i/10)*300
		outlined(t, b, f, tag, glyph.Point{X: x, Y: y}, 0, 24)
		drawn[0] = append(drawn[0], tag)
		if i%2 == 0 {
			outlined(t, b, f, tag, glyph.Point{X: x + 270, Y: y - 150}, 90, 24)
			drawn[90] = append(drawn[90], tag)
		}
	}
	return b.Page(), drawn
}

// linesAt joins the characters read at angle into their lines: by
// baseline, cut where two characters stand far apart along it.
func linesAt(cs []drawing.Char, angle float64) []string {
	along := func(c drawing.Char) float64 {
		if angle == 90 {
			return c.Origin.Y
		}
		return c.Origin.X
	}
	byBase := map[int][]drawing.Char{}
	for _, c := range cs {
		if c.Angle != angle {
			continue
		}
		k := int(math.Round(c.Origin.Y / 10))
		if angle == 90 {
			k = int(math.Round(c.Origin.X / 10))
		}
		byBase[k] = append(byBase[k], c)
	}
	var out []string
	for _, line := range byBase {
		slices.SortStableFunc(line, func(a, b drawing.Char) int { return cmp.Compare(along(a), along(b)) })
		var b strings.Builder
		for k, c := range line {
			if k > 0 && along(c)-along(line[k-1]) > 80 {
				out = append(out, strings.Join(strings.Fields(b.String()), " "))
				b.Reset()
			}
			b.WriteString(c.Text)
		}
		out = append(out, strings.Join(strings.Fields(b.String()), " "))
	}
	slices.Sort(out)
	return out
}

// TestSpellByShape: on a page whose lines repeat the characters of a few
// long ones, most lines are spelled from their characters' shapes
// without OCR, read as OCR reads them, in a fraction of OCR's pixels.
func TestSpellByShape(t *testing.T) {
	ctx := context.Background()
	rec := tesseract(t)
	pg, drawn := tagSheet(t)
	spelt := &counting{rec: rec}
	res, err := New(spelt, Options{}).Read(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	all := &counting{rec: rec}
	byOCR := New(all, Options{})
	byOCR.byOCR = true
	want, err := byOCR.Read(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	if want.ByShape != 0 {
		t.Fatalf("%d lines spelled with spelling off", want.ByShape)
	}
	if res.ByShape < res.Lines/3 || res.Read != want.Read {
		t.Errorf("%d of %d lines spelled, %d read (OCR alone reads %d); want a third or more spelled, as many read", res.ByShape, res.Lines, res.Read, want.Read)
	}
	// The lines drawn are read as well as OCR alone reads them. (Not
	// each the same: Tesseract reads a line a little differently beside
	// other lines in an image, and the lines it reads change.)
	exact := func(cs []drawing.Char) int {
		n := 0
		for angle, lines := range drawn {
			got := linesAt(cs, angle)
			for _, l := range lines {
				if slices.Contains(got, l) {
					n++
				}
			}
		}
		return n
	}
	total := len(drawn[0]) + len(drawn[90])
	if got, alone := exact(res.Chars), exact(want.Chars); got < alone-2 || got < total*9/10 {
		t.Errorf("%d of %d lines read as drawn with spelling, %d by OCR alone", got, total, alone)
	}
	if spelt.pixels >= all.pixels {
		t.Errorf("OCR read %d pixels with spelling, %d without: want fewer", spelt.pixels, all.pixels)
	}
	t.Logf("%d of %d lines spelled; %d of %d drawn read as drawn (%d by OCR alone); OCR read %d pixels, %d without spelling", res.ByShape, res.Lines, exact(res.Chars), total, exact(want.Chars), spelt.pixels, all.pixels)
}

// spellLine spells a horizontal line of characters (text, each with its
// along-line box x0–x1 and height) from an alphabet that knows each
// character's shape as itself, or as its lookalike pair where pairs
// holds it, and returns the words; read are words OCR read of the same
// shapes elsewhere on the page.
func spellLine(t *testing.T, chars []struct {
	r      rune
	x0, x1 float64
	h      float64
}, pairs string, read []string) (string, bool) {
	t.Helper()
	a := newAlphabet()
	a.space, a.side = 0.3, 0
	f := newFrame(0, 1)
	var cl []cluster
	for k, c := range chars {
		cl = append(cl, cluster{min: glyph.Point{X: c.x0, Y: 100 - c.h}, max: glyph.Point{X: c.x1, Y: 100}, shape: k})
		key := reads{k, 0}
		if p, ok := lookalikeOf(c.r); ok && strings.ContainsRune(pairs, c.r) {
			a.alike[key] = p
		} else {
			a.spelled[key] = c.r
		}
	}
	// Words OCR read elsewhere, drawn with the same shapes.
	for _, w := range read {
		var ids []int
		for k, c := range chars {
			if strings.ContainsRune(w, c.r) {
				ids = append(ids, k)
			}
		}
		a.words[wordKey(ids, 0)] = w
	}
	ws, ok := a.spell(cl, 0, f)
	var s []string
	for _, w := range ws {
		s = append(s, w.Text)
	}
	return strings.Join(s, " "), ok
}

// TestSpellLookalikes: a lower case letter drawn as a small capital
// takes its case from its size on the line; l and I drawn alike take
// theirs from their neighbours, and where only a dictionary could tell
// (at the head of a word in lower case) the line is left to OCR, unless
// OCR read the same word elsewhere.
func TestSpellLookalikes(t *testing.T) {
	type ch = struct {
		r      rune
		x0, x1 float64
		h      float64
	}
	word := func(s string, x float64, cap, xh float64, heights map[rune]float64) []ch {
		var out []ch
		for _, r := range s {
			h := xh
			if r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("bdfhklt", r) {
				h = cap
			}
			if v, ok := heights[r]; ok {
				h = v
			}
			out = append(out, ch{r, x, x + 10, h})
			x += 12
		}
		return out
	}
	cases := []struct {
		name, pairs string
		chars       []ch
		read        []string
		want        string
		ok          bool
	}{
		// "Consiliul": the C is capital size, the o lower case size.
		{"title case", "Coo", word("Consiliul", 0, 30, 20, nil), nil, "Consiliul", true},
		// "WC": both capital size among capitals.
		{"capitals", "wWcC", word("WC", 0, 30, 20, nil), nil, "WC", true},
		// A lower case c among capitals but drawn small: c.
		{"small among capitals", "c", append(word("AB", 0, 30, 20, nil), ch{'c', 24, 34, 20}), nil, "ABc", true},
		{"l after lower case", "l", word("all", 0, 30, 20, nil), nil, "all", true},
		{"I among capitals", "I", word("DIF", 0, 30, 20, nil), nil, "DIF", true},
		{"l in a title word", "l", word("Florin", 0, 30, 20, map[rune]float64{'l': 30}), nil, "Florin", true},
		{"I or l heading a lower case word", "l", word("la", 0, 30, 20, nil), nil, "", false},
		// O and 0 drawn alike: the word's other characters tell.
		{"O among letters", "", word("R0OM", 0, 30, 20, nil), nil, "ROOM", true},
		{"0 among digits", "", word("1O5", 0, 30, 20, nil), nil, "105", true},
		{"O or 0 in a code", "", word("F05", 0, 30, 20, nil), nil, "F05", true},
		// The same word, read by OCR elsewhere on the page.
		{"a word OCR read", "l", word("la", 0, 30, 20, nil), []string{"la"}, "la", true},
	}
	for _, c := range cases {
		got, ok := spellLine(t, c.chars, c.pairs, c.read)
		if ok != c.ok || got != c.want {
			t.Errorf("%s: spelled %q, %v; want %q, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}
