package vector

import (
	"context"
	"fmt"

	"blueprint/internal/detect"
)

// PixelsPerPoint converts PDF points to pixels of the page raster.
const PixelsPerPoint = float64(detect.RenderDPI) / 72

// Engine is a detect.Engine that finds templates in the vector drawing of
// PDF pages. Pages without a vector side (image uploads) yield nothing. It
// holds no per-page state, so it is safe for concurrent use; each page's
// geometry lives only during its Detect call.
type Engine struct {
	m *Matcher
}

// NewEngine returns an engine for the templates.
func NewEngine(tpls []Template) (*Engine, error) {
	m, err := NewMatcher(tpls)
	if err != nil {
		return nil, err
	}
	return &Engine{m: m}, nil
}

// Detect reads the page's drawing and matches the templates.
func (e *Engine) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	if p.PDF == nil {
		return nil, nil
	}
	pg, err := p.PDF.Drawing(ctx)
	if err != nil {
		return nil, fmt.Errorf("vector: page %d: %w", p.Index, err)
	}
	ms, err := e.m.Match(ctx, pg)
	if err != nil {
		return nil, fmt.Errorf("vector: page %d: %w", p.Index, err)
	}
	out := make([]detect.Detection, 0, len(ms))
	for _, m := range ms {
		if m.Legend {
			continue
		}
		out = append(out, detect.Detection{
			Class:      m.Class,
			Confidence: m.Confidence,
			Box:        m.Box,
			Source:     detect.Source{VectorMatching: true},
		})
	}
	return out, nil
}
