package document

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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
//
// On the way it looks for damage that MuPDF would paper over, returned as
// damage (nil when none) for the caller to report once the file is known
// not to be encrypted (encrypted streams do not inflate): a stream whose
// dictionary names /FlateDecode first but whose data is not zlib or breaks
// off (MuPDF reads such a page as blank), and a /MediaBox array, in the
// file or in an inflated object stream, that gives no usable page size
// (MuPDF silently puts a Letter page in its place).
func scanStreams(ctx context.Context, data []byte, lim Limits) (damage *InvalidError, err error) {
	r, err := scanStreamsDetail(ctx, data, lim)
	if err != nil {
		return nil, err
	}
	if r.stream != nil {
		return r.stream, nil
	}
	return r.box, nil
}

// streamScan is what scanStreams found, apart: the first damaged stream,
// the first unusable page box, and the bytes charged.
type streamScan struct {
	stream, box *InvalidError
	used        int64
}

// scanStreamsDetail is scanStreams with its findings apart: an encrypted
// file's streams do not inflate, so its stream damage is not damage
// (validatePDF).
func scanStreamsDetail(ctx context.Context, data []byte, lim Limits) (res streamScan, err error) {
	budget := &inflateBudget{limit: decompressionLimit(len(data), lim)}
	budget.inline.budget = budget
	// Inline images of uncompressed content streams lie in the file as is.
	_, err = budget.inline.scan(data, true)
	if errors.Is(err, errOverBudget) {
		return streamScan{}, bombError(budget, lim)
	}
	budget.boxes.scan(data, true)
	var damage *InvalidError
	defer func() {
		if err == nil && budget.boxes.bad != "" {
			res.box = damaged(DamagePageSize, "a page box of the PDF gives no usable page size (%s): the page would be read as a blank Letter page; export the drawing again with its real page size", budget.boxes.bad)
		}
		res.stream = damage
		res.used = budget.used
	}()
	keyword := []byte("stream")
	prev := 0 // end of the previous keyword: dictionaries never overlap
	for pos := 0; ; {
		if err := ctx.Err(); err != nil {
			return streamScan{}, fmt.Errorf("scan pdf streams: %w", err)
		}
		i := bytes.Index(data[pos:], keyword)
		if i < 0 {
			return res, nil
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
		budget.streamErr = nil
		budget.boxes.pending = budget.boxes.pending[:0]
		err := budget.drain(bytes.NewReader(data[start:]), 0)
		dict := streamDict(data[from:kw])
		if err == nil {
			if decoded, ok := imageDecodedBytes(dict); ok {
				budget.used += max(0, decoded-(budget.used-before))
				if budget.used > budget.limit {
					err = errOverBudget
				}
			}
		}
		if errors.Is(err, errOverBudget) {
			return streamScan{}, bombError(budget, lim)
		}
		if damage == nil && flateFirst.Match(dict) && !bytes.HasPrefix(bytes.TrimLeft(data[start:min(len(data), start+16)], "\r\n"), []byte("endstream")) {
			switch {
			case !zlibHeader(data[start:min(len(data), start+2)]):
				damage = damaged(DamageStream, "a stream of the PDF (%s) is declared FlateDecode but its data is not zlib data: its content cannot be read; export the drawing again", objectName(data[from:kw]))
			case budget.streamErr != nil:
				damage = damaged(DamageStream, "a compressed stream of the PDF (%s) is damaged (%v): its content cannot be read; export the drawing again", objectName(data[from:kw]), budget.streamErr)
			}
		}
	}
}

// flateFirst matches a stream dictionary whose first filter is FlateDecode.
var flateFirst = regexp.MustCompile(`/Filter\s*(?:\[\s*)?/FlateDecode\b`)

// objectHeader matches "N G obj" before a stream's dictionary.
var objectHeader = regexp.MustCompile(`(\d+)\s+\d+\s+obj\s*$`)

// objectName names the object whose dictionary ends before (the bytes
// ahead of its "stream" keyword), as "object N", or "an object".
func objectName(before []byte) string {
	i := bytes.LastIndex(before, []byte("obj"))
	if i < 0 {
		return "an object"
	}
	if m := objectHeader.FindSubmatch(before[:i+3]); m != nil {
		return "object " + string(m[1])
	}
	return "an object"
}

func bombError(budget *inflateBudget, lim Limits) *InvalidError {
	return invalid(ReasonDecompressionBomb,
		map[string]any{"max_decompressed_bytes": budget.limit},
		"the file's compressed streams and images decompress to more than %d bytes (the limit is %g times the file size and at most %d bytes); it looks like a decompression bomb",
		budget.limit, lim.MaxDecompressionRatio, lim.MaxDecompressedBytes)
}

// inflateBudget counts inflated bytes against the document's allowance.
// It keeps one buffered reader and one zlib reader per layer and resets
// them for each stream, so that a file packed with millions of tiny
// streams costs no more than a few allocations.
type inflateBudget struct {
	limit  int64 // bytes allowed in all
	used   int64
	layers [maxNestedFlate + 1]inflateLayer
	inline inlineScanner
	boxes  boxScanner
	// streamErr is the first error that ended inflating the current
	// stream early (damaged data; a wrong checksum does not count).
	streamErr error
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
		// Counted by the layer above; inline images in it are charged too.
		bu.inline.pending = bu.inline.pending[:0]
		_, err := io.Copy(io.MultiWriter(&bu.inline, &bu.boxes), l.br)
		if errors.Is(err, errOverBudget) {
			return err
		}
		if err != nil && !errors.Is(err, zlib.ErrChecksum) && bu.streamErr == nil {
			bu.streamErr = err
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

// imageKeys are the dictionary patterns that size an image in one syntax:
// an image XObject's keys, or an inline image's abbreviated or full keys.
type imageKeys struct {
	// width, height and bpc capture the number in group 1; a non-empty
	// group 2, where the pattern has one, marks an indirect reference.
	width, height, bpc            *regexp.Regexp
	dct, mask, indexed, rgb, cmyk *regexp.Regexp
}

var (
	imageSubtypeRe = regexp.MustCompile(`/Subtype\s*/Image\b`)
	xobjectKeys    = imageKeys{
		width:   regexp.MustCompile(`/Width\s+(\d+)(\s+\d+\s+R)?`),
		height:  regexp.MustCompile(`/Height\s+(\d+)(\s+\d+\s+R)?`),
		bpc:     regexp.MustCompile(`/BitsPerComponent\s+(\d+)(\s+\d+\s+R)?`),
		dct:     regexp.MustCompile(`/DCTDecode\b`),
		mask:    regexp.MustCompile(`/ImageMask\s+true\b`),
		indexed: regexp.MustCompile(`/(Indexed|I)\b`),
		rgb:     regexp.MustCompile(`/(DeviceRGB|CalRGB|Lab)\b`),
		cmyk:    regexp.MustCompile(`/DeviceCMYK\b`),
	}
	inlineKeys = imageKeys{
		width:   regexp.MustCompile(`/(?:W|Width)\s+(\d+)`),
		height:  regexp.MustCompile(`/(?:H|Height)\s+(\d+)`),
		bpc:     regexp.MustCompile(`/(?:BPC|BitsPerComponent)\s+(\d+)`),
		dct:     regexp.MustCompile(`/(?:DCT|DCTDecode)\b`),
		mask:    regexp.MustCompile(`/(?:IM|ImageMask)\s+true\b`),
		indexed: regexp.MustCompile(`\[\s*/(?:I|Indexed)\b`),
		rgb:     regexp.MustCompile(`/(?:CS|ColorSpace)\s*/(?:RGB|DeviceRGB|CalRGB|Lab)\b`),
		cmyk:    regexp.MustCompile(`/(?:CS|ColorSpace)\s*/(?:CMYK|DeviceCMYK)\b`),
	}
)

// imageDecodedBytes returns the decoded size of an image XObject from its
// dictionary, and false when dict is not a non-DCT image or its size is
// not written directly (an indirect /Width is left to the inflate count).
func imageDecodedBytes(dict []byte) (int64, bool) {
	if dict == nil || !imageSubtypeRe.Match(dict) {
		return 0, false
	}
	return xobjectKeys.decodedBytes(dict)
}

// decodedBytes returns width × height × components × bits / 8 (rounded
// up) from an image dictionary, and false when the image is DCT-encoded or
// its width, height or bits per component is missing, indirect or over
// 1<<24.
func (k imageKeys) decodedBytes(dict []byte) (int64, bool) {
	if k.dct.Match(dict) {
		return 0, false
	}
	num := func(re *regexp.Regexp, def int64) (int64, bool) {
		m := re.FindSubmatch(dict)
		if m == nil {
			return def, def > 0
		}
		if len(m) > 2 && len(m[2]) > 0 {
			return 0, false // an indirect reference
		}
		v, err := strconv.ParseInt(string(m[1]), 10, 64)
		return v, err == nil && v >= 0 && v <= 1<<24
	}
	w, okW := num(k.width, 0)
	h, okH := num(k.height, 0)
	bpc, okB := num(k.bpc, 8)
	if !okW || !okH || !okB {
		return 0, false
	}
	comps := int64(1)
	switch {
	case k.mask.Match(dict):
		bpc = 1
	case k.indexed.Match(dict):
		// one palette index a pixel, whatever the base space
	case k.rgb.Match(dict):
		comps = 3
	case k.cmyk.Match(dict):
		comps = 4
	}
	return (w*h*comps*bpc + 7) / 8, true
}

// inlineDictMax is the longest inline image dictionary looked at.
const inlineDictMax = 1024

// inlineScanner finds inline images (BI <dict> ID <data> EI) in content
// as it streams past and charges their decoded size: like image XObjects,
// MuPDF decodes non-DCT inline images in full.
type inlineScanner struct {
	budget  *inflateBudget
	pending []byte // an unfinished "BI" dictionary carried to the next Write
}

// Write scans p after what is pending; it fails with errOverBudget once
// the budget is spent.
func (s *inlineScanner) Write(p []byte) (int, error) {
	buf := append(s.pending, p...)
	rest, err := s.scan(buf, false)
	s.pending = append(buf[:0], rest...) // rest lies at or after buf[0]: a safe overlapping copy
	return len(p), err
}

// scan charges the inline images found in buf and returns the tail that
// may hold an image dictionary cut by the end of buf (nothing when final).
func (s *inlineScanner) scan(buf []byte, final bool) ([]byte, error) {
	for i := 0; ; {
		j := bytes.Index(buf[i:], []byte("BI"))
		if j < 0 {
			if final || len(buf) == 0 {
				return nil, nil
			}
			// Carry the last byte (the one before a "BI" that starts the
			// next write), and a trailing "B" with the byte before it.
			if buf[len(buf)-1] == 'B' {
				return buf[max(0, len(buf)-2):], nil
			}
			return buf[len(buf)-1:], nil
		}
		j += i
		i = j + 2
		if j > 0 && !isPDFSpace(buf[j-1]) {
			continue
		}
		// A carried tail keeps the byte before "BI" for the check above.
		carry := buf[max(0, j-1):]
		if j+2 >= len(buf) {
			if final {
				return nil, nil
			}
			return carry, nil
		}
		if !isPDFSpace(buf[j+2]) && buf[j+2] != '/' {
			continue
		}
		window := buf[j+2 : min(len(buf), j+2+inlineDictMax)]
		end := bytes.Index(window, []byte("ID"))
		if end < 0 {
			if !final && len(window) < inlineDictMax {
				return carry, nil // the dictionary continues in the next write
			}
			continue
		}
		if n, ok := inlineKeys.decodedBytes(window[:end]); ok {
			s.budget.used += n
			if s.budget.used > s.budget.limit {
				return nil, errOverBudget
			}
		}
		i = j + 2 + end + 2
	}
}

func isPDFSpace(c byte) bool {
	switch c {
	case ' ', '\n', '\r', '\t', '\f', 0:
		return true
	}
	return false
}

// mediaBoxKey starts the page box that sets a page's size.
var mediaBoxKey = []byte("/MediaBox")

// maxBoxArray is the longest /MediaBox array looked at.
const maxBoxArray = 256

// maxBoxSide is the largest page side in points that MuPDF honours as
// written; it replaces a box with a side far beyond any paper (or not
// finite) by a Letter page.
const maxBoxSide = 1e7

// boxScanner finds /MediaBox arrays in bytes as they stream past and
// remembers the first that gives no usable page size.
type boxScanner struct {
	pending []byte // an unfinished /MediaBox carried to the next Write
	bad     string // the first unusable box as written
}

// Write scans p after what is pending.
func (s *boxScanner) Write(p []byte) (int, error) {
	buf := append(s.pending, p...)
	rest := s.scan(buf, false)
	s.pending = append(buf[:0], rest...) // rest lies at or after buf[0]
	return len(p), nil
}

// scan checks the direct /MediaBox arrays in buf and returns the tail that
// may hold one cut by the end of buf (nothing when final).
func (s *boxScanner) scan(buf []byte, final bool) []byte {
	for {
		i := bytes.Index(buf, mediaBoxKey)
		if i < 0 {
			if final {
				return nil
			}
			return buf[max(0, len(buf)-len(mediaBoxKey)+1):]
		}
		j := i + len(mediaBoxKey)
		for j < len(buf) && isPDFSpace(buf[j]) {
			j++
		}
		if j >= len(buf) {
			if final {
				return nil
			}
			return buf[i:]
		}
		if buf[j] != '[' { // an indirect reference: MuPDF resolves it
			buf = buf[j:]
			continue
		}
		k := bytes.IndexByte(buf[j:min(len(buf), j+maxBoxArray)], ']')
		if k < 0 {
			if !final && len(buf)-j < maxBoxArray {
				return buf[i:]
			}
			buf = buf[j:]
			continue
		}
		if s.bad == "" && !usableBox(buf[j+1:j+k]) {
			s.bad = "/MediaBox [" + string(bytes.Join(bytes.Fields(buf[j+1:j+k]), []byte(" "))) + "]"
		}
		buf = buf[j+k+1:]
	}
}

// usableBox reports whether the inside of a box array gives a page size
// MuPDF uses as written: four numbers (more are ignored) spanning at least
// one point and at most maxBoxSide each way. An array with an indirect
// reference in it is left to MuPDF.
func usableBox(inner []byte) bool {
	f := bytes.Fields(inner)
	if bytes.Contains(inner, []byte("R")) {
		return true
	}
	if len(f) < 4 {
		return false
	}
	var v [4]float64
	for k := range v {
		x, err := strconv.ParseFloat(string(f[k]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
		v[k] = x
	}
	w, h := math.Abs(v[2]-v[0]), math.Abs(v[3]-v[1])
	return w >= 1 && h >= 1 && w <= maxBoxSide && h <= maxBoxSide
}
