package document

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"os"
	"strings"
	"testing"
	"time"

	"blueprint/internal/document/documenttest"
)

// testImage is a small drawing-like picture: white with a dark square.
func testImage(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{255, 255, 255, 255}
			if x >= w/4 && x < w/2 && y >= h/4 && y < h/2 {
				c = color.RGBA{0, 0, 0, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

func pngBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func jpegBytes(t testing.TB, img image.Image) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, nil); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// letterPDF is a one-page US Letter PDF with a black square.
func letterPDF() []byte {
	return documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]", Content: "0 0 0 rg 72 72 144 144 re f"})
}

// pngHeaderOnly is a PNG signature and an IHDR chunk claiming w × h RGBA
// pixels, with no image data.
func pngHeaderOnly(w, h uint32) []byte {
	var ihdr bytes.Buffer
	ihdr.WriteString("IHDR")
	binary.Write(&ihdr, binary.BigEndian, w)
	binary.Write(&ihdr, binary.BigEndian, h)
	ihdr.Write([]byte{8, 6, 0, 0, 0}) // 8-bit RGBA, deflate, no interlace
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	binary.Write(&out, binary.BigEndian, uint32(ihdr.Len()-4))
	out.Write(ihdr.Bytes())
	binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(ihdr.Bytes()))
	return out.Bytes()
}

// pdfPadding is the password padding of the PDF standard security handler.
var pdfPadding = []byte("\x28\xbf\x4e\x5e\x4e\x75\x8a\x41\x64\x00\x4e\x56\xff\xfa\x01\x08\x2e\x2e\x00\xb6\xd0\x68\x3e\x80\x2f\x0c\xa9\xfe\x64\x53\x69\x7a")

// openEncryptedPDF is encrypted (RC4, revision 2) with an empty user
// password: any reader opens it without asking, so it is not "encrypted"
// for the service. Its U entry is computed as the PDF spec's algorithm 4.
func openEncryptedPDF(t *testing.T) []byte {
	t.Helper()
	o := bytes.Repeat([]byte{0x5a}, 32)
	id := bytes.Repeat([]byte{0x01}, 16)
	h := md5.New()
	h.Write(pdfPadding) // the empty password, padded
	h.Write(o)
	h.Write([]byte{0xfc, 0xff, 0xff, 0xff}) // P = -4, little-endian
	h.Write(id)
	key := h.Sum(nil)[:5]
	c, err := rc4.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	u := make([]byte, 32)
	c.XORKeyStream(u, pdfPadding)
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] >>", tree))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	enc := b.Add(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /Length 40 /O <%x> /U <%x> /P -4 >>", o, u))
	return b.Bytes(catalog, fmt.Sprintf("/Encrypt %d 0 R /ID [<%x> <%x>]", enc, id, id))
}

// encryptedPDF is a PDF with a standard security handler whose empty user
// password does not authenticate: opening it needs a password.
func encryptedPDF() []byte {
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] >>", tree))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	o := strings.Repeat("5A", 32)
	u := strings.Repeat("C3", 32)
	enc := b.Add(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /Length 40 /O <%s> /U <%s> /P -4 >>", o, u))
	id := strings.Repeat("01", 16)
	return b.Bytes(catalog, fmt.Sprintf("/Encrypt %d 0 R /ID [<%s> <%s>]", enc, id, id))
}

// cyclicPDF has a page tree whose only kid is the tree itself.
func cyclicPDF() []byte {
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", tree))
	return b.Bytes(catalog, "")
}

// lyingCountPDF claims three pages and holds one.
func lyingCountPDF() []byte {
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]"})
	return bytes.Replace(pdf, []byte("/Count 1"), []byte("/Count 3"), 1)
}

// manyPagesPDF is a PDF with n tiny pages in one Pages node.
func manyPagesPDF(n int) []byte {
	pages := make([]documenttest.Page, n)
	for i := range pages {
		pages[i] = documenttest.Page{MediaBox: "[0 0 10 10]"}
	}
	return documenttest.PDF(pages...)
}

// bombPDF is a one-page PDF whose content stream inflates to n zero bytes,
// compressed layers times with zlib.
func bombPDF(t testing.TB, n int, layers int) []byte {
	t.Helper()
	data := make([]byte, n)
	filters := make([]string, layers)
	for i := range layers {
		var buf bytes.Buffer
		zw, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		data = buf.Bytes()
		filters[i] = "/FlateDecode"
	}
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	content := b.Add(fmt.Sprintf("<< /Length %d /Filter [%s] >>\nstream\n%s\nendstream", len(data), strings.Join(filters, " "), data))
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 200 200] /Contents %d 0 R >>", tree, content))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	return b.Bytes(catalog, "")
}

func TestSniff(t *testing.T) {
	img := testImage(8, 8)
	cases := []struct {
		name string
		data []byte
		want string
	}{
		{"pdf", letterPDF(), MimePDF},
		{"pdf after junk", append(bytes.Repeat([]byte{' '}, 1000), letterPDF()...), MimePDF},
		{"pdf at offset 1023", append(bytes.Repeat([]byte{' '}, 1023), letterPDF()...), MimePDF},
		{"pdf at offset 1024", append(bytes.Repeat([]byte{' '}, 1024), letterPDF()...), ""},
		{"png", pngBytes(t, img), MimePNG},
		{"jpeg", jpegBytes(t, img), MimeJPEG},
		{"webp", readTestdata(t, "gopher-doc.1bpp.lossless.webp"), MimeWebP},
		{"riff not webp", []byte("RIFF\x00\x00\x00\x00WAVEfmt "), ""},
		{"text", []byte("hello, world"), ""},
		{"empty", nil, ""},
	}
	for _, c := range cases {
		if got := Sniff(c.data); got != c.want {
			t.Errorf("%s: Sniff = %q, want %q", c.name, got, c.want)
		}
	}
}

// wantInvalid asserts that err is an *InvalidError with the reason.
func wantInvalid(t *testing.T, err error, reason string) *InvalidError {
	t.Helper()
	var ie *InvalidError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want *InvalidError %s", err, err, reason)
	}
	if ie.Reason != reason {
		t.Fatalf("reason %q (%s), want %q", ie.Reason, ie.Message, reason)
	}
	if ie.Message == "" {
		t.Fatalf("reason %q without a message", reason)
	}
	return ie
}

func TestValidateAccepts(t *testing.T) {
	img := testImage(40, 30)
	cases := []struct {
		name, mime string
		data       []byte
		pages      int
	}{
		{"pdf", MimePDF, letterPDF(), 1},
		{"pdf three pages", MimePDF, documenttest.PDF(documenttest.Page{MediaBox: "[0 0 100 100]"}, documenttest.Page{MediaBox: "[0 0 100 100]"}, documenttest.Page{MediaBox: "[0 0 100 100]"}), 3},
		{"pdf after junk", MimePDF, append([]byte("junk before header\n"), letterPDF()...), 1},
		{"png", MimePNG, pngBytes(t, img), 1},
		{"jpeg", MimeJPEG, jpegBytes(t, img), 1},
		{"jpg alias", MimeJPGAlias, jpegBytes(t, img), 1},
		{"webp lossless", MimeWebP, readTestdata(t, "gopher-doc.1bpp.lossless.webp"), 1},
		{"webp lossy", MimeWebP, readTestdata(t, "blue-purple-pink.lossy.webp"), 1},
		{"pdf at the page limit", MimePDF, manyPagesPDF(500), 500},
		{"pdf encrypted with an empty user password", MimePDF, openEncryptedPDF(t), 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			info, err := Validate(context.Background(), c.data, c.mime, DefaultLimits())
			if err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if info.Pages != c.pages {
				t.Errorf("pages %d, want %d", info.Pages, c.pages)
			}
		})
	}
}

func TestValidateTypeMismatch(t *testing.T) {
	img := testImage(8, 8)
	cases := []struct {
		name, declared, detected string
		data                     []byte
	}{
		{"png declared as pdf", MimePDF, MimePNG, pngBytes(t, img)},
		{"pdf declared as png", MimePNG, MimePDF, letterPDF()},
		{"jpeg declared as webp", MimeWebP, MimeJPEG, jpegBytes(t, img)},
		{"text declared as pdf", MimePDF, "", []byte("this is not a drawing at all")},
		{"png declared as jpg", MimeJPGAlias, MimePNG, pngBytes(t, img)},
		{"unsupported declared type", "image/gif", MimePNG, pngBytes(t, img)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(context.Background(), c.data, c.declared, DefaultLimits())
			ie := wantInvalid(t, err, ReasonTypeMismatch)
			if ie.Details["declared"] != c.declared || ie.Details["detected"] != c.detected {
				t.Errorf("details %v, want declared %q detected %q", ie.Details, c.declared, c.detected)
			}
		})
	}
}

func TestValidateRefuses(t *testing.T) {
	lim := DefaultLimits()
	garbage := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte("\x00\xffgarbage}{)(<<>>"), 500)...)
	pngData := pngBytes(t, testImage(64, 64))
	cases := []struct {
		name, mime, reason string
		data               []byte
	}{
		{"garbage with pdf header", MimePDF, ReasonCorrupt, garbage},
		{"garbage with pdf header and eof", MimePDF, ReasonCorrupt, append(bytes.Clone(garbage), "\n%%EOF\n"...)},
		{"page tree cycle", MimePDF, ReasonCorrupt, cyclicPDF()},
		{"count larger than kids", MimePDF, ReasonCorrupt, lyingCountPDF()},
		{"pdf header only", MimePDF, ReasonCorrupt, []byte("%PDF-1.4\n%%EOF\n" + strings.Repeat(" ", 80))},
		{"encrypted", MimePDF, ReasonEncrypted, encryptedPDF()},
		{"zero pages", MimePDF, ReasonNoPages, documenttest.PDF()},
		{"truncated png", MimePNG, ReasonCorrupt, pngData[:len(pngData)/2]},
		{"png header only", MimePNG, ReasonCorrupt, pngHeaderOnly(64, 64)},
		{"truncated jpeg", MimeJPEG, ReasonCorrupt, jpegBytes(t, testImage(64, 64))[:300]},
		{"truncated webp", MimeWebP, ReasonCorrupt, readTestdata(t, "blue-purple-pink.lossy.webp")[:200]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(context.Background(), c.data, c.mime, lim)
			wantInvalid(t, err, c.reason)
		})
	}
}

func TestValidateTooManyPages(t *testing.T) {
	pdf := manyPagesPDF(10_000)
	t.Logf("10 000-page PDF: %d bytes", len(pdf))
	start := time.Now()
	_, err := Validate(context.Background(), pdf, MimePDF, DefaultLimits())
	took := time.Since(start)
	ie := wantInvalid(t, err, ReasonTooManyPages)
	if ie.Details["pages"] != 10_000 || ie.Details["max_pages"] != 500 {
		t.Errorf("details %v", ie.Details)
	}
	t.Logf("refused in %v", took)
	if took > 5*time.Second {
		t.Errorf("refusing a 10 000-page PDF took %v; it must read the count, not the pages", took)
	}
}

func TestValidatePageTooLarge(t *testing.T) {
	// 200 × 200 in = 14400 pt: 40000 × 40000 px at 200 DPI. A first small
	// page shows the index is the big page's.
	pdf := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 612 792]"}, documenttest.Page{MediaBox: "[0 0 14400 14400]", Content: "0 g 0 0 14400 14400 re f"})
	start := time.Now()
	_, err := Validate(context.Background(), pdf, MimePDF, DefaultLimits())
	ie := wantInvalid(t, err, ReasonPageTooLarge)
	want := map[string]any{"page_index": 1, "width_px": 40000, "height_px": 40000, "max_pixels": int64(150_000_000)}
	for k, v := range want {
		if ie.Details[k] != v {
			t.Errorf("details[%s] = %v (%T), want %v", k, ie.Details[k], ie.Details[k], v)
		}
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v: the page must be refused without rendering", took)
	}

	// Rotation swaps the sides; the CropBox, not the MediaBox, counts.
	lim := DefaultLimits()
	lim.MaxPagePixels = 1000 * 2000
	ok := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 5000 5000]", CropBox: "[0 0 360 720]", Rotate: 90}) // 1000 × 2000 px
	if _, err := Validate(context.Background(), ok, MimePDF, lim); err != nil {
		t.Errorf("cropped page at the limit: %v", err)
	}
	// 360.2 pt is 1000.56 px, which rounds to 1001: one pixel column over.
	over := documenttest.PDF(documenttest.Page{MediaBox: "[0 0 5000 5000]", CropBox: "[0 0 360.2 720]", Rotate: 90})
	_, err = Validate(context.Background(), over, MimePDF, lim)
	ie = wantInvalid(t, err, ReasonPageTooLarge)
	if ie.Details["width_px"] != 2000 || ie.Details["height_px"] != 1001 {
		t.Errorf("rotated details %v, want 2000 × 1001", ie.Details)
	}
}

func TestValidateImageBomb(t *testing.T) {
	// The header claims 100 000 × 100 000 pixels (40 GB decoded); refusal
	// must come from the header alone.
	start := time.Now()
	_, err := Validate(context.Background(), pngHeaderOnly(100_000, 100_000), MimePNG, DefaultLimits())
	ie := wantInvalid(t, err, ReasonPageTooLarge)
	if ie.Details["width_px"] != 100_000 || ie.Details["height_px"] != 100_000 || ie.Details["page_index"] != 0 {
		t.Errorf("details %v", ie.Details)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("took %v", took)
	}
	// A real PNG just over a small limit is refused the same way.
	lim := DefaultLimits()
	lim.MaxPagePixels = 64*64 - 1
	_, err = Validate(context.Background(), pngBytes(t, testImage(64, 64)), MimePNG, lim)
	wantInvalid(t, err, ReasonPageTooLarge)
}

func TestValidateDecompressionBomb(t *testing.T) {
	ctx := context.Background()
	// 8 MB of zeros compress to about 8 KB: a ratio near 1000, over 100×.
	bomb := bombPDF(t, 8<<20, 1)
	t.Logf("bomb: %d bytes inflating to %d", len(bomb), 8<<20)
	start := time.Now()
	_, err := Validate(ctx, bomb, MimePDF, DefaultLimits())
	wantInvalid(t, err, ReasonDecompressionBomb)
	t.Logf("refused in %v", time.Since(start))

	// Two zlib layers hide the ratio from a one-layer look: 64 MB of zeros
	// compress to about 64 KB, which compresses again to a few hundred
	// bytes.
	nested := bombPDF(t, 64<<20, 2)
	t.Logf("nested bomb: %d bytes", len(nested))
	_, err = Validate(ctx, nested, MimePDF, DefaultLimits())
	wantInvalid(t, err, ReasonDecompressionBomb)

	// The same stream is fine under a ratio that allows it...
	small := bombPDF(t, 200<<10, 1)
	lim := DefaultLimits()
	lim.MaxDecompressionRatio = 1e6
	if _, err := Validate(ctx, small, MimePDF, lim); err != nil {
		t.Errorf("ratio allowed: %v", err)
	}
	// ...and refused by the absolute cap.
	lim.MaxDecompressedBytes = 100 << 10
	_, err = Validate(ctx, small, MimePDF, lim)
	wantInvalid(t, err, ReasonDecompressionBomb)

	// Ordinary compressed content is well under 100×.
	if _, err := Validate(ctx, letterPDF(), MimePDF, DefaultLimits()); err != nil {
		t.Errorf("ordinary pdf: %v", err)
	}
}

// TestValidateTruncatedPDF cuts a two-page PDF at many points. MuPDF
// repairs some damage, so a cut file may still open; what must hold is that
// every file Validate accepts also renders every page, and that a file cut
// before its pages' objects is refused as corrupt or as having no pages.
func TestValidateTruncatedPDF(t *testing.T) {
	full := documenttest.PDF(
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: "0 0 0 rg 10 10 50 50 re f"},
		documenttest.Page{MediaBox: "[0 0 300 200]", Content: "0 0 1 rg 100 100 50 50 re f"},
	)
	ctx := context.Background()
	accepted, refused := 0, 0
	for cut := 16; cut < len(full); cut += 7 {
		data := full[:cut]
		info, err := Validate(ctx, data, MimePDF, DefaultLimits())
		if err != nil {
			var ie *InvalidError
			if !errors.As(err, &ie) || (ie.Reason != ReasonCorrupt && ie.Reason != ReasonNoPages) {
				t.Fatalf("cut at %d: %v, want corrupt or no_pages", cut, err)
			}
			refused++
			continue
		}
		accepted++
		doc, err := Open(ctx, data, MimePDF, DefaultLimits())
		if err != nil {
			t.Fatalf("cut at %d: accepted but Open: %v", cut, err)
		}
		if doc.NumPages() != info.Pages {
			t.Errorf("cut at %d: Open sees %d pages, Validate %d", cut, doc.NumPages(), info.Pages)
		}
		for i := range doc.NumPages() {
			p, err := doc.Page(ctx, i)
			if err != nil {
				t.Errorf("cut at %d: accepted but page %d does not render: %v", cut, i, err)
			} else if p.Width != 833 || p.Height != 556 {
				t.Errorf("cut at %d: page %d is %d × %d", cut, i, p.Width, p.Height)
			}
		}
		doc.Close()
	}
	t.Logf("%d cuts accepted (MuPDF repaired them and they render), %d refused", accepted, refused)
	if refused == 0 {
		t.Error("no truncation was refused")
	}
}

func TestValidateCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Validate(ctx, letterPDF(), MimePDF, DefaultLimits())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// TestValidateRepairedPDF: a complete file with wrong xref offsets, which
// MuPDF would repair by scanning for its objects, is refused as corrupt
// (object_offsets) instead of being processed as whatever the repair made
// of it.
func TestValidateRepairedPDF(t *testing.T) {
	pdf := letterPDF()
	i := bytes.Index(pdf, []byte("xref\n"))
	broken := bytes.Clone(pdf)
	// Shift every object offset of the table by overwriting its digits.
	copy(broken[i:], bytes.Replace(pdf[i:], []byte("0000000"), []byte("0000001"), -1))
	_, err := Validate(context.Background(), broken, MimePDF, DefaultLimits())
	wantDamage(t, err, DamageObjectOffsets)
}

// TestValidateManyTinyStreams: a file packed with tiny zlib streams is
// scanned in bounded time (the scan reuses its readers).
func TestValidateManyTinyStreams(t *testing.T) {
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte("q Q "))
	zw.Close()
	chunk := append(append([]byte("<< /Length 12 >>\nstream\n"), z.Bytes()...), "\nendstream\n"...)
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 100 100] >>", tree))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	b.Add(fmt.Sprintf("(%s)", bytes.Repeat(chunk, 100_000))) // inside a string, so MuPDF skips it quickly
	pdf := b.Bytes(catalog, "")
	start := time.Now()
	if _, err := Validate(context.Background(), pdf, MimePDF, DefaultLimits()); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	t.Logf("%d bytes with 100 000 streams validated in %v", len(pdf), took)
	if took > 3*time.Second {
		t.Errorf("took %v", took)
	}
}

// imagePDF is a one-page PDF drawing one image XObject with the given
// dictionary entries and stream data.
func imagePDF(dict string, data []byte) []byte {
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	im := b.Add(fmt.Sprintf("<< /Type /XObject /Subtype /Image %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data))
	c := b.Add(documenttest.Stream("", []byte("q 100 0 0 100 0 0 cm /Im0 Do Q"), true))
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 100 100] /Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>", tree, im, c))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	return b.Bytes(catalog, "")
}

// TestValidateImageXObjectBomb: image XObjects are charged their decoded
// size, so a few bytes of CCITT declaring 100 000 × 100 000 pixels are
// refused, while ordinary images pass.
func TestValidateImageXObjectBomb(t *testing.T) {
	ctx := context.Background()
	ccitt := imagePDF("/Width 100000 /Height 100000 /BitsPerComponent 1 /ColorSpace /DeviceGray /Filter /CCITTFaxDecode /DecodeParms << /K -1 /Columns 100000 /Rows 100000 >>", bytes.Repeat([]byte{0}, 64))
	_, err := Validate(ctx, ccitt, MimePDF, DefaultLimits())
	wantInvalid(t, err, ReasonDecompressionBomb)

	cases := []struct {
		name string
		pdf  []byte
	}{
		{"raw rgb", imagePDF("/Width 100 /Height 100 /BitsPerComponent 8 /ColorSpace /DeviceRGB", bytes.Repeat([]byte{128}, 30000))},
		{"jpeg", imagePDF("/Width 64 /Height 64 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /DCTDecode", jpegBytes(t, image.NewGray(image.Rect(0, 0, 64, 64))))},
	}
	for _, c := range cases {
		if _, err := Validate(ctx, c.pdf, MimePDF, DefaultLimits()); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	// The dictionary sizes are what is charged: the same raw image fails a
	// limit below its decoded 30 000 bytes.
	lim := DefaultLimits()
	lim.MaxDecompressedBytes = 20000
	_, err = Validate(ctx, cases[0].pdf, MimePDF, lim)
	wantInvalid(t, err, ReasonDecompressionBomb)
}

// TestImageDecodedBytes: image XObjects and inline images (abbreviated or
// full keys) are sized by one rule.
func TestImageDecodedBytes(t *testing.T) {
	inline := inlineKeys.decodedBytes
	cases := []struct {
		size func([]byte) (int64, bool)
		dict string
		want int64
		ok   bool
	}{
		{imageDecodedBytes, "obj << /Subtype /Image /Width 10 /Height 20 /ColorSpace /DeviceRGB /BitsPerComponent 8", 600, true},
		{imageDecodedBytes, "obj << /Subtype/Image /Width 10 /Height 20 /ColorSpace /DeviceCMYK", 800, true},
		{imageDecodedBytes, "obj << /Subtype /Image /Width 9 /Height 1 /ImageMask true", 2, true},
		{imageDecodedBytes, "obj << /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 1 /ColorSpace [/Indexed /DeviceRGB 1 <000000ffffff>]", 13, true},
		{imageDecodedBytes, "obj << /Subtype /Image /Width 10 0 R /Height 20", 0, false},
		{imageDecodedBytes, "obj << /Subtype /Image /Width 10 /Height 20 /Filter /DCTDecode", 0, false},
		{imageDecodedBytes, "obj << /Subtype /Form /BBox [0 0 1 1]", 0, false},
		{inline, " /W 10 /H 20 /CS /RGB /BPC 8 ", 600, true},
		{inline, " /Width 10 /Height 20 /ColorSpace /DeviceCMYK ", 800, true},
		{inline, " /W 9 /H 1 /IM true ", 2, true},
		{inline, " /W 10 /H 10 /BPC 1 /CS [/I /RGB 1 <000000ffffff>] ", 13, true},
		{inline, " /W 10 /H 20 /F /DCT ", 0, false},
		{inline, " /H 20 /CS /G ", 0, false},
	}
	for _, c := range cases {
		got, ok := c.size([]byte(c.dict))
		if got != c.want || ok != c.ok {
			t.Errorf("%q: %d %v, want %d %v", c.dict, got, ok, c.want, c.ok)
		}
	}
}

// inlinePDF is a one-page PDF whose content stream draws an inline image
// with the given dictionary and data, compressed when flate is true.
func inlinePDF(dict string, data []byte, flate bool) []byte {
	var b documenttest.Builder
	catalog := b.Reserve()
	tree := b.Reserve()
	content := []byte("q 100 0 0 100 0 0 cm\nBI " + dict + " ID ")
	content = append(content, data...)
	content = append(content, "\nEI Q\n"...)
	c := b.Add(documenttest.Stream("", content, flate))
	page := b.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 100 100] /Contents %d 0 R >>", tree, c))
	b.Set(catalog, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	b.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	return b.Bytes(catalog, "")
}

func TestValidateInlineImageBomb(t *testing.T) {
	ctx := context.Background()
	bomb := "/W 100000 /H 100000 /BPC 1 /CS /G /F /CCF /DP << /K -1 /Columns 100000 >>"
	for _, flate := range []bool{true, false} {
		_, err := Validate(ctx, inlinePDF(bomb, bytes.Repeat([]byte{0}, 32), flate), MimePDF, DefaultLimits())
		wantInvalid(t, err, ReasonDecompressionBomb)
		small := inlinePDF("/W 8 /H 8 /BPC 8 /CS /G", bytes.Repeat([]byte{128}, 64), flate)
		if _, err := Validate(ctx, small, MimePDF, DefaultLimits()); err != nil {
			t.Errorf("flate %v: small inline image: %v", flate, err)
		}
	}
}

// TestInlineScannerChunks: an inline image dictionary cut across writes is
// still found once, whatever the chunk size.
func TestInlineScannerChunks(t *testing.T) {
	content := []byte("q 1 0 0 1 0 0 cm BI /W 100 /H 10 /CS /RGB /BPC 8 ID xxBIxx EI Q\nBI\n/Width 7 /Height 8 /ImageMask true ID x EI ABI /W 9 /H 9 ID")
	const want = 100*10*3 + (7*8+7)/8
	for _, chunk := range []int{1, 2, 3, 5, 7, 64, 1000} {
		bu := &inflateBudget{limit: 1 << 40}
		bu.inline.budget = bu
		for i := 0; i < len(content); i += chunk {
			if _, err := bu.inline.Write(content[i:min(len(content), i+chunk)]); err != nil {
				t.Fatal(err)
			}
		}
		if bu.used != want {
			t.Errorf("chunk %d: charged %d, want %d", chunk, bu.used, want)
		}
	}
}

// TestScanPages: a PDF page that draws one image over it reads as a scan
// (drawing.Page.Scan); a page drawn as vectors does not.
func TestScanPages(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		data []byte
		scan bool
	}{
		{"image over the page", imagePDF("/Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8", []byte{0, 255, 255, 0}), true},
		{"vector drawing", documenttest.PDF(documenttest.Page{MediaBox: "[0 0 300 200]", Content: "0 0 0 rg 10 10 50 50 re f 1 w 0 0 m 300 200 l S"}), false},
	} {
		doc, err := Open(ctx, tc.data, MimePDF, DefaultLimits())
		if err != nil {
			t.Fatal(err)
		}
		pg, err := doc.Drawing(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		if pg.Scan() != tc.scan {
			t.Errorf("%s: Scan() = %v (image area %.0f of %.0f px²), want %v", tc.name, pg.Scan(), pg.ImageArea, pg.Width*pg.Height, tc.scan)
		}
		doc.Close()
	}
}

// TestOwnerPasswordOnlyPDFsOpen: PDFs encrypted with an owner password
// only (RC4 128-bit, AES-256) open without a password, as in any viewer:
// the start check accepts them (their encrypted streams do not inflate,
// which is no damage), and the page renders and reads its drawing,
// decrypted. One with a user password is still refused as encrypted, and
// an encrypted content stream that inflates past the limit is a
// decompression bomb (issue 47).
func TestOwnerPasswordOnlyPDFsOpen(t *testing.T) {
	ctx := context.Background()
	lim := DefaultLimits()
	for _, enc := range []struct {
		name string
		e    documenttest.Encryption
	}{{"RC4", documenttest.RC4}, {"AES-256", documenttest.AES256}} {
		data := documenttest.EncryptedPDF(enc.e, "", "owner secret")
		if _, err := Validate(ctx, data, MimePDF, lim); err != nil {
			t.Fatalf("%s, owner password only: refused: %v", enc.name, err)
		}
		doc, err := Open(ctx, data, MimePDF, lim)
		if err != nil {
			t.Fatalf("%s: open: %v", enc.name, err)
		}
		p, err := doc.Page(ctx, 0)
		if err != nil {
			t.Fatalf("%s: page: %v", enc.name, err)
		}
		pg, err := p.PDF.Drawing(ctx)
		if err != nil || len(pg.Segments) == 0 {
			t.Errorf("%s: the decrypted page draws %v segments (%v), want its line and square", enc.name, pg, err)
		}
		if c := p.Raster.At(30*200/72, (200-30)*200/72); c != (color.RGBA{0, 0, 0, 255}) {
			t.Errorf("%s: the square's middle renders %v, want black", enc.name, c)
		}
		doc.Close()

		_, err = Validate(ctx, documenttest.EncryptedPDF(enc.e, "user", "owner secret"), MimePDF, lim)
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Reason != ReasonEncrypted {
			t.Errorf("%s with a user password: %v, want encrypted", enc.name, err)
		}

		bomb := documenttest.EncryptedContentPDF(enc.e, "", "owner", bytes.Repeat([]byte(" "), 64<<20))
		_, err = Validate(ctx, bomb, MimePDF, lim)
		if !errors.As(err, &inv) || inv.Reason != ReasonDecompressionBomb {
			t.Errorf("%s, a %d-byte file of 64 MiB encrypted content: %v, want decompression_bomb", enc.name, len(bomb), err)
		}
	}
}
