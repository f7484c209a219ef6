package vector

import (
	"os"
	"testing"
)

func TestDebugAt(t *testing.T) {
	data, err := os.ReadFile("/tmp/syn-dev/sheet-00005.pdf")
	if err != nil {
		t.Skip()
	}
	pg := pageOf(t, data)
	cx, cy, r := 4387.0, 5358.0, 25.0
	for _, s := range pg.Segments {
		mx, my := (s.A.X+s.B.X)/2, (s.A.Y+s.B.Y)/2
		if (s.A.X-cx)*(s.A.X-cx)+(s.A.Y-cy)*(s.A.Y-cy) < r*r || (s.B.X-cx)*(s.B.X-cx)+(s.B.Y-cy)*(s.B.Y-cy) < r*r || (mx-cx)*(mx-cx)+(my-cy)*(my-cy) < r*r {
			t.Logf("seg %.1f,%.1f - %.1f,%.1f style %+v", s.A.X, s.A.Y, s.B.X, s.B.Y, pg.Styles[s.Style])
		}
	}
	for _, a := range pg.Arcs {
		if (a.C.X-cx)*(a.C.X-cx)+(a.C.Y-cy)*(a.C.Y-cy) < r*r {
			t.Logf("arc %+v style %+v", a, pg.Styles[a.Style])
		}
	}
}
