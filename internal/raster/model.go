package raster

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// The committed model: training/train.py writes both files (make train).
//
//go:embed model/*.onnx model/detector.json
var modelFiles embed.FS

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
	Calibration [][2]float64 `json:"calibration"`
}

// EmbeddedModel returns the committed ONNX model the metadata names (the
// float model, or its int8 quantisation) and the metadata, checked against
// each other (the SHA-256 in the JSON names the ONNX bytes).
func EmbeddedModel() ([]byte, Meta, error) {
	js, err := modelFiles.ReadFile("model/detector.json")
	if err != nil {
		return nil, Meta{}, fmt.Errorf("raster: read model metadata: %w", err)
	}
	m, err := ParseMeta(js)
	if err != nil {
		return nil, Meta{}, err
	}
	onnx, err := modelFiles.ReadFile("model/" + m.Model)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("raster: read model: %w", err)
	}
	if err := m.Check(onnx); err != nil {
		return nil, Meta{}, err
	}
	return onnx, m, nil
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
	c := m.Calibration
	if len(c) < 2 || c[0][0] != 0 || c[len(c)-1][0] != 1 {
		return Meta{}, errors.New("raster: model metadata: calibration must run from score 0 to score 1")
	}
	if !sort.SliceIsSorted(c, func(i, j int) bool { return c[i][0] < c[j][0] }) {
		return Meta{}, errors.New("raster: model metadata: calibration scores must increase")
	}
	for i, p := range c {
		if p[1] < 0 || p[1] > 1 || (i > 0 && (p[0] <= c[i-1][0] || p[1] < c[i-1][1])) {
			return Meta{}, fmt.Errorf("raster: model metadata: calibration point %d %v is not increasing within 0..1", i, p)
		}
	}
	return m, nil
}

// Check reports whether onnx is the model the metadata describes.
func (m Meta) Check(onnx []byte) error {
	sum := sha256.Sum256(onnx)
	if got := hex.EncodeToString(sum[:]); got != m.SHA256 {
		return fmt.Errorf("raster: model file has SHA-256 %s, its metadata says %s", got, m.SHA256)
	}
	return nil
}

// Confidence maps a network score through the calibration.
func (m Meta) Confidence(score float64) float64 {
	c := m.Calibration
	for i := 1; i < len(c); i++ {
		if score <= c[i][0] {
			a, b := c[i-1], c[i]
			return a[1] + (b[1]-a[1])*(score-a[0])/(b[0]-a[0])
		}
	}
	return c[len(c)-1][1]
}
