package glyphsearch

import "math"

// mat2 is a 2×2 linear map: (x, y) → (a·x + b·y, c·x + d·y).
type mat2 struct{ a, b, c, d float64 }

func (m mat2) apply(x, y float64) (float64, float64) { return m.a*x + m.b*y, m.c*x + m.d*y }

// mul returns m·n (n first).
func (m mat2) mul(n mat2) mat2 {
	return mat2{
		m.a*n.a + m.b*n.c, m.a*n.b + m.b*n.d,
		m.c*n.a + m.d*n.c, m.c*n.b + m.d*n.d,
	}
}

func (m mat2) inv() mat2 {
	det := m.a*m.d - m.b*m.c
	return mat2{m.d / det, -m.b / det, -m.c / det, m.a / det}
}

// rot returns the rotation by angle radians, clockwise on a y-down page
// (glyph.Rotate's convention).
func rot(angle float64) mat2 {
	s, c := math.Sincos(angle)
	return mat2{c, -s, s, c}
}

// stretchMap returns the map that scales by s and stretches by t along the
// direction at angle axis.
func stretchMap(s, t, axis float64) mat2 {
	return rot(axis).mul(mat2{s * t, 0, 0, s}).mul(rot(-axis))
}

// pose turns a template onto a page: a stroke at offset o from the
// template's centre lands at the centre plus R(angle)·M·S·o, where S
// scales by scale and stretches by stretch along the template's long
// axis, and M mirrors x when mirror is set.
type pose struct {
	angle   float64 // radians, clockwise on screen
	mirror  bool
	scale   float64
	stretch float64
}

// linear returns the pose's map from template offsets to page offsets.
func (p pose) linear(axis float64) mat2 {
	m := stretchMap(p.scale, p.stretch, axis)
	if p.mirror {
		m = mat2{-1, 0, 0, 1}.mul(m)
	}
	return rot(p.angle).mul(m)
}

// normAngle returns a in [0, 2π).
func normAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	if a < 0 {
		a += 2 * math.Pi
	}
	return a
}
