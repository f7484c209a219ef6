// Command synth writes synthetic construction drawings with ground truth:
//
//	go run ./cmd/synth -out DIR -n SHEETS -seed N -kind vector|raster|legend|scan-legend [-max-paper A3] [-max-dpi 150]
//
// Each sheet is "sheet-NNNNN.pdf" (vector), "scan-NNNNN.png|jpg" (raster),
// "legend-NNNNN.pdf" (legend) or "scanlegend-NNNNN.pdf" (scan-legend: legend
// set NNNNN of the same seed as a PDF of scanned page images)
// with "<stem>.json" beside it in the shared dataset format. The same seed
// gives the same files; raster sheet i is a degraded rendering of vector
// sheet i of the same seed.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"time"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/synth"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "synth:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "", "output directory (required)")
	n := flag.Int("n", 10, "number of sheets")
	first := flag.Int("first", 0, "index of the first sheet to write: extends a set of that many sheets of the same seed to -n")
	seed := flag.Uint64("seed", 1, "random seed")
	kindFlag := flag.String("kind", "vector", "vector, raster, legend or scan-legend")
	maxPaper := flag.String("max-paper", "", "largest paper size, A4..A0 (default: all)")
	maxDPI := flag.Int("max-dpi", 0, "highest raster resolution, 150..300 (default 300)")
	catalogFile := flag.String("catalog", os.Getenv(config.EnvCatalogFile), "catalog override file")
	flag.Parse()
	if *out == "" || *n < 0 {
		flag.Usage()
		return fmt.Errorf("-out is required and -n must be >= 0")
	}
	kind, err := synth.ParseKind(*kindFlag)
	if err != nil {
		return err
	}
	cat, err := catalog.Load(*catalogFile)
	if err != nil {
		return fmt.Errorf("load catalog: %w", err)
	}
	g, err := synth.New(synth.FromCatalog(cat))
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	start := time.Now()
	if err := g.Run(ctx, *out, *n, *seed, kind, synth.Options{MaxPaper: *maxPaper, MaxDPI: *maxDPI, First: *first}); err != nil {
		return err
	}
	fmt.Printf("wrote %d %s sheets to %s in %.1fs\n", *n-*first, kind, *out, time.Since(start).Seconds())
	return nil
}
