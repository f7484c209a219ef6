package engine

import (
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"

	"blueprint/internal/detect"
	"blueprint/internal/legend"
)

// stateMagic starts every saved document pass; a state of another format
// (an older or newer deployment's) is refused, not misread.
const stateMagic = "blueprint-document-pass/3\n"

// PrepareSaved is Prepare that also returns what the document pass
// learned as bytes (the legend rows with their glyphs, table boxes and
// page kinds: kilobytes, whatever the document's size), from which Resume
// builds the same engine in another process without reading the document
// again. A large document's page batches use it (job.ResumableEngine).
func (e *Engine) PrepareSaved(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, []byte, error) {
	return e.prepareSaved(ctx, doc, nil, true)
}

// prepareSaved is the document pass of Prepare and PrepareSaved, joined by
// refs; with save it also returns the pass as bytes.
func (e *Engine) prepareSaved(ctx context.Context, doc detect.Drawings, refs []refCut, save bool) (detect.Engine, detect.DocumentInfo, []byte, error) {
	var td *traced
	if e.trace {
		if td = traceDoc(doc, e.outlines); td != nil {
			doc = td
		}
	}
	ld, err := legend.ReadWith(ctx, doc, e.vocab, legend.Options{Outlines: e.outlines})
	if err != nil {
		return nil, detect.DocumentInfo{}, nil, fmt.Errorf("engine: document pass: %w", err)
	}
	il, err := e.readImageLegends(ctx, doc)
	if err != nil {
		return nil, detect.DocumentInfo{}, nil, err
	}
	tr := td.text()
	var state []byte
	if save {
		b, err := ld.MarshalBinary()
		if err != nil {
			return nil, detect.DocumentInfo{}, nil, fmt.Errorf("engine: save the document pass: %w", err)
		}
		var st bytes.Buffer
		st.WriteString(stateMagic)
		if err := gob.NewEncoder(&st).Encode(savedPass{Legend: b, Images: il, Refs: refs, Traced: tr}); err != nil {
			return nil, detect.DocumentInfo{}, nil, fmt.Errorf("engine: save the document pass: %w", err)
		}
		state = st.Bytes()
	}
	eng, info, err := e.prepared(ctx, ld, il, refs, td, tr)
	if err != nil {
		return nil, detect.DocumentInfo{}, nil, err
	}
	return eng, info, state, nil
}

// Resume returns the engine and document information that Prepare
// returned for the document whose pass PrepareSaved saved as state: the
// same templates and page kinds, so each page gets the detections it
// gets in one Prepare's run. The engine e must have the catalog of the
// one that saved it.
func (e *Engine) Resume(ctx context.Context, state []byte) (detect.Engine, detect.DocumentInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, detect.DocumentInfo{}, fmt.Errorf("engine: resume the document pass: %w", err)
	}
	rest, ok := bytes.CutPrefix(state, []byte(stateMagic))
	if !ok {
		return nil, detect.DocumentInfo{}, errors.New("engine: resume the document pass: not a saved document pass of this version")
	}
	var sp savedPass
	if err := gob.NewDecoder(bytes.NewReader(rest)).Decode(&sp); err != nil {
		return nil, detect.DocumentInfo{}, fmt.Errorf("engine: resume the document pass: %w", err)
	}
	var ld legend.Document
	if err := ld.UnmarshalBinary(sp.Legend); err != nil {
		return nil, detect.DocumentInfo{}, fmt.Errorf("engine: resume the document pass: %w", err)
	}
	return e.prepared(ctx, &ld, sp.Images, sp.Refs, nil, sp.Traced)
}

// savedPass is a saved document pass: the PDF legends (legend.Document's
// encoding), the legends read on image pages, their glyphs as PNG, and the
// other jobs' glyphs joined to them (WithReferences).
type savedPass struct {
	Legend []byte
	Images *imageLegends
	Refs   []refCut
	// Traced are the image pages the pass traced and what OCR read on
	// each (engine.traced).
	Traced map[int]tracedText
}
