package imagevector

import (
	"math"
	"math/bits"

	"blueprint/internal/glyph"
	"blueprint/internal/unionfind"
)

// polyline is one traced stroke: the centres of its pixels in order, in
// image pixels; closed when it runs back to its start.
type polyline struct {
	pts    []glyph.Point
	closed bool
}

// edge is a run of line pixels between two nodes (ends or junctions of
// the thinned ink), ends a and b: indexes of their node clusters.
type edge struct {
	pts  []glyph.Point
	a, b int32
}

// Skeleton graph bounds, in image pixels.
const (
	// spurLength: a branch from a junction to a free end shorter than
	// this is a bump of a stroke's edge that thinning left, not a line.
	spurLength = 4.0
	// tangentReach is how far along a branch its direction at a node is
	// read (tangent).
	tangentReach = 8.0
	// straightThrough is the least angle, in degrees, between two
	// branches at a junction for them to be one line crossing it (a
	// wire running on through the symbol it touches, an arc that a
	// stem meets).
	straightThrough = 150.0
	// shortLink: junctions joined by a line shorter than this are one.
	shortLink = 5.0
)

// trace turns the thinned ink m (w × h, 1 for ink) into polylines: each
// line between two junctions or ends is traced, spurs are cut, and lines
// are joined through junctions where they run on straight (a line that a
// wire touches stays one line) and through junctions left with two
// branches.
func trace(m []uint8, w, h int) []polyline {
	nb := func(i int32) uint8 { return neighbours(m, w, h, int(i)%w, int(i)/w) }
	node := func(i int32) bool { return bits.OnesCount8(nb(i)) != 2 }
	// Nodes: pixels with other than two neighbours, joined into clusters.
	cluster := map[int32]int32{}
	var nodes []int32
	for i := range int32(w * h) {
		if m[i] != 0 && node(i) && nb(i) != 0 {
			cluster[i] = int32(len(nodes))
			nodes = append(nodes, i)
		}
	}
	set := unionfind.New[int32](len(nodes))
	for k, i := range nodes {
		x, y := int(i)%w, int(i)/w
		for _, d := range around {
			xx, yy := x+d[0], y+d[1]
			if xx >= 0 && yy >= 0 && xx < w && yy < h {
				if j, ok := cluster[int32(yy*w+xx)]; ok {
					set.Join(int32(k), j)
				}
			}
		}
	}
	set.Roots()
	id := map[int32]int32{} // root -> cluster index
	var centres []glyph.Point
	var counts []float64
	for k, i := range nodes {
		r := set[k]
		c, ok := id[r]
		if !ok {
			c = int32(len(centres))
			id[r] = c
			centres = append(centres, glyph.Point{})
			counts = append(counts, 0)
		}
		cluster[i] = c
		centres[c].X += float64(int(i)%w) + 0.5
		centres[c].Y += float64(int(i)/w) + 0.5
		counts[c]++
	}
	for c := range centres {
		centres[c].X /= counts[c]
		centres[c].Y /= counts[c]
	}
	pt := func(i int32) glyph.Point { return glyph.Point{X: float64(int(i)%w) + 0.5, Y: float64(int(i)/w) + 0.5} }
	// A line pixel traced is marked 2 in m (still ink to neighbours).
	visited := func(i int32) bool { return m[i] == 2 }
	// inkAround returns the ink pixels around pixel i (the first n of
	// the array).
	inkAround := func(i int32) (out [8]int32, n int) {
		x, y := int(i)%w, int(i)/w
		b := nb(i)
		for k, d := range around {
			if b>>k&1 != 0 {
				out[n] = int32((y+d[1])*w + x + d[0])
				n++
			}
		}
		return out, n
	}
	step := func(cur, prev int32) (int32, bool) {
		qs, n := inkAround(cur)
		for _, q := range qs[:n] {
			if q != prev {
				return q, true
			}
		}
		return 0, false
	}
	var edges []edge
	for _, n := range nodes {
		cs, nc := inkAround(n)
		for _, c := range cs[:nc] {
			if _, isNode := cluster[c]; isNode || visited(c) {
				continue
			}
			e := edge{a: cluster[n], b: -1, pts: []glyph.Point{centres[cluster[n]]}}
			prev, cur := n, c
			for {
				m[cur] = 2
				e.pts = append(e.pts, pt(cur))
				q, ok := step(cur, prev)
				if !ok {
					break
				}
				if cq, isNode := cluster[q]; isNode {
					e.b = cq
					e.pts = append(e.pts, centres[cq])
					break
				}
				if visited(q) {
					break
				}
				prev, cur = cur, q
			}
			if e.b >= 0 {
				edges = append(edges, e)
			}
		}
	}
	var out []polyline
	// Loops: line pixels no node reaches.
	for i := range int32(w * h) {
		if m[i] == 0 || visited(i) {
			continue
		}
		if _, isNode := cluster[i]; isNode {
			continue
		}
		p := polyline{closed: true}
		prev, cur := int32(-1), i
		for {
			m[cur] = 2
			p.pts = append(p.pts, pt(cur))
			q, ok := step(cur, prev)
			if !ok || visited(q) {
				break
			}
			prev, cur = cur, q
		}
		if len(p.pts) >= 4 {
			out = append(out, p)
		}
	}
	return append(out, join(edges, len(centres))...)
}

// join cuts spurs off the edges and joins them into polylines at their
// nodes (trace).
func join(edges []edge, nNodes int) []polyline {
	degree := make([]int, nNodes)
	for _, e := range edges {
		degree[e.a]++
		degree[e.b]++
	}
	keep := edges[:0]
	for _, e := range edges {
		free := degree[e.a] == 1 || degree[e.b] == 1
		junction := degree[e.a] >= 3 || degree[e.b] >= 3
		if free && junction && length(e.pts) < spurLength {
			degree[e.a]--
			degree[e.b]--
			continue
		}
		keep = append(keep, e)
	}
	edges = keep
	// Junctions a few pixels apart are one junction: a stroke meeting a
	// line at a slant, or two strokes meeting it side by side, leave a
	// short stretch of it between two nodes.
	nodeSet := unionfind.New[int32](nNodes)
	keep = edges[:0]
	for _, e := range edges {
		if e.a != e.b && degree[e.a] >= 3 && degree[e.b] >= 3 && length(e.pts) < shortLink {
			nodeSet.Join(e.a, e.b)
			continue
		}
		keep = append(keep, e)
	}
	edges = keep
	for k := range edges {
		edges[k].a, edges[k].b = nodeSet.Find(edges[k].a), nodeSet.Find(edges[k].b)
	}
	// Ends at each node: end 2k is edge k's start, 2k+1 its end.
	at := make([][]int, nNodes)
	for k, e := range edges {
		at[e.a] = append(at[e.a], 2*k)
		at[e.b] = append(at[e.b], 2*k+1)
	}
	partner := make([]int, 2*len(edges))
	for i := range partner {
		partner[i] = -1
	}
	dir := func(end int) glyph.Point {
		pts := edges[end/2].pts
		if end%2 == 1 {
			pts = reversed(pts)
		}
		return tangent(pts)
	}
	cosStraight := math.Cos(straightThrough * math.Pi / 180)
	for _, ends := range at {
		if len(ends) == 2 {
			partner[ends[0]], partner[ends[1]] = ends[1], ends[0]
			continue
		}
		// Pair the branches that run on most nearly straight.
		for {
			best, bi, bj := cosStraight, -1, -1
			for x := range ends {
				for y := x + 1; y < len(ends); y++ {
					if partner[ends[x]] >= 0 || partner[ends[y]] >= 0 {
						continue
					}
					a, b := dir(ends[x]), dir(ends[y])
					if c := a.X*b.X + a.Y*b.Y; c < best {
						best, bi, bj = c, ends[x], ends[y]
					}
				}
			}
			if bi < 0 {
				break
			}
			partner[bi], partner[bj] = bj, bi
		}
	}
	used := make([]bool, len(edges))
	var out []polyline
	for k := range edges {
		if used[k] {
			continue
		}
		// Walk back from edge k's start to the head of its chain.
		head := 2 * k // the end the chain starts from
		for steps := 0; partner[head] >= 0 && steps < len(edges); steps++ {
			other := partner[head] ^ 1 // the far end of the edge before
			if other/2 == k {
				break
			}
			head = other
		}
		var p polyline
		end := head
		for {
			e := edges[end/2]
			if used[end/2] {
				p.closed = true
				break
			}
			used[end/2] = true
			pts := e.pts
			if end%2 == 1 {
				pts = reversed(pts)
			}
			if len(p.pts) > 0 {
				// Through a node: from the last pixel before it to the
				// first after it, not by its centre (a junction's centre
				// lies off a line that a stroke meets from one side).
				p.pts = p.pts[:len(p.pts)-1]
				pts = pts[1:]
			}
			p.pts = append(p.pts, pts...)
			next := partner[end^1]
			if next < 0 {
				break
			}
			end = next
		}
		out = append(out, p)
	}
	return out
}

// tangent returns the unit direction in which a branch leaves its node
// (pts[0]): from its first pixel past the node's centre, which may lie
// off the line, the direction to the pixel tangentReach/2 along it, turned
// back by how much the direction to the pixel tangentReach along turns
// further, so that an arc's branch leaves along the arc's tangent, not
// along a chord.
func tangent(pts []glyph.Point) glyph.Point {
	o := pts[min(1, len(pts)-1)]
	var near, far glyph.Point
	found := false
	for _, p := range pts[1:] {
		d := math.Hypot(p.X-o.X, p.Y-o.Y)
		if !found && d >= tangentReach/2 {
			near, found = p, true
		}
		if d >= tangentReach {
			far = p
			break
		}
	}
	last := pts[len(pts)-1]
	if !found {
		near = last
	}
	if far == (glyph.Point{}) {
		far = near
	}
	an := math.Atan2(near.Y-o.Y, near.X-o.X)
	af := math.Atan2(far.Y-o.Y, far.X-o.X)
	turn := math.Remainder(af-an, 2*math.Pi)
	a := an - turn
	if near == o {
		return glyph.Point{}
	}
	return glyph.Point{X: math.Cos(a), Y: math.Sin(a)}
}

// reversed returns a reversed copy of pts.
func reversed(pts []glyph.Point) []glyph.Point {
	out := make([]glyph.Point, len(pts))
	for i, p := range pts {
		out[len(pts)-1-i] = p
	}
	return out
}

// length is a polyline's length.
func length(pts []glyph.Point) float64 {
	var l float64
	for i := 1; i < len(pts); i++ {
		l += math.Hypot(pts[i].X-pts[i-1].X, pts[i].Y-pts[i-1].Y)
	}
	return l
}
