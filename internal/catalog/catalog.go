// Package catalog is the list of symbol classes the service detects: their
// public keys, names in English and Finnish, categories, colours, Talo codes,
// default display thresholds and vector glyphs.
//
// The data lives in one embedded JSON file (symbols.json, documented in
// docs/catalog.md). An operator can override names, colours, Talo codes and
// thresholds per class with a JSON file read at start (the server passes
// BLUEPRINT_CATALOG_FILE to Load), without a rebuild. A Catalog is
// immutable after Load and safe for concurrent use.
package catalog

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"blueprint/internal/glyph"
)

//go:embed symbols.json
var embedded []byte

// ErrInvalid is wrapped by every error Load returns for bad catalog data,
// embedded or operator-supplied; check it with errors.Is.
var ErrInvalid = errors.New("invalid catalog data")

// ErrUnknownClass is wrapped by the icon methods when the class is not in
// the catalog (the HTTP layer answers 404).
var ErrUnknownClass = errors.New("unknown symbol class")

// Languages DisplayName understands. Any other language gets English.
const (
	LangEnglish = "en"
	LangFinnish = "fi"
)

// colorPattern is the only colour form the catalog accepts: #rrggbb.
var colorPattern = regexp.MustCompile(`^#[0-9A-Fa-f]{6}$`)

// classPattern is the form of a class key: lower-case snake case.
var classPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// Symbol is one detectable class. Class is the public key on the wire and
// never changes meaning. Talo2010Code is nil unless a source (or the
// operator's override file) gives one. Threshold is the per-class default
// display threshold, 0..1. Glyph is the drawing in the canonical frame of
// package glyph (millimetres at scale 1, anchor at the origin, y down).
type Symbol struct {
	Class, DisplayName, DisplayNameFI, Category, SymbolCategory, Model, Color string
	Talo2010Code                                                              *string
	Threshold                                                                 float64
	Glyph                                                                     glyph.Glyph
}

// Catalog is the loaded, validated set of symbols. Its methods return
// copies, so callers cannot change it.
type Catalog struct {
	models  []string
	symbols []Symbol
	index   map[string]int
}

// symbolJSON is one entry of symbols.json.
type symbolJSON struct {
	Class          string      `json:"class"`
	DisplayName    string      `json:"display_name"`
	DisplayNameFI  string      `json:"display_name_fi"`
	Category       string      `json:"category"`
	SymbolCategory string      `json:"symbol_category"`
	Model          string      `json:"model"`
	Color          string      `json:"color"`
	Talo2010Code   *string     `json:"talo2010_code"`
	Threshold      *float64    `json:"threshold"`
	Glyph          glyph.Glyph `json:"glyph"`
}

// fileJSON is the whole of symbols.json.
type fileJSON struct {
	Models  []string     `json:"models"`
	Symbols []symbolJSON `json:"symbols"`
}

// overrideJSON is one class's entry in the operator override file. Every
// field is optional; talo2010_code may be null to clear a code.
type overrideJSON struct {
	DisplayName   *string         `json:"display_name"`
	DisplayNameFI *string         `json:"display_name_fi"`
	Color         *string         `json:"color"`
	Talo2010Code  json.RawMessage `json:"talo2010_code"`
	Threshold     *float64        `json:"threshold"`
}

// overrideFileJSON is the operator override file.
type overrideFileJSON struct {
	Symbols map[string]overrideJSON `json:"symbols"`
}

// Load reads the embedded catalog, validates it, and then applies the
// operator override file at overridePath unless it is "". Any problem
// (malformed JSON, unknown class or field, bad colour, threshold outside
// 0..1) fails with an error naming the file and wrapping ErrInvalid; a
// missing or unreadable file fails with the os error wrapped.
func Load(overridePath string) (*Catalog, error) {
	c, err := parse(embedded, "embedded symbols.json")
	if err != nil {
		return nil, err
	}
	if overridePath == "" {
		return c, nil
	}
	data, err := os.ReadFile(overridePath)
	if err != nil {
		return nil, fmt.Errorf("catalog override %s: %w", overridePath, err)
	}
	if err := c.applyOverride(data, overridePath); err != nil {
		return nil, err
	}
	return c, nil
}

// invalid formats a validation error for source, wrapping ErrInvalid.
func invalid(source, format string, args ...any) error {
	return fmt.Errorf("catalog %s: %s: %w", source, fmt.Sprintf(format, args...), ErrInvalid)
}

// decodeStrict decodes exactly one JSON value into v, rejecting unknown
// fields and trailing data.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("trailing data after the JSON value")
	}
	return nil
}

// parse decodes and validates catalog data.
func parse(data []byte, source string) (*Catalog, error) {
	var f fileJSON
	if err := decodeStrict(data, &f); err != nil {
		return nil, invalid(source, "malformed JSON: %v", err)
	}
	if len(f.Models) == 0 {
		return nil, invalid(source, "no models listed")
	}
	models := map[string]bool{}
	for _, m := range f.Models {
		if !classPattern.MatchString(m) || models[m] {
			return nil, invalid(source, "model %q is malformed or listed twice", m)
		}
		models[m] = true
	}
	c := &Catalog{models: append([]string(nil), f.Models...), index: map[string]int{}}
	catColor := map[string]string{}
	modelCat := map[string]string{}
	used := map[string]bool{}
	for i, s := range f.Symbols {
		where := fmt.Sprintf("symbol %d (%q)", i, s.Class)
		if !classPattern.MatchString(s.Class) {
			return nil, invalid(source, "%s: class must be lower-case snake case", where)
		}
		if _, dup := c.index[s.Class]; dup {
			return nil, invalid(source, "%s: class listed twice", where)
		}
		if s.DisplayName == "" || s.DisplayNameFI == "" || s.Category == "" {
			return nil, invalid(source, "%s: display_name, display_name_fi and category are required", where)
		}
		if !models[s.Model] {
			return nil, invalid(source, "%s: model %q is not one of %v", where, s.Model, f.Models)
		}
		used[s.Model] = true
		if want := s.Model + "_symbols"; s.SymbolCategory != want {
			return nil, invalid(source, "%s: symbol_category %q, want %q for model %q", where, s.SymbolCategory, want, s.Model)
		}
		if prev, ok := modelCat[s.Category]; ok && prev != s.Model {
			return nil, invalid(source, "%s: category %q used in models %q and %q", where, s.Category, prev, s.Model)
		}
		modelCat[s.Category] = s.Model
		if err := checkColor(s.Color); err != nil {
			return nil, invalid(source, "%s: %v", where, err)
		}
		if prev, ok := catColor[s.Category]; ok && !strings.EqualFold(prev, s.Color) {
			return nil, invalid(source, "%s: colour %s differs from %s used by other %q symbols", where, s.Color, prev, s.Category)
		}
		catColor[s.Category] = s.Color
		if s.Talo2010Code != nil && strings.TrimSpace(*s.Talo2010Code) == "" {
			return nil, invalid(source, "%s: talo2010_code must be null or non-empty", where)
		}
		if s.Threshold == nil {
			return nil, invalid(source, "%s: threshold is required", where)
		}
		if err := checkThreshold(*s.Threshold); err != nil {
			return nil, invalid(source, "%s: %v", where, err)
		}
		if err := checkGlyph(s.Glyph); err != nil {
			return nil, invalid(source, "%s: %v", where, err)
		}
		c.index[s.Class] = len(c.symbols)
		c.symbols = append(c.symbols, Symbol{
			Class: s.Class, DisplayName: s.DisplayName, DisplayNameFI: s.DisplayNameFI,
			Category: s.Category, SymbolCategory: s.SymbolCategory, Model: s.Model,
			Color: strings.ToUpper(s.Color), Talo2010Code: s.Talo2010Code,
			Threshold: *s.Threshold, Glyph: s.Glyph,
		})
	}
	for _, m := range f.Models {
		if !used[m] {
			return nil, invalid(source, "model %q has no symbols", m)
		}
	}
	return c, nil
}

func checkColor(s string) error {
	if !colorPattern.MatchString(s) {
		return fmt.Errorf("colour %q is not of the form #rrggbb", s)
	}
	return nil
}

func checkThreshold(v float64) error {
	if !(v >= 0 && v <= 1) {
		return fmt.Errorf("threshold %v is outside 0..1", v)
	}
	return nil
}

// checkGlyph requires at least one shape with finite, drawable geometry
// and a non-empty extent.
func checkGlyph(g glyph.Glyph) error {
	if len(g.Shapes) == 0 {
		return errors.New("glyph has no shapes")
	}
	lines := 0
	for i, s := range g.Shapes {
		if s.Kind == glyph.KindText && strings.TrimSpace(s.Text) == "" {
			return fmt.Errorf("glyph shape %d: empty text", i)
		}
		if s.Kind != glyph.KindText {
			lines++
		}
	}
	if lines == 0 {
		return errors.New("glyph has only text; it needs drawn geometry")
	}
	lo, hi := g.Bounds()
	if !(hi.X-lo.X > 0 && hi.Y-lo.Y > 0) || hi.X-lo.X > 100 || hi.Y-lo.Y > 100 {
		return fmt.Errorf("glyph extent %.3g × %.3g mm is empty, not finite or over 100 mm", hi.X-lo.X, hi.Y-lo.Y)
	}
	return nil
}

// applyOverride applies the operator file's per-class changes.
func (c *Catalog) applyOverride(data []byte, path string) error {
	source := "override " + path
	var f overrideFileJSON
	if err := decodeStrict(data, &f); err != nil {
		return invalid(source, "malformed JSON: %v", err)
	}
	if f.Symbols == nil {
		return invalid(source, `no "symbols" object`)
	}
	for class, o := range f.Symbols {
		i, ok := c.index[class]
		if !ok {
			return invalid(source, "unknown class %q", class)
		}
		s := &c.symbols[i]
		if o.DisplayName != nil {
			if strings.TrimSpace(*o.DisplayName) == "" {
				return invalid(source, "class %q: display_name must not be empty", class)
			}
			s.DisplayName = *o.DisplayName
		}
		if o.DisplayNameFI != nil {
			if strings.TrimSpace(*o.DisplayNameFI) == "" {
				return invalid(source, "class %q: display_name_fi must not be empty", class)
			}
			s.DisplayNameFI = *o.DisplayNameFI
		}
		if o.Color != nil {
			if err := checkColor(*o.Color); err != nil {
				return invalid(source, "class %q: %v", class, err)
			}
			s.Color = strings.ToUpper(*o.Color)
		}
		if o.Talo2010Code != nil {
			var code *string
			if err := json.Unmarshal(o.Talo2010Code, &code); err != nil {
				return invalid(source, "class %q: talo2010_code must be a string or null", class)
			}
			if code != nil && strings.TrimSpace(*code) == "" {
				return invalid(source, "class %q: talo2010_code must be null or non-empty", class)
			}
			s.Talo2010Code = code
		}
		if o.Threshold != nil {
			if err := checkThreshold(*o.Threshold); err != nil {
				return invalid(source, "class %q: %v", class, err)
			}
			s.Threshold = *o.Threshold
		}
	}
	return nil
}

// clone returns a deep copy of s, so callers cannot reach the catalog's
// own slices or pointers.
func clone(s Symbol) Symbol {
	if s.Talo2010Code != nil {
		code := *s.Talo2010Code
		s.Talo2010Code = &code
	}
	shapes := make([]glyph.Shape, len(s.Glyph.Shapes))
	for i, sh := range s.Glyph.Shapes {
		sh.Pts = append([]glyph.Point(nil), sh.Pts...)
		shapes[i] = sh
	}
	s.Glyph = glyph.Glyph{Shapes: shapes}
	return s
}

// Symbols returns every symbol in the data file's stable order (electricity
// classes first, then fire alarm, as in symbols.md). The slice is a copy.
func (c *Catalog) Symbols() []Symbol {
	out := make([]Symbol, len(c.symbols))
	for i, s := range c.symbols {
		out[i] = clone(s)
	}
	return out
}

// Lookup returns the symbol of a class key, and false for an unknown class.
func (c *Catalog) Lookup(class string) (Symbol, bool) {
	i, ok := c.index[class]
	if !ok {
		return Symbol{}, false
	}
	return clone(c.symbols[i]), true
}

// Meta is a symbol's descriptive fields without its glyph: what results,
// the summary and the symbol list show of a class. Talo2010Code is nil
// unless the class has a code; it points to a copy the caller may keep.
type Meta struct {
	Class, DisplayName, DisplayNameFI, Category, SymbolCategory, Model, Color string
	Talo2010Code                                                              *string
	Threshold                                                                 float64
}

// Meta returns the class's fields without copying its glyph, and false for
// an unknown class. It is the cheap form of Lookup for code that runs once
// per detection; it allocates only a copy of the Talo code, if any.
func (c *Catalog) Meta(class string) (Meta, bool) {
	i, ok := c.index[class]
	if !ok {
		return Meta{}, false
	}
	s := &c.symbols[i]
	m := Meta{Class: s.Class, DisplayName: s.DisplayName, DisplayNameFI: s.DisplayNameFI, Category: s.Category,
		SymbolCategory: s.SymbolCategory, Model: s.Model, Color: s.Color, Threshold: s.Threshold}
	if s.Talo2010Code != nil {
		code := *s.Talo2010Code
		m.Talo2010Code = &code
	}
	return m, true
}

// Threshold returns the class's default display threshold (0..1), and
// false for an unknown class. It does not allocate.
func (c *Catalog) Threshold(class string) (float64, bool) {
	i, ok := c.index[class]
	if !ok {
		return 0, false
	}
	return c.symbols[i].Threshold, true
}

// Model returns the name of the detection model the class belongs to, and
// false for an unknown class. It does not allocate.
func (c *Catalog) Model(class string) (string, bool) {
	i, ok := c.index[class]
	if !ok {
		return "", false
	}
	return c.symbols[i].Model, true
}

// Models returns the detection model names in the data file's order
// ("fire_alarm", "electricity").
func (c *Catalog) Models() []string {
	return append([]string(nil), c.models...)
}

// DisplayName returns the class's name in lang: Finnish when lang's primary
// subtag is "fi" (e.g. "fi", "fi-FI"), English otherwise. It returns "" for
// an unknown class.
func (c *Catalog) DisplayName(class, lang string) string {
	i, ok := c.index[class]
	if !ok {
		return ""
	}
	if primaryTag(lang) == LangFinnish {
		return c.symbols[i].DisplayNameFI
	}
	return c.symbols[i].DisplayName
}

// primaryTag returns the lower-case primary subtag of a language tag.
func primaryTag(tag string) string {
	tag = strings.TrimSpace(tag)
	if i := strings.IndexAny(tag, "-_"); i >= 0 {
		tag = tag[:i]
	}
	return strings.ToLower(tag)
}
