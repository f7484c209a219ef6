// Package synth generates synthetic construction drawings with exact
// ground truth: floor plans with walls, doors, furniture, grids,
// dimensions and a title block, on which electrical and fire-alarm
// symbols from the catalog are placed, wired and labelled.
//
// Vector sheets are real PDFs (github.com/signintech/gopdf, text in the
// embedded Go Regular font). Raster sheets are those PDFs rendered with
// MuPDF (go-fitz) at 150–300 DPI and degraded like scans and photos.
// Every sheet comes with a Truth record in the shared dataset format.
//
// Output is a pure function of (seed, sheet index, options): sheet i of a
// run is the same whatever the number of sheets, and the raster sheet i is
// a degraded rendering of the vector sheet i of the same seed.
package synth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"blueprint/internal/glyph"
)

// Kind says whether a sheet is a vector PDF or a raster image.
type Kind string

// Sheet kinds, as written in the ground truth's "kind".
const (
	KindVector Kind = "vector"
	KindRaster Kind = "raster"
)

// ParseKind accepts "vector", "raster", "legend", "scan-legend" or "heavy".
func ParseKind(s string) (Kind, error) {
	switch Kind(s) {
	case KindVector, KindRaster, KindLegend, KindScanLegend, KindHeavy:
		return Kind(s), nil
	}
	return "", fmt.Errorf("synth: unknown kind %q (want vector, raster, legend, scan-legend or heavy)", s)
}

// Symbol is what the generator needs to know about one catalog class.
type Symbol struct {
	Class    string
	Model    string // "electricity" or "fire_alarm"
	Category string // catalog category, e.g. "lighting", "sockets", "detectors"
	NameEN   string
	NameFI   string
	Color    string // "#RRGGBB"
	Glyph    glyph.Glyph
	// Labelled: the glyph's text is a label written beside the symbol
	// (a heat detector's "135°" above its hexagon), drawn with every
	// instance but outside its ground-truth box, which bounds the symbol.
	Labelled bool
}

// Options shape a run.
type Options struct {
	// MaxPaper caps the paper size ("A4".."A0"); "" allows every size.
	MaxPaper string
	// MaxDPI caps the resolution of raster sheets (150..300); 0 means 300.
	MaxDPI int
	// First is the index of the first sheet Run writes: sheets First..n-1
	// extend a set whose first First sheets are already written (sheet i
	// of a seed is the same whatever n and First are).
	First int
}

// Generator draws sheets from a fixed symbol set. It is safe for use by
// one goroutine at a time.
type Generator struct {
	symbols []Symbol
	met     *metrics
	// novel is set on the generator of one legend set (KindLegend):
	// every sheet has the set's legend on its first page.
	novel bool
	// layout is a legend set's layout (title sheet, riser).
	layout setLayout
	// colourKeyed: two devices of the legend set share a glyph and
	// differ only by colour, so every page draws symbols in their
	// colours.
	colourKeyed bool
}

// New returns a generator for the given symbols (at least one, each with
// a class name and a non-empty glyph).
func New(symbols []Symbol) (*Generator, error) {
	if len(symbols) == 0 {
		return nil, errors.New("synth: no symbols")
	}
	for _, s := range symbols {
		if s.Class == "" || len(s.Glyph.Shapes) == 0 {
			return nil, fmt.Errorf("synth: symbol %q has no class or no glyph", s.Class)
		}
	}
	met, err := newMetrics()
	if err != nil {
		return nil, err
	}
	return &Generator{symbols: append([]Symbol(nil), symbols...), met: met}, nil
}

// Sheet is one generated file and its ground truth.
type Sheet struct {
	Name  string // file name, e.g. "sheet-00001.pdf" or "scan-00001.jpg"
	Data  []byte
	Truth Truth
}

// SheetName returns the file stem of sheet i (0-based) of a kind:
// "sheet-00001" for vector sheets, "scan-00001" for their raster
// variants, so that both kinds can share one dataset directory.
func SheetName(kind Kind, i int) string {
	switch kind {
	case KindRaster:
		return fmt.Sprintf("scan-%05d", i+1)
	case KindLegend:
		return fmt.Sprintf("legend-%05d", i+1)
	case KindScanLegend:
		return fmt.Sprintf("scanlegend-%05d", i+1)
	}
	return fmt.Sprintf("sheet-%05d", i+1)
}

// rngFor returns the random source of sheet i of a run with seed.
func rngFor(seed uint64, i int, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed^0x9E3779B97F4A7C15*uint64(i+1), stream))
}

// Vector draws sheet i of the run with seed as a PDF.
// Most sheets have one page; some have two or three (further floors on
// the same paper and scale).
func (g *Generator) Vector(seed uint64, i int, opt Options) (Sheet, error) {
	pages, err := g.sheet(seed, i, opt)
	if err != nil {
		return Sheet{}, err
	}
	stem := SheetName(KindVector, i)
	data, err := pagesPDF(pages)
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: sheet %s: %w", stem, err)
	}
	return Sheet{Name: stem + ".pdf", Data: data, Truth: vectorTruth(pages, stem+".pdf", seed)}, nil
}

// Legend draws sheet i of the run with seed as a legend set (KindLegend):
// one to three pages whose devices use novel glyphs defined only by the
// legend on the first page. Its ground truth names each instance by the
// class of its legend row.
func (g *Generator) Legend(seed uint64, i int, opt Options) (Sheet, error) {
	syms := g.novelSymbols(rngFor(seed, i, 20))
	ng := &Generator{symbols: syms, met: g.met, novel: true, layout: newSetLayout(rngFor(seed, i, 30)), colourKeyed: colourTwins(syms)}
	pages, err := ng.legendSheet(seed, i, opt)
	if err != nil {
		return Sheet{}, err
	}
	stem := SheetName(KindLegend, i)
	data, err := pagesPDF(pages)
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: sheet %s: %w", stem, err)
	}
	t := vectorTruth(pages, stem+".pdf", seed)
	t.Kind = KindLegend
	tagGlyphCase(&t, ng.layout.glyphCase, ng.layout.glyphClass)
	ng.layout.tagTableCase(&t)
	return Sheet{Name: stem + ".pdf", Data: data, Truth: t}, nil
}

// Raster draws sheet i of the run with seed as a degraded PNG or JPEG
// rendering of the first page of vector sheet i.
func (g *Generator) Raster(ctx context.Context, seed uint64, i int, opt Options) (Sheet, error) {
	d, err := g.design(seed, i, opt)
	if err != nil {
		return Sheet{}, err
	}
	pdf, err := pagesPDF([]*design{d})
	if err != nil {
		return Sheet{}, fmt.Errorf("synth: sheet %s: %w", SheetName(KindRaster, i), err)
	}
	return d.raster(ctx, pdf, rngFor(seed, i, 2), SheetName(KindRaster, i), seed, opt)
}

// Run writes n sheets of the given kind into dir (created if needed):
// for each, the drawing and "<stem>.json" beside it. Sheets are drawn on
// as many goroutines as GOMAXPROCS allows; sheet i depends only on seed
// and i, so the files are the same whatever the number of workers. On
// the first error (or cancellation) the other workers stop after their
// current sheet and Run returns that error.
func (g *Generator) Run(ctx context.Context, dir string, n int, seed uint64, kind Kind, opt Options) error {
	if opt.First < 0 || opt.First > n {
		return fmt.Errorf("synth: first sheet %d is outside 0..%d", opt.First, n)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("synth: create output dir: %w", err)
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, min(n-opt.First, runtime.GOMAXPROCS(0))) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := g.runSheet(ctx, dir, i, seed, kind, opt); err != nil {
					cancel(err)
				}
			}
		}()
	}
feed:
	for i := opt.First; i < n; i++ {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return fmt.Errorf("synth: run of %d sheets: %w", n, err)
	}
	return nil
}

// runSheet draws sheet i and writes it into dir.
func (g *Generator) runSheet(ctx context.Context, dir string, i int, seed uint64, kind Kind, opt Options) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("before sheet %d: %w", i, err)
	}
	var (
		s   Sheet
		err error
	)
	switch kind {
	case KindRaster:
		s, err = g.Raster(ctx, seed, i, opt)
	case KindLegend:
		s, err = g.Legend(seed, i, opt)
	case KindHeavy:
		s, err = g.Heavy(seed, i, opt)
	case KindScanLegend:
		s, err = g.ScanLegend(ctx, seed, i, opt)
	default:
		s, err = g.Vector(seed, i, opt)
	}
	if err != nil {
		return err
	}
	return WriteSheet(dir, s)
}

// WriteSheet writes the sheet's file and its ground truth into dir.
func WriteSheet(dir string, s Sheet) error {
	if err := os.WriteFile(filepath.Join(dir, s.Name), s.Data, 0o644); err != nil {
		return fmt.Errorf("synth: write %s: %w", s.Name, err)
	}
	js, err := MarshalTruth(s.Truth)
	if err != nil {
		return err
	}
	stem := s.Name[:len(s.Name)-len(filepath.Ext(s.Name))]
	if err := os.WriteFile(filepath.Join(dir, stem+".json"), js, 0o644); err != nil {
		return fmt.Errorf("synth: write %s.json: %w", stem, err)
	}
	return nil
}

// MarshalTruth encodes the ground truth as indented JSON with a final
// newline, the exact bytes Run writes.
func MarshalTruth(t Truth) ([]byte, error) {
	b, err := json.MarshalIndent(t, "", " ")
	if err != nil {
		return nil, fmt.Errorf("synth: encode truth %s: %w", t.File, err)
	}
	return append(b, '\n'), nil
}
