package legend

import (
	_ "embed"
	"fmt"
	"strings"
	"unicode"
)

//go:embed vocabulary.tsv
var vocabularyTSV string

// Vocabulary maps legend descriptions to catalog classes. It is data
// (vocabulary.tsv): a wrong mapping is fixed by editing one line.
type Vocabulary struct {
	rules []rule
}

type rule struct {
	class string // "" for a device the catalog has no class for
	// lineType: the phrase names a line type (class "~"), class "".
	lineType bool
	words    []string
	line     int
	name     bool // a class's own name: wins when it is the whole text
}

// DefaultVocabulary returns the embedded vocabulary (English, US
// fire-alarm, South African and British, and Finnish terms).
func DefaultVocabulary() (*Vocabulary, error) {
	return ParseVocabulary(vocabularyTSV)
}

// ParseVocabulary reads rules of the form "class<TAB>phrase", one a line;
// blank lines and lines starting with # are skipped; class "-" marks a
// device without a catalog class.
func ParseVocabulary(data string) (*Vocabulary, error) {
	v := &Vocabulary{}
	for n, line := range strings.Split(data, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		class, phrase, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(class) == "" {
			return nil, fmt.Errorf("legend: vocabulary line %d: want class<TAB>phrase", n+1)
		}
		words := normWords(phrase, true)
		if len(words) == 0 {
			return nil, fmt.Errorf("legend: vocabulary line %d: empty phrase", n+1)
		}
		class = strings.TrimSpace(class)
		lineType := class == "~"
		if class == "-" || lineType {
			class = ""
		}
		v.rules = append(v.rules, rule{class: class, lineType: lineType, words: words, line: n + 1})
	}
	return v, nil
}

// WithNames returns a vocabulary that knows each class by the given names
// first (a catalog's display names in every language): a description that
// is a class's name maps to it before any vocabulary rule. names maps a
// class to its names.
func (v *Vocabulary) WithNames(names map[string][]string) *Vocabulary {
	out := &Vocabulary{}
	line := -len(v.rules) - 1
	for class, ns := range names {
		for _, n := range ns {
			if w := normWords(n, false); len(w) > 0 {
				out.rules = append(out.rules, rule{class: class, words: w, line: line, name: true})
			}
		}
	}
	out.rules = append(out.rules, v.rules...)
	return out
}

// Classes returns every class the vocabulary can name.
func (v *Vocabulary) Classes() []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range v.rules {
		if r.class != "" && !seen[r.class] {
			seen[r.class] = true
			out = append(out, r.class)
		}
	}
	return out
}

// Class returns the class that text names and whether any rule matched
// (a matched rule of class "-" or "~" returns "", true).
func (v *Vocabulary) Class(text string) (string, bool) {
	if c, ok := v.Name(text); ok {
		return c, true
	}
	r, ok := v.best(text)
	return r.class, ok
}

// LineType reports whether text names a line type (a cable, a conduit, a
// wire path; rules of class "~") rather than a device: the rule Class
// would choose is one of them.
func (v *Vocabulary) LineType(text string) bool {
	if _, ok := v.Name(text); ok {
		return false
	}
	r, ok := v.best(text)
	return ok && r.lineType
}

// best returns the rule (other than the names) that text matches best,
// and whether any does.
func (v *Vocabulary) best(text string) (rule, bool) {
	words := normWords(text, false)
	best := -1
	var bestKey [3]int
	for i, r := range v.rules {
		if r.name {
			continue // names count only as the whole text (above)
		}
		pos, ok := matchWords(r.words, words)
		if !ok {
			continue
		}
		key := [3]int{len(r.words), contiguous(pos), -r.line}
		if best < 0 || key[0] > bestKey[0] || (key[0] == bestKey[0] && (key[1] > bestKey[1] || (key[1] == bestKey[1] && key[2] > bestKey[2]))) {
			best, bestKey = i, key
		}
	}
	if best < 0 {
		return rule{}, false
	}
	return v.rules[best], true
}

// Name returns the class whose catalog name (WithNames) the whole text
// is, and whether one is.
func (v *Vocabulary) Name(text string) (string, bool) {
	words := normWords(text, false)
	for _, r := range v.rules {
		if r.name && len(r.words) == len(words) {
			if _, ok := matchWords(r.words, words); ok {
				return r.class, true
			}
		}
	}
	return "", false
}

// matchWords reports where each pattern word occurs in words (the first
// occurrence not used by an earlier pattern word).
func matchWords(pat, words []string) ([]int, bool) {
	pos := make([]int, 0, len(pat))
	used := map[int]bool{}
	for _, p := range pat {
		found := -1
		for i, w := range words {
			if !used[i] && wordMatches(p, w) {
				found = i
				break
			}
		}
		if found < 0 {
			return nil, false
		}
		used[found] = true
		pos = append(pos, found)
	}
	return pos, true
}

// contiguous is 1 when the matched words follow one another in order.
func contiguous(pos []int) int {
	for i := 1; i < len(pos); i++ {
		if pos[i] != pos[i-1]+1 {
			return 0
		}
	}
	return 1
}

func wordMatches(p, w string) bool {
	pre, suf := strings.HasPrefix(p, "*"), strings.HasSuffix(p, "*")
	core := strings.Trim(p, "*")
	switch {
	case pre && suf:
		return strings.Contains(w, core)
	case pre:
		return strings.HasSuffix(w, core)
	case suf:
		return strings.HasPrefix(w, core)
	}
	return w == core || oneLetterOff(core, w)
}

// misspeltLen is the shortest word that matches a pattern word with one
// letter in it another: OCR reads a C as a G ("FLUORESGENT", building2's
// bill read from outlines) and drawings have typos ("SOCKTES"); among
// shorter words one letter tells words apart (heater, header).
const misspeltLen = 8

// oneLetterOff reports whether w is p, at least misspeltLen letters
// long, with one letter in it another.
func oneLetterOff(p, w string) bool {
	a, b := []rune(p), []rune(w)
	if len(a) != len(b) || len(a) < misspeltLen {
		return false
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	return diff == 1
}

// normWords lowers text and splits it into words of letters or of digits
// ("1lever" is "1", "lever"; "16A" is "16", "a"); a pattern keeps its "*".
func normWords(s string, pattern bool) []string {
	var out []string
	var cur []rune
	kind := 0 // 1 letters, 2 digits
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
		kind = 0
	}
	for _, r := range strings.ToLower(s) {
		k := 0
		switch {
		case unicode.IsLetter(r) || (pattern && r == '*'):
			k = 1
		case unicode.IsDigit(r):
			k = 2
		}
		if k == 0 {
			flush()
			continue
		}
		if kind != 0 && k != kind && !(pattern && r == '*') && !(pattern && len(cur) > 0 && cur[len(cur)-1] == '*') {
			flush()
		}
		cur = append(cur, r)
		kind = k
	}
	flush()
	return out
}
