// Package raster is the raster symbol detector: a small one-stage network
// (training/, exported to ONNX and embedded here) run with ONNX Runtime
// through github.com/yalue/onnxruntime_go on overlapping tiles of the page
// raster. It sees scans and photos, and rendered PDF pages as a second
// opinion beside the vector matcher.
//
// ONNX Runtime is a C library loaded at run time (libonnxruntime.so, which
// the Makefile fetches from the PyPI onnxruntime wheel); its environment is
// one per process, so a process opens it once (Open) and every Detector
// shares it.
package raster

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"math"
	"sort"
	"sync"

	ort "github.com/yalue/onnxruntime_go"

	"blueprint/internal/detect"
)

// Config says where ONNX Runtime is and how to run it.
type Config struct {
	// Library is the path of libonnxruntime.so (API version 24, ONNX
	// Runtime 1.24 or newer): the CPU build, PyPI's onnxruntime.
	Library string
	// GPULibrary is the path of ONNX Runtime's CUDA build (PyPI's
	// onnxruntime-gpu, the same version), with its CUDA provider library
	// beside it and CUDA's libraries on the loader's path (make
	// ort-gpu-layer). Only Provider cuda or auto loads it.
	GPULibrary string
	// Provider is the execution provider (provider.go): "" or cpu, cuda
	// or auto.
	Provider Provider
	// Log receives a fallback from the CUDA provider to the CPU; nil is
	// slog's default logger.
	Log *slog.Logger
	// Threads is ONNX Runtime's intra-op thread count; 0 means 2.
	Threads int
	// Batch is the number of tiles per network run; 0 means 4.
	Batch int
}

// runtimeEnv is ONNX Runtime's process-wide environment: the C library
// holds one, so this package opens it once and refuses a second library.
var runtimeEnv struct {
	sync.Mutex
	library string // loaded from here; "" until a load succeeds
}

// openRuntime loads the library and initialises ONNX Runtime once per
// process. A failed load leaves nothing behind: a later call may try again.
func openRuntime(library string) error {
	runtimeEnv.Lock()
	defer runtimeEnv.Unlock()
	if library == "" {
		return errors.New("raster: no ONNX Runtime library configured")
	}
	if runtimeEnv.library != "" {
		if runtimeEnv.library != library {
			return fmt.Errorf("raster: ONNX Runtime already loaded from %s, cannot load %s", runtimeEnv.library, library)
		}
		return nil
	}
	if err := checkLibrary(library); err != nil {
		return err
	}
	ort.SetSharedLibraryPath(library)
	if err := ort.InitializeEnvironment(ort.WithLogLevelError()); err != nil {
		return fmt.Errorf("raster: load ONNX Runtime from %s: %w", library, err)
	}
	runtimeEnv.library = library
	return nil
}

// Detector runs the model on page rasters. It is safe for concurrent use.
type Detector struct {
	meta Meta
	sess *ort.DynamicAdvancedSession
	cls  *ort.DynamicAdvancedSession // nil without a classifier
	// longLook holds the indices of the classifier's LongLook classes.
	longLook map[int]bool
	// glyphSide is each class's catalog glyph side (PageScale), by index.
	glyphSide []float64
	batch     int
	// provider is the execution provider the sessions run on; why says
	// how it was chosen.
	provider Provider
	why      string
}

// New loads ONNX Runtime and the embedded model.
func New(cfg Config) (*Detector, error) {
	m, err := EmbeddedModel()
	if err != nil {
		return nil, err
	}
	return NewWithModel(cfg, m)
}

// NewWithModel loads ONNX Runtime and the given model, on the execution
// provider cfg.Provider picks (provider.go).
func NewWithModel(cfg Config, m Model) (*Detector, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	pl, err := choose(cfg, hasGPU())
	if err != nil {
		return nil, err
	}
	if pl.cuda && !pl.required {
		// auto: a CUDA build that is not there leaves the CPU build,
		// which nothing has loaded yet.
		if err := checkLibrary(pl.library); err != nil {
			cfg.logger().Warn("raster: running on the CPU: no CUDA build of ONNX Runtime", "err", err)
			pl = plan{library: cfg.Library, why: pl.why + "; " + err.Error() + "; cpu"}
		}
	}
	if err := openRuntime(pl.library); err != nil {
		return nil, err
	}
	threads, batch := cfg.Threads, cfg.Batch
	if threads <= 0 {
		threads = 2
	}
	if batch <= 0 {
		batch = 4
	}
	d := &Detector{meta: m.Meta, batch: batch, provider: ProviderCPU, why: pl.why}
	if pl.cuda {
		d.provider = ProviderCUDA
	}
	d.sess, d.cls, err = openSessions(m, threads, pl.cuda)
	if err != nil && pl.cuda {
		if pl.required {
			return nil, fmt.Errorf("raster: execution provider cuda: %w", err)
		}
		cfg.logger().Warn("raster: the CUDA execution provider did not start; running on the CPU", "library", pl.library, "err", err)
		d.provider, d.why = ProviderCPU, pl.why+"; the CUDA provider did not start: "+err.Error()+"; cpu"
		d.sess, d.cls, err = openSessions(m, threads, false)
	}
	if err != nil {
		return nil, err
	}
	if m.Meta.PageScale != nil {
		if d.glyphSide, err = glyphSides(m.Meta.Classes); err != nil {
			d.Close()
			return nil, fmt.Errorf("raster: page_scale: %w", err)
		}
	}
	if c := m.Meta.Classifier; c != nil {
		if d.longLook, err = classIndices(m.Meta.Classes, c.LongLook); err != nil {
			d.Close()
			return nil, fmt.Errorf("raster: classifier long_look: %w", err)
		}
	}
	return d, nil
}

// hasGPU is HasGPU; a variable for tests.
var hasGPU = HasGPU

// openSessions opens the detector's session and the classifier's (nil
// without one), with the CUDA execution provider when cuda is set.
func openSessions(m Model, threads int, cuda bool) (sess, cls *ort.DynamicAdvancedSession, err error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, nil, fmt.Errorf("raster: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(threads); err != nil {
		return nil, nil, fmt.Errorf("raster: session options: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, nil, fmt.Errorf("raster: session options: %w", err)
	}
	// ONNX Runtime's threads spin after each run by default, waiting for
	// the next; here the next work is usually Go's (the vector matcher,
	// PNG encoding, the next crop batch), and a spinning thread takes its
	// core away from it.
	if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
		return nil, nil, fmt.Errorf("raster: session options: %w", err)
	}
	if cuda {
		if err := appendCUDA(opts); err != nil {
			return nil, nil, err
		}
	}
	sess, err = ort.NewDynamicAdvancedSessionWithONNXData(m.Detector, []string{"ink"},
		[]string{"score", "class", "peak", "box"}, opts)
	if err != nil {
		return nil, nil, fmt.Errorf("raster: load model: %w", err)
	}
	if m.Meta.Classifier != nil {
		// The int8 classifier with ONNX Runtime's extended graph
		// optimizations (its quantized-node fusions) answers differently
		// on every run on CPUs with AMX and AVX-512 VNNI (a Xeon of that
		// kind: every probability of a window moved, by up to 0.014,
		// run to run, in one session and one thread), so one page got
		// other detections each time; with the basic optimizations its
		// answers are the same on every run (as ONNX Runtime issue
		// 26324 reports wrong int8 output on such CPUs). The detector's
		// network was found deterministic with them.
		if err := opts.SetGraphOptimizationLevel(ort.GraphOptimizationLevelEnableBasic); err != nil {
			sess.Destroy()
			return nil, nil, fmt.Errorf("raster: session options: %w", err)
		}
		cls, err = ort.NewDynamicAdvancedSessionWithONNXData(m.Classifier, []string{"crop"}, []string{"prob", "box"}, opts)
		if err != nil {
			sess.Destroy()
			return nil, nil, fmt.Errorf("raster: load classifier: %w", err)
		}
	}
	return sess, cls, nil
}

// Provider returns the execution provider the networks run on: cuda or
// cpu (after a fallback from cuda, cpu).
func (d *Detector) Provider() Provider { return d.provider }

// ProviderReason says how the provider was chosen, and why a fallback
// happened.
func (d *Detector) ProviderReason() string { return d.why }

// Meta returns the loaded model's metadata.
func (d *Detector) Meta() Meta { return d.meta }

// Close releases the model.
func (d *Detector) Close() error {
	err := d.sess.Destroy()
	if d.cls != nil {
		err = errors.Join(err, d.cls.Destroy())
	}
	if err != nil {
		return fmt.Errorf("raster: close model: %w", err)
	}
	return nil
}

// Detect finds symbols on the page raster. The raster is cut into square
// tiles overlapping by more than the largest symbol; tiles with no ink are
// skipped; each tile keeps the detections centred in the part of it no
// neighbour covers better, widened a little (seamShare) so that a symbol
// on a seam is not lost, and a class-agnostic suppression keeps one
// detection of what two tiles both saw.
// With a classifier, those detections are proposals (and, for a classifier
// trained with them, the pair boxes over two of them: pairs.go): each is cropped from
// the page, named (or rejected as background) and its box refined by the
// classifier, and the suppression runs again on the refined boxes.
// A page whose proposals say its symbols are far larger than the
// networks see best (Meta.PageScale, scale.go) is looked at smaller:
// proposed again and classified there, its boxes mapped back to the
// page's pixels. With Meta.CoarseLook (coarse.go) the detector also looks
// at the page at a lower resolution, and the large symbols it proposes
// only there are classified with the rest.
func (d *Detector) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	if p.Raster == nil {
		return nil, fmt.Errorf("raster: page %d has no raster", p.Index)
	}
	page := luma(p.Raster)
	g := page
	kept, err := d.propose(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("raster: page %d: %w", p.Index, err)
	}
	f := d.meta.PageScale.factor(kept, d.glyphSide)
	if f != 1 {
		g = page.scaled(f)
		if kept, err = d.propose(ctx, g); err != nil {
			return nil, fmt.Errorf("raster: page %d at scale %.2f: %w", p.Index, f, err)
		}
	}
	if d.cls != nil {
		if d.meta.CoarseLook != nil {
			more, err := d.coarseProposals(ctx, g, kept)
			if err != nil {
				return nil, fmt.Errorf("raster: page %d: %w", p.Index, err)
			}
			kept = append(kept, more...)
		}
		if d.meta.Classifier.Pairs {
			for _, b := range pairBoxes(g, kept) {
				kept = append(kept, cand{box: b})
			}
		}
		named, err := d.classify(ctx, g, kept)
		if err != nil {
			return nil, fmt.Errorf("raster: page %d: %w", p.Index, err)
		}
		kept = suppressNested(suppress(named, suppressIoU), nestedCover)
	}
	if f != 1 {
		kept = scaleCands(kept, f)
	}
	return d.detections(kept, page.w, page.h), nil
}

// propose runs the network on the page's inked tiles and returns its
// peaks, one per place (class-agnostic suppression).
func (d *Detector) propose(ctx context.Context, g *gray) ([]cand, error) {
	tiles, tw, th := d.tiles(g)
	var cands []cand
	for start := 0; start < len(tiles); start += d.batch {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := min(start+d.batch, len(tiles))
		got, err := d.run(g, tiles[start:end], tw, th)
		if err != nil {
			return nil, err
		}
		cands = append(cands, got...)
	}
	return suppress(cands, suppressIoU), nil
}

// detections turns candidates into detections with calibrated confidence
// and, with a classifier, its class's box correction (BoxScale), clipped
// to the pw×ph page.
func (d *Detector) detections(cs []cand, pw, ph int) []detect.Detection {
	out := make([]detect.Detection, 0, len(cs))
	for _, c := range cs {
		class, box := d.meta.Classes[c.class], c.box
		if d.meta.Classifier != nil {
			box = clip(d.meta.Classifier.rescale(class, box), pw, ph)
		}
		out = append(out, detect.Detection{
			Class:      class,
			Confidence: d.meta.Confidence(class, c.score),
			Box:        box,
			Source:     detect.Source{Detector: true},
		})
	}
	return out
}

// seamShare is how far, as a share of the tiles' overlap, each tile keeps
// detections beyond its half of the overlap. Two tiles predict a symbol on
// their seam with centres a few pixels apart, so a strict split at the
// seam can drop both predictions (on the raster development set, seed
// 31337, such symbols got no proposal at all); widened, both are kept and
// the class-agnostic suppression keeps one. A quarter of the overlap
// still leaves every kept centre a quarter of the overlap inside its tile.
const seamShare = 4

// tile is one network input window: its top-left corner on the page and
// the part of it whose detections it keeps.
type tile struct {
	x, y int
	own  image.Rectangle
}

// positions splits one side of n pixels into the fewest windows of at most
// t pixels that overlap by at least overlap: all of one length (a multiple
// of 16, so a page's tiles batch together), spread evenly, the last flush
// with the far edge. own gives the half-open range of page coordinates each
// window keeps detections from (split in the middle of each overlap).
func positions(n, t, overlap int) (origins []int, length int, owns [][2]int) {
	k := 1
	if n > t {
		k = (n - overlap + t - overlap - 1) / (t - overlap)
	}
	length = min(t, (n+(k-1)*overlap+15)/16*16)
	for i := 0; i < k; i++ {
		o := 0
		if k > 1 {
			o = i * (n - length) / (k - 1)
		}
		origins = append(origins, o)
	}
	for i, o := range origins {
		lo, hi := math.MinInt32, math.MaxInt32
		if i > 0 {
			lo = (origins[i-1] + length + o) / 2
		}
		if i < len(origins)-1 {
			hi = (o + length + origins[i+1]) / 2
		}
		owns = append(owns, [2]int{lo, hi})
	}
	return origins, length, owns
}

// tiles lists the tiles of the page that hold ink, and their size.
func (d *Detector) tiles(g *gray) (ts []tile, tw, th int) {
	xs, tw, xo := positions(g.w, d.meta.Tile, d.meta.Overlap)
	ys, th, yo := positions(g.h, d.meta.Tile, d.meta.Overlap)
	for j, y := range ys {
		for i, x := range xs {
			if g.blank(x, y, tw, th) {
				continue
			}
			own := image.Rect(xo[i][0], yo[j][0], xo[i][1], yo[j][1]).Inset(-d.meta.Overlap / seamShare)
			ts = append(ts, tile{x: x, y: y, own: own})
		}
	}
	return ts, tw, th
}

// cand is one decoded peak.
type cand struct {
	class int
	score float64
	box   detect.Box
	from  detect.Box // the box a classified window was cut around
}

// run feeds a batch of tiles to the network and decodes the peaks each
// tile owns.
func (d *Detector) run(g *gray, ts []tile, tw, th int) ([]cand, error) {
	in := make([]float32, len(ts)*tw*th)
	for k, tl := range ts {
		g.ink(in[k*tw*th:(k+1)*tw*th], tl.x, tl.y, tw, th)
	}
	outs, release, err := runSession(d.sess, ort.NewShape(int64(len(ts)), 1, int64(th), int64(tw)), in, 4)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	defer release()
	score, ok1 := outs[0].(*ort.Tensor[float32])
	class, ok2 := outs[1].(*ort.Tensor[int32])
	peak, ok3 := outs[2].(*ort.Tensor[float32])
	box, ok4 := outs[3].(*ort.Tensor[float32])
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return nil, errors.New("model outputs are not score float32, class int32, peak float32, box float32")
	}
	gw, gh := tw/d.meta.Stride, th/d.meta.Stride
	if sh := score.GetShape(); len(sh) != 4 || sh[0] != int64(len(ts)) || sh[2] != int64(gh) || sh[3] != int64(gw) {
		return nil, fmt.Errorf("model score shape %v, want [%d 1 %d %d]", sh, len(ts), gh, gw)
	}
	sv, cv, pv, bv := score.GetData(), class.GetData(), peak.GetData(), box.GetData()
	thr := float32(d.meta.ScoreThreshold)
	if c := d.meta.Classifier; c != nil {
		thr = float32(c.ProposalThreshold)
	}
	s := float64(d.meta.Stride)
	cells := gw * gh
	var out []cand
	for k, tl := range ts {
		for i := 0; i < cells; i++ {
			at := k*cells + i
			if sv[at] < thr || pv[at] == 0 {
				continue
			}
			c := int(cv[at])
			if c < 0 || c >= len(d.meta.Classes) {
				return nil, fmt.Errorf("model reported class index %d of %d", c, len(d.meta.Classes))
			}
			gx, gy := i%gw, i/gw
			b := k*4*cells + i
			cx := float64(tl.x) + (float64(gx)+float64(bv[b]))*s
			cy := float64(tl.y) + (float64(gy)+float64(bv[b+cells]))*s
			if !(image.Point{X: int(math.Floor(cx)), Y: int(math.Floor(cy))}).In(tl.own) {
				continue
			}
			w := math.Exp(math.Min(float64(bv[b+2*cells]), 6)) * s
			h := math.Exp(math.Min(float64(bv[b+3*cells]), 6)) * s
			out = append(out, cand{class: c, score: float64(sv[at]), box: clip(detect.Box{X: cx - w/2, Y: cy - h/2, W: w, H: h}, g.w, g.h)})
		}
	}
	return out, nil
}

// runSession runs sess on one float32 input of the given shape and returns
// its outputs (as many as the session names) and the function that frees
// them; the input is freed before it returns.
func runSession(sess *ort.DynamicAdvancedSession, shape ort.Shape, in []float32, outputs int) ([]ort.Value, func(), error) {
	input, err := ort.NewTensor(shape, in)
	if err != nil {
		return nil, nil, fmt.Errorf("input tensor: %w", err)
	}
	defer input.Destroy()
	outs := make([]ort.Value, outputs)
	release := func() {
		for _, o := range outs {
			if o != nil {
				o.Destroy()
			}
		}
	}
	if err := sess.Run([]ort.Value{input}, outs); err != nil {
		release()
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	return outs, release, nil
}

// clip cuts b to the page.
func clip(b detect.Box, w, h int) detect.Box {
	x0, y0 := math.Max(b.X, 0), math.Max(b.Y, 0)
	x1, y1 := math.Min(b.X+b.W, float64(w)), math.Min(b.Y+b.H, float64(h))
	return detect.Box{X: x0, Y: y0, W: math.Max(x1-x0, 0), H: math.Max(y1-y0, 0)}
}

// nestedCover: a named detection lying mostly (this share of its area)
// inside a better one of the same class is a part of that symbol named
// again (a long symbol's proposals along its length), not a symbol.
const nestedCover = 0.6

// suppressNested drops, from candidates ordered best first, each that lies
// by more than cover of its area inside a better one of its class.
func suppressNested(cs []cand, cover float64) []cand {
	var kept []cand
	for _, c := range cs {
		ok := true
		for _, k := range kept {
			if k.class == c.class && overlapShare(c.box, k.box) > cover {
				ok = false
				break
			}
		}
		if ok {
			kept = append(kept, c)
		}
	}
	return kept
}

// overlapShare is the share of a's area that lies inside b.
func overlapShare(a, b detect.Box) float64 {
	inter := a.Intersection(b)
	if inter == 0 || a.W*a.H <= 0 {
		return 0
	}
	return inter / (a.W * a.H)
}

// suppressIoU is the overlap above which two candidates are one place:
// the proposals' suppression, the refined boxes' and the coarse look's
// test against the full-resolution proposals.
const suppressIoU = 0.5

// suppress keeps the best-scoring candidates, dropping any that overlaps a
// kept one by IoU above iou whatever its class (one symbol, one detection).
func suppress(cs []cand, iou float64) []cand {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].score > cs[j].score })
	var kept []cand
	for _, c := range cs {
		if !covered(c.box, kept, iou) {
			kept = append(kept, c)
		}
	}
	return kept
}

// covered reports whether any of cs overlaps b by IoU above iou.
func covered(b detect.Box, cs []cand, iou float64) bool {
	for _, c := range cs {
		if c.box.IoU(b) > iou {
			return true
		}
	}
	return false
}
