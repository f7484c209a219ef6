package job

import (
	"encoding/json"
	"testing"

	"blueprint/internal/detect"
)

// TestWirePrecision: boxes and confidences come back rounded to what they
// can mean (issue 47: bbox_px x 2513.4475708007812), still numbers, and a
// box in fractions never passes the page's edge by rounding.
func TestWirePrecision(t *testing.T) {
	d := storedDetection{ID: "d", Class: "exit_sign", Confidence: 0.98765432,
		Box: detect.Box{X: 2513.4475708007812, Y: 680.8731, W: 21.449999, H: 38.35}}
	s := &Service{}
	v := s.detectionView(d, Page{Width: 4961, Height: 3508}, &symbolViews{s: s, m: map[string]SymbolView{"exit_sign": {Class: "exit_sign"}}})
	b, err := json.Marshal(struct {
		C  float64 `json:"confidence"`
		Px BoxView `json:"bbox_px"`
		N  BoxView `json:"bbox_norm"`
	}{v.Confidence, v.BBoxPx, v.BBoxNorm})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"confidence":0.9876,"bbox_px":{"x":2513.4,"y":680.9,"width":21.4,"height":38.4},"bbox_norm":{"x":0.506641,"y":0.194092,"width":0.004324,"height":0.010932}}`
	if string(b) != want {
		t.Errorf("on the wire:\n got %s\nwant %s", b, want)
	}
	// A confidence is rounded down: what passes a floor of 4 decimals
	// shows at or above it, what does not shows below.
	for _, c := range []struct{ in, want float64 }{{0.29999, 0.2999}, {0.3, 0.3}, {0.30004, 0.3}, {1, 1}, {0.1, 0.1}} {
		if got := confidenceView(c.in); got != c.want {
			t.Errorf("confidence %v shows %v, want %v", c.in, got, c.want)
		}
	}
	// Rounded up at the right edge, a box keeps x+width at most 1.
	n := normBoxView(detect.Box{X: 123.4565, W: 876.5435, Y: 0, H: 1000}, 1000, 1000)
	if n.X+n.Width > 1 || n.Y+n.Height > 1 {
		t.Errorf("rounded box %+v passes the page's edge", n)
	}
}
