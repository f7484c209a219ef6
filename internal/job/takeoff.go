package job

import (
	"context"
)

// Takeoff is the quantity take-off of a done job under one read filter,
// as the exports (CSV, XLSX) present it: the poll's summary for the whole
// job and the same rows for each page. Every count is a count of
// detections under the filter, so the rows of Summary sum to
// Summary.TotalDetections, the summary of a poll with the same options.
type Takeoff struct {
	JobID          string
	FileName       string
	ExternalRef    *string
	CompletedAt    *string
	ConfidenceMode string
	// Lang is the language of the display names ("fi" or "en").
	Lang    string
	Summary Summary
	Pages   []PageTakeoff
	// Printed maps a class to the quantity the drawing's own legend prints
	// for it, summed over the legend's rows of that class; nil when the
	// job has no legend reading. Never part of Summary: a printed quantity
	// is a claim of the drawing, not a detection.
	Printed map[string]float64
	// Legend is the legend check: one line per legend row read, in the
	// job's order (the poll's legend), rows detected 0 times and rows of
	// no class included. Empty when the job has no legend reading.
	Legend []TakeoffLegendRow
	// Withheld counts, by class as Summary does, the detections under
	// the filter that are withheld from the take-off until a reviewer
	// accepts them (a flooded legend row's matches, guesses at classes no
	// legend row names: the job's warnings say which); never part of
	// Summary.
	Withheld Summary
}

// TakeoffLegendRow is one legend row of a take-off beside what was
// detected with its glyph under the take-off's filter, reviews applied
// (the poll's legend[].detected).
type TakeoffLegendRow struct {
	PageIndex   int
	Description string
	// Class is "" when the row names no catalog class; DisplayName is
	// then nil, else the class's name in Takeoff.Lang.
	Class       string
	DisplayName *string
	// Tag and PartNumber are the row's tag (the words beside its glyph)
	// and part number as printed, "" where it prints none.
	Tag, PartNumber string
	// Printed is the quantity the row prints, nil when none.
	Printed  *int
	Detected int
	// Code and Source are the row's (LegendView); Tagged counts its
	// detections named by a tag, Agreement says which witnesses agree.
	Code, Source, Agreement string
	Tagged                  int
	// Withheld counts its matches withheld from Detected until a
	// reviewer accepts them (a flooded row's).
	Withheld int
}

// Difference is Detected less Printed; ok is false when the row prints
// no quantity.
func (r TakeoffLegendRow) Difference() (d int, ok bool) {
	if r.Printed == nil {
		return 0, false
	}
	return r.Detected - *r.Printed, true
}

// PageTakeoff is the take-off of one page.
type PageTakeoff struct {
	PageIndex int
	Summary   Summary
	// Printed is Takeoff.Printed for the legend rows read on this page.
	Printed map[string]float64
	// Withheld is Takeoff.Withheld for this page.
	Withheld Summary
}

// Takeoff returns the take-off of a done job the caller owns under the
// read options' filter (o.IncludeDetections is ignored). A job that is not
// done has no take-off yet: 404, as for its pages.
func (s *Service) Takeoff(ctx context.Context, c Caller, jobID string, o ReadOptions) (*Takeoff, error) {
	j, err := s.owned(ctx, c, jobID)
	if err != nil {
		return nil, err
	}
	if j.Status != Done {
		return nil, &Error{Code: CodeNotFound, Message: notDone(j, "its take-off exists once it is done")}
	}
	f := s.filter(j, o.Confidence)
	t := &Takeoff{JobID: j.ID, FileName: j.FileName, ExternalRef: j.ExternalRef, CompletedAt: timestampPtr(j.CompletedAt),
		ConfidenceMode: f.Mode(), Lang: o.Lang, Pages: make([]PageTakeoff, 0, len(j.Pages)), Legend: make([]TakeoffLegendRow, len(j.Legend))}
	for i, r := range j.Legend {
		t.Legend[i] = TakeoffLegendRow{PageIndex: r.PageIndex, Description: r.Description, Class: r.Class, Printed: r.Quantity, Tag: r.Tag, PartNumber: r.PartNumber, Code: r.Code, Source: r.source()}
		if r.Class != "" {
			t.Legend[i].DisplayName = s.Symbol(r.Class, o.Lang).DisplayName
		}
	}
	total, held := map[string]int{}, map[string]int{}
	err = s.eachPage(ctx, j, f, func(p Page, ds pageDetections) error {
		// Rows of no class count their finds too; they are no symbols.
		countRows(t.Legend, ds.unclassed, func(l *TakeoffLegendRow, d storedDetection) { l.Detected, l.Tagged = l.Detected+1, l.Tagged+tagged(d) })
		counts, pageHeld := map[string]int{}, map[string]int{}
		for _, d := range ds.kept {
			counts[d.Class]++
			total[d.Class]++
			if d.LegendRow > 0 && d.LegendRow <= len(t.Legend) {
				t.Legend[d.LegendRow-1].Detected++
				t.Legend[d.LegendRow-1].Tagged += tagged(d)
			}
		}
		for _, d := range ds.withheld {
			if d.LegendRow > 0 && d.LegendRow <= len(t.Legend) {
				t.Legend[d.LegendRow-1].Withheld++
			}
			if d.Class != "" { // a row of no class finds no symbol
				pageHeld[d.Class]++
				held[d.Class]++
			}
		}
		t.Pages = append(t.Pages, PageTakeoff{PageIndex: p.Index, Summary: s.summary(counts, o.Lang), Printed: printed(j.Legend, p.Index),
			Withheld: s.summary(pageHeld, o.Lang)})
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range t.Legend {
		l := &t.Legend[i]
		l.Agreement = Agreement(l.Detected, l.Tagged, l.Printed, l.Source == SourceSchedule)
	}
	t.Summary = s.summary(total, o.Lang)
	t.Withheld = s.summary(held, o.Lang)
	t.Printed = printed(j.Legend, -1)
	return t, nil
}

// printed sums the printed quantities of the legend rows mapped to a class,
// by class: the rows read on page (every page's rows when page < 0). Nil
// when no such row prints a quantity.
func printed(rows []LegendRow, page int) map[string]float64 {
	var out map[string]float64
	for _, r := range rows {
		if r.Class == "" || r.Quantity == nil || page >= 0 && r.PageIndex != page {
			continue
		}
		if out == nil {
			out = map[string]float64{}
		}
		out[r.Class] += float64(*r.Quantity)
	}
	return out
}
