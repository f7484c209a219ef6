// Package engine assembles the production detection engine: every available
// detector, fused into one detect.Engine. The job flow and the evaluation
// command both use New, so what is scored is what partners get.
package engine

import (
	"errors"
	"fmt"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/vector"
)

// New returns the production engine for the catalog's classes: today the
// vector matcher with every catalog glyph as a template (PDF pages; image
// pages get no detections until a raster detector lands). The engine is safe
// for concurrent use by several goroutines working on different pages.
func New(cat *catalog.Catalog) (detect.Engine, error) {
	if cat == nil {
		return nil, errors.New("engine: nil catalog")
	}
	syms := cat.Symbols()
	tpls := make([]vector.Template, 0, len(syms))
	for _, s := range syms {
		tpls = append(tpls, vector.Template{Class: s.Class, Glyph: s.Glyph})
	}
	e, err := vector.NewEngine(tpls)
	if err != nil {
		return nil, fmt.Errorf("engine: vector matcher: %w", err)
	}
	return e, nil
}
