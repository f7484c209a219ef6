package document

import "blueprint/internal/imagefile"

// Memory estimates of document work, in bytes, for admission against a
// memory budget (package budget). They are upper estimates of what the
// work holds at its peak, measured on this service's own code paths.
const (
	// pdfParseFactor × the file size is what MuPDF's parse of a PDF, the
	// stream scan and the cross-reference check hold beside the file.
	pdfParseFactor = 3
	// pdfFixedBytes covers MuPDF's context and store (128 MiB at most, in
	// C memory, shared by the display lists it keeps).
	pdfFixedBytes = 128 << 20
	// renderFactor × a page's RGBA raster bytes is what rendering it
	// holds: MuPDF renders the display list straight into the page's
	// image.RGBA, and the pipeline lets a page's raster go before the next
	// page allocates its own.
	renderFactor = 1
	// encodeHalves / 2 × the raster bytes adds the PNG encoding of
	// the page image: a drawing compresses well, noise does not.
	encodeHalves = 1
)

// CheckBytes estimates what Validate holds for a file of size bytes of
// the given type: the file, plus MuPDF's parse for a PDF; an image's check
// reads only its header.
func CheckBytes(mime string, size int64) int64 {
	if NormalizeMIME(mime) == MimePDF {
		return size*(1+pdfParseFactor) + pdfFixedBytes
	}
	return size + 1<<20
}

// OpenBytes estimates what Open holds for data of the given type before
// any page is rendered: for an image its decoded page (known from the
// header) with the PNG encoding of it; for a PDF, what CheckBytes says.
// The pages of a PDF are sized once it is open (Document.PeakBytes).
func OpenBytes(data []byte, mime string) int64 {
	mime = NormalizeMIME(mime)
	if mime == MimePDF {
		return CheckBytes(mime, int64(len(data)))
	}
	hd, err := readImageHeader(data, mime)
	if err != nil {
		return CheckBytes(mime, int64(len(data))) // Open refuses it from the same header
	}
	return int64(len(data)) + hd.DecodeBytes + hd.DecodeBytes*encodeHalves/2
}

// RenderAheadBytes bounds rendering ahead: the pipeline renders a page
// while another is detected (both cores busy on a multi-page drawing) only
// when the two pages' rasters together take at most this many bytes
// (RenderTogether), so a job of large sheets still holds one raster at a
// time.
const RenderAheadBytes = 256 << 20

// PeakBytes estimates the most memory processing d holds at once: for an
// image what OpenBytes said; for a PDF its parse plus the raster and PNG
// encoding of its largest page at 200 DPI, or of two pages rendered
// together (RenderTogether) where that is more, plus the page images the
// pipeline may hold to hand results on in order (64 MiB at most). Pages
// that do not load count nothing here (processing fails on them).
func (d *Document) PeakBytes() int64 {
	if d.pdf == nil {
		return d.openBytes
	}
	var l1, l2 int64 // the two largest rasters
	for i := range d.pages {
		switch r := d.rasterBytes(i); {
		case r > l1:
			l1, l2 = r, l1
		case r > l2:
			l2 = r
		}
	}
	most := l1*renderFactor + l1*encodeHalves/2
	if l2 > 0 {
		pair := min(l1+l2, RenderAheadBytes) // any two rendered together fit the bound
		most = max(most, pair*renderFactor+l1*encodeHalves/2) + HeldResultBytes
	}
	return d.openBytes + most
}

// HeldResultBytes bounds what the pipeline holds of page images done ahead
// of an earlier page, to hand results on in page order.
const HeldResultBytes = 64 << 20

// RenderTogether reports whether pages i and j may be rendered at once
// (one rendered while the other is processed): both exist and their
// rasters fit RenderAheadBytes together.
func (d *Document) RenderTogether(i, j int) bool {
	if d.pdf == nil || i < 0 || j < 0 || i >= d.pages || j >= d.pages || i == j {
		return false
	}
	a, b := d.rasterBytes(i), d.rasterBytes(j)
	return a > 0 && b > 0 && a+b <= RenderAheadBytes
}

// rasterBytes is page i's 200-DPI raster size in bytes from its page box
// (capped at the page limit), 0 for a page that does not load.
func (d *Document) rasterBytes(i int) int64 {
	r, err := d.pdf.Bounds(i)
	if err != nil {
		return 0
	}
	px := int64(pixelsAt200(r.X1-r.X0)) * int64(pixelsAt200(r.Y1-r.Y0))
	return min(px, d.lim.MaxPagePixels) * imagefile.PageBytesPerPixel
}
