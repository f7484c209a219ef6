package document

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
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
// decompressed bytes of all streams together pass decompressionLimit. It
// does not trust /Length or /Filter (both can lie, and names can be
// #-escaped): it inflates the bytes after each "stream" keyword whenever
// they start with a zlib header, and unwraps nested zlib layers, counting
// every layer. A damaged stream counts what inflated before the damage, as
// MuPDF reads it.
//
// Image XObjects are charged at least their decoded size (width × height ×
// components × bits / 8 from their dictionary), because MuPDF decodes
// CCITT, JBIG2, LZW, run-length and JPX images in full whatever their
// compression (a few kilobytes of CCITT can declare gigabytes of pixels).
// DCT (JPEG) images are not charged: MuPDF decodes them downscaled to the
// resolution drawn. Work is bounded by the limit plus one read buffer.
func scanStreams(ctx context.Context, data []byte, lim Limits) error {
	budget := &inflateBudget{limit: decompressionLimit(len(data), lim)}
	keyword := []byte("stream")
	prev := 0 // end of the previous keyword: dictionaries never overlap
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
		from := max(prev, kw-dictWindow)
		prev = start
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
		before := budget.used
		err := budget.drain(bytes.NewReader(data[start:]), 0)
		if err == nil {
			if decoded, ok := imageDecodedBytes(streamDict(data[from:kw])); ok {
				budget.used += max(0, decoded-(budget.used-before))
				if budget.used > budget.limit {
					err = errOverBudget
				}
			}
		}
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

// dictWindow is how far before a "stream" keyword its dictionary is looked
// for.
const dictWindow = 8192

// streamDict returns the part of before (the bytes ahead of a "stream"
// keyword, back to the previous keyword and at most dictWindow) that starts
// at the last "obj" keyword: the stream's dictionary. Nil when there is
// none. Windows never overlap, so all dictionaries together are read once.
func streamDict(before []byte) []byte {
	i := bytes.LastIndex(before, []byte("obj"))
	if i < 0 {
		return nil
	}
	return before[i:]
}

var (
	imageSubtypeRe = regexp.MustCompile(`/Subtype\s*/Image\b`)
	imageMaskRe    = regexp.MustCompile(`/ImageMask\s+true\b`)
	dctRe          = regexp.MustCompile(`/DCTDecode\b`)
	intEntryRe     = map[string]*regexp.Regexp{
		"Width":            regexp.MustCompile(`/Width\s+(\d+)(\s+\d+\s+R)?`),
		"Height":           regexp.MustCompile(`/Height\s+(\d+)(\s+\d+\s+R)?`),
		"BitsPerComponent": regexp.MustCompile(`/BitsPerComponent\s+(\d+)(\s+\d+\s+R)?`),
	}
	indexedSpaceRe = regexp.MustCompile(`/(Indexed|I)\b`)
	rgbSpaceRe     = regexp.MustCompile(`/(DeviceRGB|CalRGB|Lab)\b`)
	cmykSpaceRe    = regexp.MustCompile(`/DeviceCMYK\b`)
)

// imageDecodedBytes returns the decoded size of an image XObject from its
// dictionary, and false when dict is not a non-DCT image or its size is
// not written directly (an indirect /Width is left to the inflate count).
func imageDecodedBytes(dict []byte) (int64, bool) {
	if dict == nil || !imageSubtypeRe.Match(dict) || dctRe.Match(dict) {
		return 0, false
	}
	entry := func(name string, def int64) (int64, bool) {
		m := intEntryRe[name].FindSubmatch(dict)
		if m == nil {
			return def, def > 0
		}
		if len(m[2]) > 0 {
			return 0, false // an indirect reference
		}
		v, err := strconv.ParseInt(string(m[1]), 10, 64)
		return v, err == nil && v >= 0 && v <= 1<<24
	}
	w, okW := entry("Width", 0)
	h, okH := entry("Height", 0)
	bpc, okB := entry("BitsPerComponent", 8)
	if !okW || !okH || !okB {
		return 0, false
	}
	comps := int64(1)
	switch {
	case imageMaskRe.Match(dict):
		bpc = 1
	case indexedSpaceRe.Match(dict):
		// one palette index a pixel, whatever the base space
	case rgbSpaceRe.Match(dict):
		comps = 3
	case cmykSpaceRe.Match(dict):
		comps = 4
	}
	return (w*h*comps*bpc + 7) / 8, true
}
