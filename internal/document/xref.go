package document

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

	"blueprint/internal/imagefile"
)

// Damage codes: details["damage"] of a corrupt *InvalidError, saying what
// was wrong in words a partner's support can act on.
const (
	DamageTruncated     = "truncated"      // no %%EOF or startxref at the end: the file was cut short
	DamageXref          = "xref"           // the cross-reference table or stream cannot be read
	DamageObjectOffsets = "object_offsets" // the cross-reference points where its objects are not
	DamageNoCatalog     = "no_catalog"     // the trailer names no document catalog (/Root)
	DamagePageSize      = "page_size"      // a page has no usable size (an empty or inverted box)
	DamageStream        = "stream"         // a compressed stream's data is damaged
)

// Bounds of the cross-reference walk: sections followed through /Prev
// and /XRefStm, the bytes one xref stream may inflate to, and the object
// numbers (the entry table costs 16 bytes an object, 32 MiB at most).
const (
	maxXrefSections    = 1024
	maxXrefStreamBytes = 64 << 20
	maxObjectNumber    = 1 << 21
)

// damaged returns a corrupt *InvalidError with details["damage"] = code.
func damaged(code string, format string, args ...any) *InvalidError {
	return invalid(ReasonCorrupt, map[string]any{"damage": code}, format, args...)
}

// Kinds of a cross-reference entry.
const (
	entryUnset      = iota // no section lists the object
	entryFree              // free, or a type readers ignore
	entryAt                // in use at byte offset off
	entryCompressed        // in use inside object stream stm
)

// xrefEntry is one object of the cross-reference.
type xrefEntry struct {
	off  int64
	stm  int32
	kind uint8
}

// checkXref verifies the structure MuPDF reads before anything else, so
// that a file MuPDF would have to repair is refused instead: MuPDF repairs
// a file whose startxref, cross-reference sections or object offsets are
// wrong by scanning for objects, and invents what it cannot find (a cut
// file becomes blank pages, noise becomes an empty document). data starts
// at the "%PDF-" header (offsets count from it). It checks that the last
// 1024 bytes hold startxref with an offset inside the file; that every
// section reached from it through /Prev and /XRefStm is a readable
// cross-reference table (with a trailer dictionary) or cross-reference
// stream (Flate with PNG predictors, or unfiltered); that the newest
// trailer names a /Root; and that every in-use entry points at "N G obj"
// of its own object number (whitespace before it allowed), and every
// compressed entry at an object stream that has an entry. It returns a
// corrupt *InvalidError with details["damage"] on the first problem.
func checkXref(data []byte) error {
	tail := data[max(0, len(data)-eofWindow):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return damaged(DamageTruncated, "the PDF has no startxref near its end: the file looks truncated or damaged; upload the complete file")
	}
	off, _, ok := readInt(tail, i+len("startxref"))
	if !ok || off <= 0 || off >= int64(len(data)) {
		return damaged(DamageXref, "the PDF's startxref does not point inside the file: its cross-reference is damaged; export or save the file again")
	}
	x := &xrefWalk{data: data, seen: map[int64]bool{}}
	todo := []int64{off}
	for len(todo) > 0 {
		at := todo[0]
		todo = todo[1:]
		if x.seen[at] {
			continue
		}
		if len(x.seen) >= maxXrefSections {
			return damaged(DamageXref, "the PDF's cross-reference has more than %d sections", maxXrefSections)
		}
		x.seen[at] = true
		next, err := x.section(at)
		if err != nil {
			return err
		}
		todo = append(todo, next...)
	}
	if !x.root {
		return damaged(DamageNoCatalog, "the PDF's trailer names no document catalog (/Root): the file is damaged")
	}
	return x.verify()
}

// xrefWalk collects the cross-reference sections of one file, newest first.
type xrefWalk struct {
	data    []byte
	entries []xrefEntry    // by object number; the first (newest) entry wins
	seen    map[int64]bool // section offsets already read
	root    bool           // a trailer names /Root
	first   bool           // the newest trailer has been read
}

var (
	trailerPrev    = regexp.MustCompile(`/Prev\s+(\d+)`)
	trailerXRefStm = regexp.MustCompile(`/XRefStm\s+(\d+)`)
	trailerRoot    = regexp.MustCompile(`/Root\s+\d+\s+\d+\s+R`)
	xrefStmType    = regexp.MustCompile(`/Type\s*/XRef\b`)
	xrefStmW       = regexp.MustCompile(`/W\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s*\]`)
	xrefStmIndex   = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
	xrefStmSize    = regexp.MustCompile(`/Size\s+(\d+)`)
	xrefStmLength  = regexp.MustCompile(`/Length\s+(\d+)(\s+\d+\s+R)?`)
	xrefStmFilter  = regexp.MustCompile(`/Filter\s*(\[\s*)?/(\w+)`)
	xrefStmPred    = regexp.MustCompile(`/Predictor\s+(\d+)`)
	xrefStmCols    = regexp.MustCompile(`/Columns\s+(\d+)`)
)

// section reads the cross-reference section at off and returns the
// offsets of the sections it refers to (/XRefStm first, then /Prev).
func (x *xrefWalk) section(off int64) ([]int64, error) {
	p := skipSpace(x.data, int(off))
	var dict []byte
	var err error
	if bytes.HasPrefix(x.data[p:], []byte("xref")) {
		dict, err = x.table(p + len("xref"))
	} else {
		dict, err = x.stream(p)
	}
	if err != nil {
		return nil, err
	}
	if !x.first {
		x.first = true
		x.root = trailerRoot.Match(dict)
	}
	var next []int64
	for _, re := range []*regexp.Regexp{trailerXRefStm, trailerPrev} {
		if m := re.FindSubmatch(dict); m != nil {
			v, err := strconv.ParseInt(string(m[1]), 10, 64)
			if err != nil || v <= 0 || v >= int64(len(x.data)) {
				return nil, damaged(DamageXref, "the PDF's trailer refers to a cross-reference section outside the file")
			}
			next = append(next, v)
		}
	}
	return next, nil
}

// table reads a classic cross-reference table after its "xref" keyword
// and returns its trailer dictionary.
func (x *xrefWalk) table(p int) ([]byte, error) {
	bad := func(what string) error {
		return damaged(DamageXref, "the PDF's cross-reference table is damaged (%s); export or save the file again", what)
	}
	for {
		p = skipSpace(x.data, p)
		if bytes.HasPrefix(x.data[p:], []byte("trailer")) {
			dict, _, ok := dictAt(x.data, skipSpace(x.data, p+len("trailer")))
			if !ok {
				return nil, bad("no trailer dictionary")
			}
			return dict, nil
		}
		first, q, ok1 := readInt(x.data, p)
		count, q, ok2 := readInt(x.data, q)
		if !ok1 || !ok2 {
			return nil, bad("a subsection header is not two numbers")
		}
		if first+count > maxObjectNumber {
			return nil, bad(fmt.Sprintf("object numbers beyond %d", maxObjectNumber))
		}
		p = q
		for k := range count {
			o, q, ok1 := readInt(x.data, p)
			_, q, ok2 := readInt(x.data, q)
			q = skipSpace(x.data, q)
			if !ok1 || !ok2 || q >= len(x.data) || (x.data[q] != 'n' && x.data[q] != 'f') {
				return nil, bad(fmt.Sprintf("entry %d of a subsection is not \"offset generation n|f\"", k))
			}
			if x.data[q] == 'n' && o > 0 {
				x.set(int(first+k), xrefEntry{kind: entryAt, off: o})
			} else {
				x.set(int(first+k), xrefEntry{kind: entryFree}) // hides older entries
			}
			p = q + 1
		}
	}
}

// stream reads a cross-reference stream object at p and returns its
// dictionary.
func (x *xrefWalk) stream(p int) ([]byte, error) {
	bad := func(what string) error {
		return damaged(DamageXref, "the PDF's cross-reference stream is damaged (%s); export or save the file again", what)
	}
	_, q, ok1 := readInt(x.data, p)
	_, q, ok2 := readInt(x.data, q)
	q = skipSpace(x.data, q)
	if !ok1 || !ok2 || !bytes.HasPrefix(x.data[q:], []byte("obj")) {
		return nil, damaged(DamageXref, "the PDF's startxref or /Prev points at neither a cross-reference table nor a cross-reference stream; export or save the file again")
	}
	dict, q, ok := dictAt(x.data, skipSpace(x.data, q+len("obj")))
	if !ok || !xrefStmType.Match(dict) {
		return nil, bad("no /Type /XRef dictionary")
	}
	q = skipSpace(x.data, q)
	if !bytes.HasPrefix(x.data[q:], []byte("stream")) {
		return nil, bad("no stream data")
	}
	q += len("stream")
	if bytes.HasPrefix(x.data[q:], []byte("\r\n")) {
		q += 2
	} else if q < len(x.data) && (x.data[q] == '\n' || x.data[q] == '\r') {
		q++
	}
	raw := x.data[q:]
	if m := xrefStmLength.FindSubmatch(dict); m != nil && len(m[2]) == 0 {
		if n, err := strconv.Atoi(string(m[1])); err == nil && n <= len(raw) {
			raw = raw[:n]
		}
	} else if e := bytes.Index(raw, []byte("endstream")); e >= 0 {
		raw = raw[:e]
	}
	body, err := decodeXrefStream(dict, raw)
	if err != nil {
		return nil, bad(err.Error())
	}
	wm := xrefStmW.FindSubmatch(dict)
	if wm == nil {
		return nil, bad("no /W [a b c]")
	}
	var w [3]int
	for k := range w {
		w[k], _ = strconv.Atoi(string(wm[k+1]))
		if w[k] > 8 {
			return nil, bad("a /W field wider than 8 bytes")
		}
	}
	var index []int64
	if m := xrefStmIndex.FindSubmatch(dict); m != nil {
		for _, f := range bytes.Fields(m[1]) {
			v, err := strconv.ParseInt(string(f), 10, 64)
			if err != nil {
				return nil, bad("a malformed /Index")
			}
			index = append(index, v)
		}
	} else if m := xrefStmSize.FindSubmatch(dict); m != nil {
		size, _ := strconv.ParseInt(string(m[1]), 10, 64)
		index = []int64{0, size}
	}
	if len(index)%2 != 0 || len(index) == 0 {
		return nil, bad("a malformed /Index or /Size")
	}
	row := w[0] + w[1] + w[2]
	if row == 0 {
		return nil, bad("/W of zero width")
	}
	field := func(b []byte) int64 {
		var v int64
		for _, c := range b {
			v = v<<8 | int64(c)
		}
		return v
	}
	for k := 0; k < len(index); k += 2 {
		first, count := index[k], index[k+1]
		if first < 0 || count < 0 || first+count > maxObjectNumber {
			return nil, bad(fmt.Sprintf("an /Index range beyond object %d", maxObjectNumber))
		}
		for n := range count {
			if len(body) < row {
				return nil, bad("fewer entries than /Index lists")
			}
			e := body[:row]
			body = body[row:]
			typ := int64(1) // the default when the type field is absent
			if w[0] > 0 {
				typ = field(e[:w[0]])
			}
			f2 := field(e[w[0] : w[0]+w[1]]) // offset, or the object stream's number
			num := int(first + n)
			switch {
			case typ == 1 && f2 > 0:
				x.set(num, xrefEntry{kind: entryAt, off: f2})
			case typ == 2:
				x.set(num, xrefEntry{kind: entryCompressed, stm: int32(min(f2, maxObjectNumber))})
			default:
				x.set(num, xrefEntry{kind: entryFree})
			}
		}
	}
	return dict, nil
}

// decodeXrefStream returns the decoded data of a cross-reference stream:
// unfiltered or FlateDecode, with no predictor or a PNG predictor (10-15).
func decodeXrefStream(dict, raw []byte) ([]byte, error) {
	data := raw
	if m := xrefStmFilter.FindSubmatch(dict); m != nil {
		if string(m[2]) != "FlateDecode" {
			return nil, fmt.Errorf("filter %s", m[2])
		}
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("flate: %w", err)
		}
		data, err = io.ReadAll(io.LimitReader(zr, maxXrefStreamBytes+1))
		if err != nil && !errors.Is(err, zlib.ErrChecksum) {
			return nil, fmt.Errorf("flate: %w", err)
		}
		if len(data) > maxXrefStreamBytes {
			return nil, errors.New("over 64 MiB inflated")
		}
	}
	pred := 1
	if m := xrefStmPred.FindSubmatch(dict); m != nil {
		pred, _ = strconv.Atoi(string(m[1]))
	}
	if pred < 10 {
		if pred != 1 {
			return nil, fmt.Errorf("predictor %d", pred)
		}
		return data, nil
	}
	cols := 1
	if m := xrefStmCols.FindSubmatch(dict); m != nil {
		cols, _ = strconv.Atoi(string(m[1]))
	}
	if cols < 1 || cols > 1<<16 {
		return nil, fmt.Errorf("/Columns %d", cols)
	}
	return unpredictPNG(data, cols)
}

// unpredictPNG undoes PNG row filters of one byte per pixel: each row is
// a filter byte and cols bytes.
func unpredictPNG(data []byte, cols int) ([]byte, error) {
	out := make([]byte, 0, len(data)/(cols+1)*cols)
	prev := make([]byte, cols)
	for len(data) > 0 {
		if len(data) < cols+1 {
			return nil, errors.New("a predictor row cut short")
		}
		ft, cur := data[0], bytes.Clone(data[1:cols+1])
		data = data[cols+1:]
		if err := imagefile.UnfilterRow(ft, cur, prev, 1); err != nil {
			return nil, fmt.Errorf("predictor: %w", err)
		}
		out = append(out, cur...)
		prev = cur
	}
	return out, nil
}

// set records the entry of object num unless a newer section did.
func (x *xrefWalk) set(num int, e xrefEntry) {
	if num >= len(x.entries) {
		x.entries = append(x.entries, make([]xrefEntry, num+1-len(x.entries))...)
	}
	if x.entries[num].kind == entryUnset {
		x.entries[num] = e
	}
}

// verify checks every in-use entry against the file.
func (x *xrefWalk) verify() error {
	for num, e := range x.entries {
		switch e.kind {
		case entryCompressed:
			if int(e.stm) >= len(x.entries) || x.entries[e.stm].kind != entryAt {
				return damaged(DamageObjectOffsets, "the PDF's cross-reference puts object %d in object stream %d, which the file does not have; export or save the file again", num, e.stm)
			}
		case entryAt:
			if !objectAt(x.data, e.off, num) {
				return damaged(DamageObjectOffsets, "the PDF's cross-reference puts object %d at byte %d, where it is not: the file was altered or damaged after it was written; export or save the file again", num, e.off)
			}
		}
	}
	return nil
}

// objectAt reports whether "num G obj" starts at off, after whitespace.
func objectAt(data []byte, off int64, num int) bool {
	if off >= int64(len(data)) {
		return false
	}
	n, q, ok1 := readInt(data, int(off))
	_, q, ok2 := readInt(data, q)
	q = skipSpace(data, q)
	return ok1 && ok2 && n == int64(num) && bytes.HasPrefix(data[q:], []byte("obj"))
}

// skipSpace returns the first position at or after p that is not PDF
// whitespace (len(data) when none).
func skipSpace(data []byte, p int) int {
	for p < len(data) && isPDFSpace(data[p]) {
		p++
	}
	return p
}

// readInt reads a non-negative decimal integer of at most 18 digits after
// whitespace at p and returns it with the position after it.
func readInt(data []byte, p int) (int64, int, bool) {
	p = skipSpace(data, p)
	start := p
	var v int64
	for p < len(data) && data[p] >= '0' && data[p] <= '9' && p-start < 18 {
		v = v*10 + int64(data[p]-'0')
		p++
	}
	return v, p, p > start
}

// dictAt returns the dictionary "<< … >>" starting at p (nested
// dictionaries, strings and hex strings skipped over) and the position
// after it.
func dictAt(data []byte, p int) ([]byte, int, bool) {
	if !bytes.HasPrefix(data[p:], []byte("<<")) {
		return nil, p, false
	}
	depth := 0
	for q := p; q < len(data); q++ {
		switch c := data[q]; {
		case c == '(':
			q = skipString(data, q)
		case c == '%':
			for q < len(data) && data[q] != '\n' && data[q] != '\r' {
				q++
			}
		case c == '<' && q+1 < len(data) && data[q+1] == '<':
			depth++
			q++
		case c == '>' && q+1 < len(data) && data[q+1] == '>':
			depth--
			q++
			if depth == 0 {
				return data[p : q+1], q + 1, true
			}
		}
	}
	return nil, p, false
}

// skipString returns the position of the ")" closing the literal string
// opened at p (balanced parentheses, backslash escapes), or len(data)-1.
func skipString(data []byte, p int) int {
	depth := 0
	for q := p; q < len(data); q++ {
		switch data[q] {
		case '\\':
			q++
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return q
			}
		}
	}
	return len(data) - 1
}
