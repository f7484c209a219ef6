package vector

import (
	"image"
	"image/draw"
	"image/png"
	"os"
	"strconv"
	"strings"
	"testing"

	fitz "github.com/gen2brain/go-fitz"
)

func TestCrop(t *testing.T) {
	spec := os.Getenv("VECTOR_CROP") // file:x,y,w,h
	if spec == "" {
		t.Skip()
	}
	f, rest, _ := strings.Cut(spec, ":")
	var v []int
	for _, s := range strings.Split(rest, ",") {
		n, _ := strconv.Atoi(s)
		v = append(v, n)
	}
	data, _ := os.ReadFile(f)
	doc, _ := fitz.NewFromMemory(data)
	page := 0
	if len(v) > 5 {
		page = v[5]
	}
	img, _ := doc.ImageDPI(page, 200)
	r := image.Rect(v[0]-v[2], v[1]-v[3], v[0]+2*v[2], v[1]+2*v[3])
	if len(v) > 4 {
		r = image.Rect(v[0], v[1], v[0]+v[2], v[1]+v[3])
	}
	sub := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	draw.Draw(sub, sub.Bounds(), img, r.Min, draw.Src)
	out := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for y := 0; y < out.Bounds().Dy(); y++ {
		for x := 0; x < out.Bounds().Dx(); x++ {
			out.Set(x, y, sub.At(x, y))
		}
	}
	w, _ := os.Create("/tmp/crop.png")
	png.Encode(w, out)
	w.Close()
}
