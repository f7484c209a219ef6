package ocr

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/draw"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// newReader returns a Reader on this machine's tesseract, skipping the
// test where it is not installed unless BLUEPRINT_REQUIRE_OCR is set
// (as .ci/run sets it), which makes its absence a failure.
func newReader(t *testing.T) *Reader {
	t.Helper()
	r, err := New(context.Background(), "tesseract", "")
	if err != nil {
		if os.Getenv("BLUEPRINT_REQUIRE_OCR") != "" {
			t.Fatalf("tesseract is required here: %v", err)
		}
		t.Skipf("tesseract not installed: %v", err)
	}
	return r
}

// textImage draws lines of text in Go Regular at size px on white.
func textImage(t *testing.T, lines []string, size float64) *image.Gray {
	t.Helper()
	f, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	face, err := opentype.NewFace(f, &opentype.FaceOptions{Size: size, DPI: 72})
	if err != nil {
		t.Fatal(err)
	}
	img := image.NewGray(image.Rect(0, 0, 900, int(size*2)*len(lines)+int(size)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	d := &font.Drawer{Dst: img, Src: image.Black, Face: face}
	for i, l := range lines {
		d.Dot = fixed.P(int(size), int(size*2)*(i+1))
		d.DrawString(l)
	}
	return img
}

func TestLinesReadsLegendText(t *testing.T) {
	r := newReader(t)
	want := []string{"SMOKE DETECTOR", "MANUAL CALL POINT", "HEAT DETECTOR 135"}
	img := textImage(t, want, 28)
	// Offset bounds: boxes must come back in the image's own coordinates.
	sub := image.NewGray(img.Bounds().Add(image.Pt(100, 50)))
	copy(sub.Pix, img.Pix)
	lines, err := r.Lines(context.Background(), sub, Sparse)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range lines {
		got = append(got, l.Text())
		if !l.Box.In(sub.Bounds()) || l.Box.Min.X < 100+20 {
			t.Errorf("line %q box %v outside the image %v or not offset", l.Text(), l.Box, sub.Bounds())
		}
	}
	all := strings.Join(got, "|")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("read %q, missing %q", all, w)
		}
	}
}

func TestLinesStopsWithContext(t *testing.T) {
	r := newReader(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	if _, err := r.Lines(ctx, textImage(t, []string{"X"}, 20), Sparse); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("expired context: got %v", err)
	}
}

func TestNewReportsWhatIsMissing(t *testing.T) {
	_, err := New(context.Background(), "/nonexistent/tesseract", "")
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install") {
		t.Fatalf("missing program: %v", err)
	}
	if _, lerr := exec.LookPath("tesseract"); lerr == nil {
		_, err = New(context.Background(), "tesseract", "eng+xx_none")
		if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "xx_none") {
			t.Fatalf("missing language: %v", err)
		}
	}
}

func TestParseTSV(t *testing.T) {
	tsv := "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n" +
		"1\t1\t0\t0\t0\t0\t0\t0\t500\t100\t-1\t\n" +
		"5\t1\t1\t1\t1\t1\t10\t20\t50\t12\t96.5\tSMOKE\n" +
		"5\t1\t1\t1\t1\t2\t65\t20\t80\t12\t91\tDETECTOR\n" +
		"5\t1\t1\t1\t1\t3\t150\t20\t5\t12\t0\t \n" +
		"5\t1\t2\t1\t1\t1\t10\t60\t30\t12\t88\tQTY\n"
	lines, err := parseTSV(bytes.NewBufferString(tsv))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 || lines[0].Text() != "SMOKE DETECTOR" || lines[1].Text() != "QTY" {
		t.Fatalf("lines %+v", lines)
	}
	if lines[0].Box != image.Rect(10, 20, 145, 32) || lines[0].Words[0].Conf != 96.5 {
		t.Errorf("first line box %v conf %v", lines[0].Box, lines[0].Words[0].Conf)
	}
	if _, err := parseTSV(bytes.NewBufferString("h\n5\t1\tx\t1\t1\t1\t1\t1\t1\t1\t9\tA\n")); err == nil {
		t.Error("a damaged TSV line must be an error")
	}
}
