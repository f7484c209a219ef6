package legend

import (
	"math"
	"strings"
	"unicode"

	"blueprint/internal/drawing"
)

// Label is a piece of equipment a plan names in words, with no legend row
// to key it: US drawings in particular label their equipment rather than
// draw it in a legend (an EV-charging sheet writes "EVSE#P1-17" beside
// each charger and 'PANEL "EV1"' beside its panel).
type Label struct {
	Class string
	// Text is the label as read; Name is the quoted designation of a
	// named piece ("EV1"), "" for a tag: every tag is one device, every
	// name one device of its class on its page however often written.
	Text, Name string
	// Box is the label's extent (raster pixels) and Em its text size.
	Box Rect
	Em  float64
}

// labelTags are the abbreviations that tag one piece of equipment when
// an identifier follows them ("EVSE-3", "EVSE#P1-17"): standard
// designations, each of one catalog class, not the short letters sheets
// reuse for other things ("EV1" is as often a panel or a circuit). A
// panel's abbreviation is no tag: the devices it serves are addressed by
// it (fire_alarm_us_cp4's plans write "FACP:SLC1-M:001" beside each of
// 78 devices, one panel); a panel is counted by its quoted designation.
var labelTags = map[string]string{
	"evse": "ev_charger", // electric vehicle supply equipment (NEC 625)
	"evcs": "ev_charger", // EV charging station
}

// labelNames are the equipment words that a quoted designation follows
// ('PANEL "EV1"', 'SWITCHBOARD "EVD"') where the vocabulary names no
// class: in US usage a panel so named is a panelboard.
var labelNames = map[string]string{
	"panel": "distribution_board",
}

// namedEquipment are the classes a quoted designation may name: each such
// piece is one of a kind. A fixture or device type so named ('FIXTURE
// "A"') is a type, drawn many times, not a device.
var namedEquipment = map[string]bool{
	"distribution_board": true,
	"main_switchboard":   true,
	"fire_alarm_panel":   true,
	"ev_charger":         true,
}

// fuzzyTagLen is the shortest abbreviation also recognised without its
// first letter: a leader drawn to a label's first letter joins it to the
// line on an image, and OCR reads the rest ("VSE#P1-17").
const fuzzyTagLen = 4

// Labels returns the equipment labels written on pg: tags made of an
// abbreviation of labelTags and an identifier holding a digit, and
// designations in quotes after a word naming a class of namedEquipment,
// one per name and class. The vocabulary (nil: labelNames alone) names
// the classes of the words before a designation.
func (v *Vocabulary) Labels(pg *drawing.Page) []Label {
	if pg == nil || len(pg.Chars) == 0 {
		return nil
	}
	var out []Label
	named := map[[2]string]bool{}
	rs := runs(pg)
	for i := range rs {
		ws := runWords(pg, &rs[i])
		for k := 0; k < len(ws); k++ {
			w := ws[k]
			if c := tagClass(w.text); c != "" {
				out = append(out, Label{Class: c, Text: w.text, Box: w.box, Em: rs[i].size})
				continue
			}
			// "EVSE #P1-17", "EVSE -2": the identifier written apart,
			// after its separator. A number alone after a space is not
			// one ("EVSE 40A" is a rating).
			if k+1 < len(ws) && strings.ContainsRune("#-", rune(ws[k+1].text[0])) {
				if c := tagClass(w.text + ws[k+1].text); c != "" {
					out = append(out, Label{Class: c, Text: w.text + " " + ws[k+1].text, Box: w.box.union(ws[k+1].box), Em: rs[i].size})
					k++
					continue
				}
			}
			name, ok := designation(w.text)
			if !ok || k == 0 {
				continue
			}
			c := v.designated(ws[max(0, k-3):k])
			if c == "" || named[[2]string{c, name}] {
				continue
			}
			named[[2]string{c, name}] = true
			box := w.box
			for _, p := range ws[max(0, k-3):k] {
				box = box.union(p.box)
			}
			out = append(out, Label{Class: c, Text: w.text, Name: name, Box: box, Em: rs[i].size})
		}
	}
	return out
}

// tagClass returns the class that word tags, "" for none: an
// abbreviation of labelTags (or, fuzzyTagLen letters or longer, the same
// without its first letter), then an identifier that holds a digit,
// after at most one separator.
func tagClass(word string) string {
	for abbr, class := range labelTags {
		for _, a := range []string{abbr, abbr[1:]} {
			if a != abbr && len(abbr) < fuzzyTagLen {
				continue
			}
			if len(word) > len(a) && strings.EqualFold(word[:len(a)], a) && identifier(word[len(a):]) {
				return class
			}
		}
	}
	return ""
}

// identifier reports whether s, after at most one separator, is an
// identifier: letters, digits and separators, at least one digit (or a
// letter OCR reads for a 1: I, l), the first character a letter or a
// digit. Stored upside down, ev_charging_us_e003.png's "EVSE#P1-34" read
// "VSEHPI" and "34".
func identifier(s string) bool {
	if s != "" && strings.ContainsRune("#-_.:/", rune(s[0])) {
		s = s[1:]
	}
	if s == "" || !(unicode.IsLetter(rune(s[0])) || unicode.IsDigit(rune(s[0]))) {
		return false
	}
	digit := false
	for _, r := range s {
		switch {
		case unicode.IsDigit(r) || r == 'I' || r == 'l':
			digit = true
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || strings.ContainsRune("#-_./", r)):
		default:
			return false
		}
	}
	return digit
}

// quotes open (and may close) a designation.
const quotes = "\"“”'‘’"

// designation returns the quoted name word writes ('"EV1"', '"EVD",',
// OCR's '"EV1' whose closing quote it missed): one to eight letters,
// digits and dashes.
func designation(word string) (string, bool) {
	r := []rune(word)
	if len(r) < 2 || !strings.ContainsRune(quotes, r[0]) {
		return "", false
	}
	name := strings.TrimRight(string(r[1:]), quotes+",.;:)")
	if n := len([]rune(name)); n == 0 || n > 8 {
		return "", false
	}
	for _, c := range name {
		if !(c < unicode.MaxASCII && (unicode.IsLetter(c) || unicode.IsDigit(c) || c == '-')) {
			return "", false
		}
	}
	return nameKey.Replace(strings.ToUpper(name)), true
}

// nameKey writes a designation with the letters OCR reads for digits as
// those digits, so that one panel read as "EV1" and as "EVI" is one.
var nameKey = strings.NewReplacer("I", "1", "O", "0")

// designated returns the class of namedEquipment the words before a
// designation name: the vocabulary's class of the last one, two or three
// words of letters alone (nearest first), else labelNames' of the last
// word; "" for none.
func (v *Vocabulary) designated(before []word) string {
	// The words naming the piece are words of letters: a device's address
	// ("FACP:SPK3•006", the bullet read as a quote) names no panel.
	from := 0
	for i, w := range before {
		if strings.IndexFunc(w.text, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
			from = i + 1
		}
	}
	before = before[from:]
	for n := 1; n <= len(before); n++ {
		var parts []string
		for _, w := range before[len(before)-n:] {
			parts = append(parts, w.text)
		}
		text := strings.Join(parts, " ")
		if v != nil {
			if c, ok := v.Class(text); ok && namedEquipment[c] {
				return c
			}
		}
	}
	if len(before) > 0 {
		return labelNames[strings.ToLower(before[len(before)-1].text)]
	}
	return ""
}

// word is a run's word: its text and its characters' box.
type word struct {
	text string
	box  Rect
}

// wordGapEm splits a run into words where two characters stand this many
// em sizes apart, as OCR and some PDFs write no space character.
const wordGapEm = 0.3

// runWords splits run r into its words, at space characters and at gaps
// of wordGapEm.
func runWords(pg *drawing.Page, r *run) []word {
	var out []word
	var cur strings.Builder
	box := emptyRect()
	var last *drawing.Char
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, word{text: cur.String(), box: box})
		}
		cur.Reset()
		box = emptyRect()
	}
	for _, ci := range r.chars {
		c := &pg.Chars[ci]
		if strings.TrimSpace(c.Text) == "" {
			flush()
			last = nil
			continue
		}
		if last != nil && charGap(last, c) > wordGapEm*math.Max(r.size, 1) {
			flush()
		}
		cur.WriteString(c.Text)
		box = box.union(Rect{c.Min, c.Max})
		last = c
	}
	flush()
	return out
}

// charGap is the distance between two characters' boxes.
func charGap(a, b *drawing.Char) float64 {
	return rectGap(Rect{a.Min, a.Max}, Rect{b.Min, b.Max})
}
