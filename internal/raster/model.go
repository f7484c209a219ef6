package raster

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"blueprint/internal/detect"
)

// The committed models the service runs: the int8 networks (make train
// writes them with their float originals, which stay on disk only) and
// the JSON that names them.
//
//go:embed model/*-int8.onnx model/detector.json
var modelFiles embed.FS

// metaFile is the model JSON inside modelFiles' model folder.
const metaFile = "detector.json"

// Meta is the model's JSON: what the network expects and how its scores
// become detections. training/export.py writes it beside the ONNX file.
type Meta struct {
	Model  string `json:"model"`
	SHA256 string `json:"sha256"`
	Opset  int    `json:"opset"`
	// Stride is the input pixels per output cell.
	Stride int `json:"stride"`
	// Tile is the side of the square tiles a page is cut into; Overlap is
	// how far neighbouring tiles overlap (more than the largest symbol).
	Tile    int `json:"tile"`
	Overlap int `json:"overlap"`
	// Classes maps the network's class index to the catalog class.
	Classes []string `json:"classes"`
	// ScoreThreshold is the lowest network score kept as a detection.
	ScoreThreshold float64 `json:"score_threshold"`
	// Calibration maps a network score to a confidence: points (score,
	// confidence), increasing in both, from score 0 to score 1, linear in
	// between. Measured on an evaluation set so that a confidence reads as
	// the chance that the detection is right.
	Calibration Calibration `json:"calibration"`
	// Classifier, when present, is the second stage: the detector only
	// proposes boxes (at Classifier.ProposalThreshold instead of
	// ScoreThreshold) and the classifier names each one, or rejects it,
	// and refines its box; its calibration then gives the confidence.
	Classifier *ClassifierMeta `json:"classifier,omitempty"`
	// PageScale, when present, says when a page whose symbols are far
	// larger than the networks see best is looked at smaller (scale.go).
	PageScale *PageScale `json:"page_scale,omitempty"`
	// CoarseLook, when present, has the detector look at every page once
	// more at a lower resolution for symbols too large for it (coarse.go);
	// it needs a classifier to name what it proposes.
	CoarseLook *CoarseLook `json:"coarse_look,omitempty"`
}

// ClassifierMeta describes the crop classifier (training/classifier.py).
type ClassifierMeta struct {
	Model  string `json:"model"`
	SHA256 string `json:"sha256"`
	Input  struct {
		// Size is the side of the square crop the network reads, pixels
		// of ink as the detector's input.
		Size int `json:"size"`
	} `json:"input"`
	// Context is the crop's side over the proposal box's longer side.
	Context float64 `json:"context"`
	// Background is the output index meaning "not a symbol"; the others
	// are Meta.Classes in order.
	Background int `json:"background"`
	// ProposalThreshold is the lowest detector score proposed.
	ProposalThreshold float64 `json:"proposal_threshold"`
	// ScoreThreshold is the lowest class probability kept.
	ScoreThreshold float64 `json:"score_threshold"`
	// Views is how many of a proposal's symmetries (views.go) the
	// classifier looks at, their results averaged: 1 (or absent) the crop
	// alone, up to 8. The calibration is measured with the same number.
	// Verify's exact boxes are looked at once.
	Views int `json:"views,omitempty"`
	// RefineViews is how many views the passes before the last look at
	// (proposalPasses): those passes decide where the next one cuts its
	// window, drop what scores under ScoreThreshold and settle what they
	// name surely (settleScore), so fewer views than the last pass's do
	// (0 or absent: as many as Views). The calibration is measured with
	// the same number.
	RefineViews int `json:"refine_views,omitempty"`
	// Calibration maps the class probability to a confidence.
	Calibration Calibration `json:"calibration"`
	// ClassCalibration maps the probability of a named class to a
	// confidence in its place (a class not named uses Calibration): how
	// often a detection of that class and score was right on the
	// calibration set, each score bin's count shrunk toward Calibration's
	// precision there by 20 detections, so a class seen rarely keeps
	// nearly the pooled map (make calibrate-raster, fitCalibration).
	ClassCalibration map[string]Calibration `json:"class_calibration,omitempty"`
	// BoxScale corrects the classifier's boxes of the classes it boxes
	// consistently too small or too large (the long fire-alarm symbols,
	// whose thin end strokes it leaves out): a detection's longer side is
	// multiplied by the first factor and its shorter side by the second,
	// about its centre. Measured with the calibration, on the same set
	// (make calibrate-raster); a class not named keeps its box.
	BoxScale map[string][2]float64 `json:"box_scale,omitempty"`
	// LongLook names the classes whose named windows the classifier looks
	// at once more in a wider window, to measure their length (lookLong).
	// Chosen on the calibration set (make calibrate-raster): the classes
	// whose symbols it brings to IoU 0.5 with their detections more often
	// than it takes them away, beyond chance (a sign test).
	LongLook []string `json:"long_look,omitempty"`
	// Pairs says the classifier learned pair boxes (classifier.py
	// --pairs): the service proposes them (pairBoxes) beside the
	// detector's proposals.
	Pairs bool `json:"pairs,omitempty"`
}

// classIndices returns the set of the indices in classes of the named
// classes, or an error naming one that is not among them.
func classIndices(classes, named []string) (map[int]bool, error) {
	out := make(map[int]bool, len(named))
	for _, class := range named {
		i := slices.Index(classes, class)
		if i < 0 {
			return nil, fmt.Errorf("%q is not one of the classes", class)
		}
		out[i] = true
	}
	return out, nil
}

// Box scale factors outside these bounds are a mistake, not a measurement.
const (
	minBoxScale = 0.5
	maxBoxScale = 2.0
)

// rescale applies the class's box correction (BoxScale) to b.
func (c *ClassifierMeta) rescale(class string, b detect.Box) detect.Box {
	if f, ok := c.BoxScale[class]; ok {
		return scaleBox(b, f)
	}
	return b
}

// scaleBox multiplies b's longer side by f[0] and its shorter by f[1] (the
// width counts as longer when they are equal), about its centre.
func scaleBox(b detect.Box, f [2]float64) detect.Box {
	w, h := b.W*f[1], b.H*f[0]
	if b.W >= b.H {
		w, h = b.W*f[0], b.H*f[1]
	}
	return detect.Box{X: b.X + b.W/2 - w/2, Y: b.Y + b.H/2 - h/2, W: w, H: h}
}

// views is the number of views each crop is classified in by the last
// pass.
func (c *ClassifierMeta) views() int { return max(c.Views, 1) }

// refineViews is the number of views each crop is classified in by the
// passes before the last.
func (c *ClassifierMeta) refineViews() int {
	if c.RefineViews <= 0 {
		return c.views()
	}
	return c.RefineViews
}

// Calibration maps a score to a confidence: points (score, confidence),
// increasing in both, from score 0 to score 1, linear in between.
type Calibration [][2]float64

// Model is what a Detector runs: the detector network, the classifier
// network when the metadata names one, and the metadata.
type Model struct {
	Detector   []byte
	Classifier []byte
	Meta       Meta
}

// EmbeddedModel returns the committed ONNX models the metadata names (the
// float models, or their int8 quantisations) and the metadata, checked
// against each other (the SHA-256s in the JSON name the ONNX bytes).
func EmbeddedModel() (Model, error) {
	js, err := modelFiles.ReadFile("model/" + metaFile)
	if err != nil {
		return Model{}, fmt.Errorf("raster: read model metadata: %w", err)
	}
	m, err := ParseMeta(js)
	if err != nil {
		return Model{}, err
	}
	out := Model{Meta: m}
	if out.Detector, err = modelFiles.ReadFile("model/" + m.Model); err != nil {
		return Model{}, fmt.Errorf("raster: read model: %w", err)
	}
	if m.Classifier != nil {
		if out.Classifier, err = modelFiles.ReadFile("model/" + m.Classifier.Model); err != nil {
			return Model{}, fmt.Errorf("raster: read classifier: %w", err)
		}
	}
	if err := out.Check(); err != nil {
		return Model{}, err
	}
	return out, nil
}

// Check reports whether the networks are the ones the metadata describes.
func (m Model) Check() error {
	if err := checkSum("model", m.Detector, m.Meta.SHA256); err != nil {
		return err
	}
	if c := m.Meta.Classifier; c != nil {
		if m.Classifier == nil {
			return errors.New("raster: the metadata names a classifier but no classifier network was given")
		}
		if err := checkSum("classifier", m.Classifier, c.SHA256); err != nil {
			return err
		}
	} else if m.Classifier != nil {
		return errors.New("raster: a classifier network without classifier metadata")
	}
	return nil
}

// ParseMeta decodes and validates a model JSON.
func ParseMeta(js []byte) (Meta, error) {
	var m Meta
	if err := json.Unmarshal(js, &m); err != nil {
		return Meta{}, fmt.Errorf("raster: model metadata: %w", err)
	}
	switch {
	case m.Model == "" || strings.ContainsAny(m.Model, "/\\"):
		return Meta{}, fmt.Errorf("raster: model metadata: model %q must name a file beside it", m.Model)
	case m.Stride <= 0 || m.Tile <= 0 || m.Tile%16 != 0 || m.Tile%m.Stride != 0:
		return Meta{}, fmt.Errorf("raster: model metadata: tile %d and stride %d must be positive, the tile a multiple of 16 and of the stride", m.Tile, m.Stride)
	case m.Overlap < 0 || 2*m.Overlap >= m.Tile || m.Overlap%m.Stride != 0:
		return Meta{}, fmt.Errorf("raster: model metadata: overlap %d must be a multiple of the stride below half the tile %d", m.Overlap, m.Tile)
	case len(m.Classes) == 0:
		return Meta{}, errors.New("raster: model metadata: no classes")
	case m.ScoreThreshold <= 0 || m.ScoreThreshold >= 1:
		return Meta{}, fmt.Errorf("raster: model metadata: score_threshold %v is outside (0, 1)", m.ScoreThreshold)
	}
	if err := m.Calibration.check(); err != nil {
		return Meta{}, fmt.Errorf("raster: model metadata: %w", err)
	}
	if s := m.PageScale; s != nil {
		if err := s.check(); err != nil {
			return Meta{}, fmt.Errorf("raster: model metadata: %w", err)
		}
	}
	if c := m.CoarseLook; c != nil {
		if m.Classifier == nil {
			return Meta{}, errors.New("raster: model metadata: coarse_look needs a classifier")
		}
		if err := c.check(); err != nil {
			return Meta{}, fmt.Errorf("raster: model metadata: %w", err)
		}
	}
	if c := m.Classifier; c != nil {
		switch {
		case c.Model == "" || strings.ContainsAny(c.Model, "/\\"):
			return Meta{}, fmt.Errorf("raster: model metadata: classifier model %q must name a file beside it", c.Model)
		case c.Input.Size <= 0 || c.Input.Size%16 != 0:
			return Meta{}, fmt.Errorf("raster: model metadata: classifier input size %d must be a positive multiple of 16", c.Input.Size)
		case c.Context < 1 || c.Context > 4:
			return Meta{}, fmt.Errorf("raster: model metadata: classifier context %v is outside 1..4", c.Context)
		case c.Background != len(m.Classes):
			return Meta{}, fmt.Errorf("raster: model metadata: classifier background index %d, want %d (after the classes)", c.Background, len(m.Classes))
		case c.ProposalThreshold <= 0 || c.ProposalThreshold >= 1 || c.ScoreThreshold <= 0 || c.ScoreThreshold >= 1:
			return Meta{}, fmt.Errorf("raster: model metadata: classifier thresholds %v, %v are outside (0, 1)", c.ProposalThreshold, c.ScoreThreshold)
		case c.Views < 0 || c.Views > maxViews:
			return Meta{}, fmt.Errorf("raster: model metadata: classifier views %d is outside 0..%d", c.Views, maxViews)
		case c.RefineViews < 0 || c.RefineViews > maxViews:
			return Meta{}, fmt.Errorf("raster: model metadata: classifier refine_views %d is outside 0..%d", c.RefineViews, maxViews)
		}
		if err := c.Calibration.check(); err != nil {
			return Meta{}, fmt.Errorf("raster: model metadata: classifier %w", err)
		}
		for class, cal := range c.ClassCalibration {
			if !slices.Contains(m.Classes, class) {
				return Meta{}, fmt.Errorf("raster: model metadata: classifier class_calibration names %q, not one of the classes", class)
			}
			if err := cal.check(); err != nil {
				return Meta{}, fmt.Errorf("raster: model metadata: classifier class_calibration of %s: %w", class, err)
			}
		}
		for class, f := range c.BoxScale {
			if !slices.Contains(m.Classes, class) {
				return Meta{}, fmt.Errorf("raster: model metadata: classifier box_scale names %q, not one of the classes", class)
			}
			if f[0] < minBoxScale || f[0] > maxBoxScale || f[1] < minBoxScale || f[1] > maxBoxScale {
				return Meta{}, fmt.Errorf("raster: model metadata: classifier box_scale of %s %v is outside %v..%v", class, f, minBoxScale, maxBoxScale)
			}
		}
		if _, err := classIndices(m.Classes, c.LongLook); err != nil {
			return Meta{}, fmt.Errorf("raster: model metadata: classifier long_look: %w", err)
		}
	}
	return m, nil
}

// check reports whether the points run from score 0 to 1, increasing.
func (c Calibration) check() error {
	if len(c) < 2 || c[0][0] != 0 || c[len(c)-1][0] != 1 {
		return errors.New("calibration must run from score 0 to score 1")
	}
	if !sort.SliceIsSorted(c, func(i, j int) bool { return c[i][0] < c[j][0] }) {
		return errors.New("calibration scores must increase")
	}
	for i, p := range c {
		if p[1] < 0 || p[1] > 1 || (i > 0 && (p[0] <= c[i-1][0] || p[1] < c[i-1][1])) {
			return fmt.Errorf("calibration point %d %v is not increasing within 0..1", i, p)
		}
	}
	return nil
}

// checkSum reports whether b has the SHA-256 want.
func checkSum(what string, b []byte, want string) error {
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("raster: %s file has SHA-256 %s, its metadata says %s", what, got, want)
	}
	return nil
}

// Confidence maps a detection's score to its confidence: the classifier's
// calibration of its class when there is a classifier (the score is its
// probability), else the detector's.
func (m Meta) Confidence(class string, score float64) float64 {
	if c := m.Classifier; c != nil {
		if cal, ok := c.ClassCalibration[class]; ok {
			return cal.At(score)
		}
		return c.Calibration.At(score)
	}
	return m.Calibration.At(score)
}

// At maps a score through the calibration.
func (c Calibration) At(score float64) float64 {
	for i := 1; i < len(c); i++ {
		if score <= c[i][0] {
			a, b := c[i-1], c[i]
			return a[1] + (b[1]-a[1])*(score-a[0])/(b[0]-a[0])
		}
	}
	return c[len(c)-1][1]
}
