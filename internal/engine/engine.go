// Package engine assembles the production detection engine: every available
// detector, fused into one detect.Engine. The job flow and the evaluation
// command both use New, so what is scored is what partners get.
package engine

import (
	"errors"
	"fmt"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/raster"
	"blueprint/internal/vector"
)

// Options choose the detectors besides the vector matcher.
type Options struct {
	// RasterOff leaves the raster detector out: PDF pages get the vector
	// matcher alone and image pages fail with ErrRasterOff.
	RasterOff bool
	// Raster locates ONNX Runtime for the raster detector.
	Raster raster.Config
}

// ErrRasterOff is the error of an image page when the raster detector is
// turned off by configuration.
var ErrRasterOff error = &detect.UnreadableError{Reason: "the raster detector is turned off by configuration (BLUEPRINT_RASTER_DETECTOR=off), so images and scanned pages cannot be read"}

// New returns the production engine for the catalog's classes: the vector
// matcher with every catalog glyph as a template on PDF pages, and the
// raster detector on every page (scans and images alone; rendered PDF pages
// as a second opinion), fused by Fuse. It fails, saying why, when the
// raster detector cannot be loaded (ONNX Runtime missing or the wrong
// version) unless opt.RasterOff. The engine is safe for concurrent use by
// several goroutines working on different pages.
func New(cat *catalog.Catalog, opt Options) (detect.Engine, error) {
	if cat == nil {
		return nil, errors.New("engine: nil catalog")
	}
	syms := cat.Symbols()
	tpls := make([]vector.Template, 0, len(syms))
	for _, s := range syms {
		tpls = append(tpls, vector.Template{Class: s.Class, Glyph: s.Glyph})
	}
	vec, err := vector.NewEngine(tpls)
	if err != nil {
		return nil, fmt.Errorf("engine: vector matcher: %w", err)
	}
	if opt.RasterOff {
		return Fuse(vec, nil), nil
	}
	det, err := raster.New(opt.Raster)
	if err != nil {
		return nil, fmt.Errorf("engine: raster detector: %w", err)
	}
	for _, c := range det.Meta().Classes {
		if _, ok := cat.Model(c); !ok {
			return nil, fmt.Errorf("engine: raster detector: the model's class %q is not in the catalog", c)
		}
	}
	return Fuse(vec, det), nil
}
