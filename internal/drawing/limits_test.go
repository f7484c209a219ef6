package drawing

import (
	"errors"
	"testing"

	"blueprint/internal/glyph"
)

func line(x float64) []PathCmd {
	return []PathCmd{{Op: 'M', P: [3]glyph.Point{{X: x, Y: 0}}}, {Op: 'L', P: [3]glyph.Point{{X: x, Y: 50}}}}
}

// TestBuilderLimits: each limit stops the Builder keeping what is drawn
// and says which one was passed; Skip counts against the operations.
func TestBuilderLimits(t *testing.T) {
	id := glyph.Affine{A: 1, D: 1}
	for _, tc := range []struct {
		name  string
		lim   Limits
		draw  func(b *Builder)
		limit string
		kept  int
	}{
		{"operations", Limits{MaxOps: 3}, func(b *Builder) {
			for i := range 5 {
				b.Stroke(line(float64(i)), id, "#000000", 1)
			}
		}, LimitOps, 3},
		{"skipped operations", Limits{MaxOps: 10}, func(b *Builder) {
			b.Stroke(line(1), id, "#000000", 1)
			b.Skip(20)
			b.Stroke(line(2), id, "#000000", 1)
		}, LimitOps, 1},
		{"bytes", Limits{MaxBytes: 100 * segmentBytes}, func(b *Builder) {
			for i := range 1000 {
				b.Stroke(line(float64(i)), id, "#000000", 1)
			}
		}, LimitBytes, -1},
		{"clip depth", Limits{MaxClipDepth: 2}, func(b *Builder) {
			for range 4 {
				b.ClipOther()
			}
			b.Stroke(line(1), id, "#000000", 1)
		}, LimitClipDepth, 0},
		{"within", Limits{MaxOps: 10, MaxBytes: 1 << 20, MaxClipDepth: 4}, func(b *Builder) {
			b.ClipOther()
			b.Stroke(line(1), id, "#000000", 1)
			b.PopClip()
		}, "", 1},
	} {
		b := NewBuilder(100, 100, 1)
		b.SetLimits(tc.lim, nil)
		tc.draw(b)
		var le *LimitError
		switch err := b.Err(); {
		case tc.limit == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.limit != "" && (!errors.As(err, &le) || le.Limit != tc.limit):
			t.Errorf("%s: err %v, want the %s limit", tc.name, err, tc.limit)
		}
		if n := len(b.Page().Segments); tc.kept >= 0 && n != tc.kept {
			t.Errorf("%s: kept %d segments, want %d", tc.name, n, tc.kept)
		}
		if tc.limit == LimitBytes && b.HeldBytes() > 2*tc.lim.MaxBytes {
			t.Errorf("%s: holds %d bytes against a limit of %d", tc.name, b.HeldBytes(), tc.lim.MaxBytes)
		}
	}
}

// TestBuilderCharges: the charge function hears of the drawing's growth
// in steps, with the bytes held.
func TestBuilderCharges(t *testing.T) {
	b := NewBuilder(1000, 1000, 1)
	var calls []int64
	b.SetLimits(Limits{}, func(held int64) { calls = append(calls, held) })
	n := int(3 * chargeStep / segmentBytes)
	for i := range n {
		b.Stroke(line(float64(i%1000)), glyph.Affine{A: 1, D: 1}, "#000000", 1)
	}
	if len(calls) < 2 || calls[len(calls)-1] > b.HeldBytes() || calls[0] < chargeStep {
		t.Fatalf("charges %v for %d bytes held", calls, b.HeldBytes())
	}
}
