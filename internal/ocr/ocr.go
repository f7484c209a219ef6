// Package ocr reads printed text from page images with Tesseract's
// command-line program (Debian's tesseract-ocr, with its English and
// Finnish data): the words with their boxes and confidences, grouped into
// lines. Why Tesseract, and why its program rather than a cgo binding, is
// in docs/decisions.md ("Reading text on images").
//
// Each call runs one tesseract process on one image (sent as PNG on its
// standard input), so a crash or a hang on a hostile image ends that
// process, not the service; the context's end kills it.
package ocr

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Default languages read: English and Finnish (the catalog's languages).
const DefaultLanguages = "eng+fin"

// ErrUnavailable is the error of New when the tesseract program or its
// language data cannot be found.
var ErrUnavailable = errors.New("ocr: tesseract is not available")

// Reader runs tesseract. The zero value is not usable: use New.
type Reader struct {
	path  string
	langs string
}

// New returns a Reader running the tesseract program at path (a name
// looked up on PATH, such as "tesseract", or a file) with the languages
// langs ("eng+fin" when empty). It checks that the program runs and has
// every language's data, and fails wrapping ErrUnavailable, saying what
// is missing, when not.
func New(ctx context.Context, path, langs string) (*Reader, error) {
	if langs == "" {
		langs = DefaultLanguages
	}
	exe, err := exec.LookPath(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %q not found (Debian: apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-fin): %v", ErrUnavailable, path, err)
	}
	out, err := exec.CommandContext(ctx, exe, "--list-langs").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%w: %s --list-langs: %v: %s", ErrUnavailable, exe, err, bytes.TrimSpace(out))
	}
	have := map[string]bool{}
	for _, l := range strings.Fields(string(out)) {
		have[l] = true
	}
	for _, l := range strings.Split(langs, "+") {
		if !have[l] {
			return nil, fmt.Errorf("%w: %s has no %q language data (Debian: apt-get install tesseract-ocr-%s)", ErrUnavailable, exe, l, l)
		}
	}
	return &Reader{path: exe, langs: langs}, nil
}

// Path returns the program the Reader runs.
func (r *Reader) Path() string { return r.path }

// Open returns the Reader a deployment's settings ask for (config's
// BLUEPRINT_IMAGE_LEGENDS and BLUEPRINT_OCR): none when use is false or
// setting is "off"; for "" tesseract from PATH when it is installed with
// the default languages, none when not; otherwise the program named, which
// must run with the default languages (an error wrapping ErrUnavailable
// when it does not). None is a nil Reader and a nil error.
func Open(ctx context.Context, use bool, setting string) (*Reader, error) {
	switch {
	case !use || setting == "off":
		return nil, nil
	case setting == "":
		r, err := New(ctx, "tesseract", "")
		if errors.Is(err, ErrUnavailable) {
			return nil, nil
		}
		return r, err
	}
	return New(ctx, setting, "")
}

// Word is one word read, with its box in the image's pixels.
type Word struct {
	Text string
	Box  image.Rectangle
	// Conf is tesseract's confidence, 0..100.
	Conf float64
}

// Line is a line of words, in reading order, as tesseract's layout
// analysis groups them.
type Line struct {
	Words []Word
	Box   image.Rectangle // the union of the words' boxes
}

// Text returns the line's words joined by spaces.
func (l Line) Text() string {
	ws := make([]string, len(l.Words))
	for i, w := range l.Words {
		ws[i] = w.Text
	}
	return strings.Join(ws, " ")
}

// Mode is tesseract's page segmentation mode.
type Mode int

// Page segmentation modes used on drawings.
const (
	// Sparse finds as much text as it can in no particular order: labels
	// scattered over a drawing, the cells of a table (tesseract's psm 11).
	Sparse Mode = 11
	// Block reads a uniform block of text, such as one legend row's
	// description cut out of the page (psm 6).
	Block Mode = 6
	// SingleLine reads the image as one line of text (psm 7).
	SingleLine Mode = 7
)

// Lines reads the text of img in mode and returns its lines, each with
// at least one word. Words tesseract reads as empty are dropped. Boxes
// are in img's coordinates (its Bounds().Min included).
func (r *Reader) Lines(ctx context.Context, img image.Image, mode Mode) ([]Line, error) {
	var in bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&in, img); err != nil {
		return nil, fmt.Errorf("ocr: encode image: %w", err)
	}
	cmd := exec.CommandContext(ctx, r.path, "stdin", "stdout", "-l", r.langs, "--psm", strconv.Itoa(int(mode)), "tsv")
	// One thread a process: the service runs pages in parallel already.
	cmd.Env = append(os.Environ(), "OMP_THREAD_LIMIT=1")
	cmd.Stdin = &in
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("ocr: tesseract: %w", ctx.Err())
		}
		return nil, fmt.Errorf("ocr: tesseract: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	lines, err := parseTSV(&out)
	if err != nil {
		return nil, err
	}
	min := img.Bounds().Min
	for i := range lines {
		for j := range lines[i].Words {
			lines[i].Words[j].Box = lines[i].Words[j].Box.Add(min)
		}
		lines[i].Box = lines[i].Box.Add(min)
	}
	return lines, nil
}

// parseTSV reads tesseract's TSV output (level, page, block, paragraph,
// line and word numbers, left, top, width, height, confidence, text) into
// lines of words.
func parseTSV(r *bytes.Buffer) ([]Line, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	var lines []Line
	index := map[[4]int]int{}
	first := true
	for sc.Scan() {
		if first { // the header
			first = false
			continue
		}
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 12 || f[0] != "5" {
			continue
		}
		var n [10]int
		for i := range 10 {
			v, err := strconv.Atoi(f[i])
			if err != nil {
				return nil, fmt.Errorf("ocr: tesseract TSV field %d %q: %w", i+1, f[i], err)
			}
			n[i] = v
		}
		conf, err := strconv.ParseFloat(f[10], 64)
		if err != nil {
			return nil, fmt.Errorf("ocr: tesseract TSV confidence %q: %w", f[10], err)
		}
		text := strings.TrimSpace(strings.Join(f[11:], "\t"))
		if text == "" {
			continue
		}
		w := Word{Text: text, Box: image.Rect(n[6], n[7], n[6]+n[8], n[7]+n[9]), Conf: conf}
		key := [4]int{n[1], n[2], n[3], n[4]}
		i, ok := index[key]
		if !ok {
			i = len(lines)
			index[key] = i
			lines = append(lines, Line{Box: w.Box})
		}
		lines[i].Words = append(lines[i].Words, w)
		lines[i].Box = lines[i].Box.Union(w.Box)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ocr: read tesseract output: %w", err)
	}
	return lines, nil
}
