package document

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"

	fitz "github.com/gen2brain/go-fitz"
)

// Info is what validation learned about a file.
type Info struct {
	Pages int
}

// Validate checks an uploaded file before a job starts: that the magic
// bytes match declaredMime ("image/jpg" counts as "image/jpeg"; on
// type_mismatch Details carry "declared" and "detected", "" when the bytes
// match no supported type), that the
// file opens, and that it stays inside lim. A refused file gives an
// *InvalidError (use errors.As); any other error is the context's or an
// internal failure, not the file's fault.
//
// PDFs: every zlib stream is inflated with a bounded reader first, and
// image XObjects are charged their decoded size (decompression_bomb; see
// scanStreams), then MuPDF opens the file: a password (encrypted),
// no pages (no_pages), more than MaxPages pages (too_many_pages, decided
// from the page count alone, before any page is loaded), a page that does
// not load (corrupt), and a page whose rotated CropBox at 200 DPI exceeds
// MaxPagePixels (page_too_large, decided from the page box, nothing
// rendered). Images: only the header is read, never the pixels (see
// readImageHeader): the dimensions must be within MaxPagePixels and what
// decoding holds within MaxPagePixels × imagefile.PageBytesPerPixel bytes
// (page_too_large), and the structure that needs no decoding must be
// whole (corrupt); damage inside the compressed pixels shows when the job
// is processed.
//
// Damage MuPDF would repair or paper over is refused as corrupt, with
// details["damage"] naming it (the Damage constants): a PDF without
// "%%EOF" in its last 1024 bytes (where Acrobat also looks for it) or
// without startxref is truncated, since MuPDF would invent blank
// default-size pages for what was cut off; a cross-reference that does not
// match the file (checkXref); a FlateDecode stream whose data is damaged;
// a /MediaBox or page of no usable size (MuPDF would put a Letter page in
// its place). Validate does not render PDF pages, so damage inside a
// content stream's operators shows only when the page is rendered.
func Validate(ctx context.Context, data []byte, declaredMime string, lim Limits) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("validate document: %w", err)
	}
	declared := NormalizeMIME(declaredMime)
	detected := Sniff(data)
	if detected != declared {
		shown := detected
		if shown == "" {
			shown = "an unknown type"
		}
		return Info{}, invalid(ReasonTypeMismatch,
			map[string]any{"declared": declaredMime, "detected": detected},
			"the file's content is %s but the job declared %s; upload the file the job was created for, or create a job with the right mime_type", shown, declaredMime)
	}
	switch detected {
	case MimePDF:
		return validatePDF(ctx, data, lim)
	default:
		return validateImage(ctx, data, detected, lim)
	}
}

func validatePDF(ctx context.Context, data []byte, lim Limits) (Info, error) {
	if !hasEOFMarker(data) {
		return Info{}, damaged(DamageTruncated,
			"the PDF ends early (no %%%%EOF marker near its end): the file looks truncated; upload the complete file")
	}
	if start := pdfStart(data); start >= 0 {
		if err := checkXref(data[start:]); err != nil {
			return Info{}, err
		}
	}
	scan, err := scanStreamsDetail(ctx, data, lim)
	if err != nil {
		return Info{}, err
	}
	damage := scan.stream
	if damage != nil || scan.box != nil {
		// A file encrypted with an owner password only opens without one
		// (MuPDF tries the empty user password), but its streams are
		// encrypted: they do not inflate here, which is no damage, and
		// MuPDF decrypts and counts them instead.
		enc, err := checkEncrypted(data, scan.used, lim)
		if err != nil {
			return Info{}, err
		}
		if enc {
			damage = nil
		}
	}
	if damage == nil {
		damage = scan.box
	}
	n, err := checkPDFPages(ctx, data, damage, lim)
	if err != nil {
		return Info{}, err
	}
	// The page check's parse is released before the content check parses
	// the file again: CheckBytes admits one parse at a time.
	if err := checkContentCost(ctx, data, lim); err != nil {
		return Info{}, err
	}
	return Info{Pages: n}, nil
}

// checkEncrypted reports whether the PDF is encrypted (with an owner
// password only: one that needs a password is refused as encrypted, one
// that does not open as corrupt), and for an encrypted one decodes its
// streams with MuPDF, decrypted, against what is left of the
// decompression limit after used bytes (images are charged their decoded
// size from their dictionaries, which are not encrypted).
func checkEncrypted(data []byte, used int64, lim Limits) (bool, error) {
	doc, err := openMuPDF(data)
	if err != nil {
		return false, err
	}
	defer doc.Close()
	if !doc.Encrypted() {
		return false, nil
	}
	limit := decompressionLimit(len(data), lim)
	n, err := doc.StreamBytes(limit - used)
	if err != nil {
		return false, invalid(ReasonCorrupt, nil, "the PDF's streams cannot be read: %v", err)
	}
	if used+n > limit {
		return false, invalid(ReasonDecompressionBomb,
			map[string]any{"max_decompressed_bytes": limit},
			"the file's compressed streams and images decompress to more than %d bytes (the limit is %g times the file size and at most %d bytes); it looks like a decompression bomb",
			limit, lim.MaxDecompressionRatio, lim.MaxDecompressedBytes)
	}
	return true, nil
}

// checkPDFPages opens the PDF with go-fitz and checks it opens, then the
// damage the stream scan found, the page count and every page's size at
// 200 DPI; it returns the page count.
func checkPDFPages(ctx context.Context, data []byte, damage *InvalidError, lim Limits) (int, error) {
	doc, err := openPDF(data)
	if err != nil {
		return 0, err
	}
	defer doc.Close()
	if damage != nil {
		return 0, damage
	}
	n := doc.NumPage()
	if err := checkPageCount(n, lim); err != nil {
		return 0, err
	}
	for i := range n {
		if err := ctx.Err(); err != nil {
			return 0, fmt.Errorf("validate pdf page %d: %w", i, err)
		}
		w, h, err := pageSizePx(doc, i, lim.MaxPagePixels)
		if err != nil {
			return 0, err
		}
		if int64(w)*int64(h) > lim.MaxPagePixels {
			return 0, pageTooLarge(i, w, h, lim)
		}
	}
	return n, nil
}

// checkPageCount refuses a PDF of n pages with no pages (no_pages) or more
// than lim.MaxPages (too_many_pages).
func checkPageCount(n int, lim Limits) error {
	if n <= 0 {
		return invalid(ReasonNoPages, map[string]any{"pages": 0},
			"the PDF has no pages")
	}
	if n > lim.MaxPages {
		return invalid(ReasonTooManyPages, map[string]any{"pages": n, "max_pages": lim.MaxPages},
			"the PDF has %d pages; at most %d pages are accepted per document, split it into several jobs", n, lim.MaxPages)
	}
	return nil
}

// eofWindow is how close to the end of a PDF its last %%EOF must be.
const eofWindow = 1024

// hasEOFMarker reports whether "%%EOF" occurs in the last 1024 bytes. A
// PDF ends with it; without it the file was cut short, and MuPDF's repair
// would invent blank default-size pages for the objects that were lost.
func hasEOFMarker(data []byte) bool {
	return bytes.Contains(data[max(0, len(data)-eofWindow):], []byte("%%EOF"))
}

func pageTooLarge(i, w, h int, lim Limits) *InvalidError {
	return invalid(ReasonPageTooLarge,
		map[string]any{"page_index": i, "width_px": w, "height_px": h, "max_pixels": lim.MaxPagePixels},
		"page %d is %d × %d pixels at 200 DPI (%d pixels); at most %d pixels per page are accepted",
		i, w, h, int64(w)*int64(h), lim.MaxPagePixels)
}

// openPDF opens a PDF with MuPDF, starting at its "%PDF-" header (bytes
// before it are ignored, as Acrobat does; go-fitz needs the header first).
func openPDF(data []byte) (*fitz.Document, error) {
	start := pdfStart(data)
	if start < 0 {
		return nil, invalid(ReasonCorrupt, nil, "the file has no PDF header")
	}
	doc, err := fitz.NewFromMemory(data[start:])
	if err != nil {
		if doc != nil {
			doc.Close() // go-fitz returns a document to close with some errors
		}
		if errors.Is(err, fitz.ErrNeedsPassword) {
			return nil, invalid(ReasonEncrypted, nil,
				"the PDF is protected by a password; upload a copy without a password")
		}
		return nil, invalid(ReasonCorrupt, nil,
			"the PDF cannot be opened: it is damaged or not a PDF (%v)", err)
	}
	return doc, nil
}

// pageSizePx returns a page's raster size at 200 DPI: round(pt × 200 / 72)
// of the CropBox with /Rotate applied. go-fitz reports page bounds in whole
// points (truncated), which decides every page well inside or outside the
// limit; a page within one point of maxPixels is measured exactly from
// MuPDF's SVG header, which costs one pass over its content.
func pageSizePx(doc *fitz.Document, i int, maxPixels int64) (int, int, error) {
	b, err := doc.Bound(i)
	if err != nil {
		return 0, 0, invalid(ReasonCorrupt, map[string]any{"page_index": i},
			"page %d of the PDF cannot be loaded: the file is damaged (%v)", i, err)
	}
	wpt, hpt := float64(b.Dx()), float64(b.Dy())
	if wpt < 1 || hpt < 1 {
		return 0, 0, invalid(ReasonCorrupt, map[string]any{"page_index": i, "damage": DamagePageSize},
			"page %d of the PDF has no usable size (%g × %g pt); export the drawing again with its real page size", i, wpt, hpt)
	}
	lo := int64(pixelsAt200(wpt)) * int64(pixelsAt200(hpt))
	hi := int64(pixelsAt200(wpt+1)) * int64(pixelsAt200(hpt+1))
	if lo > maxPixels || hi <= maxPixels {
		// Decided without exact sizes; report the whole-point estimate.
		return pixelsAt200(wpt), pixelsAt200(hpt), nil
	}
	w, h, err := svgSize(doc, i)
	if err != nil {
		return 0, 0, err
	}
	return pixelsAt200(w), pixelsAt200(h), nil
}

// svgHeader matches the page size MuPDF writes on the <svg> element: the
// rotated CropBox in points.
var svgHeader = regexp.MustCompile(`<svg[^>]*\swidth="([0-9.eE+-]+)(?:pt)?"\s+height="([0-9.eE+-]+)(?:pt)?"`)

// svgSize returns page i's rotated CropBox in points, read from the header
// of MuPDF's SVG rendering of it.
func svgSize(doc *fitz.Document, i int) (wpt, hpt float64, err error) {
	s, err := doc.SVG(i)
	if err != nil {
		return 0, 0, invalid(ReasonCorrupt, map[string]any{"page_index": i},
			"page %d of the PDF cannot be read: the file is damaged (%v)", i, err)
	}
	wpt, hpt, err = parseSVGSize([]byte(s))
	if err != nil {
		return 0, 0, fmt.Errorf("page %d: %w", i, err)
	}
	return wpt, hpt, nil
}

// parseSVGSize reads width and height (points) from the head of an SVG.
func parseSVGSize(svg []byte) (float64, float64, error) {
	m := svgHeader.FindSubmatch(svg[:min(len(svg), 1024)])
	if m == nil {
		return 0, 0, errors.New("svg size: no width and height on the <svg> element")
	}
	w, err1 := strconv.ParseFloat(string(m[1]), 64)
	h, err2 := strconv.ParseFloat(string(m[2]), 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, 0, fmt.Errorf("svg size: %w", err)
	}
	if math.IsNaN(w) || math.IsNaN(h) || w < 0 || h < 0 {
		return 0, 0, fmt.Errorf("svg size: bad page size %g × %g", w, h)
	}
	return w, h, nil
}

func validateImage(ctx context.Context, data []byte, mime string, lim Limits) (Info, error) {
	if err := ctx.Err(); err != nil {
		return Info{}, fmt.Errorf("validate image: %w", err)
	}
	hd, err := readImageHeader(data, mime)
	if err != nil {
		return Info{}, err
	}
	if err := checkImageLimits(hd, lim); err != nil {
		return Info{}, err
	}
	if hd.Damage != nil {
		return Info{}, hd.Damage
	}
	return Info{Pages: 1}, nil
}
