package ocrtext

import (
	"testing"

	"blueprint/internal/glyph"
)

// box is a component with box (x0, y0)-(x1, y1) and one piece, i.
func box(i int32, x0, y0, x1, y1 float64) component {
	return component{pieces: []piece{{i: i}}, min: glyph.Point{X: x0, Y: y0}, max: glyph.Point{X: x1, Y: y1}}
}

// TestLineIsAChain: two letters side by side over a symbol's filled part
// read as a line along x: the part below both is one letter's follower
// down the page, not both's, so the pair is no column of three.
func TestLineIsAChain(t *testing.T) {
	cs := []component{
		box(0, 0, 0, 9, 16),   // L
		box(1, 11, 0, 21, 16), // 4
		box(2, 3, 22, 19, 38), // a floodlight's filled part below the tag
	}
	ls := lines(cs, newGrid(cs, 2*maxLetter/5), minLetters)
	if len(ls) != 1 || ls[0].vertical || len(ls[0].members) != 2 {
		t.Fatalf("lines %+v, want one line along x of the two letters", ls)
	}
}

// TestLinePiecesLeaveTallParts: a component standing far taller across
// its line than the line's capitals (a symbol's filled half at the end
// of a label) is not the line's text, whatever OCR read.
func TestLinePiecesLeaveTallParts(t *testing.T) {
	cs := []component{box(0, 0, 0, 10, 16), box(1, 12, 0, 22, 16), box(2, 24, 0, 34, 16), box(3, 38, -6, 54, 22)}
	l := line{min: glyph.Point{X: 0, Y: -6}, max: glyph.Point{X: 54, Y: 22}, height: 16, cap: 16}
	got := map[int32]bool{}
	for _, p := range linePieces(cs, newGrid(cs, 2*maxLetter/5), l) {
		got[p.i] = true
	}
	if !got[0] || !got[1] || !got[2] || got[3] {
		t.Errorf("text pieces %v, want the three letters' and not the part 28 px high", got)
	}
}
