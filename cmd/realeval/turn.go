package main

import (
	"context"
	"fmt"
	"image"
	_ "image/jpeg" // drawings sent as JPEG are turned too
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Sheets stored turned or plotted at another size. A PDF page whose
// /Rotate turns it writes all its text turned: a reader that looks for
// upright text only misses its schedules and tags (it did: building2
// turned a quarter turn lost its bill of quantities). With -turn, each
// drawing is measured as a copy stored turned by that many degrees
// clockwise: a PDF with every page's /Rotate raised by it (mutool run, so
// the drawing itself is untouched), an image turned pixel for pixel. With
// -scale, each PDF is measured as a copy plotted on paper that many times
// the size (an A1 sheet on A3 is 0.5); images are left as they are. The
// truth is a count, the same either way.

// rotateJS raises every page's /Rotate of the PDF scriptArgs[0] by
// scriptArgs[2] degrees and saves it as scriptArgs[1].
const rotateJS = `var doc = new PDFDocument(scriptArgs[0]);
var turn = parseInt(scriptArgs[2]);
for (var i = 0; i < doc.countPages(); i++) {
	var page = doc.findPage(i);
	var r = page.getInheritable ? page.getInheritable("Rotate") : page.get("Rotate");
	var cur = (r && r.isNumber()) ? r.valueOf() : 0;
	page.put("Rotate", doc.newInteger(((cur + turn) % 360 + 360) % 360));
}
doc.save(scriptArgs[1], "");
`

// scaleJS draws every page of the PDF scriptArgs[0] scriptArgs[2] times
// its size, content and page boxes alike (a sheet plotted on smaller or
// larger paper), and saves it as scriptArgs[1].
const scaleJS = `var doc = new PDFDocument(scriptArgs[0]);
var f = parseFloat(scriptArgs[2]);
for (var i = 0; i < doc.countPages(); i++) {
	var page = doc.findPage(i);
	var arr = doc.newArray();
	arr.push(doc.addStream("q " + f + " 0 0 " + f + " 0 0 cm\n", {}));
	var c = page.get("Contents");
	if (c.isArray()) { for (var k = 0; k < c.length; k++) arr.push(c.get(k)); } else { arr.push(c); }
	arr.push(doc.addStream("\nQ\n", {}));
	page.put("Contents", arr);
	["MediaBox", "CropBox", "TrimBox", "BleedBox", "ArtBox"].forEach(function (key) {
		var b = page.getInheritable ? page.getInheritable(key) : page.get(key);
		if (b && b.isArray()) {
			var nb = doc.newArray();
			for (var k = 0; k < 4; k++) nb.push(b.get(k).valueOf() * f);
			page.put(key, nb);
		}
	});
}
doc.save(scriptArgs[1], "");
`

// validTurn reports whether deg is a turn -turn takes: 0 (none), 90, 180
// or 270.
func validTurn(deg int) bool { return deg == 0 || deg == 90 || deg == 180 || deg == 270 }

// scaledCopy writes the PDF at path plotted f times its size into dir and
// returns the copy's path; an image's path is returned as it is.
func scaledCopy(ctx context.Context, mutool, path, dir string, f float64) (string, error) {
	if !isPDF(path) {
		return path, nil
	}
	return runJS(ctx, mutool, dir, "scaled", scaleJS, path, strconv.FormatFloat(f, 'g', -1, 64))
}

// outlinedCopy writes the PDF at path with its words drawn as outlines
// into dir and returns the copy's path; an image's path is returned as it
// is. Each page goes through SVG with text as paths (`mutool draw -F svg
// -O text=path`) and back to PDF (`mutool convert`): the drawing and the
// page size are kept, the text layer is not.
func outlinedCopy(ctx context.Context, mutool, path, dir string) (string, error) {
	if !isPDF(path) {
		return path, nil
	}
	stem := copyPath(dir, "outlined", path, "")
	if b, err := exec.CommandContext(ctx, mutool, "draw", "-q", "-F", "svg", "-O", "text=path", "-o", stem+"-%d.svg", path).CombinedOutput(); err != nil {
		return "", fmt.Errorf("outline %s: mutool draw: %w: %s", path, err, strings.TrimSpace(string(b)))
	}
	svgs, err := filepath.Glob(stem + "-*.svg")
	if err != nil || len(svgs) == 0 {
		return "", fmt.Errorf("outline %s: no pages drawn", path)
	}
	page := func(p string) int {
		n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(p, stem+"-"), ".svg"))
		return n
	}
	slices.SortFunc(svgs, func(a, b string) int { return page(a) - page(b) })
	out := stem + ".pdf"
	args := append([]string{"convert", "-o", out}, svgs...)
	if b, err := exec.CommandContext(ctx, mutool, args...).CombinedOutput(); err != nil {
		return "", fmt.Errorf("outline %s: mutool convert: %w: %s", path, err, strings.TrimSpace(string(b)))
	}
	return out, nil
}

func isPDF(path string) bool { return strings.EqualFold(filepath.Ext(path), ".pdf") }

// copyPath is where the copy of path that step (scaled, turned) makes is
// written in dir, with extension ext: a name of its own for each step, so
// that a scaled copy turned is read from one file and written to another.
func copyPath(dir, step, path, ext string) string {
	return filepath.Join(dir, step+"-"+strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))+ext)
}

// runJS runs the mutool script js on the PDF at path with arg, writing
// the copy that step makes into dir, and returns its path.
func runJS(ctx context.Context, mutool, dir, step, js, path, arg string) (string, error) {
	script := filepath.Join(dir, step+".js")
	if err := os.WriteFile(script, []byte(js), 0o644); err != nil {
		return "", err
	}
	out := copyPath(dir, step, path, ".pdf")
	if b, err := exec.CommandContext(ctx, mutool, "run", script, path, out, arg).CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s %s: mutool run: %w: %s", step, path, err, strings.TrimSpace(string(b)))
	}
	return out, nil
}

// turnedCopy writes the drawing at path turned deg degrees clockwise into
// dir and returns the copy's path.
func turnedCopy(ctx context.Context, mutool, path, dir string, deg int) (string, error) {
	if isPDF(path) {
		return runJS(ctx, mutool, dir, "turned", rotateJS, path, strconv.Itoa(deg))
	}
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	img, _, err := image.Decode(f)
	f.Close()
	if err != nil {
		return "", fmt.Errorf("turn %s: %w", path, err)
	}
	out := copyPath(dir, "turned", path, ".png")
	w, err := os.Create(out)
	if err != nil {
		return "", err
	}
	if err := png.Encode(w, turnImage(img, deg)); err != nil {
		w.Close()
		return "", fmt.Errorf("turn %s: %w", path, err)
	}
	return out, w.Close()
}

// turnImage returns img turned deg (90, 180 or 270) degrees clockwise.
func turnImage(img image.Image, deg int) image.Image {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var out *image.NRGBA
	if deg == 180 {
		out = image.NewNRGBA(image.Rect(0, 0, w, h))
	} else {
		out = image.NewNRGBA(image.Rect(0, 0, h, w))
	}
	for y := range h {
		for x := range w {
			c := img.At(b.Min.X+x, b.Min.Y+y)
			switch deg {
			case 90:
				out.Set(h-1-y, x, c)
			case 180:
				out.Set(w-1-x, h-1-y, c)
			default: // 270
				out.Set(y, w-1-x, c)
			}
		}
	}
	return out
}
