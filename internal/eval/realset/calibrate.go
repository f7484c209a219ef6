package realset

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// Modes of a calibration sample: how the page was sent.
const (
	// ModeVector: a page of a PDF, read from its drawing.
	ModeVector = "vector"
	// ModeImage: a page sent as an image (a PDF page rendered at 200 DPI
	// and sent alone, or a set published as an image).
	ModeImage = "image"
)

// Finders of a calibration sample: what found the detection.
const (
	// ByLegend: a legend row's glyph.
	ByLegend = "legend"
	// ByVector: a catalog glyph, matched on the drawing (the raster
	// detector may have confirmed it).
	ByVector = "vector"
	// ByRaster: the raster detector alone.
	ByRaster = "raster"
)

// Sample is one detection a take-off reports on a real set at the
// default thresholds (before any withholding), for calibrating the floors
// of detections of classes no legend names (detect.UnnamedFloor).
type Sample struct {
	Set        string  `json:"set"`
	Mode       string  `json:"mode"`
	Page       int     `json:"page_index"`
	Class      string  `json:"class"`
	Confidence float64 `json:"confidence"`
	By         string  `json:"by"`
	// Named: a legend row of the job names the class.
	Named bool `json:"named"`
	// TextRead: the page's text was read (no text_not_read warning).
	TextRead bool `json:"text_read"`
	// LegendNames: a legend row of the job names some class (the job
	// read a legend of its sheets' symbols).
	LegendNames bool `json:"legend_names"`
	// Has: the set's truth holds the class (a count above 0, or a class
	// left unscored because its count is uncertain, not its presence).
	Has bool `json:"has"`
}

// Has reports whether the sheet of t holds class: a count above 0, or
// a class the truth leaves unscored (present, its count uncertain).
func (t Truth) Has(class string) bool {
	if _, ok := t.Unscored[class]; ok {
		return true
	}
	return t.Classes[class].Count > 0
}

// Floor is the lowest confidence t such that at least target of the
// samples at t or above are right (Has); samples below it are the ones
// withheld. Where every sample's share passes, it is 0; where none does
// (the most confident sample is wrong and no lower t recovers), it lies
// just above the highest confidence, withholding them all. With fewer
// than evidence samples it is 0: too few to set a floor on.
func Floor(samples []Sample, target float64, evidence int) float64 {
	if len(samples) < evidence {
		return 0
	}
	s := slices.Clone(samples)
	sort.SliceStable(s, func(a, b int) bool { return s[a].Confidence > s[b].Confidence })
	floor := math.Nextafter(1, 2)
	if len(s) > 0 {
		floor = math.Nextafter(s[0].Confidence, 2)
	}
	right := 0
	for i := 0; i < len(s); {
		// Samples of equal confidence pass or fail together.
		j := i
		for j < len(s) && s[j].Confidence == s[i].Confidence {
			if s[j].Has {
				right++
			}
			j++
		}
		if float64(right) >= target*float64(j) {
			floor = s[i].Confidence
		}
		i = j
	}
	if len(s) > 0 && floor == s[len(s)-1].Confidence {
		return 0
	}
	return floor
}

// Share is the share of samples that are right (Has), and how many
// there are; 0 of 0 for none.
func Share(samples []Sample) (share float64, n int) {
	right := 0
	for _, s := range samples {
		if s.Has {
			right++
		}
	}
	if len(samples) == 0 {
		return 0, 0
	}
	return float64(right) / float64(len(samples)), len(samples)
}

// Reported keeps the samples a take-off counts when detections of
// classes no legend names are counted only from floor(s) up: legend
// finds and named classes always, the others at or above their floor.
func Reported(samples []Sample, floor func(s Sample) float64) []Sample {
	var out []Sample
	for _, s := range samples {
		if s.By == ByLegend || s.Named || s.Confidence >= floor(s) {
			out = append(out, s)
		}
	}
	return out
}

// Histogram writes, per confidence band of width step (highest first),
// how many samples are right and wrong, and the share right from that
// band up.
func Histogram(samples []Sample, step float64) string {
	bands := int(math.Ceil(1 / step))
	right := make([]int, bands+1)
	wrong := make([]int, bands+1)
	for _, s := range samples {
		k := min(max(int(math.Floor(s.Confidence/step+1e-9)), 0), bands)
		if s.Has {
			right[k]++
		} else {
			wrong[k]++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    %-11s %6s %6s %14s\n", "confidence", "right", "wrong", "right from here")
	cr, cw := 0, 0
	for k := bands; k >= 0; k-- {
		cr, cw = cr+right[k], cw+wrong[k]
		if right[k]+wrong[k] == 0 {
			continue
		}
		lo := float64(k) * step
		fmt.Fprintf(&b, "    %4.2f–%4.2f  %6d %6d %13.0f%%\n", lo, math.Min(1, lo+step), right[k], wrong[k], 100*float64(cr)/float64(cr+cw))
	}
	return b.String()
}

// Wrong lists the classes of the wrong samples with how many and their
// highest confidence, most first: what the floors are withholding.
func Wrong(samples []Sample) string {
	type agg struct {
		n   int
		top float64
	}
	by := map[string]*agg{}
	for _, s := range samples {
		if s.Has {
			continue
		}
		k := s.Set + " " + s.Class
		a := by[k]
		if a == nil {
			a = &agg{}
			by[k] = a
		}
		a.n++
		a.top = math.Max(a.top, s.Confidence)
	}
	keys := make([]string, 0, len(by))
	for k := range by {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if by[keys[a]].n != by[keys[b]].n {
			return by[keys[a]].n > by[keys[b]].n
		}
		return keys[a] < keys[b]
	})
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "    %-52s %4d  up to %.2f\n", k, by[k].n, by[k].top)
	}
	return b.String()
}
