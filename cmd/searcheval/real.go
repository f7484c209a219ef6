package main

import (
	"context"
	"errors"
	"fmt"
	"image"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"blueprint/internal/detect"
	"blueprint/internal/eval/realset"
	"blueprint/internal/job"
	"blueprint/internal/search"
)

// realUnit is the raster pixels per unit of a real set's positions, from
// its PositionsUnit: PDF points are 200/72 pixels of the 200-DPI raster
// every page coordinate is in; an image's pixels are its own. ok is false
// for a set whose positions were not kept.
func realUnit(t realset.Truth) (scale float64, ok bool) {
	switch {
	case strings.Contains(t.PositionsUnit, "PDF points"):
		return float64(detect.RenderDPI) / 72, true
	case strings.Contains(t.PositionsUnit, "image pixels"):
		return 1, true
	}
	return 0, false
}

// realClass is a class of a real set, or one of its glyphs, searched from
// its exemplar.
type realClass struct {
	name     string
	glyph    string     // the class's glyph searched for; "" for the whole class
	page     int        // 0-based page of the exemplar
	box      detect.Box // exemplar, raster pixels
	exemplar string     // as the truth writes it
}

// realSets scores the search on every real set whose truth keeps
// positions: for each class with at least two and an exemplar, the
// exemplar searched for on the pages holding positions, by the vector
// search on a PDF's drawing and by the glyph search on its pages' 200-DPI
// renders (o.vector, o.image), by the glyph search on an image set.
func realSets(ctx context.Context, dataDir, truthDir string, o options) (*report, error) {
	if fi, err := os.Stat(dataDir); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("no real-data folder at %s (the real sets are not redistributed; see docs/evaluation.md)", dataDir)
	}
	truths, err := realset.LoadTruths(truthDir)
	if err != nil {
		return nil, err
	}
	rep := &report{}
	for _, t := range truths {
		scale, ok := realUnit(t)
		if !ok {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: no positions kept (%s)", t.File, t.PositionsUnit))
			continue
		}
		path := filepath.Join(dataDir, t.File)
		if _, err := os.Stat(path); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s: not in %s", t.File, dataDir))
			continue
		}
		truth, classes, notes := realTruth(t, scale, o)
		rep.Notes = append(rep.Notes, notes...)
		if len(classes) == 0 {
			continue
		}
		if err := realSet(ctx, path, t.File, truth, classes, o, rep); err != nil {
			return nil, err
		}
	}
	if len(rep.Sections) == 0 {
		return nil, errors.New("no real set with positions and an exemplar to search from")
	}
	return rep, nil
}

// realTruth is a set's positions as instances (every class with positions)
// and the classes to search for: at least two positions and an exemplar.
// A class the truth splits by glyph is searched glyph by glyph, each from
// its own exemplar (unless o.perClass): a glyph of one instance is not
// searched, as there is nothing more like it to find.
func realTruth(t realset.Truth, scale float64, o options) ([]instance, []realClass, []string) {
	var truth []instance
	var classes []realClass
	var notes []string
	box := func(e []float64) detect.Box {
		return detect.Box{X: e[1] * scale, Y: e[2] * scale, W: e[3] * scale, H: e[4] * scale}
	}
	exemplar := func(e []float64) string { return fmt.Sprintf("p%g %g,%g %gx%g", e[0], e[1], e[2], e[3], e[4]) }
	for _, c := range slices.Sorted(maps.Keys(t.Classes)) {
		ct := t.Classes[c]
		if len(ct.Positions) == 0 {
			continue
		}
		var ex detect.Box
		if len(ct.Exemplar) == 5 {
			ex = box(ct.Exemplar)
		}
		within := ct.MatchWithin * scale
		if within == 0 {
			within = max(ex.W, ex.H)
		}
		glyphOf := map[string]string{}
		for g, gt := range ct.Glyphs {
			for _, p := range gt.Positions {
				glyphOf[fmt.Sprint(p)] = g
			}
		}
		for _, p := range ct.Positions {
			if len(p) != 3 || within == 0 {
				continue
			}
			truth = append(truth, instance{page: int(p[0]) - 1, class: c, glyph: glyphOf[fmt.Sprint(p)], box: detect.Box{X: p[1] * scale, Y: p[2] * scale}, within: within})
		}
		switch {
		case o.classes != nil && !o.classes[c]:
		case len(ct.Glyphs) > 0 && !o.perClass:
			for _, g := range slices.Sorted(maps.Keys(ct.Glyphs)) {
				gt := ct.Glyphs[g]
				if len(gt.Positions) < 2 || len(gt.Exemplar) != 5 {
					notes = append(notes, fmt.Sprintf("%s: %s glyph %s: %d instance(s), not searched (nothing more like it to find)", t.File, c, g, len(gt.Positions)))
					continue
				}
				classes = append(classes, realClass{name: c, glyph: g, page: int(gt.Exemplar[0]) - 1, box: box(gt.Exemplar), exemplar: exemplar(gt.Exemplar)})
			}
		case len(ct.Positions) < 2:
		case len(ct.Exemplar) != 5:
			notes = append(notes, fmt.Sprintf("%s: %s has %d positions but no exemplar box", t.File, c, len(ct.Positions)))
		default:
			classes = append(classes, realClass{name: c, page: int(ct.Exemplar[0]) - 1, box: ex, exemplar: exemplar(ct.Exemplar)})
		}
	}
	return truth, classes, notes
}

const realImageTitle = "image (search.Images on 200-DPI renders of the PDFs, and on image sets)"

// realSet searches one real set's classes.
func realSet(ctx context.Context, path, file string, truth []instance, classes []realClass, o options, rep *report) error {
	start := time.Now()
	d, err := openDoc(ctx, path, o.labeller)
	if err != nil {
		return err
	}
	defer d.Close()
	seen := map[int]bool{}
	var pages []int
	for _, t := range truth {
		if !seen[t.page] {
			seen[t.page] = true
			pages = append(pages, t.page)
		}
	}
	sort.Ints(pages)
	set := strings.TrimSuffix(file, filepath.Ext(file))
	isPDF := d.pd != nil
	if isPDF && o.vector {
		sec := rep.sectionOf("vector (search.InDocument on the PDF's drawing, read again each search as the service does)", vectorFloors)
		for _, c := range classes {
			pg, err := d.Drawing(ctx, c.page)
			if err != nil {
				return err
			}
			box := padBox(c.box, o.pad, o.padMinPx, pg.Width, pg.Height)
			t0, c0 := time.Now(), cpuSeconds()
			found, why, err := d.searchVector(ctx, d.fresh(), c.page, box, pages, o.anyColour)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", file, c.name, err)
			}
			realScore(sec, set, c, box, why, time.Since(t0).Seconds(), cpuSeconds()-c0, truth, found, "vector", o)
		}
	}
	if !isPDF || o.image {
		imgs := map[int]image.Image{}
		var mpx float64
		t0 := time.Now()
		for _, p := range pages {
			img, err := d.f.(job.PageImages).PageImage(ctx, p)
			if err != nil {
				return fmt.Errorf("%s: page %d: %w", file, p, err)
			}
			imgs[p] = img
			b := img.Bounds()
			mpx = max(mpx, float64(b.Dx()*b.Dy())/1e6)
		}
		sec := rep.sectionOf(realImageTitle, imageFloors)
		sec.Lines = append(sec.Lines, fmt.Sprintf("%s: %d page images up to %.1f Mpx, rendered or decoded in %.1f s", file, len(imgs), mpx, time.Since(t0).Seconds()))
		for _, c := range classes {
			b := imgs[c.page].Bounds()
			box := padBox(c.box, o.pad, o.padMinPx, float64(b.Dx()), float64(b.Dy()))
			t0, c0 := time.Now(), cpuSeconds()
			found, why, err := d.searchImages(ctx, imgs, c.page, box, pages, o.minScore, o.anyColour)
			if err != nil {
				return fmt.Errorf("%s: %s: %w", file, c.name, err)
			}
			realScore(sec, set, c, box, why, time.Since(t0).Seconds(), cpuSeconds()-c0, truth, found, "image", o)
		}
	}
	if !o.quiet {
		fmt.Fprintf(o.stderr, "%s: %d classes, %.1f s\n", file, len(classes), time.Since(start).Seconds())
	}
	return nil
}

func realScore(sec *section, set string, c realClass, box detect.Box, why string, secs, cpu float64, truth []instance, found []search.PageMatches, mode string, o options) {
	one := tally{searches: 1, times: []float64{secs}, cpu: []float64{cpu}}
	if why != "" {
		one.refused = 1
		if !o.quiet {
			fmt.Fprintf(o.stderr, "%s: %s (%s): the service refuses the box: %s\n", set, c.name, mode, why)
		}
	}
	name := c.name
	if c.glyph != "" {
		name += "/" + c.glyph
	}
	score(c.name, c.glyph, truth, found, &one, miss{Set: set, Class: name, Mode: mode, Query: box}, o.misses)
	sec.add(set+" "+name, c.exemplar, one)
	if !o.quiet {
		fmt.Fprintf(o.stderr, "%s %s (%s): truth %d, found %d, right %d, %.1f s (%.1f s CPU)\n", set, name, mode, one.tp+one.fn, one.tp+one.fp, one.tp, secs, cpu)
	}
}
