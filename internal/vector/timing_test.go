package vector

import (
	"context"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"blueprint/internal/eval/dataset"
)

// TestDevTiming reports the time of the vector work (reading the drawing
// through MuPDF's display list, matching) per page of a generated dataset named by VECTOR_TIMING_DATA, by
// paper size, and the process's peak RSS (a measuring aid; skipped
// otherwise).
func TestDevTiming(t *testing.T) {
	dir := os.Getenv("VECTOR_TIMING_DATA")
	if dir == "" {
		t.Skip("VECTOR_TIMING_DATA not set")
	}
	_, m := loadTemplates(t)
	sheets, _, err := dataset.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	byPaper := map[string][]float64{}
	var all, dense []float64
	for _, truth := range sheets {
		if !strings.HasSuffix(truth.File, ".pdf") {
			continue
		}
		data, err := os.ReadFile(truth.Path)
		if err != nil {
			t.Fatal(err)
		}
		doc := openPDF(t, data)
		for i := 0; i < doc.NumPages(); i++ {
			x := extractPage(t, doc, truth.File, i)
			t0 := time.Now()
			if _, err := m.Match(context.Background(), x.page); err != nil {
				t.Fatal(err)
			}
			s := (x.read + time.Since(t0)).Seconds()
			all = append(all, s)
			byPaper[truth.Paper] = append(byPaper[truth.Paper], s)
			if truth.Paper == "A1" && i < len(truth.Pages) {
				t.Logf("A1 %s page %d: %d symbols, %.3f s", truth.File, i, len(truth.Pages[i].Symbols), s)
			}
			if truth.Paper == "A1" && i < len(truth.Pages) && len(truth.Pages[i].Symbols) >= 250 {
				dense = append(dense, s)
			}
		}
		doc.Close()
	}
	report := func(name string, v []float64) {
		if len(v) == 0 {
			return
		}
		sort.Float64s(v)
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		p := func(q float64) float64 { return v[min(len(v)-1, int(q*float64(len(v))))] }
		t.Logf("%-14s pages %4d  mean %.3f  p50 %.3f  p95 %.3f  max %.3f s", name, len(v), sum/float64(len(v)), p(0.5), p(0.95), v[len(v)-1])
	}
	report("all", all)
	papers := make([]string, 0, len(byPaper))
	for k := range byPaper {
		papers = append(papers, k)
	}
	sort.Strings(papers)
	for _, k := range papers {
		report(k, byPaper[k])
	}
	report("A1 >=250 sym", dense)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err == nil {
		t.Logf("peak RSS %d MiB", ru.Maxrss/1024)
	}
}
