package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/job"
	"blueprint/internal/legend"
	"blueprint/internal/vector"
)

const explainUsage = `usage: blueprint explain [flags] FILE

Explain says how the engine read FILE, to find out why a count is what it
is. For each page: the kind it was taken for and why; whether its drawing
was searched for legends and why; the glyph candidates (text with drawing
to its left) found and those rejected, with the reason; the columns of
candidates taken for legend tables or rejected, with the reason. Then each
legend row read (glyph size, text inside the glyph, tags, description,
class, printed quantity); the templates made of the legend's glyphs; and
the matches of each row, page by page, with how many of them the take-off
counts (after the storage and per-class thresholds, or --confidence).

It reads FILE as takeoff does (the same configuration and flags), plus
the document pass once more for the account. Pages are numbered from 1
in the text and by page_index, from 0, in the JSON (--json), as in the API.
`

func explainCommand() command {
	return command{name: "explain", short: "say how a drawing was read: page kinds, legends, templates, matches", usage: explainUsage, flags: explainFlags}
}

type explainOptions struct {
	read readFlags
	json bool
}

func explainFlags(fs *flag.FlagSet, e env) func(context.Context, []string) error {
	var o explainOptions
	fs.BoolVar(&o.json, "json", false, "write the account as JSON")
	o.read.define(fs)
	return func(ctx context.Context, files []string) error { return explain(ctx, files, o, e) }
}

func explain(ctx context.Context, files []string, o explainOptions, e env) error {
	if len(files) != 1 {
		return &usageError{cmd: "explain", msg: fmt.Sprintf("explain: takes one FILE, not %d", len(files))}
	}
	name := files[0]
	if err := checkFile(name); err != nil {
		return fmt.Errorf("explain: %s: %w", name, err)
	}
	r, err := o.read.newReader(e)
	if err != nil {
		return err
	}
	rep, err := explainFile(ctx, r, name, o.read)
	if err != nil {
		return fmt.Errorf("explain: %s: %w", name, err)
	}
	if o.json {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return rep.write(e.stdout)
}

// explainer is the engine with its document pass explained.
type explainer struct {
	eng *engine.Engine
	x   *engine.Explanation
}

func (x *explainer) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	return x.eng.Detect(ctx, p)
}

func (x *explainer) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	eng, info, ex, err := x.eng.Explain(ctx, doc)
	x.x = ex
	return eng, info, err
}

// explainFile reads the file at name as a job does and explains it,
// counting under the read filter of flags.
func explainFile(ctx context.Context, r *reader, name string, flags readFlags) (*explainReport, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	mime, err := mimeOf(name, data)
	if err != nil {
		return nil, err
	}
	files := docfiles.ForConfig(r.cfg)
	if err := files.Check(ctx, data, mime); err != nil {
		return nil, r.unreadable(err)
	}
	f, err := files.Open(ctx, data, mime)
	if err != nil {
		return nil, r.unreadable(err)
	}
	defer f.Close()
	x := &explainer{eng: r.eng}
	var pages []job.PageResult
	err = f.Run(ctx, job.RunOptions{Engine: x}, func(p job.PageResult) error {
		pages = append(pages, p)
		return nil
	})
	if err != nil {
		return nil, r.unreadable(err)
	}
	if x.x == nil {
		return nil, errors.New("the engine made no document pass")
	}
	return newExplainReport(name, !r.cfg.Raster.Off, x.x, pages, flags.filter(r.cat.Threshold)), nil
}

// unreadable is the message of a file the reader refuses, in the command
// line's words.
func (r *reader) unreadable(err error) error {
	var inv *job.InvalidFile
	if errors.As(err, &inv) {
		return fmt.Errorf("the file cannot be read (%s): %s", inv.Reason, r.say(inv.Message))
	}
	if msg := r.say(err.Error()); msg != err.Error() {
		return errors.New(msg)
	}
	return err
}

// explainReport is explain's account of one file, as JSON and as text.
type explainReport struct {
	File             string            `json:"file"`
	RasterDetector   bool              `json:"raster_detector"`
	ConfidenceMode   string            `json:"confidence_mode"`
	Pages            []explainPage     `json:"pages"`
	Rows             []explainRow      `json:"rows"`
	Templates        []explainTemplate `json:"templates"`
	CatalogTemplates int               `json:"catalog_templates"`
	// CatalogOnUnread is how many catalog templates are searched on
	// UnreadPages (text not read from a text layer, in a job with legend
	// rows: those of named classes); -1 where all are searched everywhere.
	CatalogOnUnread int   `json:"catalog_templates_on_unread_pages"`
	UnreadPages     []int `json:"unread_pages"`
	// LegendGlyphs are the legend's glyphs naming a class, OwnSymbols
	// those not the catalog's symbol of their class; OwnStyle: the legend
	// draws its own symbols, so CatalogOnUnread applies to every page.
	LegendGlyphs int  `json:"legend_glyphs_naming_a_class"`
	OwnSymbols   int  `json:"legend_glyphs_not_the_catalogs"`
	OwnStyle     bool `json:"legend_draws_its_own_symbols"`
	// LineTypes are the row numbers whose glyph is not searched: a line
	// type's sample (a cable, a conduit).
	LineTypes []int `json:"line_type_rows"`
}

type explainPage struct {
	PageIndex    int    `json:"page_index"`
	Kind         string `json:"kind"`
	KindReason   string `json:"kind_reason"`
	Searched     bool   `json:"searched_for_legends"`
	SearchReason string `json:"search_reason"`
	// Image: an image page (no drawing, or a scan), whose legends are
	// read by OCR where legends on images are on.
	Image bool `json:"image"`
	// TextSource is where the page's text came from: "pdf" (its text
	// layer), "ocr" (OCR of the words it draws as outlines) or "none";
	// OCRLines and OCRRead, for "ocr", the lines of outlined letters found
	// and read, OCRUnread those left unread past the time bound.
	TextSource string `json:"text_source,omitempty"`
	OCRLines   int    `json:"ocr_lines,omitempty"`
	OCRRead    int    `json:"ocr_lines_read,omitempty"`
	OCRUnread  int    `json:"ocr_lines_unread,omitempty"`
	// OCRByShape: of the lines read, those spelled from their letters'
	// shapes (outlines OCR read on other lines), without OCR.
	OCRByShape int `json:"ocr_lines_by_shape,omitempty"`
	// Turned are the angles at which the page was also searched turned
	// (a legend set in a column turned on the sheet).
	Turned []float64 `json:"searched_turned,omitempty"`
	// TextRuns looked for a glyph to their left; NoGlyph found none.
	TextRuns   int                `json:"text_runs"`
	NoGlyph    int                `json:"text_runs_without_glyph"`
	Candidates []explainCandidate `json:"candidates"`
	Columns    []explainColumn    `json:"columns"`
	Singles    int                `json:"single_glyph_columns"`
	Tables     []box              `json:"legend_tables"`
	Rows       []int              `json:"legend_rows"` // row numbers read here
	// Matches are the detections on the page that no legend row's
	// template found, by class: catalog glyphs and the raster detector,
	// as the engine reports them and as the take-off counts them.
	Matches []classCount `json:"other_matches"`
}

type explainCandidate struct {
	Text     string `json:"text"`
	Glyph    box    `json:"glyph_px"`
	Rejected string `json:"rejected,omitempty"`
}

type explainColumn struct {
	Glyphs   box      `json:"glyphs_px"`
	Texts    []string `json:"texts"`
	Table    bool     `json:"table"`
	Rows     int      `json:"rows,omitempty"`
	Rejected string   `json:"rejected,omitempty"`
}

type explainRow struct {
	Row             int         `json:"row"` // 1-based, as legend_row of detections
	PageIndex       int         `json:"page_index"`
	Description     string      `json:"description"`
	Class           *string     `json:"class"`
	GlyphText       string      `json:"glyph_text"`
	Tags            []string    `json:"tags"`
	GlyphMM         *[2]float64 `json:"glyph_size_mm"` // null where the row draws no glyph (a schedule's code)
	Colour          string      `json:"colour"`
	PrintedQuantity *int        `json:"printed_quantity"`
	PartNumber      *string     `json:"part_number"`  // the row's cell under a part-number head, null for none
	Template        int         `json:"template_row"` // the row whose template finds this row's symbols
	// Code is a schedule row's product code (null for a legend row),
	// Source "legend" or "schedule"; Tagged counts its matches named by
	// a tag on a plan, Agreement which witnesses agree (the API's).
	Code      *string `json:"code"`
	Source    string  `json:"source"`
	Tagged    int     `json:"tagged"`
	Agreement string  `json:"agreement"`
	// RepeatOf is the row this one repeats (the same description, class,
	// tag and part number on an earlier page: one legend drawn on several
	// sheets), as the API's repeat_of; null for none.
	RepeatOf *int `json:"repeat_of"`
	// Matches are the symbols its template found for it, by page; Counted
	// of them pass the take-off's filters.
	Matches []pageCount `json:"matches"`
	Counted int         `json:"counted"`
	// OffScale, of Matches, the take-off withholds to review: far off the
	// size of the row's other matches (detect.MarkOffScale).
	OffScale int `json:"off_scale"`
	// StoppedOn are the pages where the matcher stopped looking for the
	// row's glyph, a flood (vector.FloodFinds): its matches there are
	// withheld whatever their count.
	StoppedOn []int `json:"stopped_on"`
}

type explainTemplate struct {
	Row      int     `json:"row"`
	Rows     []int   `json:"rows"`
	Class    *string `json:"class"`
	MinScale float64 `json:"min_scale"`
	MaxScale float64 `json:"max_scale"`
}

type box struct {
	X0 float64 `json:"x0"`
	Y0 float64 `json:"y0"`
	X1 float64 `json:"x1"`
	Y1 float64 `json:"y1"`
}

func boxOf(r legend.Rect) box {
	return box{X0: math.Round(r.Min.X), Y0: math.Round(r.Min.Y), X1: math.Round(r.Max.X), Y1: math.Round(r.Max.Y)}
}

func (b box) String() string {
	return fmt.Sprintf("x %.0f–%.0f, y %.0f–%.0f", b.X0, b.X1, b.Y0, b.Y1)
}

type classCount struct {
	Class   string `json:"class"`
	Count   int    `json:"count"`
	Counted int    `json:"counted"` // of Count, what the take-off counts
	// Withheld, of Count, are what the filters pass but the take-off
	// withholds to review: guesses at a class no legend row names, below
	// the floor of their finder (detect.Withheld).
	Withheld int `json:"withheld"`
	// Labelled, of Counted, are counted from the words that label them
	// ("EVSE-1", 'PANEL "EV1"'; legend.Label), no legend row naming
	// their class.
	Labelled int `json:"labelled"`
}

type pageCount struct {
	PageIndex int `json:"page_index"`
	Count     int `json:"count"`
}

// mmPerPixel converts raster pixels to millimetres on paper.
const mmPerPixel = 25.4 / detect.RenderDPI

func newExplainReport(name string, raster bool, x *engine.Explanation, pages []job.PageResult, filter detect.Filter) *explainReport {
	rep := &explainReport{File: name, RasterDetector: raster, ConfidenceMode: filter.Mode(), CatalogTemplates: x.CatalogTemplates,
		Pages: []explainPage{}, Rows: []explainRow{}, Templates: []explainTemplate{}, LineTypes: []int{}, CatalogOnUnread: x.CatalogOnUnread, UnreadPages: append([]int{}, x.UnreadPages...),
		LegendGlyphs: x.LegendGlyphs, OwnSymbols: x.OwnSymbols, OwnStyle: x.OwnStyle}
	rows := x.Document.Rows
	for i, r := range rows {
		rep.Rows = append(rep.Rows, explainRow{StoppedOn: []int{}, Row: i + 1, PageIndex: r.Page, Description: r.Description, Class: nullable(x.Classes[i]),
			GlyphText: r.GlyphText, Tags: append([]string{}, r.Tags...), Colour: r.Color, PrintedQuantity: r.Quantity, PartNumber: optional(r.PartNumber),
			GlyphMM:  glyphMM(r.GlyphBox.Max.X-r.GlyphBox.Min.X, r.GlyphBox.Max.Y-r.GlyphBox.Min.Y),
			Template: x.Document.TemplateRow(i) + 1, Matches: []pageCount{}, Code: optional(r.Code), Source: orLegend(r.Source)})
	}
	// The rows read on image pages follow, as in the job's legend; each
	// glyph is its own template.
	for _, r := range x.ImageRows {
		er := explainRow{StoppedOn: []int{}, Row: len(rep.Rows) + 1, PageIndex: r.PageIndex, Description: r.Description, Class: nullable(r.Class),
			Tags: append([]string{}, strings.Fields(r.Tag)...), PrintedQuantity: r.Quantity, PartNumber: optional(r.PartNumber), Matches: []pageCount{}, Source: job.SourceLegend}
		er.Template = er.Row
		if b := r.GlyphBox; b != nil {
			er.GlyphMM = glyphMM(b.W, b.H)
		}
		rep.Rows = append(rep.Rows, er)
	}
	same := make([]job.LegendRow, len(rep.Rows))
	for i, r := range rep.Rows {
		same[i] = job.LegendRow{PageIndex: r.PageIndex, Description: r.Description, Class: deref(r.Class), Tag: strings.Join(r.Tags, " "), PartNumber: deref(r.PartNumber)}
	}
	for i, f := range job.Repeats(same) {
		if f >= 0 {
			n := f + 1
			rep.Rows[i].RepeatOf = &n
		}
	}
	defer func() {
		for i := range rep.Rows {
			r := &rep.Rows[i]
			r.Agreement = job.Agreement(r.Counted, r.Tagged, r.PrintedQuantity, r.Source == job.SourceSchedule)
		}
	}()
	for _, l := range x.LineTypes {
		rep.LineTypes = append(rep.LineTypes, l+1)
	}
	for _, t := range x.Templates {
		et := explainTemplate{Row: t.Row + 1, Class: nullable(t.Class), MinScale: t.MinScale, MaxScale: t.MaxScale}
		for _, i := range t.Rows {
			et.Rows = append(et.Rows, i+1)
		}
		rep.Templates = append(rep.Templates, et)
	}
	found := make([][]detect.Detection, len(pages))
	for i, p := range pages {
		found[i] = p.Detections
	}
	keys := make([]string, len(rep.Rows))
	for i, r := range rep.Rows {
		keys[i] = detect.RowKey(deref(r.Class), r.Description)
	}
	detect.MarkOffScale(found, keys)
	kept := detect.KeepStored(found)
	named := map[string]bool{}
	for _, r := range rep.Rows {
		if r.Class != nil {
			named[*r.Class] = true
		}
	}
	for i, p := range pages {
		other := map[string]int{}
		for _, d := range p.Detections {
			if d.LegendRow < 1 || d.LegendRow > len(rep.Rows) {
				other[d.Class]++
				continue
			}
			row := &rep.Rows[d.LegendRow-1]
			if d.Flood && !slices.Contains(row.StoppedOn, p.Index) {
				row.StoppedOn = append(row.StoppedOn, p.Index)
			}
			if n := len(row.Matches); n > 0 && row.Matches[n-1].PageIndex == p.Index {
				row.Matches[n-1].Count++
			} else {
				row.Matches = append(row.Matches, pageCount{PageIndex: p.Index, Count: 1})
			}
		}
		counted, held, labelled := map[string]int{}, map[string]int{}, map[string]int{}
		textRead := !slices.Contains(x.Document.Textless, p.Index) && x.Document.OCRText(p.Index) == nil && !(p.Index < len(x.Legend.Pages) && x.Legend.Pages[p.Index].Image && !x.ImageLegends)
		for _, d := range filter.Apply(kept[i]) {
			switch {
			case d.LegendRow >= 1 && d.LegendRow <= len(rep.Rows):
				r := &rep.Rows[d.LegendRow-1]
				if d.OffScale {
					r.OffScale++
					break
				}
				r.Counted++
				if d.Source.Tag {
					r.Tagged++
				}
			case detect.Withheld(d, named, textRead):
				held[d.Class]++
			default:
				counted[d.Class]++
				if d.Source.Tag {
					labelled[d.Class]++
				}
			}
		}
		ep := explainPage{PageIndex: p.Index, Kind: p.Kind, Candidates: []explainCandidate{}, Columns: []explainColumn{}, Tables: []box{}, Rows: []int{}, Matches: []classCount{}}
		if p.Index < len(x.Legend.Pages) {
			lp := x.Legend.Pages[p.Index]
			ep.Kind, ep.KindReason, ep.Searched, ep.SearchReason, ep.Image = lp.Kind, lp.KindReason, lp.Searched, lp.SearchReason, lp.Image
			ep.TextRuns, ep.NoGlyph, ep.Singles = lp.TextRuns, lp.NoGlyph, lp.Singles
			ep.TextSource, ep.Turned = lp.TextSource, lp.Turned
			if lp.OCR != nil {
				ep.OCRLines, ep.OCRRead, ep.OCRUnread, ep.OCRByShape = lp.OCR.Lines, lp.OCR.Read, lp.OCR.Unread, lp.OCR.ByShape
			}
			for _, c := range lp.Candidates {
				ep.Candidates = append(ep.Candidates, explainCandidate{Text: c.Text, Glyph: boxOf(c.Glyph), Rejected: c.Rejected})
			}
			for _, c := range lp.Columns {
				ep.Columns = append(ep.Columns, explainColumn{Glyphs: boxOf(c.Box), Texts: c.Texts, Table: c.Table, Rows: c.Rows, Rejected: c.Rejected})
			}
			for _, t := range lp.Tables {
				ep.Tables = append(ep.Tables, boxOf(t))
			}
			for _, r := range lp.Rows {
				ep.Rows = append(ep.Rows, r+1)
			}
			for k, r := range x.ImageRows {
				if r.PageIndex == p.Index {
					ep.Rows = append(ep.Rows, len(rows)+k+1)
				}
			}
		}
		for c, n := range other {
			ep.Matches = append(ep.Matches, classCount{Class: c, Count: n, Counted: counted[c], Withheld: held[c], Labelled: labelled[c]})
		}
		slices.SortFunc(ep.Matches, func(a, b classCount) int {
			if a.Count != b.Count {
				return b.Count - a.Count
			}
			return strings.Compare(a.Class, b.Class)
		})
		rep.Pages = append(rep.Pages, ep)
	}
	return rep
}

func nullable(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }

// glyphMM is a glyph's size in millimetres from its size in raster
// pixels, nil where there is none (a row without a glyph has an empty,
// infinite box, which JSON cannot carry).
func glyphMM(w, h float64) *[2]float64 {
	if !(w > 0 && h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return nil
	}
	return &[2]float64{round1(w * mmPerPixel), round1(h * mmPerPixel)}
}

// write writes the account as text a person reads.
func (rep *explainReport) write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	raster := "on"
	if !rep.RasterDetector {
		raster = "off"
	}
	fmt.Fprintf(tw, "%s: %s, raster detector %s\n", rep.File, plural(len(rep.Pages), "page"), raster)
	for _, p := range rep.Pages {
		fmt.Fprintf(tw, "\npage %d: %s\n", p.PageIndex+1, p.Kind)
		fmt.Fprintf(tw, "  why: %s\n", p.KindReason)
		switch p.TextSource {
		case legend.TextOCR:
			fmt.Fprintf(tw, "  text: OCR of the words it draws as outlines (%d lines of letters found, %d read, %d of them spelled from letter shapes OCR read on other lines, %d left unread past the time bound)\n", p.OCRLines, p.OCRRead, p.OCRByShape, p.OCRUnread)
		case legend.TextNone:
			fmt.Fprintf(tw, "  text: none read (its words are drawn as outlines and OCR is off or read nothing)\n")
		} // the PDF's text layer, as most pages: not said
		if len(p.Turned) > 0 {
			fmt.Fprintf(tw, "  also searched turned %v° (text written at those angles)\n", p.Turned)
		}
		// The account of candidates and columns is the upright search's
		// where the page is searched, and the turned searches' too.
		account := len(p.Candidates) > 0 || len(p.Columns) > 0
		switch {
		case !p.Searched && len(p.Turned) > 0:
			fmt.Fprintf(tw, "  legends: not searched upright: %s; searched turned\n", p.SearchReason)
		case !p.Searched:
			fmt.Fprintf(tw, "  legends: not searched: %s\n", p.SearchReason)
		case p.Image && p.TextRuns == 0:
			fmt.Fprintf(tw, "  legends: searched: %s\n", p.SearchReason) // by OCR: no drawing's account
		default:
			fmt.Fprintf(tw, "  legends: searched: %s\n", p.SearchReason)
			account = true
		}
		if account {
			rejected := 0
			for _, c := range p.Candidates {
				if c.Rejected != "" {
					rejected++
				}
			}
			fmt.Fprintf(tw, "  text runs: %d looked for a glyph to their left, %d found none\n", p.TextRuns, p.NoGlyph)
			fmt.Fprintf(tw, "  glyph candidates: %d found, %d rejected\n", len(p.Candidates)-rejected, rejected)
			for _, c := range p.Candidates {
				if c.Rejected != "" {
					fmt.Fprintf(tw, "    rejected %q at %s: %s\n", c.Text, c.Glyph, c.Rejected)
				}
			}
			fmt.Fprintf(tw, "  columns of candidates: %d of two or more glyphs, %d of one\n", len(p.Columns), p.Singles)
			for _, c := range p.Columns {
				verdict := fmt.Sprintf("legend table of %d rows", c.Rows)
				if !c.Table {
					verdict = "rejected: " + c.Rejected
				}
				fmt.Fprintf(tw, "    %d glyphs at %s (%s): %s\n", len(c.Texts), c.Glyphs, span(c.Texts), verdict)
			}
		}
		if len(p.Rows) > 0 {
			var firsts []int
			for _, r := range p.Rows {
				if f := rep.Rows[r-1].RepeatOf; f != nil {
					firsts = append(firsts, *f)
				}
			}
			if len(firsts) > 0 {
				fmt.Fprintf(tw, "  legend rows read here: %s (%d repeating rows %s of an earlier page)\n", ranges(p.Rows), len(firsts), ranges(firsts))
			} else {
				fmt.Fprintf(tw, "  legend rows read here: %s\n", ranges(p.Rows))
			}
		}
		if len(p.Matches) > 0 {
			var ms []string
			withheld := false
			for _, m := range p.Matches {
				s := fmt.Sprintf("%s %d of %d", m.Class, m.Counted, m.Count)
				if m.Labelled > 0 {
					s += fmt.Sprintf(" (%d by their labels)", m.Labelled)
				}
				if m.Withheld > 0 {
					s += fmt.Sprintf(" (%d withheld)", m.Withheld)
					withheld = true
				}
				ms = append(ms, s)
			}
			fmt.Fprintln(tw, "  matches of no legend row (equipment labels, catalog glyphs, raster detector), counted of found:")
			if withheld {
				fmt.Fprintf(tw, "    withheld: of a class no legend row names, below the confidence such guesses reach on real drawings (raster detector %.3f; catalog glyphs %.2f on a page whose text was not read, %.2f elsewhere); listed for review, not counted\n", detect.UnnamedRasterFloor, detect.UnnamedUnreadFloor, detect.UnnamedVectorFloor)
			}
			for len(ms) > 0 {
				n := min(len(ms), 4)
				fmt.Fprintf(tw, "    %s\n", strings.Join(ms[:n], ", "))
				ms = ms[n:]
			}
		}
	}
	if len(rep.Rows) == 0 {
		fmt.Fprintln(tw, "\nno legend rows read")
		return tw.Flush()
	}
	// A legend drawn on several sheets repeats its rows: each is written
	// once, with the pages it is drawn on.
	groups := rep.rowGroups()
	if n := len(rep.Rows) - len(groups); n > 0 {
		fmt.Fprintf(tw, "\nlegend rows read: %d, %d of them repeating a row of an earlier page (a legend drawn on several sheets): %d distinct, each once with the pages it is drawn on, its printed quantity and matches summed over them\n", len(rep.Rows), n, len(groups))
	} else {
		fmt.Fprintf(tw, "\nlegend rows read: %d\n", len(rep.Rows))
	}
	// Schedules add a code column, and tagged and agreement columns to
	// the matches (docs/legend.md, "Schedules and tags").
	schedules := slices.ContainsFunc(rep.Rows, func(r explainRow) bool { return r.Source == job.SourceSchedule })
	if schedules {
		fmt.Fprintln(tw, "  ROW\tPAGE\tGLYPH MM\tINSIDE\tTAGS\tCODE\tDESCRIPTION\tCLASS\tPART NUMBER\tPRINTED")
	} else {
		fmt.Fprintln(tw, "  ROW\tPAGE\tGLYPH MM\tINSIDE\tTAGS\tDESCRIPTION\tCLASS\tPART NUMBER\tPRINTED")
	}
	for _, g := range groups {
		r := rep.Rows[g[0]]
		var pages []int
		printed := 0
		all := true
		for _, i := range g {
			pages = append(pages, rep.Rows[i].PageIndex+1)
			if q := rep.Rows[i].PrintedQuantity; q != nil {
				printed += *q
			} else {
				all = false
			}
		}
		q := "-"
		if all {
			q = strconv.Itoa(printed)
		}
		mm := "-" // a schedule's code: no glyph
		if r.GlyphMM != nil {
			mm = fmt.Sprintf("%.1f × %.1f", r.GlyphMM[0], r.GlyphMM[1])
		}
		code := ""
		if schedules {
			code = orDash(deref(r.Code)) + "\t"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\t%s%s\t%s\t%s\t%s\n", rep.rowNumbers(g), ranges(pages), mm, orDash(r.GlyphText),
			orDash(strings.Join(r.Tags, " ")), code, r.Description, orDash(deref(r.Class)), orDash(deref(r.PartNumber)), q)
	}
	first := map[int]int{} // row number: its group's first row number
	for _, g := range groups {
		for _, i := range g {
			first[i+1] = g[0] + 1
		}
	}
	fmt.Fprintf(tw, "\ntemplates: %d of legend glyphs, beside %d of the catalog's", len(rep.Templates), rep.CatalogTemplates)
	switch {
	case rep.OwnStyle:
		fmt.Fprintf(tw, " (the legend draws its own symbols: %d of its %d glyphs naming a class are not the catalog's; on every page only the %d of classes whose legend glyph is the catalog's)", rep.OwnSymbols, rep.LegendGlyphs, rep.CatalogOnUnread)
	case rep.CatalogOnUnread >= 0:
		pages := make([]int, len(rep.UnreadPages))
		for i, p := range rep.UnreadPages {
			pages[i] = p + 1
		}
		fmt.Fprintf(tw, " (on page %s, whose text was not read from a text layer, only the %d of classes a legend row names)", ranges(pages), rep.CatalogOnUnread)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "  ROW\tCLASS\tSCALES\tFINDS ROWS")
	for _, t := range rep.Templates {
		var finds []int
		for _, r := range t.Rows {
			if f := first[r]; !slices.Contains(finds, f) {
				finds = append(finds, f)
			}
		}
		slices.Sort(finds)
		fmt.Fprintf(tw, "  %d\t%s\t%g–%g×\t%s\n", t.Row, orDash(deref(t.Class)), t.MinScale, t.MaxScale, ranges(finds))
	}
	if len(rep.LineTypes) > 0 {
		fmt.Fprintf(tw, "  not searched: rows %s name a line type (a cable, a conduit): their glyph is a sample of the line, which would match every wire\n", ranges(rep.LineTypes))
	}
	fmt.Fprintf(tw, "\nmatches per legend row (counted: what the take-off counts, %s):\n", rep.ConfidenceMode)
	if schedules {
		fmt.Fprintln(tw, "  ROW\tCLASS\tMATCHES\tCOUNTED\tTAGGED\tAGREEMENT\tBY PAGE")
	} else {
		fmt.Fprintln(tw, "  ROW\tCLASS\tMATCHES\tCOUNTED\tBY PAGE")
	}
	for _, g := range groups {
		total, counted := 0, 0
		var ms []pageCount
		for _, i := range g {
			counted += rep.Rows[i].Counted
			ms = append(ms, rep.Rows[i].Matches...)
		}
		slices.SortStableFunc(ms, func(a, b pageCount) int { return a.PageIndex - b.PageIndex })
		var by []string
		for _, m := range ms {
			total += m.Count
			by = append(by, fmt.Sprintf("page %d: %d", m.PageIndex+1, m.Count))
		}
		if schedules {
			tagged := 0
			for _, i := range g {
				tagged += rep.Rows[i].Tagged
			}
			agree := "-"
			if len(g) == 1 {
				agree = rep.Rows[g[0]].Agreement
			}
			fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%d\t%s\t%s\n", rep.rowNumbers(g), orDash(deref(rep.Rows[g[0]].Class)), total, counted, tagged, agree, orDash(strings.Join(by, ", ")))
			continue
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%d\t%s\n", rep.rowNumbers(g), orDash(deref(rep.Rows[g[0]].Class)), total, counted, orDash(strings.Join(by, ", ")))
	}
	var off []string
	for _, g := range groups {
		n := 0
		for _, i := range g {
			n += rep.Rows[i].OffScale
		}
		if n > 0 {
			off = append(off, fmt.Sprintf("row %s: %d", rep.rowNumbers(g), n))
		}
	}
	if len(off) > 0 {
		fmt.Fprintf(tw, "  withheld as off scale (under 1/%g or over %g times the size of the row's other matches; listed for review, not counted): %s\n",
			detect.OffScaleFactor, detect.OffScaleFactor, strings.Join(off, "; "))
	}
	var stopped []string
	for i, r := range rep.Rows {
		for _, p := range r.StoppedOn {
			stopped = append(stopped, fmt.Sprintf("row %d on page %d", i+1, p))
		}
	}
	if len(stopped) > 0 {
		fmt.Fprintf(tw, "  search stopped as a flood (the glyph found whole in more than %d places of the page, or whole and in part in more than %d; its matches there withheld, listed for review): %s\n",
			vector.FloodFinds, vector.FloodPoses, strings.Join(stopped, "; "))
	}
	return tw.Flush()
}

// rowGroups lists the rows as groups of indexes into rep.Rows: a row and
// the rows that repeat it (RepeatOf), in the order of their first rows.
func (rep *explainReport) rowGroups() [][]int {
	var out [][]int
	at := map[int]int{} // first row number: its group
	for i, r := range rep.Rows {
		if r.RepeatOf != nil {
			if g, ok := at[*r.RepeatOf]; ok {
				out[g] = append(out[g], i)
				continue
			}
		}
		at[i+1] = len(out)
		out = append(out, []int{i})
	}
	return out
}

// rowNumbers names a group of rows by their numbers: "3", or "1, 21, 41,
// 61" for a row repeated on later sheets.
func (rep *explainReport) rowNumbers(g []int) string {
	ns := make([]string, len(g))
	for k, i := range g {
		ns[k] = strconv.Itoa(rep.Rows[i].Row)
	}
	return strings.Join(ns, ", ")
}

// span names a column by its first and last texts.
func span(texts []string) string {
	if len(texts) == 0 {
		return ""
	}
	if len(texts) == 1 {
		return strconv.Quote(texts[0])
	}
	return strconv.Quote(texts[0]) + " … " + strconv.Quote(texts[len(texts)-1])
}

// ranges writes ascending numbers as runs: "1–4, 7".
func ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d–%d", ns[i], ns[j]))
		} else {
			parts = append(parts, strconv.Itoa(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// optional returns a pointer to s, nil for "".
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// orLegend is a row's source, "legend" where none is set.
func orLegend(source string) string {
	if source == "" {
		return job.SourceLegend
	}
	return source
}
