package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"blueprint/internal/catalog"
	"blueprint/internal/detect"
	"blueprint/internal/engine"
)

// The review page's tests drive a real headless Chromium against the real
// service. They skip where no Chromium is installed, unless
// BLUEPRINT_REQUIRE_BROWSER=1 (set by .ci/run), where its absence fails.

// envChromium names a browser binary to use instead of the one on PATH.
const envChromium = "BLUEPRINT_CHROMIUM"

// chromium returns the path of the browser, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envChromium); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no Chromium found (Debian: apt-get install chromium, or set " + envChromium + "); the review page's browser tests need one"
	if os.Getenv("BLUEPRINT_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; skipping")
	return ""
}

// browser starts a headless Chromium with a fresh profile whose preferred
// language is lang, and returns a context of its first tab. Everything
// stops when the test ends.
func browser(t *testing.T, lang string) context.Context {
	t.Helper()
	return browserIn(t, lang, t.TempDir())
}

// browserIn is browser with the profile in the directory profile, for
// tests that read what the browser stored once it has exited
// (chromedp.Cancel on the returned context closes it gracefully).
func browserIn(t *testing.T, lang, profile string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true), chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(1440, 900),
		chromedp.Flag("lang", lang), chromedp.Flag("accept-lang", lang),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1440, 900)); err != nil {
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// browse runs browser steps, failing the test on error.
func browse(t *testing.T, ctx context.Context, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page and decodes its value.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// settled waits until the page has finished what it was doing (status
// ready) with the confidence filter conf ("default" or the number), and
// fails with the page's message if it reports an error.
func settled(t *testing.T, ctx context.Context, conf string, timeout time.Duration) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const b = document.body.dataset;
		if (b.status === 'error') return 'error: ' + document.getElementById('message').textContent;
		return b.status === 'ready' && b.confidence === %q ? 'ready' : ''; })()`, conf)
	got, err := chromedp.Run(ctx, chromedp.Poll[string](expr, chromedp.WithPollingTimeout(timeout), chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil || got != "ready" {
		state := eval[string](t, ctx, `JSON.stringify({status: document.body.dataset.status, confidence: document.body.dataset.confidence, message: document.getElementById('message').textContent})`)
		t.Fatalf("page did not settle on confidence %s: %v %q %s", conf, err, got, state)
	}
}

// drawn is what the page shows: the class of every box of the current
// page, the counts it prints and whether each box sits where bbox_norm
// puts it on the page image.
type drawn struct {
	Classes   []string `json:"classes"`
	Total     string   `json:"total"`
	PageCount string   `json:"page_count"`
	// Misplaced counts boxes more than half a screen pixel from where
	// bbox_norm places them on the image.
	Misplaced int `json:"misplaced"`
}

const drawnJS = `(() => {
	const img = document.getElementById('page-image').getBoundingClientRect();
	const boxes = [...document.querySelectorAll('#boxes .box')];
	let misplaced = 0;
	for (const el of boxes) {
		const r = el.getBoundingClientRect(), s = el.style;
		const want = [parseFloat(s.left) / 100 * img.width + img.left, parseFloat(s.top) / 100 * img.height + img.top];
		if (Math.abs(r.left - want[0]) > 0.5 || Math.abs(r.top - want[1]) > 0.5) misplaced++;
	}
	return {classes: boxes.map((b) => b.dataset.class), total: document.getElementById('total-count').textContent,
		page_count: document.getElementById('page-count').textContent, misplaced};
})()`

// apiPage is the classes and confidences of a page's detections under a
// query, read from the API, in the API's order.
func apiPage(t *testing.T, e *testEnv, id string, page int, query string) (classes []string, confidences []float64) {
	t.Helper()
	r := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?limit=2000&%s", id, page, query), keyA, nil, nil)
	var pd struct {
		Total      int `json:"total"`
		Detections []struct {
			Class      string  `json:"class"`
			Confidence float64 `json:"confidence"`
		} `json:"detections"`
	}
	if err := json.Unmarshal(r.Body, &pd); err != nil || len(pd.Detections) != pd.Total {
		t.Fatalf("page %d: %v %s", page, err, r.Body)
	}
	for _, d := range pd.Detections {
		classes = append(classes, d.Class)
		confidences = append(confidences, d.Confidence)
	}
	return classes, confidences
}

// processFile drives a PDF of testdata/synth to done for keyA.
func processFile(t *testing.T, e *testEnv, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "synth", name))
	if err != nil {
		t.Fatal(err)
	}
	return processPDF(t, e, keyA, name, data, nil)
}

// urlRecorder remembers the request URI (and method) of every request the
// server got.
type urlRecorder struct {
	mu      sync.Mutex
	uris    []string
	methods []string
}

func (u *urlRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.uris = append(u.uris, r.RequestURI)
		u.methods = append(u.methods, r.Method)
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// count is the number of requests with method whose URI contains s.
func (u *urlRecorder) count(method, s string) int {
	u.mu.Lock()
	defer u.mu.Unlock()
	n := 0
	for i, uri := range u.uris {
		if u.methods[i] == method && strings.Contains(uri, s) {
			n++
		}
	}
	return n
}

func (u *urlRecorder) containing(s string) []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for _, uri := range u.uris {
		if strings.Contains(uri, s) {
			out = append(out, uri)
		}
	}
	return out
}

// TestReviewPageDrawsEveryDetection opens a done job of a real synthetic
// drawing from a review link (#job=…&handoff=…) and checks, page by page,
// that the page draws exactly one box per detection of the default filter,
// with the detection's class, where bbox_norm puts it; and that the page
// took a review credential (not the key) from the handoff, the token left
// the address bar and the key never reached the server in a URL.
func TestReviewPageDrawsEveryDetection(t *testing.T) {
	ctx := browser(t, "en-US")
	rec := &urlRecorder{}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, rec.wrap)
	id := processFile(t, e, "sheet-00003.pdf") // 3 pages, the last without symbols
	poll := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)
	total := fmt.Sprint(poll["summary"].(map[string]any)["total_detections"])

	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	for i := range poll["pages"].([]any) {
		showPage(t, ctx, i)
		want, _ := apiPage(t, e, id, i, "")
		got := eval[drawn](t, ctx, drawnJS)
		if !slices.Equal(sorted(got.Classes), sorted(want)) {
			t.Errorf("page %d: boxes %q, want one per detection %q", i, got.Classes, want)
		}
		if got.Total != total || got.PageCount != fmt.Sprint(len(want)) {
			t.Errorf("page %d: page shows %s in all, %s on the page; API %s and %d", i, got.Total, got.PageCount, total, len(want))
		}
		if got.Misplaced != 0 {
			t.Errorf("page %d: %d boxes are not where bbox_norm puts them on the image", i, got.Misplaced)
		}
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#by-symbol tbody tr').length`); n != len(poll["summary"].(map[string]any)["by_symbol"].([]any)) {
		t.Errorf("take-off table has %d rows", n)
	}
	legend, _ := poll["legend"].([]any)
	if shown := eval[int](t, ctx, `document.getElementById('legend-section').hidden ? -1 : document.querySelectorAll('#legend tbody tr').length`); len(legend) == 0 && shown != -1 || len(legend) > 0 && shown != len(legend) {
		t.Errorf("legend table shows %d rows (-1: hidden), the poll has %d", shown, len(legend))
	}
	if h := eval[string](t, ctx, `location.hash`); h != "#job="+id {
		t.Errorf("address bar fragment %q: the handoff must leave it, the job stay", h)
	}
	if k := eval[string](t, ctx, `sessionStorage.getItem('blueprint.apiKey')`); !strings.HasPrefix(k, "rvc1.") {
		t.Errorf("session storage key %q: want the review credential of the link, never the key", k)
	}
	if uris := rec.containing(keyA); len(uris) > 0 {
		t.Errorf("the API key reached the server in URLs: %q", uris)
	}
	// A click on a box (a real mouse click) shows its class, name and
	// confidence.
	showPage(t, ctx, 0)
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#boxes .box`)))
	details := eval[string](t, ctx, `document.getElementById('details').hidden ? '' : document.getElementById('details').innerText`)
	sel := eval[string](t, ctx, `document.querySelector('#boxes .box.selected')?.dataset.id ?? ''`)
	d := apiDetection(t, e, id, 0, sel)
	if d == nil || !strings.Contains(details, d.Class) || !strings.Contains(details, fmt.Sprintf("%.2f", d.Confidence)) {
		t.Errorf("after a click on box %s: details %q, want its class and confidence", sel, details)
	}
	// Filtering by class from the take-off table hides the other boxes.
	first := eval[string](t, ctx, `document.querySelector('#by-symbol tbody tr').dataset.class`)
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#by-symbol tbody tr[data-class='`+first+`']`)))
	shown := eval[[]string](t, ctx, `[...document.querySelectorAll('#boxes .box')].filter((b) => !b.hidden).map((b) => b.dataset.class)`)
	want, _ := apiPage(t, e, id, 0, "")
	n := 0
	for _, c := range want {
		if c == first {
			n++
		}
	}
	if len(shown) != n || slices.ContainsFunc(shown, func(c string) bool { return c != first }) {
		t.Errorf("after filtering on %s: visible boxes %q, want the %d of that class", first, shown, n)
	}
}

// spreadEngine runs the production engine and spreads the confidence of
// its detections over 0.30..0.99 by their order on the page: vector
// matching gives 0.99 to every exact match, which leaves a confidence
// slider nothing to do. The rendering, storage and filters are the real ones.
func spreadEngine(t *testing.T) detect.Engine {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	real, err := engine.New(cat, engine.Options{RasterOff: true}) // PDFs only: the vector matcher's detections
	if err != nil {
		t.Fatal(err)
	}
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		ds, err := real.Detect(ctx, p)
		for i := range ds {
			ds[i].Confidence = 0.30 + math.Mod(float64(i)*0.618034, 1)*0.69
		}
		return ds, err
	})
}

// TestReviewPageConfidenceSlider moves the confidence slider and checks
// that the count shown and the boxes drawn follow what the API answers
// with ?confidence=, then go back to the per-class defaults.
func TestReviewPageConfidenceSlider(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: spreadEngine(t)})
	id := processFile(t, e, "sheet-00002.pdf")
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	seen := map[int]bool{}
	for _, conf := range []string{"0.8", "0.45", "0.95", "default"} {
		query := ""
		if conf == "default" {
			browse(t, ctx, chromedp.Click(chromedp.ID("confidence-default")))
		} else {
			query = "confidence=" + conf
			browse(t, ctx, chromedp.Evaluate[chromedp.Void](`(() => { const s = document.getElementById('confidence');
				s.value = '`+conf+`'; s.dispatchEvent(new Event('input', {bubbles: true})); })()`))
		}
		settled(t, ctx, conf, time.Minute)
		poll := e.do("GET", "/v1/jobs/"+id+"?"+query, keyA, nil, nil).JSON(t)
		total := int(poll["summary"].(map[string]any)["total_detections"].(float64))
		want, _ := apiPage(t, e, id, 0, query)
		got := eval[drawn](t, ctx, drawnJS)
		if got.Total != fmt.Sprint(total) || !slices.Equal(sorted(got.Classes), sorted(want)) {
			t.Errorf("confidence %s: page shows %s and %d boxes, API total %d and %d detections", conf, got.Total, len(got.Classes), total, len(want))
		}
		if got.Misplaced != 0 {
			t.Errorf("confidence %s: %d boxes misplaced", conf, got.Misplaced)
		}
		seen[total] = true
	}
	if len(seen) < 3 {
		t.Errorf("the slider settings gave only the totals %v; the test needs settings that filter differently", seen)
	}
}

// TestReviewPageUpload uploads a drawing through the page (init, PUT to
// the signed URL, start, progress) and checks that it reaches done and
// shows the job's detections, in Finnish for a Finnish browser.
func TestReviewPageUpload(t *testing.T) {
	ctx := browser(t, "fi-FI")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	path, err := filepath.Abs(filepath.Join("..", "..", "testdata", "synth", "sheet-00002.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	browse(t, ctx, chromedp.Navigate(e.base+"/app/"),
		chromedp.SetValue(chromedp.ID("api-key"), keyA),
		chromedp.Click(chromedp.CSS(`#key-form button[type=submit]`)),
		chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{path}),
		chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)),
	)
	settled(t, ctx, "default", 2*time.Minute)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#job=")
	poll := e.waitStatus(keyA, id, "done")
	if poll["file_name"] != "sheet-00002.pdf" {
		t.Errorf("uploaded job %v", poll)
	}
	want, _ := apiPage(t, e, id, 0, "")
	got := eval[drawn](t, ctx, drawnJS)
	if len(want) == 0 || !slices.Equal(sorted(got.Classes), sorted(want)) {
		t.Errorf("after the upload the page draws %d boxes, the API has %d detections", len(got.Classes), len(want))
	}
	if jobs := eval[[]string](t, ctx, `[...document.querySelectorAll('#jobs button')].map((b) => b.dataset.job)`); !slices.Contains(jobs, id) {
		t.Errorf("recent jobs %q do not list the upload %s", jobs, id)
	}
	if title := eval[string](t, ctx, `document.querySelector('h1').textContent`); title != "Piirustusten tarkastus" {
		t.Errorf("title %q in a Finnish browser", title)
	}
	fi := e.do("GET", "/v1/jobs/"+id, keyA, nil, map[string]string{"Accept-Language": "fi"}).JSON(t)
	firstName := fi["summary"].(map[string]any)["by_symbol"].([]any)[0].(map[string]any)["display_name"]
	if got := eval[string](t, ctx, `document.querySelector('#by-symbol tbody tr td:nth-child(2)').textContent`); got != firstName {
		t.Errorf("take-off shows %q, the Finnish name is %v", got, firstName)
	}
}

// TestReviewPageLegend checks the legend table: each row's printed
// quantity beside the count found, mismatches marked, unmapped rows said
// so. The service's poll responses get a fixed legend in the service's
// shape (a match, a mismatch and an unmapped row, which a generated sheet
// does not reliably hold); the page is the real one. The real legend of a
// job is checked against the page in TestReviewPageDrawsEveryDetection.
func TestReviewPageLegend(t *testing.T) {
	addLegend := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/v1/jobs/") || strings.Count(r.URL.Path, "/") != 3 || strings.HasSuffix(r.URL.Path, "/init") {
				h.ServeHTTP(w, r)
				return
			}
			rw := httptest.NewRecorder()
			h.ServeHTTP(rw, r)
			body := rw.Body.Bytes()
			var m map[string]any
			if json.Unmarshal(body, &m) == nil && m["status"] == "done" {
				body = withLegend(t, m)
			}
			for k, v := range rw.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rw.Code)
			_, _ = io.Copy(w, bytes.NewReader(body))
		})
	}
	ctx := browser(t, "en-US")
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, addLegend)
	id := processFile(t, e, "sheet-00002.pdf")
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	type row struct {
		Text     string `json:"text"`
		Mismatch bool   `json:"mismatch"`
	}
	rows := eval[[]row](t, ctx, `document.getElementById('legend-section').hidden ? null :
		[...document.querySelectorAll('#legend tbody tr')].map((r) => ({text: r.innerText.replace(/\s+/g, ' ').trim(), mismatch: r.classList.contains('mismatch')}))`)
	if len(rows) != 3 {
		t.Fatalf("legend rows %v, want 3", rows)
	}
	// The first row printed one more than found; the unmapped row printed
	// 3 that nothing counts: both are for the estimator to look at.
	if !rows[0].Mismatch || rows[1].Mismatch || !rows[2].Mismatch {
		t.Errorf("mismatch marks %v: want the first and the last row", rows)
	}
	if !strings.Contains(rows[2].Text, "not mapped") || !strings.Contains(rows[2].Text, "Junction box") {
		t.Errorf("unmapped row %q", rows[2].Text)
	}
	if kind := eval[string](t, ctx, `document.querySelector('#pages button').textContent`); !strings.Contains(kind, "floor plan") {
		t.Errorf("page tab %q does not name the page's kind", kind)
	}
}

// TestReviewPageLegendOfThePage checks that the legend panel follows the
// page shown: on a page that draws a legend, that page's rows with its
// printed quantities and counts; on a page that draws none, each row of
// the document's legend once (repeat_of joins the copies a legend drawn
// on several sheets makes), with the pages it is drawn on and its counts
// summed over them. The poll gets the legend of a set whose first two
// sheets each draw one of two rows (the second a copy of the first), in
// the service's shape.
func TestReviewPageLegendOfThePage(t *testing.T) {
	repeated := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/v1/jobs/") || strings.Count(r.URL.Path, "/") != 3 {
				h.ServeHTTP(w, r)
				return
			}
			rw := httptest.NewRecorder()
			h.ServeHTTP(rw, r)
			body := rw.Body.Bytes()
			var m map[string]any
			if json.Unmarshal(body, &m) == nil && m["status"] == "done" {
				var legend []any
				for p := range 2 {
					for k, d := range []string{"Smoke detector", "Manual call point"} {
						row := map[string]any{"page_index": p, "description": d, "class": []string{"smoke_detector", "manual_call_point"}[k],
							"printed_quantity": 1 + p + 10*k, "detected": 1 + p + 10*k, "tag": nil, "part_number": nil, "glyph_bbox_norm": nil, "repeat_of": nil}
						if p > 0 {
							row["repeat_of"] = k
						}
						legend = append(legend, row)
					}
				}
				legend[3].(map[string]any)["detected"] = 15 // the second sheet's call points: 12 printed, 15 found
				m["legend"] = legend
				body, _ = json.Marshal(m)
			}
			for k, v := range rw.Header() {
				w.Header()[k] = v
			}
			w.Header().Del("Content-Length")
			w.WriteHeader(rw.Code)
			_, _ = io.Copy(w, bytes.NewReader(body))
		})
	}
	ctx := browser(t, "en-US")
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, repeated)
	id := processFile(t, e, "sheet-00003.pdf") // 3 pages
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	type panel struct {
		Scope string   `json:"scope"`
		Rows  []string `json:"rows"`
		Open  []string `json:"open"`
	}
	read := func() panel {
		return eval[panel](t, ctx, `({scope: document.getElementById('legend-scope').textContent,
			rows: [...document.querySelectorAll('#legend tbody tr')].map((r) => r.dataset.row + ' ' + r.innerText.replace(/\s+/g, ' ').trim() + (r.classList.contains('mismatch') ? ' !' : '')),
			open: [...document.querySelectorAll('#legend tbody tr.open')].map((r) => r.dataset.row)})`)
	}
	for _, c := range []struct {
		page  int
		scope string
		rows  []string
	}{
		{0, "this page", []string{"0 Smoke detector Optical smoke detector 1 1", "1 Manual call point Manual call point 11 11"}},
		{1, "this page", []string{"0 Smoke detector Optical smoke detector 2 2", "1 Manual call point Manual call point 12 ⚠ 15 !"}},
		{2, "no legend", []string{"0 Pages 1–2: Smoke detector Optical smoke detector 3 3", "1 Pages 1–2: Manual call point Manual call point 23 ⚠ 26 !"}},
	} {
		showPage(t, ctx, c.page)
		got := read()
		if !strings.Contains(got.Scope, c.scope) || !slices.Equal(got.Rows, c.rows) {
			t.Errorf("page %d: legend panel %q %q, want %q (%q)", c.page, got.Scope, got.Rows, c.rows, c.scope)
		}
	}
	// A row opened stays marked on every page, in its copy there.
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#legend tbody tr[data-row='1']`)))
	caughtUp(t, ctx)
	for _, p := range []int{0, 2} {
		showPage(t, ctx, p)
		if got := read(); !slices.Equal(got.Open, []string{"1"}) {
			t.Errorf("page %d: rows marked open %q, want the call points' (1)", p, got.Open)
		}
	}
}

// withLegend returns the done poll m with a legend and page kinds in the
// shape legend reading adds: the first two classes of the summary (the
// first printed one more than found) and a row mapped to no class.
func withLegend(t *testing.T, m map[string]any) []byte {
	syms := m["summary"].(map[string]any)["by_symbol"].([]any)
	if len(syms) < 2 {
		t.Errorf("fixture needs two classes, the job has %d", len(syms))
		return nil
	}
	var legend []any
	for i, s := range syms[:2] {
		sm := s.(map[string]any)
		n := sm["count"].(float64)
		legend = append(legend, map[string]any{"page_index": 0, "description": "Row " + sm["class"].(string),
			"class": sm["class"], "printed_quantity": n + float64(1-i), "detected": n, "tag": nil, "part_number": nil, "glyph_bbox_norm": nil})
	}
	legend = append(legend, map[string]any{"page_index": 0, "description": "Junction box", "class": nil, "printed_quantity": 3, "detected": 0,
		"tag": nil, "part_number": nil, "glyph_bbox_norm": nil})
	m["legend"] = legend
	for _, p := range m["pages"].([]any) {
		p.(map[string]any)["kind"] = "floor_plan"
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Error(err)
	}
	return b
}

// sorted returns a sorted copy.
func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// gridEngine reports n detections on the first page, in a grid over the
// page, their classes taken in turn from the catalog: the load of a dense
// A0 sheet, for the viewer's speed.
func gridEngine(t *testing.T, n int) detect.Engine {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	syms := cat.Symbols()
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.Index != 0 {
			return nil, ctx.Err()
		}
		w, h := float64(p.Width), float64(p.Height)
		cols := int(math.Ceil(math.Sqrt(float64(n) * w / h)))
		rows := (n + cols - 1) / cols
		ds := make([]detect.Detection, 0, n)
		for i := range n {
			cx, cy := (float64(i%cols)+0.5)*w/float64(cols), (float64(i/cols)+0.5)*h/float64(rows)
			ds = append(ds, detect.Detection{Class: syms[i%len(syms)].Class, Confidence: 0.9,
				Box: detect.Box{X: cx - 30, Y: cy - 30, W: 60, H: 60}, Source: detect.Source{VectorMatching: true}})
		}
		return ds, ctx.Err()
	})
}

// viewerSpeedJS zooms in and out with 120 wheel events, one a frame, then
// pans with 60 pointer moves, and returns the frame times in milliseconds
// and the time the page took to draw the boxes (performance measure
// "draw").
const viewerSpeedJS = `(async () => {
	const vp = document.getElementById('viewport');
	const r = vp.getBoundingClientRect();
	const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
	const frame = () => new Promise(requestAnimationFrame);
	const times = (steps) => async () => {
		const out = [];
		await frame();
		let last = performance.now();
		for (let i = 0; i < steps.length; i++) {
			steps[i]();
			await frame();
			const now = performance.now();
			out.push(now - last);
			last = now;
		}
		return out;
	};
	const zoom = [...Array(120)].map((_, i) => () => vp.dispatchEvent(new WheelEvent('wheel',
		{deltaY: i < 60 ? -60 : 60, clientX: cx, clientY: cy, bubbles: true, cancelable: true})));
	const opts = (x, y) => ({pointerId: 7, button: 0, clientX: x, clientY: y, bubbles: true});
	const pan = [() => vp.dispatchEvent(new PointerEvent('pointerdown', opts(cx, cy)))].concat(
		[...Array(60)].map((_, i) => () => vp.dispatchEvent(new PointerEvent('pointermove', opts(cx + 5 * i, cy + 3 * i)))),
		[() => vp.dispatchEvent(new PointerEvent('pointerup', opts(cx + 300, cy + 180)))]);
	const stage = document.getElementById('stage');
	const before = stage.style.transform;
	const z = await times(zoom)();
	await new Promise((r) => setTimeout(r, 300));
	const zoomed = stage.style.transform;
	const p = await times(pan)();
	const draw = performance.getEntriesByName('draw').pop();
	return {zoom: z, pan: p, draw_ms: draw ? draw.duration : -1, moved: before !== zoomed && zoomed !== stage.style.transform};
})()`

// TestReviewPage2000Boxes opens a sheet with 2000 detections, checks that
// every one is drawn where bbox_norm puts it, and measures the frame times
// of zooming and panning (logged; with BLUEPRINT_VIEWER_BUDGET_MS set, the
// 95th percentile must stay under it). The sheet is a blank A3 page, an A0
// page with BLUEPRINT_VIEWER_A0=1 (make bench-review: the size the viewer
// must stay smooth on, which takes the service several seconds to render),
// or the first page of the PDF named by BLUEPRINT_VIEWER_PDF (a drawing
// whose image costs more to scale).
func TestReviewPage2000Boxes(t *testing.T) {
	ctx := browser(t, "en-US") // skips before the render when there is no Chromium
	const n = 2000
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: gridEngine(t, n)})
	data := pdfDoc([2]int{1191, 842}) // A3 landscape, in points
	if os.Getenv("BLUEPRINT_VIEWER_A0") == "1" {
		data = pdfDoc([2]int{3370, 2384})
	}
	if path := os.Getenv("BLUEPRINT_VIEWER_PDF"); path != "" {
		var err error
		if data, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
	id := processPDF(t, e, keyA, "dense.pdf", data, nil)

	start := time.Now()
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", 2*time.Minute)
	// The image decodes after the boxes are drawn; wait for it as a user would.
	browse(t, ctx, chromedp.Poll[chromedp.Void](`document.getElementById('page-image').complete`, chromedp.WithPollingTimeout(time.Minute)))
	open := time.Since(start)
	got := eval[drawn](t, ctx, drawnJS)
	if len(got.Classes) != n || got.Misplaced != 0 {
		t.Fatalf("%d boxes drawn (%d misplaced), want %d in place", len(got.Classes), got.Misplaced, n)
	}
	type speed struct {
		Zoom   []float64 `json:"zoom"`
		Pan    []float64 `json:"pan"`
		DrawMS float64   `json:"draw_ms"`
		Moved  bool      `json:"moved"`
	}
	s, err := chromedp.Run(ctx, chromedp.Evaluate[speed](viewerSpeedJS, chromedp.EvalAsValue, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Moved {
		t.Fatal("the wheel and drag events did not move the view")
	}
	pct := func(v []float64, q float64) float64 {
		v = slices.Clone(v)
		slices.Sort(v)
		return v[int(math.Ceil(q*float64(len(v))))-1]
	}
	mean := func(v []float64) float64 {
		sum := 0.0
		for _, x := range v {
			sum += x
		}
		return sum / float64(len(v))
	}
	page := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)["pages"].([]any)[0].(map[string]any)
	t.Logf("page of %vx%v px, %d boxes: page open to image shown %.1f s; boxes drawn in %.0f ms; "+
		"zoom frames mean %.1f ms, p95 %.1f ms, max %.1f ms (%d frames); pan frames mean %.1f ms, p95 %.1f ms, max %.1f ms (%d frames)",
		page["width_px"], page["height_px"], n, open.Seconds(), s.DrawMS, mean(s.Zoom), pct(s.Zoom, 0.95), pct(s.Zoom, 1), len(s.Zoom),
		mean(s.Pan), pct(s.Pan, 0.95), pct(s.Pan, 1), len(s.Pan))
	// Reviewing among 2000 boxes: n (the next box, centred) and a (accept
	// it: the PATCH, every count redrawn, the job read again), 20 times.
	r, err := chromedp.Run(ctx, chromedp.Evaluate[reviewSpeed](reviewSpeedJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if r.Accepted != 20 {
		t.Fatalf("%d of 20 boxes accepted by the keys: %+v", r.Accepted, r)
	}
	if j := pollJob(t, e, id); j.Review == nil || j.Review.Accepted != 20 {
		t.Errorf("the API holds %+v after 20 accepts", j.Review)
	}
	t.Logf("review among %d boxes: n to the next box centred: mean %.1f ms, max %.1f ms; a until the page has caught up (PATCH, counts, job re-read): mean %.0f ms, max %.0f ms",
		n, mean(r.Next), pct(r.Next, 1), mean(r.Accept), pct(r.Accept, 1))
	if budget := os.Getenv("BLUEPRINT_VIEWER_BUDGET_MS"); budget != "" {
		var b float64
		fmt.Sscan(budget, &b)
		if p := max(pct(s.Zoom, 0.95), pct(s.Pan, 0.95)); p > b {
			t.Errorf("95th percentile frame %.1f ms over the budget of %s ms", p, budget)
		}
	}
}

// reviewSpeed is the time of each n (to the frame that shows the box
// centred) and each a (until no request is in flight), in milliseconds.
type reviewSpeed struct {
	Next     []float64 `json:"next"`
	Accept   []float64 `json:"accept"`
	Accepted int       `json:"accepted"`
}

const reviewSpeedJS = `(async () => {
	const frame = () => new Promise(requestAnimationFrame);
	const press = (key) => document.dispatchEvent(new KeyboardEvent('keydown', {key, bubbles: true, cancelable: true}));
	const idle = async () => { while ((document.body.dataset.pending || '0') !== '0') await new Promise((r) => setTimeout(r, 2)); };
	const next = [], accept = [];
	for (let i = 0; i < 20; i++) {
		let t0 = performance.now();
		press('n');
		await frame();
		next.push(performance.now() - t0);
		t0 = performance.now();
		press('a');
		await idle();
		accept.push(performance.now() - t0);
	}
	return {next, accept, accepted: document.querySelectorAll('#boxes .box[data-review=accepted]').length};
})()`

// showcaseJS zooms the view by zoom around its centre, then clicks the box
// nearest the centre and hovers it, so that a screenshot shows the
// details panel and the tooltip.
const showcaseJS = `(async (zoom) => {
	const frame = () => new Promise(requestAnimationFrame);
	const vp = document.getElementById('viewport');
	let r = vp.getBoundingClientRect();
	const steps = Math.round(Math.log(zoom) / 0.15);
	for (let i = 0; i < steps; i++) {
		vp.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.left + r.width / 2, clientY: r.top + r.height / 2, bubbles: true, cancelable: true}));
		await frame();
	}
	await new Promise((res) => setTimeout(res, 400));
	const cx = r.left + r.width / 2, cy = r.top + r.height / 2;
	let best = null, bestD = Infinity;
	for (const b of document.querySelectorAll('#boxes .box')) {
		const q = b.getBoundingClientRect();
		const d = Math.hypot(q.left + q.width / 2 - cx, q.top + q.height / 2 - cy);
		if (d < bestD) { best = q; bestD = d; }
	}
	if (!best) return;
	const at = {clientX: best.left + best.width / 2, clientY: best.top + best.height / 2, pointerId: 3, button: 0, bubbles: true};
	vp.dispatchEvent(new PointerEvent('pointerdown', at));
	vp.dispatchEvent(new PointerEvent('pointerup', at));
	vp.dispatchEvent(new PointerEvent('pointermove', {...at, pointerId: 4}));
	await frame();
})`

// TestReviewScreenshots writes screenshots of the review page for people
// to look at, into $BLUEPRINT_SCREENSHOT_DIR (skipped when unset):
// review-synthetic.png (testdata/synth/sheet-00005.pdf, zoomed, a box
// selected: the README's picture) and, with BLUEPRINT_SCREENSHOT_REAL=1
// where ../shared/realdata exists, one per page of each real drawing.
// Screenshots of the real drawings must never be committed.
func TestReviewScreenshots(t *testing.T) {
	dir := os.Getenv("BLUEPRINT_SCREENSHOT_DIR")
	if dir == "" {
		t.Skip("set BLUEPRINT_SCREENSHOT_DIR to write screenshots of the review page")
	}
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	shoot := func(name, id string, page int, zoom float64) {
		t.Helper()
		browse(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
		settled(t, ctx, "default", 2*time.Minute)
		if page > 0 {
			browse(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf("#pages button[data-page='%d']", page))),
				chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("#pages button[data-page='%d']").getAttribute('aria-current') === 'true' && document.body.dataset.status === 'ready'`, page)))
		}
		browse(t, ctx, chromedp.Poll[chromedp.Void](`document.getElementById('page-image').complete`, chromedp.WithPollingTimeout(time.Minute)))
		if zoom > 0 {
			browse(t, ctx, chromedp.Evaluate[chromedp.Void](fmt.Sprintf("%s(%g)", showcaseJS, zoom), chromedp.EvalAwaitPromise))
		}
		browse(t, ctx, chromedp.Sleep(300*time.Millisecond))
		shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d KB)", filepath.Join(dir, name), len(shot)/1024)
	}
	browse(t, ctx, chromedp.EmulateViewport(1200, 720))
	shoot("review-synthetic.png", processFile(t, e, "sheet-00005.pdf"), 0, 2.2)

	real := filepath.Join("..", "..", "..", "shared", "realdata")
	if os.Getenv("BLUEPRINT_SCREENSHOT_REAL") != "1" {
		return
	}
	files, _ := filepath.Glob(filepath.Join(real, "*.pdf"))
	if len(files) == 0 {
		t.Skip("no real drawings at " + real)
	}
	browse(t, ctx, chromedp.EmulateViewport(1440, 900))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		id := processPDF(t, e, keyA, filepath.Base(f), data, nil)
		poll := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)
		for i := range poll["pages"].([]any) {
			shoot(fmt.Sprintf("real-%s-p%d.png", strings.TrimSuffix(filepath.Base(f), ".pdf"), i+1), id, i, 0)
		}
	}
}
