package document

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
	return int64(len(data)) + hd.decodeBytes + hd.decodeBytes*encodeHalves/2
}

// RenderAheadBytes bounds rendering ahead: the pipeline renders page i+1
// while page i is detected (both cores busy on a multi-page drawing) only
// when the two pages' rasters together take at most this many bytes
// (RenderAhead), so a job of large sheets still holds one raster at a time.
const RenderAheadBytes = 256 << 20

// PeakBytes estimates the most memory processing d holds at once: for an
// image what OpenBytes said; for a PDF its parse plus the raster and PNG
// encoding of its largest page at 200 DPI, or of a page and the next one
// rendered ahead of it (RenderAhead) where that is more. Pages that do not
// load count nothing here (processing fails on them).
func (d *Document) PeakBytes() int64 {
	if d.pdf == nil {
		return d.openBytes
	}
	var most int64
	for i := range d.pages {
		raster := d.rasterBytes(i)
		need := raster*renderFactor + raster*encodeHalves/2
		if d.RenderAhead(i) {
			need += d.rasterBytes(i+1) * renderFactor
		}
		most = max(most, need)
	}
	return d.openBytes + most
}

// RenderAhead reports whether page i+1 may be rendered while page i is
// processed: both exist and their rasters fit RenderAheadBytes together.
func (d *Document) RenderAhead(i int) bool {
	if d.pdf == nil || i < 0 || i+1 >= d.pages {
		return false
	}
	a, b := d.rasterBytes(i), d.rasterBytes(i+1)
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
	return min(px, d.lim.MaxPagePixels) * PageBytesPerPixel
}
