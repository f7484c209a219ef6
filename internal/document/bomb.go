package document

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
)

// maxNestedFlate is how many zlib layers of one stream the scan unwraps (a
// stream filtered [/FlateDecode /FlateDecode] inflates twice in MuPDF).
const maxNestedFlate = 4

// errOverBudget stops a drain once the inflated bytes pass the limit.
var errOverBudget = errors.New("inflated bytes over the limit")

// decompressionLimit is the number of inflated bytes a file of size n may
// produce: MaxDecompressionRatio × n, and never more than
// MaxDecompressedBytes.
func decompressionLimit(n int, lim Limits) int64 {
	byRatio := lim.MaxDecompressionRatio * float64(n)
	if byRatio < float64(lim.MaxDecompressedBytes) {
		return int64(byRatio)
	}
	return lim.MaxDecompressedBytes
}

// scanStreams inflates every zlib-compressed stream of a PDF with a bounded
// reader and returns a decompression_bomb *InvalidError as soon as the
// inflated bytes of all streams together pass decompressionLimit. It does
// not trust /Length or /Filter (both can lie, and names can be #-escaped):
// it inflates the bytes after each "stream" keyword whenever they start
// with a zlib header, and unwraps nested zlib layers, counting every layer.
// A damaged stream counts what inflated before the damage, as MuPDF reads
// it. Work is bounded by the limit plus one read buffer.
func scanStreams(ctx context.Context, data []byte, lim Limits) error {
	budget := &inflateBudget{limit: decompressionLimit(len(data), lim)}
	keyword := []byte("stream")
	for pos := 0; ; {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("scan pdf streams: %w", err)
		}
		i := bytes.Index(data[pos:], keyword)
		if i < 0 {
			return nil
		}
		kw := pos + i
		start := kw + len(keyword)
		pos = start
		if kw >= 3 && string(data[kw-3:kw]) == "end" {
			continue // "endstream"
		}
		// The keyword is followed by CRLF or LF (some writers emit a lone CR).
		switch {
		case bytes.HasPrefix(data[start:], []byte("\r\n")):
			start += 2
		case bytes.HasPrefix(data[start:], []byte("\n")), bytes.HasPrefix(data[start:], []byte("\r")):
			start++
		default:
			continue
		}
		err := budget.drain(bytes.NewReader(data[start:]), 0)
		if errors.Is(err, errOverBudget) {
			return invalid(ReasonDecompressionBomb,
				map[string]any{"max_decompressed_bytes": budget.limit},
				"the file's compressed streams inflate to more than %d bytes (the limit is %g times the file size and at most %d bytes); it looks like a decompression bomb",
				budget.limit, lim.MaxDecompressionRatio, lim.MaxDecompressedBytes)
		}
	}
}

// inflateBudget counts inflated bytes against the document's allowance.
// It keeps one buffered reader and one zlib reader per layer and resets
// them for each stream, so that a file packed with millions of tiny
// streams costs no more than a few allocations.
type inflateBudget struct {
	limit  int64 // bytes allowed in all
	used   int64
	layers [maxNestedFlate + 1]inflateLayer
}

// inflateLayer is the reusable state of one zlib layer.
type inflateLayer struct {
	br *bufio.Reader
	zr io.ReadCloser // implements zlib.Resetter
	cr countingReader
}

// drain reads r to its end, inflating it when it starts with a zlib header
// and recursing into the output. It returns errOverBudget once the budget
// is spent; damage inside a stream ends that stream quietly.
func (bu *inflateBudget) drain(r io.Reader, depth int) error {
	l := &bu.layers[depth]
	if l.br == nil {
		l.br = bufio.NewReader(r)
	} else {
		l.br.Reset(r)
	}
	hdr, _ := l.br.Peek(2)
	if depth >= maxNestedFlate || !zlibHeader(hdr) {
		if depth == 0 {
			return nil // not compressed: nothing to count
		}
		_, err := io.Copy(io.Discard, l.br) // counted by the layer above
		if errors.Is(err, errOverBudget) {
			return err
		}
		return nil
	}
	var err error
	if l.zr == nil {
		l.zr, err = zlib.NewReader(l.br)
	} else {
		err = l.zr.(zlib.Resetter).Reset(l.br, nil)
	}
	if err != nil {
		if errors.Is(err, errOverBudget) {
			return err
		}
		return nil // a header that only looked like zlib
	}
	l.cr = countingReader{r: l.zr, budget: bu}
	return bu.drain(&l.cr, depth+1)
}

// countingReader charges what it reads to a budget.
type countingReader struct {
	r      io.Reader
	budget *inflateBudget
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.budget.used += int64(n)
	if c.budget.used > c.budget.limit {
		return n, errOverBudget
	}
	return n, err
}

// zlibHeader reports whether b starts with a valid zlib header (deflate,
// window ≤ 32 KiB, check bits right).
func zlibHeader(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	cmf, flg := b[0], b[1]
	return cmf&0x0F == 8 && cmf>>4 <= 7 && (uint16(cmf)<<8|uint16(flg))%31 == 0
}
