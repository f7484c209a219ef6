package detect

import "testing"

// TestMaxOnPage: an A1 sheet at 200 DPI, or a larger one, or one of
// unknown size, holds MaxPerPage of a row; an A3 a quarter of it; a tiny
// image never under an eighth.
func TestMaxOnPage(t *testing.T) {
	for _, c := range []struct{ w, h, want int }{
		{6622, 4677, MaxPerPage},
		{9362, 6622, MaxPerPage},
		{0, 0, MaxPerPage},
		{3309, 2339, MaxPerPage / 4},
		{400, 300, MaxPerPage / 8},
	} {
		if got := MaxOnPage(c.w, c.h); got < c.want-1 || got > c.want+1 {
			t.Errorf("MaxOnPage(%d, %d) = %d, want %d", c.w, c.h, got, c.want)
		}
	}
}
