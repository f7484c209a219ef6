// Command benchscans measures real drawings sent as images, through the
// partner API of a fresh local server, against their count truth
// (testdata/realtruth, as cmd/realeval reads it; issue 48, item 5):
//
//	go run ./cmd/benchscans -server bin/blueprintd [-out /tmp/bench-scans] [-truth testdata/realtruth] FILE...
//
// A PDF set is sent as the PDF itself ("pdf", the yardstick); each page
// that holds devices (the PDF job's floor plans and every page the truth
// places a device on) rendered at 200 DPI with `mutool draw` (Debian's
// mupdf-tools) and sent alone as a PNG ("png"), as that PNG counted with
// the PDF job's legend (reference_jobs: "png-ref", a plan page sent
// alone with the legend of another job), and as a reproducible
// scan-like JPEG ("scan": synth.ScanCopy, gray, turned 0.5–1.5°, blurred,
// noise, 150 DPI, JPEG 70), their counts summed; and the whole set as one
// PDF of images, the renders as they are ("image-pdf", JPEG quality 95)
// and as scan-like copies ("scanned-pdf"), so that a legend on another
// page than the plans can be read. A raster sheet (PNG or JPEG) is sent
// as it is ("native"). Per set and mode it prints each class's truth and
// count (* where within tolerance: exact below 10, ±1 from 10 to 29, ±5 %
// from 30 up), the within-tolerance share, the share of detections in a
// class the sheet holds, and a page's cost: wall seconds, CPU seconds
// (the server's and the programs it ran for the job, such as the OCR),
// and the server's peak RSS during a job (VmHWM, reset before each job);
// then the same over every set. A file without a count truth is skipped with a message.
// -modes runs some of the modes only (the PDF job always: it is the
// yardstick and png-ref's reference).
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
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"blueprint/internal/apiclient"
	"blueprint/internal/eval/realset"
	"blueprint/internal/synth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "benchscans:", err)
		os.Exit(1)
	}
}

// modes are the forms each set is sent in; a PDF set is sent as "pdf" too,
// the yardstick the image forms are read against. A raster sheet (a PNG
// or JPEG file) is sent once, as "native".
var modes = []string{"pdf", "png", "png-ref", "scan", "image-pdf", "scanned-pdf", "native"}

func run() error {
	server := flag.String("server", "bin/blueprintd", "blueprintd binary")
	out := flag.String("out", filepath.Join(os.TempDir(), "bench-scans"), "directory for the renders (outside the repository)")
	mutool := flag.String("mutool", "mutool", "mutool binary for the renders")
	truthDir := flag.String("truth", "testdata/realtruth", "folder of the count-truth fixtures (cmd/realeval's)")
	only := flag.String("modes", "", "comma-separated modes to run (default: all); a PDF set always runs \"pdf\", the yardstick and png-ref's reference")
	flag.Parse()
	run := map[string]bool{"pdf": true, "native": true}
	for _, m := range strings.Split(*only, ",") {
		if m = strings.TrimSpace(m); m == "" {
			continue
		}
		if !slices.Contains(modes, m) {
			return fmt.Errorf("-modes: no mode %q (%s)", m, strings.Join(modes, ", "))
		}
		run[m] = true
	}
	if *only == "" {
		for _, m := range modes {
			run[m] = true
		}
	}
	files := flag.Args()
	if len(files) == 0 {
		return errors.New("no drawings given")
	}
	truths, err := realset.LoadTruths(*truthDir)
	if err != nil {
		return err
	}
	byFile := map[string]realset.Truth{}
	for _, t := range truths {
		byFile[t.File] = t
	}
	mt, err := exec.LookPath(*mutool)
	if err != nil {
		return fmt.Errorf("mutool is needed to render the pages (apt-get install mupdf-tools): %w", err)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Hour)
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
		t, ok := byFile[filepath.Base(f)]
		if !ok {
			fmt.Printf("\n%s: skipped: no count truth in %s\n", filepath.Base(f), *truthDir)
			continue
		}
		if err := benchFile(ctx, srv, mt, *out, f, t, total, run); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
	}
	fmt.Println()
	for _, m := range modes {
		if total[m].sets > 0 {
			fmt.Printf("all sets, %-12s %s\n", m+":", total[m])
		}
	}
	return nil
}

// tally sums one mode's scores against the count truth: (set, class)
// counts within tolerance, detections in a class the sheet holds, and the
// seconds and pages of its jobs.
type tally struct {
	sets, scored, within int
	inClass, detections  int
	seconds, cpu         float64
	pages                int
	peakMiB              float64 // the most one job held
}

// add scores one set's counts in one mode against t.
func (tl *tally) add(t realset.Truth, r modeRun) realset.SetResult {
	counts := r.counts
	res := realset.Score(t, counts)
	tl.sets++
	tl.scored += res.Scored
	tl.within += res.WithinN
	for c, n := range counts {
		tl.detections += n
		if onSheet(t, c) {
			tl.inClass += n
		}
	}
	tl.seconds += r.seconds
	tl.cpu += r.cpu
	tl.pages += r.pages
	tl.peakMiB = max(tl.peakMiB, r.peakMiB)
	return res
}

// onSheet says whether the sheet holds class c by its truth: a class
// counted above zero, or one the truth leaves unscored (there, but not
// counted well enough to judge).
func onSheet(t realset.Truth, c string) bool {
	if _, ok := t.Unscored[c]; ok {
		return true
	}
	return t.Classes[c].Count > 0
}

func (tl *tally) String() string {
	if tl.scored == 0 {
		return "nothing scored"
	}
	s := fmt.Sprintf("%d of %d (set, class) counts within tolerance (%.0f %%)", tl.within, tl.scored, 100*float64(tl.within)/float64(tl.scored))
	if tl.detections > 0 {
		s += fmt.Sprintf(", %.0f %% of %d detections in a class the sheet holds", 100*float64(tl.inClass)/float64(tl.detections), tl.detections)
	} else {
		s += ", no detections"
	}
	if tl.pages > 0 {
		s += fmt.Sprintf(", %.1f s and %.1f CPU s a page, peak %.0f MiB", tl.seconds/float64(tl.pages), tl.cpu/float64(tl.pages), tl.peakMiB)
	}
	return s
}

// cleanJPEG is the JPEG quality of the set's renders sent as a PDF of
// images: close to the renders, a tenth of their size as PNG.
const cleanJPEG = 95

// modeRun is one mode's counts, summed over the pages that hold devices.
type modeRun struct {
	counts       map[string]int
	seconds, cpu float64
	pages        int
	peakMiB      float64 // the most one of its jobs held
}

// measured sends one job and measures it: the server's peak RSS (VmHWM)
// is reset before it and read after, its CPU and its waited-for
// children's (the OCR program) read around it.
func measured(ctx context.Context, srv *apiclient.Server, name string, data []byte, refs ...string) (apiclient.Job, modeRun, error) {
	pid := srv.PID()
	if err := apiclient.ResetPeakRSS(pid); err != nil {
		return apiclient.Job{}, modeRun{}, err
	}
	var cpu0 float64
	j, err := srv.Run(ctx, name, data, apiclient.RunOptions{Counts: true, References: refs, BeforeStart: func() {
		cpu0 = apiclient.ProcCPU(pid) + apiclient.ProcChildrenCPU(pid)
	}})
	if err != nil {
		return j, modeRun{}, err
	}
	return j, modeRun{
		counts:  sumPages(j.Pages),
		seconds: j.Seconds,
		cpu:     apiclient.ProcCPU(pid) + apiclient.ProcChildrenCPU(pid) - cpu0,
		pages:   j.PageCount,
		peakMiB: float64(apiclient.ProcStatusKB(pid, "VmHWM")) / 1024,
	}, nil
}

func benchFile(ctx context.Context, srv *apiclient.Server, mt, out, file string, t realset.Truth, total map[string]*tally, run map[string]bool) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	runs := map[string]modeRun{}
	if strings.EqualFold(filepath.Ext(file), ".pdf") {
		if err := benchPDF(ctx, srv, mt, out, file, data, t, runs, run); err != nil {
			return err
		}
	} else {
		_, r, err := measured(ctx, srv, file, data)
		if err != nil {
			return fmt.Errorf("native job: %w", err)
		}
		runs["native"] = r
	}
	var here []string
	for _, m := range modes {
		if _, ok := runs[m]; ok {
			here = append(here, m)
		}
	}
	results := map[string]realset.SetResult{}
	for _, m := range here {
		results[m] = total[m].add(t, runs[m])
	}
	fmt.Printf("\n%s\n%-28s %6s", t.File, "class", "truth")
	for _, m := range here {
		fmt.Printf(" %11s", m)
	}
	fmt.Println()
	// Each mode scores the classes of the truth and those it counted: a
	// row per class any mode has, found by name in each.
	byClass := map[string]map[string]realset.ClassResult{}
	for _, m := range here {
		for _, c := range results[m].Classes {
			if byClass[c.Class] == nil {
				byClass[c.Class] = map[string]realset.ClassResult{}
			}
			byClass[c.Class][m] = c
		}
	}
	for _, class := range slices.Sorted(maps.Keys(byClass)) {
		var truth string
		for _, m := range here {
			if c, ok := byClass[class][m]; ok {
				truth = truthCell(c)
				break
			}
		}
		fmt.Printf("%-28s %6s", class, truth)
		for _, m := range here {
			c, ok := byClass[class][m]
			cell := "0"
			if ok {
				cell = fmt.Sprint(c.Counted)
				if c.Within != nil && *c.Within {
					cell += "*"
				}
			}
			fmt.Printf(" %11s", cell)
		}
		fmt.Println()
	}
	for _, m := range here {
		one := &tally{}
		one.add(t, runs[m])
		fmt.Printf("  %-12s %s\n", m+":", one)
	}
	return nil
}

// truthCell is a class's truth as the table shows it: "-" where unscored.
func truthCell(c realset.ClassResult) string {
	if c.Unscored != "" {
		return "-"
	}
	return fmt.Sprint(c.Truth)
}

// benchPDF runs a PDF set in every form: the PDF itself, each page that
// holds devices rendered at 200 DPI and sent alone as a PNG and as a
// scan-like JPEG (synth.ScanCopy: gray, turned 0.5–1.5°, blurred, noise,
// 150 DPI, JPEG 70), and the whole set as one PDF of images, clean and
// scan-like (a legend on another page than the plans is there to read).
// The pages sent alone are the PDF job's floor plans and every page the
// truth places a device on.
func benchPDF(ctx context.Context, srv *apiclient.Server, mt, out, file string, data []byte, t realset.Truth, runs map[string]modeRun, run map[string]bool) error {
	pdfJob, pdfRun, err := measured(ctx, srv, file, data)
	if err != nil {
		return fmt.Errorf("PDF job: %w", err)
	}
	runs["pdf"] = pdfRun
	plans := truthPages(t)
	for _, p := range pdfJob.Pages {
		if p.Kind == "floor_plan" {
			plans[p.Index] = true
		}
	}
	if len(plans) == 0 {
		return errors.New("neither the PDF job nor the truth names a plan page")
	}
	dir := filepath.Join(out, strings.TrimSuffix(filepath.Base(file), filepath.Ext(file)))
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
		if run["scan"] || run["scanned-pdf"] {
			if scans[i], err = synth.ScanCopy(img, uint64(i+1)); err != nil {
				return err
			}
		}
		if run["image-pdf"] {
			var b bytes.Buffer
			if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: cleanJPEG}); err != nil {
				return fmt.Errorf("page %d as JPEG: %w", i+1, err)
			}
			clean[i] = b.Bytes()
		}
	}
	setJob := func(name string, images [][]byte) (modeRun, error) {
		pages := make([]synth.JPEGPage, len(images))
		for i := range images {
			pages[i] = synth.JPEGPage{Data: images[i], WidthPt: float64(sizes[i].X) * 72 / 200, HeightPt: float64(sizes[i].Y) * 72 / 200}
		}
		data, err := synth.JPEGPagesPDF(pages)
		if err != nil {
			return modeRun{}, err
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return modeRun{}, err
		}
		_, r, err := measured(ctx, srv, path, data)
		if err != nil {
			return modeRun{}, fmt.Errorf("%s job: %w", name, err)
		}
		return r, nil
	}
	if run["image-pdf"] {
		if runs["image-pdf"], err = setJob("images.pdf", clean); err != nil {
			return err
		}
	}
	if run["scanned-pdf"] {
		if runs["scanned-pdf"], err = setJob("scanned.pdf", scans); err != nil {
			return err
		}
	}
	png, ref, scan := modeRun{counts: map[string]int{}}, modeRun{counts: map[string]int{}}, modeRun{counts: map[string]int{}}
	for _, i := range slices.Sorted(maps.Keys(plans)) {
		if i < 0 || i >= pdfJob.PageCount {
			return fmt.Errorf("the truth places devices on page %d of a %d-page set", i+1, pdfJob.PageCount)
		}
		pngPath := filepath.Join(dir, fmt.Sprintf("page-%d.png", i+1))
		pngData, err := os.ReadFile(pngPath)
		if err != nil {
			return err
		}
		if run["png"] {
			_, pngRun, err := measured(ctx, srv, pngPath, pngData)
			if err != nil {
				return fmt.Errorf("page %d as PNG: %w", i+1, err)
			}
			png.add(pngRun)
		}
		if run["png-ref"] {
			_, refRun, err := measured(ctx, srv, pngPath, pngData, pdfJob.ID)
			if err != nil {
				return fmt.Errorf("page %d as PNG with the PDF job as reference: %w", i+1, err)
			}
			ref.add(refRun)
		}
		if run["scan"] {
			_, scanRun, err := measured(ctx, srv, fmt.Sprintf("scan-%d.jpg", i+1), scans[i])
			if err != nil {
				return fmt.Errorf("page %d as scan: %w", i+1, err)
			}
			scan.add(scanRun)
		}
	}
	for m, r := range map[string]modeRun{"png": png, "png-ref": ref, "scan": scan} {
		if run[m] {
			runs[m] = r
		}
	}
	return nil
}

// add sums a one-page job's run into r.
func (r *modeRun) add(j modeRun) {
	for c, n := range j.counts {
		r.counts[c] += n
	}
	r.seconds += j.seconds
	r.cpu += j.cpu
	r.pages += j.pages
	r.peakMiB = max(r.peakMiB, j.peakMiB)
}

// sumPages sums the pages' counts by class.
func sumPages(pages []apiclient.Page) map[string]int {
	out := map[string]int{}
	for _, p := range pages {
		for c, n := range p.Counts {
			out[c] += n
		}
	}
	return out
}

// truthPages returns the 0-based pages the truth places a device on (by
// per-page counts or positions, whose pages are 1-based).
func truthPages(t realset.Truth) map[int]bool {
	out := map[int]bool{}
	for _, c := range t.Classes {
		for k, n := range c.PerPage {
			var p int
			if _, err := fmt.Sscan(k, &p); err == nil && n > 0 {
				out[p-1] = true
			}
		}
		for _, pos := range c.Positions {
			if len(pos) > 0 {
				out[int(pos[0])-1] = true
			}
		}
	}
	return out
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
