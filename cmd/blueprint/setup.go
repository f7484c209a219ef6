package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

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
	// rasterOff says, in the command line's words, why the raster
	// detector is off ("--raster off"); "" when it is on.
	rasterOff string
}

// Where make ort puts ONNX Runtime, relative to the repository root.
const ortDir = "layers/onnxruntime/lib"

// findLibrary returns the newest libonnxruntime.so.* under
// layers/onnxruntime/lib of the first of dirs that has one, "" if none
// does: where make ort puts it, relative to the repository root.
func findLibrary(dirs []string) string {
	for _, d := range dirs {
		m, _ := filepath.Glob(filepath.Join(d, ortDir, "libonnxruntime.so.*"))
		if len(m) > 0 {
			slices.Sort(m)
			// The file itself: ONNX Runtime loads once a process, and a
			// second path to the same library is refused.
			if p, err := filepath.EvalSymlinks(m[len(m)-1]); err == nil {
				return p
			}
			return m[len(m)-1]
		}
	}
	return ""
}

// libraryDirs are the directories searched for ONNX Runtime when neither
// $BLUEPRINT_ONNXRUNTIME_LIB nor --onnxruntime-lib names it: the
// program's directory and the one above it (bin/blueprint of a checkout),
// then the working directory and those above it (go run at the
// repository root or below).
func libraryDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		if exe, err := filepath.EvalSymlinks(exe); err == nil {
			dirs = append(dirs, filepath.Dir(exe), filepath.Dir(filepath.Dir(exe)))
		}
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			dirs = append(dirs, d)
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return dirs
}

// newReader loads the configuration the flags and the environment give,
// and builds the catalog and the production engine. Where neither names
// ONNX Runtime, it is looked for where make ort puts it (e.libraryDirs);
// not found there, the raster detector is off unless it was asked for
// (--raster on, $BLUEPRINT_RASTER_DETECTOR=on), and a one-line note on
// stderr says so. It fails in one line, saying what to do, when the
// raster detector is on and ONNX Runtime cannot be loaded.
func (f readFlags) newReader(e env) (*reader, error) {
	getenv := e.getenv
	library := f.library
	if library == "" {
		library = getenv(config.EnvOnnxRuntimeLib)
	}
	asked := f.raster == "on" || f.raster == "" && getenv(config.EnvRasterDetector) != ""
	var fallback bool
	if library == "" && f.raster != "off" {
		var dirs []string
		if e.libraryDirs != nil {
			dirs = e.libraryDirs()
		}
		library = findLibrary(dirs)
		fallback = library == "" && !asked
	}
	cfg, err := config.Load(func(name string) string {
		switch {
		case name == config.EnvRasterDetector && fallback:
			return "off"
		case name == config.EnvRasterDetector && f.raster != "":
			return f.raster
		case name == config.EnvOnnxRuntimeLib:
			return library
		case name == config.EnvCatalogFile && f.catalog != "":
			return f.catalog
		}
		return getenv(name)
	})
	if err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	r := &reader{cfg: cfg}
	switch {
	case fallback:
		r.rasterOff = "ONNX Runtime not found"
		fmt.Fprintf(e.stderr, "blueprint: note: ONNX Runtime not found (no $%s, no --onnxruntime-lib, no %s/libonnxruntime.so.* beside the program or above the working directory; make ort fetches it): reading without the raster detector, PDFs by their drawing alone and images not at all (--raster off silences this note)\n",
			config.EnvOnnxRuntimeLib, ortDir)
	case cfg.Raster.Off && f.raster == "off":
		r.rasterOff = "--raster off"
	case cfg.Raster.Off:
		r.rasterOff = "$" + config.EnvRasterDetector + "=" + getenv(config.EnvRasterDetector)
	}
	if r.cat, err = catalog.Load(cfg.CatalogFile); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	o, err := ocr.Open(context.Background(), cfg.Raster.ImageLegends, cfg.Raster.OCR)
	if err != nil {
		return nil, fmt.Errorf("configuration: %s: %w", config.EnvOCR, err)
	}
	// Words drawn as outlines are read wherever tesseract is, whatever
	// the setting for legends on images.
	outlines, err := ocr.Open(context.Background(), true, cfg.Raster.OCR)
	if err != nil {
		return nil, fmt.Errorf("configuration: %s: %w", config.EnvOCR, err)
	}
	r.eng, err = engine.New(r.cat, engine.Options{RasterOff: cfg.Raster.Off, RasterOnVector: cfg.Raster.OnVector, Raster: raster.Config{Library: cfg.Raster.Library}, OCR: o, Outlines: outlines, TraceImages: cfg.Raster.ImageTrace})
	if err != nil {
		return nil, fmt.Errorf("%w (set %s or --onnxruntime-lib to ONNX Runtime's libonnxruntime.so, which make ort fetches into %s, or use --raster off to read PDFs without the raster detector)",
			err, config.EnvOnnxRuntimeLib, ortDir)
	}
	return r, nil
}

// say is a message of the service about a file in the command line's
// words: no upload or job to speak of, and the raster detector turned off
// by the flag or the variable that did it.
func (r *reader) say(msg string) string {
	msg = strings.ReplaceAll(msg, "; upload the complete file", "")
	msg = strings.ReplaceAll(msg, "; upload a copy without a password", "; save a copy without a password")
	if r.rasterOff != "" {
		msg = strings.ReplaceAll(msg, "turned off by configuration ("+config.EnvRasterDetector+"=off)", "off ("+r.rasterOff+")")
	}
	// Pages are numbered from 1 in the command's text.
	return pageIndexRE.ReplaceAllStringFunc(msg, func(m string) string {
		i, _ := strconv.Atoi(pageIndexRE.FindStringSubmatch(m)[1])
		return "page " + strconv.Itoa(i+1)
	})
}

var pageIndexRE = regexp.MustCompile(`the page with page_index (\d+)`)
