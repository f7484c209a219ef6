package document

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"blueprint/internal/document/documenttest"
)

// wantDamage fails unless err is a corrupt *InvalidError whose
// details["damage"] is damage.
func wantDamage(t *testing.T, err error, damage string) {
	t.Helper()
	var ie *InvalidError
	if !errors.As(err, &ie) || ie.Reason != ReasonCorrupt || ie.Details["damage"] != damage {
		t.Fatalf("got %v, want corrupt with damage %q", err, damage)
	}
}

// synthSheet is a generated drawing of the repository's fixture set: a
// real-looking CAD-like PDF (gopdf's writer, flate streams, 130 symbols).
func synthSheet(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("../../testdata/synth/sheet-00002.pdf")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamagedPDFsRefused: the damaged files of issue 11 each pass MuPDF
// (which repairs or pads them) but are refused at start with what was
// wrong.
func TestDamagedPDFsRefused(t *testing.T) {
	ctx := context.Background()
	sheet := synthSheet(t)
	if _, err := Validate(ctx, sheet, MimePDF, DefaultLimits()); err != nil {
		t.Fatalf("the intact sheet: %v", err)
	}
	noise := make([]byte, 5<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range noise {
		noise[i] = byte(r.IntN(256))
	}
	flate := func(b []byte) []byte {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(b)
		zw.Close()
		return z.Bytes()
	}
	var bld documenttest.Builder
	cat, tree := bld.Reserve(), bld.Reserve()
	good := flate([]byte("0 0 0 rg 10 10 50 50 re f"))
	cut := good[:len(good)-6] // the deflate data breaks off
	content := bld.Add(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(cut), cut))
	page := bld.Add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 300 200] /Contents %d 0 R >>", tree, content))
	bld.Set(cat, fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", tree))
	bld.Set(tree, fmt.Sprintf("<< /Type /Pages /Kids [%d 0 R] /Count 1 >>", page))
	brokenStream := bld.Bytes(cat, "")

	for _, c := range []struct {
		name   string
		data   []byte
		damage string
	}{
		{"sheet cut in half, %%EOF appended", append(bytes.Clone(sheet[:len(sheet)/2]), "\n%%EOF\n"...), DamageTruncated},
		{"200 bytes of a PDF, 5 KB of noise, %%EOF", append(append(bytes.Clone(sheet[:200]), noise...), "\n%%EOF\n"...), DamageTruncated},
		{"MediaBox [0 0 0 0]", documenttest.PDF(documenttest.Page{MediaBox: "[0 0 0 0]", Content: "0 0 0 rg 10 10 50 50 re f"}), DamagePageSize},
		{"MediaBox of two numbers", documenttest.PDF(documenttest.Page{MediaBox: "[0 0]"}), DamagePageSize},
		{"MediaBox of 1e9 points", documenttest.PDF(documenttest.Page{MediaBox: "[0 0 1e9 1e9]"}), DamagePageSize},
		{"flate content that breaks off", brokenStream, DamageStream},
		{"startxref past the end", bytes.Replace(letterPDF(), []byte("startxref\n"), []byte("startxref\n9"), 1), DamageXref},
		{"trailer without /Root", bytes.Replace(letterPDF(), []byte("/Root"), []byte("/Roo "), 1), DamageNoCatalog},
		{"xref table cut", func() []byte {
			p := letterPDF()
			i := bytes.Index(p, []byte("xref\n")) + 12
			return append(append(bytes.Clone(p[:i]), "\ntrailer\n<< /Size 9 /Root 1 0 R >>\nstartxref\n"...), fmt.Sprintf("%d\n%%%%EOF\n", i-12)...)
		}(), DamageXref},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Validate(ctx, c.data, MimePDF, DefaultLimits())
			wantDamage(t, err, c.damage)
			var ie *InvalidError
			errors.As(err, &ie)
			if !strings.Contains(ie.Message, "PDF") || len(ie.Message) < 40 {
				t.Errorf("message does not say what was wrong: %q", ie.Message)
			}
		})
	}
}

// TestValidateAcceptsGeneratedAndRealPDFs: every generated fixture, the
// real drawings where present, and xref-stream files pass the structure
// checks.
func TestValidateAcceptsGeneratedAndRealPDFs(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/synth/*.pdf")
	real, _ := filepath.Glob(filepath.Join(realdataDir, "*.pdf"))
	for _, f := range append(files, real...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkXref(data[pdfStart(data):]); err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
		}
		if d, err := scanStreams(context.Background(), data, DefaultLimits()); d != nil || err != nil {
			t.Errorf("%s: %v %v", filepath.Base(f), d, err)
		}
	}
	for _, pred := range []bool{false, true} {
		data := xrefStreamPDF(pred, 0)
		if _, err := Validate(context.Background(), data, MimePDF, DefaultLimits()); err != nil {
			t.Errorf("xref stream (predictor %v): %v", pred, err)
		}
		p := firstPage(t, data, MimePDF)
		if p.Width != 833 || p.Height != 556 {
			t.Errorf("xref stream page %d × %d", p.Width, p.Height)
		}
	}
	_, err := Validate(context.Background(), xrefStreamPDF(true, 3), MimePDF, DefaultLimits())
	wantDamage(t, err, DamageObjectOffsets)
}

// xrefStreamPDF writes a one-page PDF whose cross-reference is a stream
// (W [1 4 2], flate, optionally with the PNG Up predictor), with the
// offset of every object shifted by skew bytes.
func xrefStreamPDF(predictor bool, skew int) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 200] /Contents 4 0 R >>",
		documenttest.Stream("", []byte("0 0 1 rg 20 20 100 100 re f"), true),
	}
	var out bytes.Buffer
	out.WriteString("%PDF-1.7\n")
	var rows [][]byte
	rows = append(rows, []byte{0, 0, 0, 0, 0, 0xff, 0xff})
	for i, o := range objs {
		row := make([]byte, 7)
		row[0] = 1
		binary.BigEndian.PutUint32(row[1:5], uint32(out.Len()+skew))
		rows = append(rows, row)
		fmt.Fprintf(&out, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := out.Len()
	rows = append(rows, []byte{1, 0, 0, 0, 0, 0, 0})
	binary.BigEndian.PutUint32(rows[len(rows)-1][1:5], uint32(xref))
	var raw bytes.Buffer
	prev := make([]byte, 7)
	for _, r := range rows {
		if predictor {
			raw.WriteByte(2) // Up
			for k := range r {
				raw.WriteByte(r[k] - prev[k])
			}
			prev = r
		} else {
			raw.Write(r)
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	parms := ""
	if predictor {
		parms = "/DecodeParms << /Columns 7 /Predictor 12 >> "
	}
	n := len(objs) + 1
	fmt.Fprintf(&out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 4 2] /Root 1 0 R /Filter /FlateDecode %s/Length %d >>\nstream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n",
		n, n+1, parms, z.Len(), z.Bytes(), xref)
	return out.Bytes()
}
