package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/apitest"
	"blueprint/internal/boltstore"
	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/export"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/ocr"
	"blueprint/internal/openapi"
	"blueprint/internal/raster"
	"blueprint/internal/raster/rastertest"
	"blueprint/internal/runner"
	"blueprint/internal/signing"
)

// realData is the folder of the real drawing sets, beside the
// repository; absent on most machines.
const realData = "../../../shared/realdata"

// api is the local service, wired as blueprintd wires it (store and
// blobs on disk, the production engine opened lazily, the HTTP API, the
// runner), in this test process, configured by vars as blueprintd is by
// its environment.
func api(t *testing.T, vars map[string]string) (*apitest.Client, string) {
	t.Helper()
	cfg, err := config.Load(func(k string) string { return vars[k] })
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cat, err := catalog.Load(cfg.CatalogFile)
	if err != nil {
		t.Fatal(err)
	}
	// As blueprintd: words drawn as outlines are read wherever tesseract is.
	outlines, err := ocr.Open(context.Background(), true, cfg.Raster.OCR)
	if err != nil {
		t.Fatal(err)
	}
	eng, err := engine.New(cat, engine.Options{RasterOff: cfg.Raster.Off, Raster: raster.Config{Library: cfg.Raster.Library}, LazyRaster: true, Outlines: outlines})
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := localblob.New(filepath.Join(dir, "blobs"))
	if err != nil {
		t.Fatal(err)
	}
	store, err := boltstore.Open(filepath.Join(dir, "blueprint.db"))
	if err != nil {
		t.Fatal(err)
	}
	signer, err := signing.LoadOrCreate(dir)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := apikey.NewKeyring(apitest.Keys())
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(nil)
	base := "http://" + srv.Listener.Addr().String()
	log := slog.New(slog.DiscardHandler)
	r := runner.New(store, runner.Options{Poll: 20 * time.Millisecond, SweepEvery: time.Hour, Logger: log})
	links := httpapi.NewLocalLinks(base, signer)
	svc, err := job.NewService(job.Config{Store: store, Blobs: blobs, Flow: r, Catalog: cat, Links: links,
		Files: docfiles.ForConfig(cfg), Engine: eng, LazyPageImages: true, Logger: log,
		WebhookSecret: func(string) ([]byte, bool) { return nil, false }})
	if err != nil {
		t.Fatal(err)
	}
	srv.Config.Handler = httpapi.New(httpapi.Config{Service: svc, Keys: keys, Links: links, Catalog: cat, OpenAPI: openapi.Document(), Logger: log})
	srv.Start()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = r.Run(ctx, svc)
	}()
	t.Cleanup(func() {
		srv.Close()
		cancel()
		<-done
		store.Close()
	})
	return apitest.NewClient(t, base), base
}

// apiTakeoff runs the file at path as a job of c and returns the poll of
// the done job, its takeoff.csv and its legend-check.csv.
func apiTakeoff(t *testing.T, c *apitest.Client, path string) (map[string]any, string, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	created := c.InitJob(apitest.KeyA, map[string]any{"file_name": filepath.Base(path), "mime_type": job.MimePDF, "size": len(data)})
	id := created["job_id"].(string)
	if r := c.PutUpload(created, data, job.MimePDF); r.Status != 200 {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	if r := c.Do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	poll := c.WaitStatus(apitest.KeyA, id, "done", "failed")
	if poll["status"] != "done" {
		t.Fatalf("job %s: %v", poll["status"], poll["error"])
	}
	r := c.Do("GET", "/v1/jobs/"+id+"/takeoff.csv", apitest.KeyA, nil, nil)
	if r.Status != 200 {
		t.Fatalf("takeoff.csv: %d %s", r.Status, r.Body)
	}
	lr := c.Do("GET", "/v1/jobs/"+id+"/legend-check.csv", apitest.KeyA, nil, nil)
	if lr.Status != 200 {
		t.Fatalf("legend-check.csv: %d %s", lr.Status, lr.Body)
	}
	return poll, string(r.Body), string(lr.Body)
}

// counts are what a take-off counts: per class, per legend row (page,
// description, class, printed quantity, detected) and each page's kind.
type counts struct {
	Classes map[string]int
	Total   int
	Legend  []string
	Kinds   []string
}

// countsOf reads counts from a JSON object of the poll's shape (the
// API's done view, or one file of takeoff --json).
func countsOf(t *testing.T, v any) counts {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Summary job.Summary      `json:"summary"`
		Legend  []job.LegendView `json:"legend"`
		Pages   []struct {
			Kind string `json:"kind"`
		} `json:"pages"`
	}
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	c := counts{Classes: map[string]int{}, Total: d.Summary.TotalDetections}
	for _, s := range d.Summary.BySymbol {
		c.Classes[s.Class] = s.Count
	}
	for _, r := range d.Legend {
		b, _ := json.Marshal(r)
		c.Legend = append(c.Legend, string(b))
	}
	for _, p := range d.Pages {
		c.Kinds = append(c.Kinds, p.Kind)
	}
	return c
}

// cliTakeoff runs blueprint takeoff --json on one file and returns its
// take-off.
func cliTakeoff(t *testing.T, vars map[string]string, path string) counts {
	t.Helper()
	code, stdout, stderr := cli(t, vars, "takeoff", "--json", path)
	if code != exitOK {
		t.Fatalf("takeoff %s: exit %d: %s", path, code, stderr)
	}
	var out []map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 {
		t.Fatalf("takeoff --json: %v, %d files:\n%s", err, len(out), stdout)
	}
	return countsOf(t, out[0])
}

// withRaster returns vars with the raster detector on, ONNX Runtime where
// rastertest finds it (the test is skipped without it).
func withRaster(t *testing.T) map[string]string {
	return map[string]string{config.EnvOnnxRuntimeLib: rastertest.Library(t)}
}

// TestTakeoffEqualsAPI: on a generated drawing set (a legend on page 2),
// takeoff counts what a job of the local service counts, class by class
// and legend row by legend row, and its --csv is the API's takeoff.csv
// byte for byte; with the raster detector off (always run) and on (where
// ONNX Runtime is found).
func TestTakeoffEqualsAPI(t *testing.T) {
	sheet := filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")
	for _, c := range []struct {
		name string
		vars func(t *testing.T) map[string]string
	}{
		{"raster off", func(*testing.T) map[string]string { return rasterOff }},
		{"raster on", withRaster},
	} {
		t.Run(c.name, func(t *testing.T) {
			vars := c.vars(t)
			client, _ := api(t, vars)
			poll, csv, legendCSV := apiTakeoff(t, client, sheet)
			want := countsOf(t, poll)
			if got := cliTakeoff(t, vars, sheet); !reflect.DeepEqual(got, want) {
				t.Errorf("takeoff:\n%+v\nthe API:\n%+v", got, want)
			}
			if want.Total == 0 || len(want.Legend) == 0 {
				t.Errorf("the API counted %d symbols and %d legend rows; the test wants a drawing with both", want.Total, len(want.Legend))
			}
			code, stdout, stderr := cli(t, vars, "takeoff", "--csv", sheet)
			if code != exitOK || stdout != csv {
				t.Errorf("takeoff --csv: exit %d %s\n%q\nthe API's takeoff.csv:\n%q", code, stderr, stdout, csv)
			}
			code, stdout, stderr = cli(t, vars, "takeoff", "--legend-csv", sheet)
			if code != exitOK || stdout != legendCSV {
				t.Errorf("takeoff --legend-csv: exit %d %s\n%q\nthe API's legend-check.csv:\n%q", code, stderr, stdout, legendCSV)
			}
			checkLegendCSV(t, poll, legendCSV)
			// --confidence is the API's ?confidence=.
			flat := client.Do("GET", "/v1/jobs/"+poll["job_id"].(string)+"?confidence=0.1", apitest.KeyA, nil, nil).JSON(t)
			code, stdout, stderr = cli(t, vars, "takeoff", "--json", "--confidence", "0.1", sheet)
			var out []map[string]any
			if err := json.Unmarshal([]byte(stdout), &out); code != exitOK || err != nil || len(out) != 1 {
				t.Fatalf("takeoff --confidence: exit %d %s %v", code, stderr, err)
			}
			if got, want := countsOf(t, out[0]), countsOf(t, flat); !reflect.DeepEqual(got, want) || got.Total == countsOf(t, poll).Total {
				t.Errorf("takeoff --confidence 0.1:\n%+v\nthe API's ?confidence=0.1:\n%+v\n(want other than the %d by default)", got, want, countsOf(t, poll).Total)
			}
		})
	}
}

// checkLegendCSV checks the legend check's CSV against the poll's legend:
// one row per legend row, in order, with its page, description, class,
// printed quantity, detected and their difference.
func checkLegendCSV(t *testing.T, poll map[string]any, body string) {
	t.Helper()
	rows, err := csv.NewReader(strings.NewReader(body)).ReadAll()
	if err != nil || len(rows) == 0 || !slices.Equal(rows[0], export.LegendCSVHeader) {
		t.Fatalf("legend-check.csv: %v %q", err, rows)
	}
	legend := poll["legend"].([]any)
	if len(rows)-1 != len(legend) {
		t.Fatalf("legend-check.csv has %d rows, the poll %d legend rows", len(rows)-1, len(legend))
	}
	for i, l := range legend {
		m := l.(map[string]any)
		class, _ := m["class"].(string)
		printed, diff := "", ""
		if q, ok := m["printed_quantity"].(float64); ok {
			printed, diff = strconv.Itoa(int(q)), strconv.Itoa(int(m["detected"].(float64))-int(q))
		}
		want := []string{strconv.Itoa(int(m["page_index"].(float64))), export.Safe(m["description"].(string)), class,
			printed, strconv.Itoa(int(m["detected"].(float64))), diff}
		row := rows[i+1]
		if got := []string{row[0], row[1], row[2], row[6], row[7], row[8]}; !slices.Equal(got, want) || row[4] != "" || row[5] != "" {
			t.Errorf("legend row %d %q, want %q (tag and part number empty)", i, row, want)
		}
	}
}

// realDataBudget bounds TestTakeoffEqualsAPIRealData: no set is begun past
// it, so the package stays within go test's timeout as the real sets grow.
const realDataBudget = 4 * time.Minute

// TestTakeoffEqualsAPIRealData: on each real drawing set, takeoff counts
// what a job of the local service counts. The raster detector is on on
// both sides, as in production: it costs about a fifth more time here (3 s
// against 2.5 s a set on the 2-core development machine), not half.
func TestTakeoffEqualsAPIRealData(t *testing.T) {
	sets, _ := filepath.Glob(filepath.Join(realData, "*.pdf"))
	if len(sets) == 0 {
		t.Skipf("no real drawing sets in %s (they are kept beside the repository, not in it)", realData)
	}
	vars := withRaster(t)
	client, _ := api(t, vars)
	start := time.Now()
	for k, path := range sets {
		if spent := time.Since(start); spent > realDataBudget {
			// Sheets whose text is drawn as outlines take minutes each on
			// this machine; the sets compared already show both sides run
			// the same code.
			t.Logf("%v spent: %d sets not compared (%s …)", spent.Round(time.Second), len(sets)-k, filepath.Base(path))
			break
		}
		poll, _, _ := apiTakeoff(t, client, path)
		want := countsOf(t, poll)
		got := cliTakeoff(t, vars, path)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: takeoff:\n%+v\nthe API:\n%+v", filepath.Base(path), got, want)
			continue
		}
		t.Logf("%s: %d symbols in %d classes, %d legend rows, the same from takeoff and the API", filepath.Base(path), got.Total, len(got.Classes), len(got.Legend))
	}
}

// TestTakeoffOutputs: the table, a CSV of several files with a file
// column, one workbook per file in a directory, and a file that fails
// among others (reported, the others still counted, exit 1).
func TestTakeoffOutputs(t *testing.T) {
	a := filepath.Join("..", "..", "testdata", "synth", "sheet-00001.pdf")
	b := filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")

	code, stdout, stderr := cli(t, rasterOff, "takeoff", a)
	if code != exitOK || !strings.Contains(stdout, "SYMBOL") || !strings.Contains(stdout, "LEGEND ROW") || stderr != "" {
		t.Errorf("table: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}

	code, stdout, _ = cli(t, rasterOff, "takeoff", "--csv", a, b)
	lines := strings.Split(strings.TrimSpace(stdout), "\r\n")
	if code != exitOK || lines[0] != "file,class,display_name,category,talo2010_code,count,printed_quantity,withheld" ||
		!strings.HasPrefix(lines[1], a+",") || !strings.HasPrefix(lines[len(lines)-1], b+",") {
		t.Errorf("CSV of two files: exit %d:\n%s", code, stdout)
	}

	dir := t.TempDir()
	if code, _, stderr := cli(t, rasterOff, "takeoff", "--xlsx", dir, a, b); code != exitOK {
		t.Fatalf("--xlsx DIR: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"sheet-00001-takeoff.xlsx", "sheet-00003-takeoff.xlsx"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !strings.HasPrefix(string(data), "PK") {
			t.Errorf("%s: %v, %d bytes, want a workbook", name, err, len(data))
		}
	}

	broken := filepath.Join(t.TempDir(), "broken.pdf")
	if err := os.WriteFile(broken, []byte("%PDF-1.7\nnot really"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr = cli(t, rasterOff, "takeoff", "--json", a, broken)
	var out []map[string]any
	if err := json.Unmarshal([]byte(stdout), &out); err != nil || len(out) != 1 || out[0]["file"] != a {
		t.Errorf("JSON with a broken file: %v:\n%s", err, stdout)
	}
	if code != exitFailure || !strings.Contains(stderr, "broken.pdf") || strings.Count(stderr, "\n") != 2 {
		t.Errorf("a broken file among two: exit %d, stderr %q; want 1, a line for it and one of the tally", code, stderr)
	}
}

// TestProgressOnATerminal: the bar is drawn on stderr only when it is a
// terminal, and ends on a cleared line.
func TestProgressOnATerminal(t *testing.T) {
	var stdout, stderr strings.Builder
	e := env{getenv: func(k string) string { return rasterOff[k] }, stdout: &stdout, stderr: &stderr, terminal: true}
	if code := run(context.Background(), []string{"takeoff", "--csv", filepath.Join("..", "..", "testdata", "synth", "sheet-00003.pdf")}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if s := stderr.String(); !strings.Contains(s, "3/3 pages") || !strings.HasSuffix(s, "\r\x1b[K") {
		t.Errorf("stderr on a terminal: %q", s)
	}
	if strings.Contains(stdout.String(), "pages") {
		t.Errorf("progress on stdout: %q", stdout.String())
	}
}

// TestTakeoffTableTags: legend rows that differ only by their tag (one
// glyph, 15CD and 30CD) are told apart in the table by its TAG column.
func TestTakeoffTableTags(t *testing.T) {
	s := func(v string) *string { return &v }
	q := func(n int) *int { return &n }
	res := &result{File: "set.pdf", Done: &job.DoneView{PageCount: 1, Pages: []job.PageView{{Kind: "floor_plan"}}, Legend: []job.LegendView{
		{PageIndex: 0, Description: "HORN/STROBE, WALL", Class: s("sounder_visual"), Tag: s("15CD"), PrintedQuantity: q(4), Detected: 4},
		{PageIndex: 0, Description: "HORN/STROBE, WALL", Class: s("sounder_visual"), Tag: s("30CD"), PrintedQuantity: q(2), Detected: 1},
		{PageIndex: 0, Description: "SMOKE DETECTOR", Class: s("smoke_detector"), Detected: 3},
	}}}
	var b strings.Builder
	if err := writeTables(&b, []*result{res}); err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(b.String(), "\n") {
		if f := strings.Fields(l); len(f) > 0 && (f[0] == "PAGE" || f[0] == "1") {
			rows = append(rows, strings.Join(f, " "))
		}
	}
	want := []string{"PAGE LEGEND ROW TAG CLASS PRINTED DETECTED", "1 HORN/STROBE, WALL 15CD sounder_visual 4 4",
		"1 HORN/STROBE, WALL 30CD sounder_visual 2 1", "1 SMOKE DETECTOR - smoke_detector - 3"}
	if !slices.Equal(rows, want) {
		t.Errorf("legend table:\n%s\nwant rows %q", b.String(), want)
	}
}

// TestTakeoffWithLegend: --legend reads a drawing first and counts every
// file with its legend (the API's reference_jobs): the file's legend then
// lists the lent rows, each naming the legend's job; a --legend that
// cannot be read stops the command before any file is counted.
func TestTakeoffWithLegend(t *testing.T) {
	legend := filepath.Join("..", "..", "testdata", "synth", "sheet-00001.pdf") // draws a legend
	plan := filepath.Join("..", "..", "testdata", "synth", "sheet-00002.pdf")   // draws none
	code, stdout, stderr := cli(t, rasterOff, "takeoff", "--json", "--legend", legend, plan)
	var out []struct {
		File   string           `json:"file"`
		Legend []map[string]any `json:"legend"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); code != exitOK || err != nil || len(out) != 1 || out[0].File != plan {
		t.Fatalf("exit %d, %v, stderr %q:\n%s", code, err, stderr, stdout)
	}
	lent := 0
	for _, r := range out[0].Legend {
		if id, _ := r["reference_job"].(string); id != "" {
			lent++
		}
	}
	if lent == 0 {
		t.Errorf("the plan's legend %v lists no row lent by --legend", out[0].Legend)
	}
	missing := filepath.Join(t.TempDir(), "missing.pdf")
	if code, _, stderr := cli(t, rasterOff, "takeoff", "--legend", missing, plan); code != exitFailure || !strings.Contains(stderr, "--legend") {
		t.Errorf("a missing --legend: exit %d, stderr %q", code, stderr)
	}
}
