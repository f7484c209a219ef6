package ocrtext

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"blueprint/internal/document"
	"blueprint/internal/ocr"
)

func TestProbe(t *testing.T) {
	name := os.Getenv("PROBE")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(name)
	ctx := context.Background()
	doc, err := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	pg, err := doc.Drawing(ctx, 0)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	cs := components(pg, maxLetter, maxLetter)
	g := newGrid(cs, 2*maxLetter/5)
	ls := lines(cs, g, minLetters)
	v := 0
	for _, l := range ls {
		if l.vertical {
			v++
		}
	}
	fmt.Println("components", len(cs), "lines", len(ls), "vertical", v, time.Since(t0))
	rec, err := ocr.New(ctx, "tesseract", "eng")
	if err != nil {
		t.Fatal(err)
	}
	t0 = time.Now()
	res, err := New(rec, Options{}).Read(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("read", res.Lines, res.Read, res.Unread, len(res.Chars), time.Since(t0))
	var b strings.Builder
	for _, c := range res.Chars {
		b.WriteString(c.Text)
		if c.Text == " " && len(b.String()) > 100 {
		}
	}
	fmt.Println(b.String()[:min(6000, b.Len())])
}
