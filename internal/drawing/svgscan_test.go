package drawing

import (
	"strings"
	"testing"
)

func TestSVGScanner(t *testing.T) {
	doc := `<?xml version="1.0"?><!-- c --><!DOCTYPE svg><svg xmlns:xlink="x" width="10">` +
		`<use data-text="&amp;&lt;&#65;&#x42;&" xlink:href='#f'/><g a = "1" >text</g></svg>`
	sc := svgScanner{b: []byte(doc)}
	var got []string
	for {
		ok, err := sc.next()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		e := sc.el
		s := e.name
		if e.end {
			s = "/" + s
		}
		for _, a := range e.attrs {
			s += " " + a.name + "=" + a.value
		}
		if e.selfClosing {
			s += " /"
		}
		got = append(got, s)
	}
	want := "svg xlink=x width=10|use data-text=&<AB& href=#f /|g a=1|/g|/svg"
	if g := strings.Join(got, "|"); g != want {
		t.Errorf("got  %s\nwant %s", g, want)
	}
	for _, bad := range []string{"<svg", `<svg a="1`, "<svg a=1>", "<!-- x"} {
		sc := svgScanner{b: []byte(bad)}
		var err error
		for ok := true; ok && err == nil; ok, err = sc.next() {
		}
		if err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestExtractNeedsPageSize: an SVG whose <svg> element has no readable size
// is an error, not an empty page on which nothing can be found.
func TestExtractNeedsPageSize(t *testing.T) {
	ok := `<svg width="100pt" height="50pt"><path d="M0 0L10 10" stroke="#000000"/></svg>`
	pg, err := FromSVG(t.Context(), []byte(ok), pxPerPt)
	if err != nil || pg.Width != 100*pxPerPt || pg.Height != 50*pxPerPt {
		t.Fatalf("page %+v, %v", pg, err)
	}
	for _, bad := range []string{`<svg width="100pt"></svg>`, `<svg width="wide" height="50"></svg>`} {
		if _, err := FromSVG(t.Context(), []byte(bad), pxPerPt); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
