package document

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"blueprint/internal/document/documenttest"
)

// fuzzLimits keep fuzzed documents small enough to render in a fuzz run.
func fuzzLimits() Limits {
	lim := DefaultLimits()
	lim.MaxPages = 8
	lim.MaxPagePixels = 1_000_000
	return lim
}

// checkRefusal fails unless err is nil or an *InvalidError with a reason.
func checkRefusal(t *testing.T, what string, err error) *InvalidError {
	t.Helper()
	if err == nil {
		return nil
	}
	var ie *InvalidError
	if !errors.As(err, &ie) || ie.Reason == "" || ie.Message == "" {
		t.Fatalf("%s: %v is not a refusal with a reason", what, err)
	}
	return ie
}

// FuzzValidatePDF: the start check answers any bytes declared as a PDF
// with acceptance or a refusal naming its reason, never a panic; a file it
// accepts opens with the same page count and its first page renders.
func FuzzValidatePDF(f *testing.F) {
	small := documenttest.Page{MediaBox: "[0 0 300 200]", Content: "0 0 0 rg 10 10 50 50 re f 1 w 0 0 m 300 200 l S"}
	f.Add(documenttest.PDF(small))
	f.Add(documenttest.PDF(small, documenttest.Page{MediaBox: "[0 0 200 300]", CropBox: "[10 10 190 290]", Rotate: 90}))
	f.Add(xrefStreamPDF(true, 0))
	f.Add(documenttest.PDF(documenttest.Page{MediaBox: "[0 0 0 0]"}))
	f.Add(encryptedPDF())
	f.Add(cyclicPDF())
	f.Add(lyingCountPDF())
	f.Add(inlinePDF("/W 8 /H 8 /BPC 8 /CS /G", bytes.Repeat([]byte{0x80}, 64), false))
	f.Add([]byte("%PDF-1.7\n%%EOF\n"))
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, data []byte) {
		lim := fuzzLimits()
		info, err := Validate(ctx, data, MimePDF, lim)
		if checkRefusal(t, "Validate", err) != nil {
			return
		}
		doc, err := Open(ctx, data, MimePDF, lim)
		if err != nil {
			t.Fatalf("accepted, but Open: %v", err)
		}
		defer doc.Close()
		if doc.NumPages() != info.Pages {
			t.Fatalf("Validate counted %d pages, Open %d", info.Pages, doc.NumPages())
		}
		if _, err := doc.Page(ctx, 0); err != nil {
			checkRefusal(t, "accepted, but page 0", err)
		}
	})
}

// FuzzValidateImage: the header-only start check of PNG, JPEG and WebP
// answers any bytes without a panic, and an accepted image decodes to a
// page of its header's size or is refused as corrupt.
func FuzzValidateImage(f *testing.F) {
	r := rand.New(rand.NewPCG(1, 1))
	img := testImage(40, 30)
	f.Add(uint8(0), pngBytes(f, img))
	f.Add(uint8(0), documenttest.RawPNG(r, 13, 9, 2, documenttest.PNGGray, true, nil, nil))
	f.Add(uint8(0), documenttest.RawPNG(r, 9, 13, 4, documenttest.PNGPaletted, false, []byte{1, 2}, bytes.Repeat([]byte{9, 80, 200}, 16)))
	f.Add(uint8(0), documenttest.PNG16(64, 48))
	f.Add(uint8(1), jpegBytes(f, img))
	f.Add(uint8(2), readTestdata(f, "blue-purple-pink.lossy.webp"))
	f.Add(uint8(2), readTestdata(f, "gopher-doc.1bpp.lossless.webp"))
	mimes := []string{MimePNG, MimeJPEG, MimeWebP}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, kind uint8, data []byte) {
		mime := mimes[int(kind)%len(mimes)]
		lim := fuzzLimits()
		if checkRefusal(t, "Validate", func() error { _, err := Validate(ctx, data, mime, lim); return err }()) != nil {
			return
		}
		hd, err := readImageHeader(data, mime)
		if err != nil {
			t.Fatalf("accepted, but the header: %v", err)
		}
		page, err := decodeImage(ctx, data, mime, lim)
		if ie := checkRefusal(t, "decode", err); ie != nil {
			if ie.Reason != ReasonCorrupt {
				t.Fatalf("accepted, then refused at decode as %s", ie.Reason)
			}
			return
		}
		if b := page.Bounds(); b.Dx() != hd.Width || b.Dy() != hd.Height {
			t.Fatalf("header %d × %d, page %v", hd.Width, hd.Height, b)
		}
	})
}

// FuzzCheckXref: the cross-reference check answers any bytes without a
// panic, with nil or a corrupt refusal naming the damage.
func FuzzCheckXref(f *testing.F) {
	f.Add(letterPDF())
	f.Add(xrefStreamPDF(false, 0))
	f.Add(xrefStreamPDF(true, 5))
	f.Add([]byte("%PDF-1.4\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Root 1 0 R /Prev 9 >>\nstartxref\n9\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err := checkXref(data)
		if ie := checkRefusal(t, "checkXref", err); ie != nil && (ie.Reason != ReasonCorrupt || ie.Details["damage"] == nil) {
			t.Fatalf("refusal without damage: %v", ie)
		}
	})
}
