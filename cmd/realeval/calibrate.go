package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/engine"
	"blueprint/internal/eval/realset"
	"blueprint/internal/ocr"
	"blueprint/internal/pipeline"
	"blueprint/internal/raster"
)

// calibration is what -calibrate measured: every detection reported at
// the default thresholds on the sets, and the floors they give.
type calibration struct {
	Target  float64            `json:"target"`
	Floors  map[string]float64 `json:"floors"`
	Samples []realset.Sample   `json:"samples"`
}

// calibrate runs the production engine in this process on every set's
// vector pages and on each of its plan pages rendered at 200 DPI (mutool
// draw, into renders) and sent alone as an image, and on sets published as
// images; it collects each detection reported at the default thresholds
// and prints, for detections of classes no legend row names, the
// confidence distributions of right-class and wrong-class detections per
// kind (kinds), the floors detect.UnnamedTarget gives, and the share of reported detections in a class the sheet has,
// before withholding and with the committed floors. from, when set, reads
// the samples of an earlier run (-report) instead of running the engine.
func calibrate(ctx context.Context, truths []realset.Truth, data, renders, mutool, from, report string, scales []float64, stdout, stderr io.Writer) error {
	var samples []realset.Sample
	if from != "" {
		b, err := os.ReadFile(from)
		if err != nil {
			return err
		}
		var c calibration
		if err := json.Unmarshal(b, &c); err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		samples = c.Samples
	} else {
		s, err := collect(ctx, truths, data, renders, mutool, scales, stderr)
		if err != nil {
			return err
		}
		samples = s
	}
	c := calibration{Target: detect.UnnamedTarget, Floors: map[string]float64{}, Samples: samples}
	fmt.Fprintf(stdout, "Detections of classes no legend row of the job names, found by no legend row (%d sets; right: the set's truth holds the class)\n", len(truths))
	for _, k := range kinds {
		var un []realset.Sample
		for _, s := range samples {
			if !s.Named && kindOf(s) == k.name {
				un = append(un, s)
			}
		}
		f := realset.Floor(un, detect.UnnamedTarget, detect.UnnamedEvidence)
		c.Floors[k.name] = f
		share, n := realset.Share(un)
		fmt.Fprintf(stdout, "\n%s (%d detections, %.0f %% right):\n%s", k.about, n, 100*share, realset.Histogram(un, 0.05))
		fmt.Fprintf(stdout, "  wrong-class ones, by set and class:\n%s", realset.Wrong(un))
		fmt.Fprintf(stdout, "  floor for %.0f %% right from it up (set on %d or more): %s (committed: %.3f)\n", 100*detect.UnnamedTarget, detect.UnnamedEvidence, floorText(f, n), committed(k.name))
	}
	fmt.Fprintf(stdout, "\nShare of the reported detections in a class the sheet has (all finders):\n")
	fmt.Fprintf(stdout, "  %-30s %-7s %18s %18s %18s\n", "set", "mode", "none withheld", "measured floors", "committed floors")
	measured := func(s realset.Sample) float64 { return c.Floors[kindOf(s)] }
	none := func(realset.Sample) float64 { return 0 }
	inForce := func(s realset.Sample) float64 { return committed(kindOf(s)) }
	bySetMode := map[[2]string][]realset.Sample{}
	for _, s := range samples {
		k := [2]string{s.Set, s.Mode}
		bySetMode[k] = append(bySetMode[k], s)
	}
	keys := make([][2]string, 0, len(bySetMode))
	for k := range bySetMode {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if keys[a][1] != keys[b][1] {
			return keys[a][1] > keys[b][1]
		}
		return keys[a][0] < keys[b][0]
	})
	row := func(name, mode string, ss []realset.Sample) {
		fmt.Fprintf(stdout, "  %-30s %-7s %18s %18s %18s\n", name, mode,
			shareText(realset.Reported(ss, none)), shareText(realset.Reported(ss, measured)), shareText(realset.Reported(ss, inForce)))
	}
	for _, k := range keys {
		row(k[0], k[1], bySetMode[k])
	}
	for _, mode := range []string{realset.ModeImage, realset.ModeVector} {
		var all []realset.Sample
		for _, s := range samples {
			if s.Mode == mode {
				all = append(all, s)
			}
		}
		row("all sets", mode, all)
	}
	if report != "" {
		b, err := json.MarshalIndent(c, "", " ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(report, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// kinds are the kinds of guesses a floor is measured for: raster
// detections, and catalog glyph matches on pages whose text was read and
// on those whose text was not (detect.UnnamedFloor).
var kinds = []struct{ name, about string }{
	{"vector-legend", "catalog glyphs on the drawing (vector matcher), on pages whose text was read, of jobs whose legends name other classes"},
	{"vector-text-read", "catalog glyphs on the drawing (vector matcher), on pages whose text was read, of jobs whose legends name no class"},
	{"vector-text-unread", "catalog glyphs on the drawing (vector matcher), on pages whose text was not read (words drawn as outlines)"},
	{realset.ByRaster, "raster detector alone"},
}

// kindOf is the kind of guess s is.
func kindOf(s realset.Sample) string {
	switch {
	case s.By != realset.ByVector:
		return s.By
	case s.TextRead && s.LegendNames:
		return "vector-legend"
	case s.TextRead:
		return "vector-text-read"
	}
	return "vector-text-unread"
}

// committed is the floor in force (detect.UnnamedFloor) for kind k.
func committed(k string) float64 {
	return detect.UnnamedFloor(detect.Source{VectorMatching: k != realset.ByRaster, Detector: k == realset.ByRaster}, k != "vector-text-unread", k == "vector-legend")
}

func floorText(f float64, n int) string {
	switch {
	case f > 1:
		return "above every one (withhold all)"
	case f == 0 && n < detect.UnnamedEvidence:
		return fmt.Sprintf("none (%d measured: too few)", n)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

func shareText(ss []realset.Sample) string {
	share, n := realset.Share(ss)
	if n == 0 {
		return "-"
	}
	return fmt.Sprintf("%3.0f %% of %d", 100*share, n)
}

// collect runs the engine on every set and returns the samples.
func collect(ctx context.Context, truths []realset.Truth, data, renders, mutool string, scales []float64, stderr io.Writer) ([]realset.Sample, error) {
	cat, err := catalog.Load(os.Getenv(config.EnvCatalogFile))
	if err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	rc, err := config.LoadRaster(os.Getenv)
	if err != nil {
		return nil, err
	}
	o, err := ocr.Open(ctx, rc.ImageLegends, rc.OCR)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", config.EnvOCR, err)
	}
	eng, err := engine.New(cat, engine.Options{RasterOff: rc.Off, RasterOnVector: rc.OnVector, Raster: raster.Config{Library: rc.Library}, OCR: o})
	if err != nil {
		return nil, fmt.Errorf("start engine: %w", err)
	}
	filter := detect.DefaultFilter(cat.Threshold)
	var out []realset.Sample
	for _, t := range truths {
		path := filepath.Join(data, t.File)
		raw, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "realeval: %s: skipped: %v\n", t.File, err)
			continue
		}
		mime := document.Sniff(raw)
		fmt.Fprintf(stderr, "realeval: calibrate: %s ...\n", t.File)
		if mime != "application/pdf" {
			ss, _, err := detectFile(ctx, eng, filter, t, raw, mime, realset.ModeImage, nil)
			if err != nil {
				return nil, err
			}
			out = append(out, ss...)
			continue
		}
		ss, kinds, err := detectFile(ctx, eng, filter, t, raw, mime, realset.ModeVector, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, ss...)
		for _, f := range scales {
			ss, err := detectScaled(ctx, eng, filter, t, path, renders, mutool, f, stderr)
			if err != nil {
				return nil, err
			}
			out = append(out, ss...)
		}
		var plans []string
		for i, k := range kinds {
			if k == detect.KindFloorPlan {
				plans = append(plans, strconv.Itoa(i+1))
			}
		}
		if len(plans) == 0 {
			continue
		}
		dir := filepath.Join(renders, strings.TrimSuffix(t.File, filepath.Ext(t.File)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		cmd := exec.CommandContext(ctx, mutool, "draw", "-q", "-r", strconv.Itoa(detect.RenderDPI), "-o", filepath.Join(dir, "page-%d.png"), path, strings.Join(plans, ","))
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("%s: mutool draw: %w: %s", t.File, err, msg)
		}
		for _, p := range plans {
			png, err := os.ReadFile(filepath.Join(dir, "page-"+p+".png"))
			if err != nil {
				return nil, err
			}
			page, _ := strconv.Atoi(p)
			fmt.Fprintf(stderr, "realeval: calibrate: %s page %d as an image ...\n", t.File, page-1)
			ss, _, err := detectFile(ctx, eng, filter, t, png, "image/png", realset.ModeImage, &page)
			if err != nil {
				return nil, err
			}
			out = append(out, ss...)
		}
	}
	return out, nil
}

// detectScaled measures the vector pages of the PDF at path plotted f
// times its size (scaledCopy, written into dir): samples of the set named
// "<file>@<f>".
func detectScaled(ctx context.Context, eng detect.Engine, filter detect.Filter, t realset.Truth, path, dir, mutool string, f float64, stderr io.Writer) ([]realset.Sample, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	cp, err := scaledCopy(ctx, mutool, path, dir, f)
	if err != nil {
		return nil, err
	}
	defer os.Remove(cp)
	raw, err := os.ReadFile(cp)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "realeval: calibrate: %s plotted %g times its size ...\n", t.File, f)
	ss, _, err := detectFile(ctx, eng, filter, t, raw, "application/pdf", realset.ModeVector, nil)
	if inv := (*document.InvalidError)(nil); errors.As(err, &inv) {
		// Plotted past the page limit (cp4's E size twice over): the
		// service refuses it, so it says nothing of the floors.
		fmt.Fprintf(stderr, "realeval: calibrate: %s plotted %g times its size: skipped: %v\n", t.File, f, err)
		return nil, nil
	}
	for i := range ss {
		ss[i].Set += "@" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	return ss, err
}

// detectFile runs eng on one file through the service's pipeline, with
// the storage rules and the default filter, and returns its samples and
// the page kinds the document pass gave. page, when set, is the 1-based
// page of the set the file renders (a page sent alone).
func detectFile(ctx context.Context, eng detect.Engine, filter detect.Filter, t realset.Truth, raw []byte, mime, mode string, page *int) ([]realset.Sample, []string, error) {
	doc, err := document.Open(ctx, raw, mime, document.DefaultLimits())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: open: %w", t.File, err)
	}
	defer doc.Close()
	var info detect.DocumentInfo
	dets := make([][]detect.Detection, doc.NumPages())
	kinds := make([]string, doc.NumPages())
	err = pipeline.Run(ctx, doc, pipeline.Options{Engine: eng, Document: func(i detect.DocumentInfo) error {
		info = i
		return nil
	}}, func(r pipeline.PageResult) error {
		dets[r.Index], kinds[r.Index] = r.Detections, r.Kind
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", t.File, err)
	}
	named := detect.NamedClasses(info.Legend)
	unread := detect.TextUnread(info.Warnings)
	var out []realset.Sample
	for i, ds := range detect.KeepStored(dets) {
		if !detect.Counted(kinds[i]) {
			continue
		}
		for _, d := range filter.Apply(ds) {
			if d.Class == "" {
				continue // a row of no class: counted under its row, no symbol
			}
			s := realset.Sample{Set: t.File, Mode: mode, Page: i, Class: d.Class, Confidence: d.Confidence, Named: named[d.Class], TextRead: !unread[i], LegendNames: len(named) > 0, Has: t.Has(d.Class)}
			if page != nil {
				s.Page = *page - 1
			}
			switch {
			case d.LegendRow > 0:
				s.By = realset.ByLegend
			case d.Source.VectorMatching:
				s.By = realset.ByVector
			default:
				s.By = realset.ByRaster
			}
			out = append(out, s)
		}
	}
	return out, kinds, nil
}
