package raster

// The classifier looks at a crop in several views (ClassifierMeta.Views):
// the crop itself, mirrored and turned by quarter turns, the eight
// symmetries of a square. A symbol's class does not change under any of
// them (the generator draws symbols turned and mirrored, and the
// classifier was trained on such crops), so the class probabilities of
// the views are averaged, and each view's box, mapped back to the crop,
// is averaged too. Quarter turns and mirrors move whole pixels: a view is
// the same pixels in another order, no resampling.

// maxViews is the number of symmetries of a square.
const maxViews = 8

// viewOrder lists the symmetries in the order views use them: identity,
// the half turn, the two mirrors, the two quarter turns and the two
// diagonal mirrors, so that the first k views are a balanced choice.
var viewOrder = [maxViews]symmetry{
	{1, 0, 0, 1},   // identity
	{-1, 0, 0, -1}, // half turn
	{-1, 0, 0, 1},  // mirror left-right
	{1, 0, 0, -1},  // mirror top-bottom
	{0, -1, 1, 0},  // quarter turn
	{0, 1, -1, 0},  // quarter turn the other way
	{0, 1, 1, 0},   // mirror in the main diagonal
	{0, -1, -1, 0}, // mirror in the other diagonal
}

// symmetry maps a point of the crop, as offsets (u, v) from its centre,
// to (a·u + b·v, c·u + d·v).
type symmetry struct{ a, b, c, d int }

// apply maps the crop point (x, y), in crop units (0..1 across), to the
// view.
func (s symmetry) apply(x, y float64) (float64, float64) {
	u, v := x-0.5, y-0.5
	return 0.5 + float64(s.a)*u + float64(s.b)*v, 0.5 + float64(s.c)*u + float64(s.d)*v
}

// inverse maps a view point back to the crop: every symmetry of a square
// is an orthogonal matrix, so its inverse is its transpose.
func (s symmetry) inverse() symmetry { return symmetry{s.a, s.c, s.b, s.d} }

// view writes into dst the n×n crop src as seen through s.
func (s symmetry) view(dst, src []float32, n int) {
	// Pixel centres sit at i+0.5; doubling keeps the arithmetic in integers:
	// offset 2i+1-n from the centre, mapped, and back to a pixel index.
	for y := range n {
		v := 2*y + 1 - n
		for x := range n {
			u := 2*x + 1 - n
			vx := (s.a*u + s.b*v + n - 1) / 2
			vy := (s.c*u + s.d*v + n - 1) / 2
			dst[vy*n+vx] = src[y*n+x]
		}
	}
}

// unview maps a box predicted in the view (x0, y0, x1, y1, crop units)
// back to the crop.
func (s symmetry) unview(b []float32) [4]float64 {
	inv := s.inverse()
	ax, ay := inv.apply(float64(b[0]), float64(b[1]))
	bx, by := inv.apply(float64(b[2]), float64(b[3]))
	return [4]float64{min(ax, bx), min(ay, by), max(ax, bx), max(ay, by)}
}
