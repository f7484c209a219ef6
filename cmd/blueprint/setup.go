package main

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/engine"
	"blueprint/internal/ocr"
	"blueprint/internal/raster"
)

// readFlags are the flags that choose how files are read and counted.
// raster, library and catalog each stand for one of the service's
// environment variables and override it, so that without flags a command
// reads a file exactly as blueprintd under the same environment does;
// confidence is the API's ?confidence=.
type readFlags struct {
	raster, library, catalog string // "": the environment's
	// confidence is a flat floor for every class; nil: each class's own
	// threshold.
	confidence *float64
}

func (f *readFlags) define(fs *flag.FlagSet) {
	fs.Func("confidence", "a flat confidence `floor` from 0 to 1 for every class, as the API's ?confidence= (default: each class's own threshold)",
		func(v string) error {
			c, err := strconv.ParseFloat(v, 64)
			if err != nil || !(c >= 0 && c <= 1) {
				return fmt.Errorf("%q is not a number from 0 to 1", v)
			}
			f.confidence = &c
			return nil
		})
	fs.Func("raster", "the raster detector, `on|off` (default $"+config.EnvRasterDetector+", else on); off reads PDFs by their drawing alone and refuses images",
		func(v string) error {
			if v != "on" && v != "off" {
				return fmt.Errorf("%q is not on or off", v)
			}
			f.raster = v
			return nil
		})
	fs.StringVar(&f.library, "onnxruntime-lib", "", "`path` of ONNX Runtime's libonnxruntime.so for the raster detector (default $"+config.EnvOnnxRuntimeLib+")")
	fs.StringVar(&f.catalog, "catalog", "", "symbol catalog override `file` (default $"+config.EnvCatalogFile+"; docs/catalog.md)")
}

// filter is the read filter the flags ask for, as a partner's
// ?confidence= does; threshold gives each class's default threshold.
func (f readFlags) filter(threshold func(string) (float64, bool)) detect.Filter {
	if f.confidence != nil {
		return detect.Filter{Flat: f.confidence}
	}
	return detect.DefaultFilter(threshold)
}

// reader is what a command needs to read files as the service does: its
// configuration (limits, catalog, raster detector), catalog and engine.
type reader struct {
	cfg config.Config
	cat *catalog.Catalog
	eng *engine.Engine
}

// newReader loads the configuration the flags and the environment
// (getenv) give, and builds the catalog and the production engine. It
// fails in one line, saying what to do, when the raster detector is on
// and ONNX Runtime cannot be loaded.
func (f readFlags) newReader(getenv func(string) string) (*reader, error) {
	cfg, err := config.Load(func(name string) string {
		switch {
		case name == config.EnvRasterDetector && f.raster != "":
			return f.raster
		case name == config.EnvOnnxRuntimeLib && f.library != "":
			return f.library
		case name == config.EnvCatalogFile && f.catalog != "":
			return f.catalog
		}
		return getenv(name)
	})
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	cat, err := catalog.Load(cfg.CatalogFile)
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	o, err := ocr.Open(context.Background(), cfg.Raster.ImageLegends, cfg.Raster.OCR)
	if err != nil {
		return nil, fmt.Errorf("configuration: %s: %w", config.EnvOCR, err)
	}
	eng, err := engine.New(cat, engine.Options{RasterOff: cfg.Raster.Off, RasterOnVector: cfg.Raster.OnVector, Raster: raster.Config{Library: cfg.Raster.Library}, OCR: o})
	if err != nil {
		return nil, fmt.Errorf("%w (set %s or --onnxruntime-lib to ONNX Runtime's libonnxruntime.so, which make ort fetches into layers/onnxruntime/lib, or use --raster off to read PDFs without the raster detector)",
			err, config.EnvOnnxRuntimeLib)
	}
	return &reader{cfg: cfg, cat: cat, eng: eng}, nil
}
