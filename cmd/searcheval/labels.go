package main

import (
	"context"
	"fmt"
	"os"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/engine"
	"blueprint/internal/ocr"
	"blueprint/internal/pipeline"
	"blueprint/internal/search"
)

// labeller takes off a drawing as a job does (its glyph matches and the
// codes written beside them), for the symbols the take-off named by a
// code: the service's search leaves out matches on symbols of another
// code than the exemplar's (search.SplitByTag), and so does the eval.
type labeller struct {
	eng    detect.Engine
	filter detect.Filter
}

// newLabeller starts the production engine as the service configures it
// for vector pages (the raster detector off: tags label glyph matches
// only), reading words drawn as outlines where Tesseract is installed.
func newLabeller(ctx context.Context) (*labeller, error) {
	cat, err := catalog.Load(os.Getenv(config.EnvCatalogFile))
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	outl, err := ocr.Open(ctx, true, "")
	if err != nil {
		return nil, err
	}
	eng, err := engine.New(cat, engine.Options{RasterOff: true, Outlines: outl})
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	return &labeller{eng: eng, filter: detect.DefaultFilter(cat.Threshold)}, nil
}

// labels returns, per page of the PDF raw, the take-off's detections a
// code named, as the service reads them from a done job: those stored and
// shown by default, whose legend row is a schedule row with a code.
func (l *labeller) labels(ctx context.Context, raw []byte) (map[int][]search.Label, error) {
	doc, err := document.Open(ctx, raw, document.MimePDF, document.DefaultLimits())
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	defer doc.Close()
	var info detect.DocumentInfo
	dets := make([][]detect.Detection, doc.NumPages())
	err = pipeline.Run(ctx, doc, pipeline.Options{Engine: l.eng, Document: func(i detect.DocumentInfo) error {
		info = i
		return nil
	}}, func(r pipeline.PageResult) error {
		dets[r.Index] = r.Detections
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("take-off: %w", err)
	}
	out := map[int][]search.Label{}
	for i, ds := range detect.KeepStored(dets) {
		for _, d := range l.filter.Apply(ds) {
			if d.Source.Tag && d.LegendRow > 0 && d.LegendRow <= len(info.Legend) && info.Legend[d.LegendRow-1].Code != "" {
				r := info.Legend[d.LegendRow-1]
				out[i] = append(out[i], search.Label{Box: d.Box, Code: r.Code, Class: r.Class})
			}
		}
	}
	return out, nil
}
