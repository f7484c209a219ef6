package ocrtext

import (
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"runtime/pprof"
	"testing"

	"blueprint/internal/document"
	"blueprint/internal/ocr"
)

type saver struct{ n int }

func (s *saver) Lines(ctx context.Context, img image.Image, mode ocr.Mode) ([]ocr.Line, error) {
	s.n++
	f, _ := os.Create(fmt.Sprintf("/tmp/ocrt/mosaic%02d.png", s.n))
	png.Encode(f, img)
	f.Close()
	return nil, nil
}

func TestProbe2(t *testing.T) {
	name := os.Getenv("PROBE")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(name)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	pg, _ := doc.Drawing(ctx, 0)
	s := &saver{}
	res, _ := New(s, Options{}).Read(ctx, pg)
	fmt.Println(s.n, res.Lines)
}

func TestProbe3(t *testing.T) {
	name := os.Getenv("PROBE")
	if name == "" {
		t.Skip()
	}
	data, _ := os.ReadFile(name)
	ctx := context.Background()
	doc, _ := document.Open(ctx, data, document.MimePDF, document.DefaultLimits())
	pg, _ := doc.Drawing(ctx, 0)
	f, _ := os.Create("/tmp/ocrt/cpu.prof")
	pprof.StartCPUProfile(f)
	s := &saver{}
	res, _ := New(s, Options{}).Read(ctx, pg)
	pprof.StopCPUProfile()
	fmt.Println(s.n, res.Lines)
}
