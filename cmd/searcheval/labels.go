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

// labeller takes off a drawing as a job does (its symbols, their classes
// and the codes written beside them): the service's search reads the done
// job's take-off (search.SplitByTag, search.JoinSameClass), and so does
// the eval.
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

// labels returns, per page of the PDF raw, the take-off's detections as
// the service reads them from a done job (those stored and shown by
// default, less the withheld: a row stopped as a flood, off its scale, a
// guess at a class no row names; a row withheld as a flood by its count
// alone is kept): box, class, and the code where a tag named it.
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
	// What a done job shows by default: not the matches it withholds
	// (a flood, off its row's scale, a guess at a class no row names).
	detect.MarkOffScale(dets, detect.RowKeys(info.Legend))
	named, unread := detect.NamedClasses(info.Legend), detect.TextUnread(info.Warnings)
	out := map[int][]search.Label{}
	for i, ds := range detect.KeepStored(dets) {
		for _, d := range l.filter.Apply(ds) {
			if detect.Held(d, named, !unread[i]) {
				continue
			}
			lb := search.Label{Box: d.Box, Class: d.Class}
			if d.Source.Tag && d.LegendRow > 0 && d.LegendRow <= len(info.Legend) {
				lb.Code = info.Legend[d.LegendRow-1].Code
				lb.OnTag = !d.Source.VectorMatching && !d.Source.Detector
			}
			out[i] = append(out[i], lb)
		}
	}
	return out, nil
}
