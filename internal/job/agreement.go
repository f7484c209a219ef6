package job

// Where a legend row comes from (LegendRow.Source).
const (
	SourceLegend   = "legend"
	SourceSchedule = "schedule"
)

// Agreement values: which of a row's witnesses (detected, tagged,
// printed_quantity) agree. A witness is present where it says something:
// detected always; tagged for a schedule row or where a tag named any of
// the row's detections; printed where the row prints a quantity.
const (
	// AgreeAll: every present witness gives the same count (two at least).
	AgreeAll = "all"
	// AgreeDetectedPrinted, AgreeTaggedPrinted, AgreeDetectedTagged: those
	// two agree and the third differs.
	AgreeDetectedPrinted = "detected_printed"
	AgreeTaggedPrinted   = "tagged_printed"
	AgreeDetectedTagged  = "detected_tagged"
	// AgreeNone: the present witnesses all differ.
	AgreeNone = "none"
	// AgreeUnchecked: only one witness is present (a legend row with no
	// printed quantity and no tags): nothing to check its count against.
	AgreeUnchecked = "unchecked"
)

// Agreement says which of a row's witnesses agree (the Agree values):
// detected, tagged and printed (nil when the row prints none); schedule
// is whether the row comes from a schedule, whose tags witness it even
// when none is read.
func Agreement(detected, tagged int, printed *int, schedule bool) string {
	hasTags := schedule || tagged > 0
	if printed == nil && !hasTags {
		return AgreeUnchecked
	}
	dp := printed != nil && detected == *printed
	tp := printed != nil && hasTags && tagged == *printed
	dt := hasTags && detected == tagged
	switch {
	case printed == nil:
		if dt {
			return AgreeAll
		}
		return AgreeNone
	case !hasTags:
		if dp {
			return AgreeAll
		}
		return AgreeNone
	case dp && tp:
		return AgreeAll
	case dp:
		return AgreeDetectedPrinted
	case tp:
		return AgreeTaggedPrinted
	case dt:
		return AgreeDetectedTagged
	}
	return AgreeNone
}

// source is the row's Source, SourceLegend for rows stored before
// schedules were read.
func (r LegendRow) source() string {
	if r.Source == "" {
		return SourceLegend
	}
	return r.Source
}

// tagged is 1 for a detection a tag named, else 0.
func tagged(d storedDetection) int {
	if d.Source.Tag {
		return 1
	}
	return 0
}
