// Command benchscans measures real drawings sent as images against the same
// files sent as PDFs, through the partner API of a fresh local server
// (issue 36, item 5):
//
//	go run ./cmd/benchscans -server bin/blueprintd [-out /tmp/bench-scans] FILE.pdf...
//
// For each PDF it runs the PDF job and takes its plan pages (kind
// floor_plan) and their counts by class. Each plan page is rendered at
// 200 DPI with `mutool draw` (Debian's mupdf-tools) and sent as a PNG job;
// a reproducible scan-like copy (synth.ScanCopy: gray, turned 0.5–1.5°,
// blurred, noise, 150 DPI, JPEG 70) is sent as a JPEG job. Then the whole
// set is sent as a PDF of images twice, the renders as they are (JPEG
// quality 95, "image-pdf") and as scan-like copies ("scanned-pdf"), so
// that a legend on another page than the plans can be read. It prints,
// per page and class, the PDF job's count beside each image job's, and
// the share of (page, class) counts within tolerance of the PDF job's
// (exact below 10, ±1 from 10 to 29, ±5 % from 30 up).
//
// The renders go to -out, outside the repository: renders of the real
// sets must never be committed.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"blueprint/internal/apiclient"
	"blueprint/internal/synth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchscans:", err)
		os.Exit(1)
	}
}

// modes are the image forms each set is sent in, besides the PDF.
var modes = []string{"png", "scan", "image-pdf", "scanned-pdf"}

func run() error {
	server := flag.String("server", "bin/blueprintd", "blueprintd binary")
	out := flag.String("out", filepath.Join(os.TempDir(), "bench-scans"), "directory for the renders (outside the repository)")
	mutool := flag.String("mutool", "mutool", "mutool binary for the renders")
	flag.Parse()
	files := flag.Args()
	if len(files) == 0 {
		return errors.New("no PDFs given")
	}
	mt, err := exec.LookPath(*mutool)
	if err != nil {
		return fmt.Errorf("mutool is needed to render the pages (apt-get install mupdf-tools): %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Hour)
	defer cancel()
	srv, err := apiclient.Start(ctx, *server)
	if err != nil {
		return err
	}
	defer srv.Close()

	total := map[string]*tally{}
	for _, m := range modes {
		total[m] = &tally{}
	}
	for _, f := range files {
		if err := benchFile(ctx, srv, mt, *out, f, total); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	fmt.Println()
	for _, m := range modes {
		fmt.Printf("all files, %-11s %s\n", m+":", total[m])
	}
	return nil
}

// tally counts (page, class) counts within tolerance of the PDF job's.
type tally struct {
	within, classes int
	found, printed  int // detections up to the PDF count, and the PDF count
}

// add counts one (page, class) where the PDF job or the image job found
// something.
func (t *tally) add(pdf, img int) {
	if pdf == 0 && img == 0 {
		return
	}
	t.classes++
	if withinTolerance(img, pdf) {
		t.within++
	}
	t.found += min(img, pdf)
	t.printed += pdf
}

func (t *tally) String() string {
	if t.classes == 0 {
		return "no classes"
	}
	s := fmt.Sprintf("%d of %d class counts within tolerance (%.0f %%)", t.within, t.classes, 100*float64(t.within)/float64(t.classes))
	if t.printed > 0 {
		s += fmt.Sprintf(", %.0f %% of the PDF job's detections matched in number", 100*float64(t.found)/float64(t.printed))
	}
	return s
}

// withinTolerance is the count tolerance of the real-drawing measures:
// exact below 10, ±1 from 10 to 29, ±5 % from 30 up.
func withinTolerance(got, want int) bool {
	d := math.Abs(float64(got - want))
	switch {
	case want < 10:
		return d == 0
	case want < 30:
		return d <= 1
	}
	return d <= 0.05*float64(want)
}

// cleanJPEG is the JPEG quality of the set's renders sent as a PDF of
// images: close to the renders, a tenth of their size as PNG.
const cleanJPEG = 95

func benchFile(ctx context.Context, srv *apiclient.Server, mt, out, file string, total map[string]*tally) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	stem := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	pdfJob, err := srv.Run(ctx, file, data, apiclient.RunOptions{Counts: true})
	if err != nil {
		return fmt.Errorf("PDF job: %w", err)
	}
	var plans []apiclient.Page
	for _, p := range pdfJob.Pages {
		if p.Kind == "floor_plan" {
			plans = append(plans, p)
		}
	}
	if len(plans) == 0 {
		return errors.New("the PDF job found no floor_plan page")
	}
	// Render every page once: the plan pages are sent alone, every page
	// goes into the scanned PDF.
	dir := filepath.Join(out, stem)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, mt, "draw", "-q", "-r", "200", "-o", filepath.Join(dir, "page-%d.png"), file)
	if msg, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("mutool draw: %w: %s", err, msg)
	}
	scans := make([][]byte, pdfJob.PageCount)
	clean := make([][]byte, pdfJob.PageCount)      // the renders as JPEG, quality cleanJPEG
	sizes := make([]image.Point, pdfJob.PageCount) // pixels at 200 DPI
	for i := range scans {
		img, err := readPNG(filepath.Join(dir, fmt.Sprintf("page-%d.png", i+1)))
		if err != nil {
			return err
		}
		sizes[i] = img.Bounds().Size()
		if scans[i], err = synth.ScanCopy(img, uint64(i+1)); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: cleanJPEG}); err != nil {
			return fmt.Errorf("page %d as JPEG: %w", i+1, err)
		}
		clean[i] = b.Bytes()
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("scan-%d.jpg", i+1)), scans[i], 0o644); err != nil {
			return err
		}
	}
	// The whole set as one PDF of images, clean and scan-like: a legend
	// on another page than the plans is there to read.
	setJob := func(name string, images [][]byte) (apiclient.Job, error) {
		pages := make([]synth.JPEGPage, len(images))
		for i := range images {
			pages[i] = synth.JPEGPage{Data: images[i], WidthPt: float64(sizes[i].X) * 72 / 200, HeightPt: float64(sizes[i].Y) * 72 / 200}
		}
		data, err := synth.JPEGPagesPDF(pages)
		if err != nil {
			return apiclient.Job{}, err
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return apiclient.Job{}, err
		}
		job, err := srv.Run(ctx, path, data, apiclient.RunOptions{Counts: true})
		if err != nil {
			return apiclient.Job{}, fmt.Errorf("%s job: %w", name, err)
		}
		return job, nil
	}
	imageJob, err := setJob("images.pdf", clean)
	if err != nil {
		return err
	}
	scannedJob, err := setJob("scanned.pdf", scans)
	if err != nil {
		return err
	}

	fmt.Printf("\n%s: %d pages, PDF job %.1f s, image PDF job %.1f s, scanned PDF job %.1f s\n", filepath.Base(file), pdfJob.PageCount, pdfJob.Seconds, imageJob.Seconds, scannedJob.Seconds)
	fmt.Printf("%4s %-28s %5s %5s %5s %9s %11s\n", "page", "class", "pdf", "png", "scan", "image-pdf", "scanned-pdf")
	file_ := map[string]*tally{}
	for _, m := range modes {
		file_[m] = &tally{}
	}
	for _, p := range plans {
		pngPath := filepath.Join(dir, fmt.Sprintf("page-%d.png", p.Index+1))
		pngData, err := os.ReadFile(pngPath)
		if err != nil {
			return err
		}
		pngJob, err := srv.Run(ctx, pngPath, pngData, apiclient.RunOptions{Counts: true})
		if err != nil {
			return fmt.Errorf("page %d as PNG: %w", p.Index, err)
		}
		scanJob, err := srv.Run(ctx, fmt.Sprintf("scan-%d.jpg", p.Index+1), scans[p.Index], apiclient.RunOptions{Counts: true})
		if err != nil {
			return fmt.Errorf("page %d as scan: %w", p.Index, err)
		}
		got := map[string]map[string]int{
			"png":         pngJob.Pages[0].Counts,
			"scan":        scanJob.Pages[0].Counts,
			"image-pdf":   imageJob.Pages[p.Index].Counts,
			"scanned-pdf": scannedJob.Pages[p.Index].Counts,
		}
		classes := map[string]bool{}
		for _, c := range []map[string]int{p.Counts, got["png"], got["scan"], got["image-pdf"], got["scanned-pdf"]} {
			for k := range c {
				classes[k] = true
			}
		}
		for _, c := range slices.Sorted(maps.Keys(classes)) {
			fmt.Printf("%4d %-28s %5d %5d %5d %9d %11d\n", p.Index, c, p.Counts[c], got["png"][c], got["scan"][c], got["image-pdf"][c], got["scanned-pdf"][c])
			for _, m := range modes {
				file_[m].add(p.Counts[c], got[m][c])
				total[m].add(p.Counts[c], got[m][c])
			}
		}
	}
	for _, m := range modes {
		fmt.Printf("%-13s %s\n", m+":", file_[m])
	}
	return nil
}

func readPNG(path string) (image.Image, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
