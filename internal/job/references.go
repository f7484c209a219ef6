package job

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"maps"
	"slices"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// MaxReferenceJobs is the most jobs init's reference_jobs may name: each
// one's glyphs are searched on every page of the job, so ten legends of
// thirty rows are already three hundred templates.
const MaxReferenceJobs = 10

// MaxExemplarsPerClass is the most reviewed detections of one class a
// reference job lends as exemplars (each is one more template searched on
// every page): a few show a symbol's variations; more add time, not
// symbols.
const MaxExemplarsPerClass = 3

// Reasons of a refused reference_jobs entry (details.reason).
const (
	refReasonTooMany  = "too_many"
	refReasonUnknown  = "unknown_job"
	refReasonNotDone  = "not_done"
	refReasonRepeated = "repeated"
	refReasonInvalid  = "invalid"
)

// ReferencingEngine is a document engine that counts with glyphs of other
// jobs (*engine.Engine is one): CutReference cuts a reference's glyphs
// from its job's open document, and WithReferences returns the engine
// whose document pass joins those cuts to the document's own legends.
type ReferencingEngine interface {
	ResumableEngine
	CutReference(ctx context.Context, doc detect.ReferenceDoc, ref detect.Reference) ([]byte, error)
	WithReferences(cuts [][]byte) (detect.DocumentEngine, error)
}

// refError is the 422 of a refused reference_jobs entry.
func refError(reason, id, format string, args ...any) *Error {
	d := map[string]any{"field": "reference_jobs", "reason": reason}
	if id != "" {
		d["job_id"] = id
	}
	if reason == refReasonTooMany {
		d["max"] = MaxReferenceJobs
	}
	return &Error{Code: CodeUnprocessable, Message: fmt.Sprintf(format, args...), Details: d}
}

// checkReferences validates init's reference_jobs: at most
// MaxReferenceJobs ids, none repeated, each a done job of the caller's
// key. A job of another key is refused exactly like one that does not
// exist.
func (s *Service) checkReferences(ctx context.Context, c Caller, ids []string) ([]string, error) {
	if len(ids) > MaxReferenceJobs {
		return nil, refError(refReasonTooMany, "", "reference_jobs names %d jobs; at most %d", len(ids), MaxReferenceJobs)
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if id == "" || len(id) > 100 {
			return nil, refError(refReasonInvalid, "", "reference_jobs holds an empty or overlong job id")
		}
		if slices.Contains(out, id) {
			return nil, refError(refReasonRepeated, id, "reference_jobs names job %q twice", id)
		}
		r, err := s.cfg.Store.GetJob(ctx, id)
		if errors.Is(err, ErrNotFound) || (err == nil && r.Owner != c.KeyID) {
			return nil, refError(refReasonUnknown, id, "reference_jobs: job %q not found", id)
		}
		if err != nil {
			return nil, internal("load reference job", err)
		}
		if r.Status != Done {
			return nil, refError(refReasonNotDone, id, "reference_jobs: job %q is %s; only a done job lends its legend", id, r.Status)
		}
		out = append(out, id)
	}
	return out, nil
}

// documentEngine is the document engine that processes j: the configured
// one, joined by the glyphs of j's reference jobs where it is a
// ReferencingEngine (nil when the configured engine reads no documents).
// The warnings say which references could not lend theirs.
func (s *Service) documentEngine(ctx context.Context, j *Job) (detect.DocumentEngine, []Warning, error) {
	de, _ := s.cfg.Engine.(detect.DocumentEngine)
	if len(j.ReferenceJobs) == 0 {
		return de, nil, nil
	}
	re, ok := s.cfg.Engine.(ReferencingEngine)
	if !ok {
		return de, []Warning{{Code: detect.WarnReferenceUnavailable, Page: -1,
			Message: "this service's engine does not read other jobs' legends: the job was counted without its reference_jobs"}}, nil
	}
	var cuts [][]byte
	var warns []Warning
	for _, id := range j.ReferenceJobs {
		cut, err := s.cutReference(ctx, re, j, id)
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, err
			}
			s.log.Warn("reference job not used", "job_id", j.ID, "reference_job", id, "err", err)
			warns = append(warns, Warning{Code: detect.WarnReferenceUnavailable, Page: -1,
				Message: fmt.Sprintf("reference job %s could not lend its legend (%s): the job was counted without it", id, refUnavailable(err))})
			continue
		}
		if cut != nil {
			cuts = append(cuts, cut)
		}
	}
	eng, err := re.WithReferences(cuts)
	if err != nil {
		return nil, nil, fmt.Errorf("join reference jobs: %w", err)
	}
	return eng, warns, nil
}

// errRefGone is a reference job no longer done (expired or deleted since
// init).
var errRefGone = errors.New("it is no longer a done job of this key")

// refUnavailable says in words why a reference could not be used.
func refUnavailable(err error) string {
	if errors.Is(err, errRefGone) {
		return errRefGone.Error()
	}
	return "its file could not be read"
}

// cutReference cuts the glyphs job j takes from its reference job id:
// nil when that job has none to lend (no legend row of a class, no
// reviewed detection).
func (s *Service) cutReference(ctx context.Context, re ReferencingEngine, j *Job, id string) ([]byte, error) {
	r, err := s.cfg.Store.GetJob(ctx, id)
	if errors.Is(err, ErrNotFound) || (err == nil && (r.Owner != j.Owner || r.Status != Done)) {
		return nil, errRefGone
	}
	if err != nil {
		return nil, err
	}
	ref, err := s.referenceOf(ctx, r)
	if err != nil {
		return nil, err
	}
	if len(ref.Glyphs) == 0 {
		return nil, nil
	}
	key := s.referenceCutKey(r.ID, ref)
	if key != "" {
		cut, err := s.readBlob(ctx, key, maxReferenceCut)
		if err == nil && len(cut) > 0 {
			return cut, nil
		}
		if err != nil && !errors.Is(err, ErrNotFound) {
			s.log.Warn("kept reference cut not read; cutting again", "job_id", j.ID, "reference_job", id, "err", err)
		}
	}
	cut, err := s.cutFromUpload(ctx, re, r, ref)
	if err != nil || key == "" {
		return cut, err
	}
	s.keepReferenceCut(ctx, r.ID, key, cut)
	return cut, nil
}

// maxReferenceCut bounds a kept reference cut read back: a cut is some
// kilobytes a glyph (its crop as a PNG), at most a few megabytes for a
// legend of a hundred rows.
const maxReferenceCut = 64 << 20

// cutFromUpload cuts ref's glyphs from reference job r's stored file.
func (s *Service) cutFromUpload(ctx context.Context, re ReferencingEngine, r *Job, ref detect.Reference) ([]byte, error) {
	doc, release, err := s.openUpload(ctx, r)
	if err != nil {
		return nil, err
	}
	defer release()
	defer doc.Close()
	return re.CutReference(ctx, refDoc{f: doc, d: doc.Drawings(nil)}, ref)
}

// referenceCutKey is where the cut of ref, lent by job refID, is kept
// (ReferenceCutKey): its sum covers the build (Config.BuildID) and
// everything ref holds, which is all the cut reads besides the job's
// file. "" where the build has no id: nothing is kept.
func (s *Service) referenceCutKey(refID string, ref detect.Reference) string {
	if s.cfg.BuildID == "" {
		return ""
	}
	b, err := json.Marshal(ref)
	if err != nil {
		return ""
	}
	h := sha256.New()
	h.Write([]byte(s.cfg.BuildID))
	h.Write([]byte{0})
	h.Write(b)
	return ReferenceCutKey(refID, hex.EncodeToString(h.Sum(nil)))
}

// keepReferenceCut stores cut at key for the next job that references
// job refID, even if this job's context ends now. A reference that is no
// longer done once it is stored (expiry purged its files meanwhile) has it
// deleted again, so that nothing outlives the job. A failure costs only
// the next job's time: it is logged.
func (s *Service) keepReferenceCut(ctx context.Context, refID, key string, cut []byte) {
	ctx = context.WithoutCancel(ctx)
	if err := s.putBlob(ctx, key, cut); err != nil {
		s.log.Warn("reference cut not kept", "reference_job", refID, "err", err)
		return
	}
	if cur, err := s.cfg.Store.GetJob(ctx, refID); err == nil && cur.Status == Done {
		return
	}
	if err := s.cfg.Blobs.Delete(ctx, key); err != nil {
		s.log.Warn("could not delete the reference cut of a job no longer done", "reference_job", refID, "err", err)
	}
}

// referenceOf is what job r lends: its own legend rows that name a class
// and draw a glyph, and its schedule rows that name a class (a row
// repeating one on an earlier sheet once; rows r took from its own
// references are not passed on: their glyphs are in other documents),
// each with its glyph as r's plans draw it where they do
// (drawnInstances: a schedule row draws none of its own, its devices are
// the symbols its code's tags label), then, per class, up to
// MaxExemplarsPerClass detections its reviewers accepted, added or gave
// that class, as one row of the class. A row r withheld as a flood (its
// glyph matched lines and corners of r's own sheets, Job.Withheld, on
// any sheet drawing it) lends its row, which names its class, and no
// glyph: it would flood again, and on an image page the glyph search
// lets in more look-alikes than the vector matcher, under the flood
// bound.
func (s *Service) referenceOf(ctx context.Context, r *Job) (detect.Reference, error) {
	var ref detect.Reference
	reps := Repeats(r.Legend)
	flooded := map[int]bool{} // r's legend rows (0-based, first of their repeats) withheld as floods
	for _, w := range r.Withheld {
		if w < 1 || w > len(reps) {
			continue
		}
		if f := reps[w-1]; f >= 0 {
			flooded[f] = true
		} else {
			flooded[w-1] = true
		}
	}
	lent := map[int]int{} // r's legend row (1-based) -> its row in ref
	for i, row := range r.Legend {
		schedule := row.GlyphBox == nil && row.Code != ""
		if row.Class == "" || (row.GlyphBox == nil && !schedule) || row.ReferenceJob != "" || reps[i] >= 0 {
			continue
		}
		if !flooded[i] {
			lent[i+1] = len(ref.Rows)
			if !schedule {
				ref.Glyphs = append(ref.Glyphs, detect.ReferenceGlyph{Page: row.PageIndex, Box: *row.GlyphBox, Row: len(ref.Rows)})
			}
		}
		ref.Rows = append(ref.Rows, detect.LegendRow{PageIndex: row.PageIndex, Description: row.Description, Class: row.Class,
			PartNumber: row.PartNumber, Tag: row.Tag, Code: row.Code, Source: row.Source, ReferenceJob: r.ID})
	}
	drawn, counted, err := s.drawnInstances(ctx, r, reps, lent)
	if err != nil {
		return ref, err
	}
	ref.Glyphs = append(ref.Glyphs, drawn...)
	for i, g := range ref.Glyphs {
		ref.Glyphs[i].Checks = counted.checks(g.Page, g.Row, ref.Rows[g.Row].Class, g.PixelsOnly)
	}
	exemplarRow := map[string]int{}
	taken := map[string]int{}
	for _, page := range r.ReviewedPages {
		ds, err := s.exemplars(ctx, r, page)
		if err != nil {
			return ref, err
		}
		for _, d := range ds {
			if taken[d.Class] >= MaxExemplarsPerClass {
				continue
			}
			taken[d.Class]++
			row, ok := exemplarRow[d.Class]
			if !ok {
				row = len(ref.Rows)
				exemplarRow[d.Class] = row
				ref.Rows = append(ref.Rows, detect.LegendRow{PageIndex: page, Description: s.cfg.Catalog.DisplayName(d.Class, "") + " (reviewed detections)",
					Class: d.Class, ReferenceJob: r.ID})
			}
			ref.Glyphs = append(ref.Glyphs, detect.ReferenceGlyph{Page: page, Box: d.Box, Row: row, Exemplar: true})
		}
	}
	return ref, nil
}

// minDrawnConfidence is the least confidence of a vector match of a
// reference's legend row that lends its glyph as drawn on its plan: the
// matcher's sure matches (the drawing explains the glyph whole).
const minDrawnConfidence = 0.9

// drawnInstances are, for each lent legend or schedule row of job r
// (lent: r's 1-based row to its row in the reference; reps: Repeats of
// r's legend), the glyph as r's plans draw it: the surest vector match of
// the row on r's counted pages (for a schedule row, a glyph match its
// code's tag labels), not rejected by a reviewer, from
// minDrawnConfidence. A
// legend draws every glyph in a cell of one height, often smaller than
// the plans do (11 pixels high on the South African A3 sheets at 200
// DPI, too few for an image search to tell a glyph from a line end),
// while the plan draws it at the size, line weight and company (text,
// wires) other plans of the set draw it: the instance an image page of
// the same set is searched for. Only vector matches lend one: on a page
// drawn as vectors the match is the drawing itself, where a glyph search
// on an image may have matched a look-alike.
//
// It also returns, for each page r counts, how many devices of each lent
// row (by its row in the reference) and of each class r counts there.
func (s *Service) drawnInstances(ctx context.Context, r *Job, reps []int, lent map[int]int) ([]detect.ReferenceGlyph, pageCounts, error) {
	type best struct {
		page int
		d    storedDetection
	}
	found := map[int]best{}
	counted := map[int]map[int]int{}    // page -> row in the reference -> the row's devices r counts there
	classes := map[int]map[string]int{} // page -> class -> its devices r counts there
	f := s.filter(r, nil)
	lentRow := func(d storedDetection) (int, bool) {
		if d.LegendRow <= 0 || d.LegendRow > len(reps) {
			return 0, false
		}
		row := d.LegendRow
		if first := reps[row-1]; first >= 0 {
			row = first + 1
		}
		k, ok := lent[row]
		return k, ok && r.Legend[row-1].Class == d.Class
	}
	for _, p := range r.Pages {
		if !detect.Counted(p.Kind) {
			continue
		}
		sp, err := s.reviewedPage(ctx, r, p.Index)
		if err != nil {
			return nil, pageCounts{}, err
		}
		counted[p.Index] = map[int]int{}
		classes[p.Index] = map[string]int{}
		for _, d := range sp.filtered(f, false) {
			classes[p.Index][d.Class]++
			if k, ok := lentRow(d); ok {
				counted[p.Index][k]++
			}
		}
		for _, d := range sp.Detections {
			if !d.Source.VectorMatching || d.Confidence < minDrawnConfidence || d.Decision == DecisionRejected {
				continue
			}
			k, ok := lentRow(d)
			if !ok {
				continue
			}
			if b, ok := found[k]; !ok || d.Confidence > b.d.Confidence {
				found[k] = best{p.Index, d}
			}
		}
	}
	out := make([]detect.ReferenceGlyph, 0, len(found))
	for _, k := range slices.Sorted(maps.Values(lent)) {
		if b, ok := found[k]; ok {
			out = append(out, detect.ReferenceGlyph{Page: b.page, Box: b.d.Box, Row: k, Exemplar: true, PixelsOnly: true})
		}
	}
	return out, pageCounts{rows: counted, classes: classes}, nil
}

// pageCounts are what a reference counts on each page it counts: rows
// maps page -> row in the reference -> the row's devices, classes page ->
// class -> its devices.
type pageCounts struct {
	rows    map[int]map[int]int
	classes map[int]map[string]int
}

// checks are the pages a glyph of the reference's row (of class) on page
// is checked on (detect.ReferenceGlyph.Checks): its own page where the
// reference counts it, and for a glyph as the plans draw it (drawn) the
// other pages the reference counts, in order, at most
// detect.MaxReferenceChecks. A legend glyph is checked on its own page
// alone: checked on the plans, the US fire-alarm set's legend-sheet
// glyphs were refused on every speaker/strobe row (51 of its 53 found
// unchecked, none checked).
func (c pageCounts) checks(page, row int, class string, drawn bool) []detect.PageCount {
	var out []detect.PageCount
	at := func(p int) detect.PageCount {
		return detect.PageCount{Page: p, Count: c.rows[p][row], ClassCount: c.classes[p][class]}
	}
	if _, ok := c.rows[page]; ok {
		out = append(out, at(page))
	}
	if !drawn {
		return out
	}
	for _, p := range slices.Sorted(maps.Keys(c.rows)) {
		if len(out) >= detect.MaxReferenceChecks {
			break
		}
		if p != page {
			out = append(out, at(p))
		}
	}
	return out
}

// exemplars are the detections of a page of job r that its reviewers
// vouched for, in the order reviewed: accepted, added, or given a class
// (and not rejected), each with its class after review. Classes the
// catalog does not have are left out.
func (s *Service) exemplars(ctx context.Context, r *Job, page int) ([]storedDetection, error) {
	pr, err := s.pageReviews(ctx, r, page)
	if err != nil || pr == nil {
		return nil, err
	}
	sp, err := s.loadPage(ctx, r.ID, page)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]storedDetection, len(sp.Detections))
	for _, d := range sp.Detections {
		byID[d.ID] = d
	}
	var out []storedDetection
	for _, rv := range pr.Reviews {
		if rv.Decision == DecisionRejected {
			continue
		}
		d := storedDetection{Box: detect.Box{}, Class: rv.Class}
		switch {
		case rv.Box != nil:
			d.Box = *rv.Box
		case rv.Decision == DecisionAccepted || rv.Class != "":
			found, ok := byID[rv.DetectionID]
			if !ok {
				continue
			}
			d.Box = found.Box
			if d.Class == "" {
				d.Class = found.Class
			}
		default:
			continue // a decision withdrawn
		}
		if _, ok := s.cfg.Catalog.Model(d.Class); !ok {
			continue
		}
		out = append(out, d)
	}
	return out, nil
}

// refDoc is an open file as detect.ReferenceDoc.
type refDoc struct {
	f OpenFile
	d detect.Drawings
}

func (r refDoc) NumPages() int { return r.f.NumPages() }

func (r refDoc) Drawing(ctx context.Context, i int) (*drawing.Page, error) {
	return r.d.Drawing(ctx, i)
}

func (r refDoc) PageImage(ctx context.Context, i int) (image.Image, error) {
	if pi, ok := r.f.(PageImages); ok {
		return pi.PageImage(ctx, i)
	}
	data, err := r.f.PagePNG(ctx, i)
	if err != nil {
		return nil, fmt.Errorf("render page %d: %w", i, err)
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("decode page %d: %w", i, err)
	}
	return img, nil
}
