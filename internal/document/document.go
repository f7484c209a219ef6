// Package document turns an uploaded file (PDF, PNG, JPEG or WebP) into
// pages an engine can read, and refuses hostile or broken uploads before
// any heavy work.
//
// Validate is the start check: the bytes are what the job declared, the file
// opens, and it stays inside Limits (pages, pixels per page at 200 DPI,
// decompressed bytes). Open and Page render a validated file one page at a
// time: PDFs with MuPDF (go-fitz) at 200 DPI using the CropBox and /Rotate,
// images at their native pixel size.
package document

import (
	"bytes"
	"fmt"
	"math"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// MIME types accepted for uploads. "image/jpg" is an alias of "image/jpeg".
const (
	MimePDF      = "application/pdf"
	MimePNG      = "image/png"
	MimeJPEG     = "image/jpeg"
	MimeJPGAlias = "image/jpg"
	MimeWebP     = "image/webp"
)

// Reasons of an InvalidError: the `details.reason` codes of a refused start
// (docs/decisions.md, "Start validation") that this package decides.
const (
	ReasonTypeMismatch      = "type_mismatch"
	ReasonCorrupt           = "corrupt"
	ReasonEncrypted         = "encrypted"
	ReasonNoPages           = "no_pages"
	ReasonTooManyPages      = "too_many_pages"
	ReasonPageTooLarge      = "page_too_large"
	ReasonDecompressionBomb = "decompression_bomb"
	// ReasonDrawingTooComplex: a page draws more than the drawing limits
	// allow (Limits.Drawing at processing; Limits.MaxFormUses and
	// MaxFormDepth at the start check).
	ReasonDrawingTooComplex = "drawing_too_complex"
)

// pdfMagicWindow is how far into the file the "%PDF-" header may start.
const pdfMagicWindow = 1024

// Limits bound the work one upload may cause.
type Limits struct {
	MaxPages              int     // pages per document
	MaxPagePixels         int64   // width_px × height_px of one page at 200 DPI (images: native pixels)
	MaxDecompressionRatio float64 // inflated bytes of all zlib streams / file size
	MaxDecompressedBytes  int64   // inflated bytes of all zlib streams, in all
	// MaxFormUses bounds the form XObject invocations of one page,
	// counting every repetition of a nested form; MaxFormDepth how deep
	// forms may nest (both checked at start: checkContentCost).
	MaxFormUses  int64
	MaxFormDepth int
	// Drawing bounds reading one PDF page's drawing at processing.
	Drawing drawing.Limits
}

// DefaultLimits returns the limits of docs/decisions.md: 500 pages,
// 150 000 000 pixels per page at 200 DPI, 100× the file size and 2 GiB of
// decompressed data.
func DefaultLimits() Limits {
	return Limits{
		MaxPages:              500,
		MaxPagePixels:         150_000_000,
		MaxDecompressionRatio: 100,
		MaxDecompressedBytes:  2 << 30,
		MaxFormUses:           1_000_000,
		MaxFormDepth:          64,
		Drawing:               drawing.DefaultLimits(),
	}
}

// InvalidError says why an upload is refused. Reason is one of the Reason
// constants, Message is a sentence a partner can act on, and Details holds
// the facts (for example "pages" and "max_pages") that go into the 422
// response's details beside "reason".
type InvalidError struct {
	Reason  string
	Message string
	Details map[string]any
}

// Error returns the reason and the message.
func (e *InvalidError) Error() string {
	return fmt.Sprintf("invalid document (%s): %s", e.Reason, e.Message)
}

func invalid(reason string, details map[string]any, format string, args ...any) *InvalidError {
	return &InvalidError{Reason: reason, Message: fmt.Sprintf(format, args...), Details: details}
}

// NormalizeMIME maps the alias "image/jpg" to "image/jpeg" and returns any
// other value unchanged.
func NormalizeMIME(mime string) string {
	if mime == MimeJPGAlias {
		return MimeJPEG
	}
	return mime
}

// Sniff returns the MIME type named by the magic bytes at the start of a
// file: "application/pdf" when "%PDF-" starts within the first 1024 bytes,
// "image/png", "image/jpeg", "image/webp" (RIFF....WEBP), or "" when none
// matches.
func Sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return MimePNG
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return MimeJPEG
	case len(head) >= 12 && bytes.Equal(head[0:4], []byte("RIFF")) && bytes.Equal(head[8:12], []byte("WEBP")):
		return MimeWebP
	case pdfStart(head) >= 0:
		return MimePDF
	}
	return ""
}

// pdfStart returns the offset of "%PDF-" when it starts within the first
// 1024 bytes, or -1.
func pdfStart(data []byte) int {
	window := data[:min(len(data), pdfMagicWindow-1+len("%PDF-"))]
	return bytes.Index(window, []byte("%PDF-"))
}

// pixelsAt200 converts a length in PDF points to pixels of the 200-DPI
// raster: round(pt × 200 / 72).
func pixelsAt200(pt float64) int {
	return int(math.Round(pt * detect.RenderDPI / 72))
}
