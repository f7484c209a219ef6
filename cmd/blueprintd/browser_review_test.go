package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/engine"
)

// The review page's correcting tools (issue 37 item 5), each driven in
// headless Chromium against the real service: accept, reject and change
// the class of a box, add one by drawing it, find more like it, step
// through the boxes, open a legend row's boxes, open a job on its first
// counted page, show progress while a job processes, and keep every page
// tab reachable.

// apiDet is a detection as the per-page endpoint lists it.
type apiDet struct {
	ID         string  `json:"id"`
	Class      string  `json:"class"`
	Confidence float64 `json:"confidence"`
	BBoxNorm   struct {
		X      float64 `json:"x"`
		Y      float64 `json:"y"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
	} `json:"bbox_norm"`
	Review *struct {
		Decision *string `json:"decision"`
	} `json:"review"`
	Withheld *string `json:"withheld"`
}

// decision is the review decision of d, "" for none.
func (d apiDet) decision() string {
	if d.Review == nil || d.Review.Decision == nil {
		return ""
	}
	return *d.Review.Decision
}

// apiDetections lists every detection of a page under the default filter,
// with the rejected ones when all is set (?review=all).
func apiDetections(t *testing.T, e *testEnv, id string, page int, all bool) []apiDet {
	t.Helper()
	q := ""
	if all {
		q = "&review=all"
	}
	r := e.do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?limit=2000%s", id, page, q), keyA, nil, nil)
	var pd struct {
		Detections []apiDet `json:"detections"`
	}
	if r.Status != http.StatusOK {
		t.Fatalf("detections of page %d: %d %s", page, r.Status, r.Body)
	}
	if err := json.Unmarshal(r.Body, &pd); err != nil {
		t.Fatalf("detections of page %d: %v", page, err)
	}
	return pd.Detections
}

// apiDetection is detection detID of a page (rejected ones included), or
// nil.
func apiDetection(t *testing.T, e *testEnv, id string, page int, detID string) *apiDet {
	t.Helper()
	for _, d := range apiDetections(t, e, id, page, true) {
		if d.ID == detID {
			return &d
		}
	}
	return nil
}

// apiJob is what the review tests read of a done poll.
type apiJob struct {
	Summary struct {
		Total    int `json:"total_detections"`
		BySymbol []struct {
			Class string `json:"class"`
			Count int    `json:"count"`
		} `json:"by_symbol"`
	} `json:"summary"`
	Pages []struct {
		DetectionCount int `json:"detection_count"`
	} `json:"pages"`
	Review *struct {
		Accepted int `json:"accepted"`
		Rejected int `json:"rejected"`
		Added    int `json:"added"`
	} `json:"review"`
}

func pollJob(t *testing.T, e *testEnv, id string) apiJob {
	t.Helper()
	var j apiJob
	if err := json.Unmarshal(e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).Body, &j); err != nil {
		t.Fatal(err)
	}
	return j
}

// classCount is the summary's count of class cls.
func (j apiJob) classCount(cls string) int {
	for _, s := range j.Summary.BySymbol {
		if s.Class == cls {
			return s.Count
		}
	}
	return 0
}

// showPage shows page i (a click on its tab unless it is on view) and
// waits until the page has drawn it.
func showPage(t *testing.T, ctx context.Context, i int) {
	t.Helper()
	if eval[bool](t, ctx, fmt.Sprintf(`document.body.dataset.page === '%d' && document.body.dataset.status === 'ready'`, i)) {
		return
	}
	browse(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf("#pages button[data-page='%d']", i))))
	browse(t, ctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector("#pages button[data-page='%d']").getAttribute('aria-current') === 'true' && document.body.dataset.page === '%d' && document.body.dataset.status === 'ready'`, i, i),
		chromedp.WithPollingTimeout(time.Minute)))
}

// caughtUp waits until no review, add or search request of the page is in
// flight, failing with the page's message on an error.
func caughtUp(t *testing.T, ctx context.Context) {
	t.Helper()
	expr := `(() => { const b = document.body.dataset;
		if (b.status === 'error') return 'error: ' + document.getElementById('message').textContent;
		return (b.pending || '0') === '0' && b.status === 'ready' ? 'ok' : ''; })()`
	got, err := chromedp.Run(ctx, chromedp.Poll[string](expr, chromedp.WithPollingTimeout(time.Minute), chromedp.WithPollingInterval(20*time.Millisecond)))
	if err != nil || got != "ok" {
		t.Fatalf("page did not catch up: %v %q", err, got)
	}
}

// key presses a key with the focus wherever it is, and waits for the page
// to catch up.
func key(t *testing.T, ctx context.Context, k string) {
	t.Helper()
	browse(t, ctx, chromedp.KeyEvent(k))
	caughtUp(t, ctx)
}

// shown waits until the element with id shows, failing with what the
// page says otherwise.
func shown(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	expr := fmt.Sprintf(`(() => { const el = document.getElementById(%q); return !!el && (el.open ?? !el.hidden) && el.getClientRects().length > 0; })()`, id)
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](expr, chromedp.WithPollingTimeout(20*time.Second))); err != nil {
		t.Fatalf("#%s never showed: %v; page: %s", id, err, eval[string](t, ctx, `JSON.stringify({status: document.body.dataset.status,
			pending: document.body.dataset.pending, message: document.getElementById('message').textContent,
			dialogs: [...document.querySelectorAll('dialog[open]')].map((d) => d.id), focus: document.activeElement && document.activeElement.id,
			viewport: document.getElementById('viewport').className})`))
	}
}

// selectedID is the id of the selected box, "" for none.
const selectedIDJS = `document.querySelector('#boxes .box.selected')?.dataset.id ?? ''`

// shownCounts is the counts the page prints: the job's total, the page's
// count and the badge of each page tab.
type shownCounts struct {
	Total  string   `json:"total"`
	Page   string   `json:"page"`
	Badges []string `json:"badges"`
	Review string   `json:"review"`
}

const shownCountsJS = `({total: document.getElementById('total-count').textContent, page: document.getElementById('page-count').textContent,
	badges: [...document.querySelectorAll('#pages .badge')].map((b) => b.textContent),
	review: document.getElementById('review-counts').hidden ? '' : document.getElementById('review-counts').textContent})`

// checkCounts compares every count the page shows with a poll of the API.
func checkCounts(t *testing.T, ctx context.Context, e *testEnv, id string, page int, when string) {
	t.Helper()
	j := pollJob(t, e, id)
	got := eval[shownCounts](t, ctx, shownCountsJS)
	want := shownCounts{Total: fmt.Sprint(j.Summary.Total), Page: fmt.Sprint(j.Pages[page].DetectionCount)}
	for _, p := range j.Pages {
		want.Badges = append(want.Badges, fmt.Sprint(p.DetectionCount))
	}
	if got.Total != want.Total || got.Page != want.Page || !slices.Equal(got.Badges, want.Badges) {
		t.Errorf("%s: the page shows total %s, page %s, badges %v; the API says %s, %s, %v", when, got.Total, got.Page, got.Badges, want.Total, want.Page, want.Badges)
	}
	if j.Review != nil && (j.Review.Accepted+j.Review.Rejected+j.Review.Added) > 0 {
		w := fmt.Sprintf("%d accepted · %d rejected · %d added", j.Review.Accepted, j.Review.Rejected, j.Review.Added)
		if !strings.Contains(got.Review, w) {
			t.Errorf("%s: review counts %q, want %q", when, got.Review, w)
		}
	}
}

// boxRect is where a box is on the screen (CSS px of the window).
type boxRect struct {
	X, Y, W, H float64
}

func boxAt(t *testing.T, ctx context.Context, selector string) boxRect {
	t.Helper()
	return eval[boxRect](t, ctx, fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {X: r.left, Y: r.top, W: r.width, H: r.height}; })()`, selector))
}

// drag draws with the left mouse button held from (x0, y0) to (x1, y1),
// as a person drags: press, moves, release.
func drag(x0, y0, x1, y1 float64) []chromedp.Action[chromedp.Void] {
	held := func(p *input.DispatchMouseEventParams) {
		p.Button = input.MouseButtonLeft
		p.Buttons = 1
		p.ClickCount = 1
	}
	steps := []chromedp.Action[chromedp.Void]{chromedp.MouseEvent(chromedp.MouseMoved, x0, y0), chromedp.MouseEvent(chromedp.MousePressed, x0, y0, held)}
	for i := 1; i <= 5; i++ {
		f := float64(i) / 5
		steps = append(steps, chromedp.MouseEvent(chromedp.MouseMoved, x0+(x1-x0)*f, y0+(y1-y0)*f, held))
	}
	return append(steps, chromedp.MouseEvent(chromedp.MouseReleased, x1, y1, held))
}

// TestReviewPageReviewsBoxes accepts, rejects and re-classes boxes with
// the keys and the buttons, adds one by drawing it, and checks after each
// step that the API holds the review and that every count on the page
// equals the API's at once. Keys typed into a field review nothing.
func TestReviewPageReviewsBoxes(t *testing.T) {
	ctx := browser(t, "en-US")
	rec := &urlRecorder{}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, rec.wrap)
	id := processFile(t, e, "sheet-00002.pdf")
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	before := pollJob(t, e, id)

	// Accept: click a box, press a.
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#boxes .box`)))
	first := eval[string](t, ctx, selectedIDJS)
	key(t, ctx, "a")
	if d := apiDetection(t, e, id, 0, first); d == nil || d.decision() != "accepted" {
		t.Fatalf("after a on box %s the API has %+v, want it accepted", first, d)
	}
	if got := eval[string](t, ctx, `document.querySelector('#boxes .box.selected')?.dataset.review ?? ''`); got != "accepted" {
		t.Errorf("the accepted box is drawn as %q", got)
	}
	checkCounts(t, ctx, e, id, 0, "after accepting")

	// Reject the same box with the details panel's button: it leaves
	// every count at once.
	browse(t, ctx, chromedp.Click(chromedp.ID("review-reject")))
	caughtUp(t, ctx)
	if d := apiDetection(t, e, id, 0, first); d == nil || d.decision() != "rejected" {
		t.Fatalf("after Reject on box %s the API has %+v, want it rejected", first, d)
	}
	if j := pollJob(t, e, id); j.Summary.Total != before.Summary.Total-1 {
		t.Errorf("after one rejection the API counts %d, before %d", j.Summary.Total, before.Summary.Total)
	}
	checkCounts(t, ctx, e, id, 0, "after rejecting")

	// Change the class of another box: c, a search in the picker, Enter.
	// (a box not reviewed that no other box covers at its centre)
	second := eval[string](t, ctx, `[...document.querySelectorAll('#boxes .box')].find((b) => { const r = b.getBoundingClientRect();
		return !b.dataset.review && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b; })?.dataset.id ?? ''`)
	if second == "" {
		t.Fatal("no box to click whose centre another box does not cover")
	}
	r := boxAt(t, ctx, fmt.Sprintf(`#boxes .box[data-id=%q]`, second))
	browse(t, ctx, chromedp.MouseClickXY(r.X+r.W/2, r.Y+r.H/2))
	if got := eval[string](t, ctx, selectedIDJS); got != second {
		t.Fatalf("a click on box %s selected %q", second, got)
	}
	old := apiDetection(t, e, id, 0, second).Class
	target := "smoke_detector"
	if old == target {
		target = "heat_detector"
	}
	patches := rec.count("PATCH", "/detections/")
	browse(t, ctx, chromedp.KeyEvent("c"))
	shown(t, ctx, "picker")
	// Typing into the picker's search field reviews nothing, whatever
	// letters it holds.
	// (DevTools types the c of the key press into the field it opens,
	// which a person's browser does not, as the page cancels the key.)
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('picker-search').value = ''`),
		chromedp.KeyEvent(strings.ReplaceAll(target, "_", " ")))
	listed := eval[[]string](t, ctx, `[...document.querySelectorAll('#picker-list li[role=option]')].map((li) => li.dataset.class)`)
	if len(listed) == 0 || !slices.Contains(listed, target) || len(listed) > 5 {
		t.Fatalf("searching the picker for %q lists %v", target, listed)
	}
	if n := eval[int](t, ctx, `document.querySelectorAll('#picker-list li[role=option] img.icon').length`); n != len(listed) {
		t.Errorf("the picker lists %d classes with %d icons", len(listed), n)
	}
	browse(t, ctx, chromedp.Click(chromedp.CSS(fmt.Sprintf(`#picker-list li[data-class=%q]`, target))))
	caughtUp(t, ctx)
	if n := rec.count("PATCH", "/detections/"); n != patches+1 {
		t.Errorf("changing the class sent %d PATCH requests, want 1 (keys typed in the picker must not review)", n-patches)
	}
	if d := apiDetection(t, e, id, 0, second); d == nil || d.Class != target {
		t.Fatalf("after the class change the API has %+v, want class %s", d, target)
	}
	if j := pollJob(t, e, id); j.classCount(target) != before.classCount(target)+1 || j.classCount(old) != before.classCount(old)-1 {
		t.Errorf("class change %s -> %s: the API counts %d and %d, before %d and %d", old, target,
			j.classCount(old), j.classCount(target), before.classCount(old), before.classCount(target))
	}
	if got := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#by-symbol tbody tr[data-class=%q] td.num')?.textContent ?? ''`, target)); got != fmt.Sprint(before.classCount(target)+1) {
		t.Errorf("the take-off shows %q for %s after the change, want %d", got, target, before.classCount(target)+1)
	}
	checkCounts(t, ctx, e, id, 0, "after the class change")

	// Keys typed into a field (the key field) review nothing and move
	// nowhere.
	patches = rec.count("PATCH", "/detections/")
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`document.getElementById('api-key').value = ''`), chromedp.Focus(chromedp.ID("api-key")), chromedp.KeyEvent("axnpu"))
	time.Sleep(200 * time.Millisecond) // a review would be on its way by now
	caughtUp(t, ctx)
	if n := rec.count("PATCH", "/detections/"); n != patches {
		t.Errorf("keys typed in the key field sent %d reviews", n-patches)
	}
	if v := eval[string](t, ctx, `document.getElementById('api-key').value`); v != "axnpu" {
		t.Errorf("the key field holds %q, want the keys typed", v)
	}
	if got := eval[string](t, ctx, selectedIDJS); got != second {
		t.Errorf("keys typed in a field moved the selection to %q", got)
	}
	browse(t, ctx, chromedp.Blur(chromedp.ID("api-key")))

	// Add by drawing: d, drag over the drawing, Add as …, pick a class.
	key(t, ctx, "d")
	vp := boxAt(t, ctx, "#viewport")
	x0, y0 := vp.X+vp.W*0.2, vp.Y+vp.H*0.2
	browse(t, ctx, drag(x0, y0, x0+40, y0+30)...)
	shown(t, ctx, "draw-menu")
	drawnBox := eval[[4]float64](t, ctx, `(() => { const s = document.getElementById('draft').style;
		return [s.left, s.top, s.width, s.height].map((v) => parseFloat(v) / 100); })()`)
	browse(t, ctx, chromedp.Click(chromedp.ID("draw-add")))
	shown(t, ctx, "picker")
	browse(t, ctx,
		chromedp.KeyEvent("socket"))
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#picker-list li[data-class="socket_outlet"]`)))
	caughtUp(t, ctx)
	var added *apiDet
	for _, d := range apiDetections(t, e, id, 0, false) {
		if d.decision() == "added" {
			added = &d
		}
	}
	if added == nil || added.Class != "socket_outlet" {
		t.Fatalf("after Add as … the API has %+v, want an added socket_outlet", added)
	}
	b := added.BBoxNorm
	if got := [4]float64{b.X, b.Y, b.Width, b.Height}; math.Abs(got[0]-drawnBox[0]) > 1e-4 || math.Abs(got[1]-drawnBox[1]) > 1e-4 ||
		math.Abs(got[2]-drawnBox[2]) > 1e-4 || math.Abs(got[3]-drawnBox[3]) > 1e-4 || got[2] <= 0 {
		t.Errorf("added box %v, drawn %v", got, drawnBox)
	}
	if got := eval[int](t, ctx, fmt.Sprintf(`document.querySelectorAll('#boxes .box[data-id=%q][data-review=added]').length`, added.ID)); got != 1 {
		t.Errorf("the added detection is drawn %d times", got)
	}
	checkCounts(t, ctx, e, id, 0, "after adding a drawn box")
	if j := pollJob(t, e, id); j.Review == nil || j.Review.Accepted != 0 || j.Review.Rejected != 1 || j.Review.Added != 1 {
		t.Errorf("review counts %+v, want 0 accepted (the accepted box was then rejected), 1 rejected, 1 added", j.Review)
	}
}

// searchRecorder keeps the body of every POST .../search the page sends.
type searchRecorder struct {
	mu     sync.Mutex
	bodies [][]byte
}

func (s *searchRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/search") {
			body, _ := io.ReadAll(r.Body)
			s.mu.Lock()
			s.bodies = append(s.bodies, body)
			s.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
}

func (s *searchRecorder) last() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bodies) == 0 {
		return nil
	}
	return s.bodies[len(s.bodies)-1]
}

// missingEngine runs the production engine (vector matching only) and
// drops every other detection of the class it finds most often on a page:
// the symbols a person then finds with "find more like this".
func missingEngine(t *testing.T) detect.Engine {
	t.Helper()
	cat, err := catalog.Load("")
	if err != nil {
		t.Fatal(err)
	}
	real, err := engine.New(cat, engine.Options{RasterOff: true})
	if err != nil {
		t.Fatal(err)
	}
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		ds, err := real.Detect(ctx, p)
		n := map[string]int{}
		top := ""
		for _, d := range ds {
			n[d.Class]++
			if n[d.Class] > n[top] {
				top = d.Class
			}
		}
		var out []detect.Detection
		k := 0
		for _, d := range ds {
			if d.Class == top {
				k++
				if k%2 == 0 {
					continue
				}
			}
			out = append(out, d)
		}
		return out, err
	})
}

// TestReviewPageFindMoreLikeThis draws a box round a detected symbol,
// asks for more like it, and checks that the page lists exactly the
// matches the API answers, new ones apart from those already detected;
// then adds one picked match and the rest with "add all", and checks that
// the API holds them with the class of the symbol and that the counts
// follow. Half the symbols of the sheet's most frequent class are left
// undetected, so there are new matches to add.
func TestReviewPageFindMoreLikeThis(t *testing.T) {
	ctx := browser(t, "en-US")
	sr := &searchRecorder{}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts(), engine: missingEngine(t)}, sr.wrap)
	id := processFile(t, e, "sheet-00002.pdf")
	dets := apiDetections(t, e, id, 0, false)
	n := map[string]int{}
	for _, d := range dets {
		n[d.Class]++
	}
	var probe apiDet
	for _, d := range dets {
		if n[d.Class] > n[probe.Class] {
			probe = d
		}
	}
	body, _ := json.Marshal(map[string]any{"page_index": 0, "bbox_norm": probe.BBoxNorm})
	if r := e.do("POST", "/v1/jobs/"+id+"/search", keyA, body, nil); r.Status == http.StatusNotFound || r.Status == http.StatusMethodNotAllowed {
		t.Skipf("POST /v1/jobs/{job_id}/search is not served by this build (%d %s); the find-more-like-this test needs it", r.Status, r.Body)
	}

	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	// Select the probe (n centres it at a readable zoom), then shift-drag
	// a box a little larger than it.
	for range len(dets) + 1 {
		if eval[string](t, ctx, selectedIDJS) == probe.ID {
			break
		}
		key(t, ctx, "n")
	}
	if eval[string](t, ctx, selectedIDJS) != probe.ID {
		t.Fatalf("n never reached detection %s", probe.ID)
	}
	navAt(t, ctx) // the view has moved to it
	searchAroundSelected(t, ctx)

	// The page shows what the API answers to the same request.
	sent := sr.last()
	if sent == nil {
		t.Fatal("the page sent no search")
	}
	var req struct {
		PageIndex *int           `json:"page_index"`
		BBoxNorm  map[string]any `json:"bbox_norm"`
	}
	if err := json.Unmarshal(sent, &req); err != nil || req.PageIndex == nil || *req.PageIndex != 0 || len(req.BBoxNorm) != 4 {
		t.Fatalf("the page sent %s", sent)
	}
	var res struct {
		Matches []struct {
			PageIndex   int     `json:"page_index"`
			DetectionID *string `json:"detection_id"`
		} `json:"matches"`
		Total int `json:"total"`
	}
	if err := json.Unmarshal(e.do("POST", "/v1/jobs/"+id+"/search", keyA, sent, nil).Body, &res); err != nil {
		t.Fatal(err)
	}
	fresh := 0
	for _, m := range res.Matches {
		if m.DetectionID == nil {
			fresh++
		}
	}
	type listed struct {
		Items, New, Drawn int
		Summary, Class    string
	}
	got := eval[listed](t, ctx, `({Items: document.querySelectorAll('#search-list li').length,
		New: document.querySelectorAll('#search-list li.new').length,
		Drawn: document.querySelectorAll('#matches .match').length,
		Summary: document.getElementById('search-summary').textContent,
		Class: document.getElementById('search-class').dataset.class})`)
	if got.Items != len(res.Matches) || got.New != fresh || !strings.Contains(got.Summary, fmt.Sprintf("%d found: %d new", res.Total, fresh)) {
		t.Fatalf("the page lists %+v; the API found %d (%d new)", got, len(res.Matches), fresh)
	}
	t.Logf("search from detection %s (%s): %d matches, total %d, %d new; %d %s detected", probe.ID, probe.Class, len(res.Matches), res.Total, fresh, n[probe.Class], probe.Class)
	if fresh < 2 {
		t.Fatalf("the search found %d new symbols of %s; half of them were left undetected", fresh, probe.Class)
	}
	if got.Class != probe.Class {
		t.Errorf("new matches would be added as %q, the symbol searched is a %s", got.Class, probe.Class)
	}
	before := pollJob(t, e, id)

	// Pick one new match alone, add it; then add all the others.
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`for (const c of document.querySelectorAll('#search-list li.new input[type=checkbox]')) if (c.checked) c.click()`))
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#search-list li.new input[type=checkbox]`)), chromedp.Click(chromedp.ID("search-add-picked")))
	caughtUp(t, ctx)
	if j := pollJob(t, e, id); j.Review == nil || j.Review.Added != 1 {
		t.Fatalf("after adding one picked match the job's review is %+v", j.Review)
	}
	browse(t, ctx, chromedp.Click(chromedp.ID("search-add-all")))
	caughtUp(t, ctx)
	j := pollJob(t, e, id)
	if j.Review == nil || j.Review.Added != fresh || j.Summary.Total != before.Summary.Total+fresh || j.classCount(probe.Class) != before.classCount(probe.Class)+fresh {
		t.Errorf("after adding the %d new matches: review %+v, total %d (before %d), %s %d (before %d)", fresh, j.Review,
			j.Summary.Total, before.Summary.Total, probe.Class, j.classCount(probe.Class), before.classCount(probe.Class))
	}
	if left := eval[int](t, ctx, `document.querySelectorAll('#search-list li.new').length`); left != 0 {
		t.Errorf("%d matches still listed as new after adding all", left)
	}
	checkCounts(t, ctx, e, id, 0, "after adding the matches")
}

// navState is where navigation left the page.
type navState struct {
	Page     string  `json:"page"`
	ID       string  `json:"id"`
	Class    string  `json:"class"`
	DX, DY   float64 // the selected box's centre less the view's centre (px)
	Size     float64 // the box's longer side on screen (px)
	ViewSide float64 // the view's shorter side (px)
}

const navStateJS = `(async () => {
	const frame = () => new Promise(requestAnimationFrame);
	await frame(); await frame(); // the view moves at the next frame

	const b = document.querySelector('#boxes .box.selected');
	const v = document.getElementById('viewport').getBoundingClientRect();
	if (!b) return {page: document.body.dataset.page, id: ''};
	const r = b.getBoundingClientRect();
	return {page: document.body.dataset.page, id: b.dataset.id, class: b.dataset.class,
		DX: r.left + r.width / 2 - (v.left + v.width / 2), DY: r.top + r.height / 2 - (v.top + v.height / 2),
		Size: Math.max(r.width, r.height), ViewSide: Math.min(v.width, v.height)};
})()`

// navAt is where navigation left the page, once the view has moved.
func navAt(t *testing.T, ctx context.Context) navState {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[navState](navStateJS, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// readable checks that the selected box is centred at a readable zoom:
// big enough to judge (30 px or more) and whole in view.
func readable(t *testing.T, s navState, what string) {
	t.Helper()
	if math.Abs(s.DX) > 2 || math.Abs(s.DY) > 2 || s.Size < 30 || s.Size > s.ViewSide {
		t.Errorf("%s: box %s is %.0f px, %.1f, %.1f px from the view's centre (view %.0f px): not centred at a readable zoom", what, s.ID, s.Size, s.DX, s.DY, s.ViewSide)
	}
}

// TestReviewPageNextPrevious steps through the boxes with n, p and u: n
// visits every detection of the page once, each centred at a readable
// zoom, then goes on to the next page; p comes back; u skips the
// detections already reviewed.
func TestReviewPageNextPrevious(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	id := processFile(t, e, "sheet-00003.pdf") // pages 0 and 1 with symbols, 2 without
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	showPage(t, ctx, 0)
	page0 := apiDetections(t, e, id, 0, false)
	page1 := apiDetections(t, e, id, 1, false)
	if len(page0) < 3 || len(page1) == 0 {
		t.Fatalf("fixture: %d and %d detections on pages 0 and 1", len(page0), len(page1))
	}
	seen := map[string]bool{}
	var order []string
	for i := range page0 {
		key(t, ctx, "n")
		s := navAt(t, ctx)
		if s.Page != "0" || s.ID == "" || seen[s.ID] {
			t.Fatalf("n #%d: page %s, box %q (seen before: %v)", i+1, s.Page, s.ID, seen[s.ID])
		}
		readable(t, s, fmt.Sprintf("n #%d", i+1))
		seen[s.ID] = true
		order = append(order, s.ID)
	}
	// Past the last box of the page: the first of the next page.
	key(t, ctx, "n")
	s := navAt(t, ctx)
	if s.Page != "1" || !slices.ContainsFunc(page1, func(d apiDet) bool { return d.ID == s.ID }) {
		t.Fatalf("n after the last box of page 0: page %s, box %q; want a box of page 1", s.Page, s.ID)
	}
	readable(t, s, "n onto page 1")
	// p goes back to the last box of page 0.
	key(t, ctx, "p")
	if s := navAt(t, ctx); s.Page != "0" || s.ID != order[len(order)-1] {
		t.Fatalf("p from page 1: page %s, box %q; want %s on page 0", s.Page, s.ID, order[len(order)-1])
	}
	key(t, ctx, "p")
	if s := navAt(t, ctx); s.ID != order[len(order)-2] {
		t.Fatalf("p: box %q, want %s", s.ID, order[len(order)-2])
	}
	// Accept the first two boxes, go back to the first: u skips the
	// second and stops on the third.
	showPage(t, ctx, 0)
	key(t, ctx, kb.Escape) // nothing selected: n starts at the first box
	key(t, ctx, "n")
	key(t, ctx, "a")
	key(t, ctx, "n")
	key(t, ctx, "a")
	key(t, ctx, "p")
	if s := navAt(t, ctx); s.ID != order[0] {
		t.Fatalf("after reviewing two boxes and p: box %q, want %s", s.ID, order[0])
	}
	key(t, ctx, "u")
	s = navAt(t, ctx)
	if s.ID != order[2] {
		t.Fatalf("u from the first box: box %q, want the first unreviewed, %s", s.ID, order[2])
	}
	readable(t, s, "u")
	for _, want := range order[:2] {
		if d := apiDetection(t, e, id, 0, want); d == nil || d.decision() != "accepted" {
			t.Errorf("box %s: %+v, want accepted", want, d)
		}
	}
	// The buttons do what the keys do.
	browse(t, ctx, chromedp.Click(chromedp.ID("nav-next")))
	caughtUp(t, ctx)
	if s := navAt(t, ctx); s.ID != order[3%len(order)] {
		t.Errorf("the next button: box %q, want %s", s.ID, order[3%len(order)])
	}
}

// legendFixture is a done poll's handler with a legend in the shape the
// service gives (rows for the first two classes of the summary and a row
// of no class), each class row carrying a tag, a part number and the box
// of its glyph on page 0 (glyph_bbox_norm, here the box of a detection of
// its class: the sheet drawn has no legend; TestReviewPageLegendGlyphs
// shows the service's own boxes), and, where legendPage is set, page 0
// marked as a legend sheet (kind legend, detection_count 0, as the
// service counts such pages).
func legendFixture(legendPage bool) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
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
				pages := m["pages"].([]any)
				for i, p := range pages {
					p.(map[string]any)["kind"] = "floor_plan"
					if i == 0 && legendPage {
						p.(map[string]any)["kind"] = "legend"
						p.(map[string]any)["detection_count"] = 0
					}
				}
				if !legendPage {
					var legend []any
					syms := m["summary"].(map[string]any)["by_symbol"].([]any)
					dets := pageZero(h, r, m["job_id"].(string))
					for i, s := range syms[:min(2, len(syms))] {
						sm := s.(map[string]any)
						row := map[string]any{"page_index": 0, "description": "Row " + sm["class"].(string), "class": sm["class"],
							"printed_quantity": sm["count"], "detected": sm["count"], "tag": fmt.Sprintf("T%d", i+1), "part_number": fmt.Sprintf("PN-%d", 100+i), "glyph_bbox_norm": nil}
						for _, d := range dets {
							if d.Class == sm["class"] {
								row["glyph_bbox_norm"] = d.BBoxNorm
								break
							}
						}
						legend = append(legend, row)
					}
					m["legend"] = append(legend, map[string]any{"page_index": 0, "description": "Floor box", "class": nil, "printed_quantity": 2, "detected": 0,
						"tag": nil, "part_number": nil, "glyph_bbox_norm": nil})
				}
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
}

// pageZero lists the detections of page 0 of job id, asked of h with the
// headers of request r (nil when it answers otherwise).
func pageZero(h http.Handler, r *http.Request, id string) []apiDet {
	req := httptest.NewRequestWithContext(r.Context(), http.MethodGet, "/v1/jobs/"+id+"/pages/0/detections?limit=2000", nil)
	req.Header = r.Header.Clone()
	rw := httptest.NewRecorder()
	h.ServeHTTP(rw, req)
	var pd struct {
		Detections []apiDet `json:"detections"`
	}
	if rw.Code != http.StatusOK || json.Unmarshal(rw.Body.Bytes(), &pd) != nil {
		return nil
	}
	return pd.Detections
}

// TestReviewPageLegendRows checks that each legend row shows its glyph
// cut from the page image, its tag and part number, and that a click on a
// row shows only its detections and goes to the first, centred; a second
// click to the next.
func TestReviewPageLegendRows(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, legendFixture(false))
	id := processFile(t, e, "sheet-00002.pdf")
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	type row struct {
		Class, Text, Image string
		GlyphW, GlyphH     float64
	}
	rows := eval[[]row](t, ctx, `[...document.querySelectorAll('#legend tbody tr')].map((r) => { const g = r.querySelector('.glyph');
		return {Class: r.dataset.class || '', Text: r.innerText.replace(/\s+/g, ' '), Image: g ? g.style.backgroundImage : '',
			GlyphW: g ? g.getBoundingClientRect().width : 0, GlyphH: g ? g.getBoundingClientRect().height : 0}; })`)
	if len(rows) != 3 {
		t.Fatalf("legend rows %+v, want 3", rows)
	}
	img := eval[string](t, ctx, `document.getElementById('page-image').src`)
	for i, r := range rows[:2] {
		if !strings.Contains(r.Text, fmt.Sprintf("tag T%d", i+1)) || !strings.Contains(r.Text, fmt.Sprintf("part PN-%d", 100+i)) {
			t.Errorf("row %d %q: want its tag and part number", i, r.Text)
		}
		if !strings.Contains(r.Image, strings.TrimPrefix(img, e.base)) || r.GlyphW < 10 || r.GlyphH < 10 {
			t.Errorf("row %d glyph: image %q (%.0fx%.0f px), want a cut of the page image %s", i, r.Image, r.GlyphW, r.GlyphH, img)
		}
	}
	cls := rows[0].Class
	var want []string
	for _, d := range apiDetections(t, e, id, 0, false) {
		if d.Class == cls {
			want = append(want, d.ID)
		}
	}
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#legend tbody tr[data-row='0']`)))
	caughtUp(t, ctx)
	shown := eval[[]string](t, ctx, `[...document.querySelectorAll('#boxes .box:not([hidden])')].map((b) => b.dataset.class)`)
	if len(shown) != len(want) || slices.ContainsFunc(shown, func(c string) bool { return c != cls }) {
		t.Errorf("after a click on the row of %s the page shows %d boxes (%v), want its %d", cls, len(shown), sorted(shown), len(want))
	}
	s := navAt(t, ctx)
	if !slices.Contains(want, s.ID) {
		t.Fatalf("the row opened box %q, want one of %s", s.ID, cls)
	}
	readable(t, s, "legend row")
	if len(want) > 1 {
		browse(t, ctx, chromedp.Click(chromedp.CSS(`#legend tbody tr[data-row='0']`)))
		caughtUp(t, ctx)
		if s2 := navAt(t, ctx); s2.ID == s.ID || !slices.Contains(want, s2.ID) {
			t.Errorf("a second click on the row: box %q, want another %s than %s", s2.ID, cls, s.ID)
		}
	}
	if open := eval[bool](t, ctx, `document.querySelector("#legend tbody tr[data-row='0']").classList.contains('open')`); !open {
		t.Error("the row opened is not marked")
	}
	// The row of no class opens nothing.
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#legend tbody tr[data-row='2']`)))
	if n := eval[int](t, ctx, `document.querySelectorAll('#boxes .box:not([hidden])').length`); n != len(want) {
		t.Errorf("a click on the row of no class changed the boxes shown to %d", n)
	}
}

// TestReviewPageLegendGlyphs opens a job of a sheet with a legend table,
// served as the service gives it, and checks that every legend row with a
// glyph box (glyph_bbox_norm) shows the glyph cut from its page's image at
// that box, and the others none.
func TestReviewPageLegendGlyphs(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	id := processFile(t, e, "sheet-00001.pdf")
	var poll struct {
		Pages []struct {
			Width  float64 `json:"width_px"`
			Height float64 `json:"height_px"`
		} `json:"pages"`
		Legend []struct {
			Page  int `json:"page_index"`
			Glyph *struct {
				X      float64 `json:"x"`
				Y      float64 `json:"y"`
				Width  float64 `json:"width"`
				Height float64 `json:"height"`
			} `json:"glyph_bbox_norm"`
		} `json:"legend"`
	}
	if err := json.Unmarshal(e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).Body, &poll); err != nil {
		t.Fatal(err)
	}
	boxes := 0
	for _, r := range poll.Legend {
		if r.Glyph != nil {
			boxes++
		}
	}
	if len(poll.Legend) == 0 || boxes == 0 {
		t.Fatalf("the sheet's legend: %d rows, %d with a glyph box; want some", len(poll.Legend), boxes)
	}
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	// Where the glyph cell's background puts the page: the left and top
	// of what it shows as fractions of the page, and its size.
	type cut struct {
		Glyph        bool
		Left, Top    float64
		Image        string
		CellW, CellH float64
	}
	cuts := eval[[]cut](t, ctx, `[...document.querySelectorAll('#legend tbody tr')].map((r) => { const g = r.querySelector('.glyph');
		if (!g) return {Glyph: false};
		const [sw, sh] = g.style.backgroundSize.split(' ').map(parseFloat), [px, py] = g.style.backgroundPosition.split(' ').map(parseFloat);
		const b = g.getBoundingClientRect();
		return {Glyph: true, Left: -px / sw, Top: -py / sh, Image: g.style.backgroundImage, CellW: b.width, CellH: b.height}; })`)
	if len(cuts) != len(poll.Legend) {
		t.Fatalf("the page lists %d legend rows, the poll %d", len(cuts), len(poll.Legend))
	}
	img := eval[string](t, ctx, `document.getElementById('page-image').src`)
	for i, r := range poll.Legend {
		c := cuts[i]
		if r.Glyph == nil {
			if c.Glyph {
				t.Errorf("row %d has no glyph box but shows a cut of the page", i)
			}
			continue
		}
		// The cut starts a little (its padding) before the glyph's box.
		if !c.Glyph || !strings.Contains(c.Image, strings.TrimPrefix(img, e.base)) || c.CellW < 10 || c.CellH < 10 ||
			c.Left > r.Glyph.X || c.Left < r.Glyph.X-r.Glyph.Width || c.Top > r.Glyph.Y || c.Top < r.Glyph.Y-r.Glyph.Height {
			t.Errorf("row %d (glyph box %+v of page %d): shows %+v, want a cut of the page image %s at the box", i, *r.Glyph, r.Page, c, img)
		}
	}
}

// TestReviewPageOpensFirstCountedPage opens a job whose first page is a
// legend sheet and checks that it opens on the first counted page.
func TestReviewPageOpensFirstCountedPage(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, legendFixture(true))
	id := processFile(t, e, "sheet-00003.pdf")
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	got := eval[[]string](t, ctx, `[document.body.dataset.page, document.querySelector('#pages button[aria-current=true]').dataset.page,
		String(document.querySelectorAll('#boxes .box').length)]`)
	want := fmt.Sprint(len(apiDetections(t, e, id, 1, false)))
	if got[0] != "1" || got[1] != "1" || got[2] != want {
		t.Errorf("the job opened on page %s (tab %s) with %s boxes; want page 1, the first counted, with %s", got[0], got[1], got[2], want)
	}
}

// gateEngine finds one detection on each page, pages before held at once
// and the others only once release is closed: a job that stays
// processing. Its document pass takes page 1 for a schedule, so the pages
// are processed 0, 2, 3, ... and page 1 last (pages finish out of order).
func gateEngine(release <-chan struct{}, held int) detect.Engine {
	return scheduleSecond{detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		if p.Index >= held {
			select {
			case <-release:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		w, h := float64(p.Width), float64(p.Height)
		return []detect.Detection{{Class: "smoke_detector", Confidence: 0.9, Box: detect.Box{X: w / 2, Y: h / 2, W: w / 20, H: w / 20},
			Source: detect.Source{VectorMatching: true}}}, ctx.Err()
	})}
}

// scheduleSecond is an engine whose document pass takes page 1 for a
// schedule (not counted: processed after the counted pages) and every
// other page for a floor plan.
type scheduleSecond struct{ detect.Engine }

func (e scheduleSecond) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	kinds := make([]string, doc.NumPages())
	for i := range kinds {
		kinds[i] = detect.KindFloorPlan
	}
	if len(kinds) > 1 {
		kinds[1] = detect.KindSchedule
	}
	return e.Engine, detect.DocumentInfo{Kinds: kinds}, ctx.Err()
}

// TestReviewPageProgress opens a job while it processes and checks that
// the page shows its progress (pages done of the total, one cell per
// page, filled for exactly the pages the poll lists finished: 0 and 2
// while 3 is held and 1 waits behind it) instead of the prompt for a key
// and an upload, then the drawing once it is done.
func TestReviewPageProgress(t *testing.T) {
	ctx := browser(t, "en-US")
	release := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(release) }) }
	t.Cleanup(open)
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: gateEngine(release, 3)})
	data := pdfDoc([2]int{400, 300}, [2]int{400, 300}, [2]int{400, 300}, [2]int{400, 300})
	created := e.initJob(keyA, map[string]any{"file_name": "slow.pdf", "mime_type": "application/pdf", "size": len(data)})
	if r := e.upload(created, data, "application/pdf"); r.Status != http.StatusOK {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	id := created["job_id"].(string)
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != http.StatusAccepted {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	var poll map[string]any
	waitUntil(t, time.Minute, "pages counted", func() bool {
		poll = e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)
		return poll["status"] == "processing" && poll["pages_total"] != nil
	})
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)),
		chromedp.WaitVisible(chromedp.ID("progress-view")))
	// The page polls once a second: within a few polls it shows what the
	// API says (pages done of the total, one cell per page, the cells of
	// the pages finished filled), until the job stops at page 3 with
	// pages 0 and 2 finished.
	var shown progressShown
	var want string
	deadline := time.Now().Add(20 * time.Second)
	for {
		poll = e.do("GET", "/v1/jobs/"+id, keyA, nil, nil).JSON(t)
		done := 0
		if poll["pages_done"] != nil {
			done = int(poll["pages_done"].(float64))
		}
		var finished []int
		listed, _ := poll["pages_finished"].([]any)
		for _, p := range listed {
			finished = append(finished, int(p.(float64)))
		}
		want = fmt.Sprintf("%d of 4 pages done / 4 cells, done %v", done, finished)
		shown = eval[progressShown](t, ctx, `({Text: document.getElementById('progress-text').textContent,
			Cells: document.querySelectorAll('#progress-pages span').length,
			Done: [...document.querySelectorAll('#progress-pages span')].flatMap((c, i) => c.classList.contains('done') ? [i] : [])})`)
		if (shown.String() == want && slices.Equal(finished, []int{0, 2})) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if shown.String() != want || !strings.HasSuffix(want, "done [0 2]") {
		t.Errorf("while processing the page shows %q, the API says %q (want pages 0 and 2 finished, 1 and 3 not)", shown, want)
	}
	if title := eval[string](t, ctx, `document.getElementById('progress-title').textContent`); !strings.Contains(title, "slow.pdf") {
		t.Errorf("progress title %q, want the file name", title)
	}
	if prompt := eval[bool](t, ctx, `!document.getElementById('empty').hidden`); prompt {
		t.Error("the prompt for a key and an upload shows while the job processes")
	}
	open()
	settled(t, ctx, "default", time.Minute)
	if eval[bool](t, ctx, `!document.getElementById('progress-view').hidden`) || eval[int](t, ctx, `document.querySelectorAll('#boxes .box').length`) != 1 {
		t.Error("once done the page still shows progress, or not the page's box")
	}
}

// progressShown is what the page shows of a job's progress: its text,
// how many page cells and which of them are filled.
type progressShown struct {
	Text  string
	Cells int
	Done  []int
}

func (p progressShown) String() string {
	return fmt.Sprintf("%s / %d cells, done %v", p.Text, p.Cells, p.Done)
}

// TestReviewPageManyPageTabs opens a 60-page job and checks that every
// page tab is laid out whole inside the tab bar (which wraps, and scrolls
// within its height) and that the last one can be clicked and opens its
// page.
func TestReviewPageManyPageTabs(t *testing.T) {
	ctx := browser(t, "en-US")
	none := detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) { return nil, ctx.Err() })
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: none})
	const pages = 60
	sizes := make([][2]int, pages)
	for i := range sizes {
		sizes[i] = [2]int{200, 150}
	}
	id := processPDF(t, e, keyA, "many.pdf", pdfDoc(sizes...), nil)
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	type layout struct {
		Tabs, Clipped int
		Overflow      string
		ZoomShown     bool
	}
	l := eval[layout](t, ctx, `(() => { const nav = document.getElementById('pages'), n = nav.getBoundingClientRect();
		const tabs = [...nav.querySelectorAll('button')];
		const clipped = tabs.filter((b) => { const r = b.getBoundingClientRect();
			return r.width < 10 || r.left < n.left - 0.5 || r.right > n.right + 0.5; }).length;
		const z = document.getElementById('zoom-fit').getBoundingClientRect();
		return {Tabs: tabs.length, Clipped: clipped, Overflow: getComputedStyle(nav).overflowY,
			ZoomShown: z.width > 0 && z.right <= window.innerWidth}; })()`)
	if l.Tabs != pages || l.Clipped != 0 || (l.Overflow != "auto" && l.Overflow != "scroll") || !l.ZoomShown {
		t.Fatalf("tab bar: %+v; want %d tabs, none clipped sideways, scrolling within its height, the zoom buttons in view", l, pages)
	}
	showPage(t, ctx, pages-1)
	if cur := eval[string](t, ctx, `document.querySelector('#pages button[aria-current=true]').dataset.page`); cur != fmt.Sprint(pages-1) {
		t.Errorf("after a click on the last tab page %s is current", cur)
	}
}

// TestReviewPageSearchOutOfTime: a search the service cuts at its time
// limit (BLUEPRINT_SEARCH_BUDGET, here a nanosecond: no page is searched)
// is asked again for the pages it left, and the page stops and says so
// when a request searches none, instead of asking forever.
func TestReviewPageSearchOutOfTime(t *testing.T) {
	ctx := browser(t, "en-US")
	sr := &searchRecorder{}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts()}, sr.wrap, func(c *config.Config) { c.SearchBudget = time.Nanosecond })
	id := processFile(t, e, "sheet-00002.pdf")
	if len(apiDetections(t, e, id, 0, false)) == 0 {
		t.Fatal("no detection to search from")
	}
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	key(t, ctx, "n")
	navAt(t, ctx)
	searchAroundSelected(t, ctx)

	sr.mu.Lock()
	bodies := slices.Clone(sr.bodies)
	sr.mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("the page sent %d searches, want 2 (the first, then once for the pages it left): %q", len(bodies), bodies)
	}
	var again struct {
		Pages []int `json:"pages"`
	}
	if err := json.Unmarshal(bodies[1], &again); err != nil || len(again.Pages) == 0 {
		t.Errorf("the second search asked for pages %v (%v), want the pages the first left", again.Pages, err)
	}
	if msg := eval[string](t, ctx, `document.getElementById('message').textContent`); !strings.Contains(msg, "not searched") {
		t.Errorf("the page says %q after a search that searched no page", msg)
	}
}

// searchAroundSelected draws a box a tenth larger round the selected
// detection and asks for "find more like this", waiting until the search
// panel shows the answer.
func searchAroundSelected(t *testing.T, ctx context.Context) {
	t.Helper()
	r := boxAt(t, ctx, `#boxes .box.selected`)
	pad := 0.1 * max(r.W, r.H)
	browse(t, ctx, append([]chromedp.Action[chromedp.Void]{chromedp.KeyEvent("d")}, drag(r.X-pad, r.Y-pad, r.X+r.W+pad, r.Y+r.H+pad)...)...)
	shown(t, ctx, "draw-menu")
	browse(t, ctx, chromedp.Click(chromedp.ID("draw-search")))
	shown(t, ctx, "search-panel")
	caughtUp(t, ctx)
}

// TestReviewPageWarnings: the warnings of the page shown (issue 51: what
// the take-off cannot stand behind) are listed in the service's words
// above the legend; a page without any hides the list.
func TestReviewPageWarnings(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	id := processFile(t, e, "sheet-00003.pdf")
	job := e.api.WaitStatus(keyA, id, "done")
	var want []string
	for _, w := range job["warnings"].([]any) {
		wm := w.(map[string]any)
		if p, ok := wm["page_index"].(float64); !ok || p == 0 {
			want = append(want, wm["message"].(string))
		}
	}
	if len(want) == 0 {
		t.Fatalf("sheet-00003.pdf has no warning on page 0: %v", job["warnings"])
	}
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	showPage(t, ctx, 0)
	got := eval[[]string](t, ctx, `[...document.querySelectorAll('#warnings li')].map((li) => li.textContent)`)
	hidden := eval[bool](t, ctx, `document.getElementById('warnings-section').hidden`)
	if hidden || !slices.Equal(got, want) {
		t.Errorf("page 0 shows warnings %q (hidden %v), want %q", got, hidden, want)
	}
}

// TestReviewPageWithheld: on a scan read without a legend the raster
// detector's guesses below its floor are withheld: listed with
// review=all, drawn dotted, counted nowhere, their details say why; a
// reviewer's accept counts one.
func TestReviewPageWithheld(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts()})
	data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "synth", "scan-00001.png"))
	if err != nil {
		t.Fatal(err)
	}
	created := e.initJob(keyA, map[string]any{"file_name": "scan-00001.png", "mime_type": "image/png", "size": len(data)})
	id := created["job_id"].(string)
	e.upload(created, data, "image/png")
	if r := e.do("POST", "/v1/jobs/"+id+"/start", keyA, nil, nil); r.Status != 202 {
		t.Fatalf("start: %d %s", r.Status, r.Body)
	}
	e.api.WaitStatus(keyA, id, "done")
	held := 0
	for _, d := range apiDetections(t, e, id, 0, true) {
		if d.Withheld != nil {
			if *d.Withheld != "catalog_only" {
				t.Errorf("detection %s withheld as %q, want catalog_only", d.ID, *d.Withheld)
			}
			held++
		}
	}
	if held == 0 {
		t.Fatal("the scan's raster guesses: none withheld")
	}
	before := pollJob(t, e, id)
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	if n := eval[int](t, ctx, `document.querySelectorAll('#boxes .box[data-withheld]').length`); n != held {
		t.Errorf("the page draws %d withheld boxes, the API lists %d", n, held)
	}
	checkCounts(t, ctx, e, id, 0, "withheld boxes shown")

	// Accept a withheld box: it counts.
	pick := eval[string](t, ctx, `[...document.querySelectorAll('#boxes .box[data-withheld]')].find((b) => { const r = b.getBoundingClientRect();
		return document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2) === b; })?.dataset.id ?? ''`)
	if pick == "" {
		t.Fatal("no withheld box whose centre another box does not cover")
	}
	r := boxAt(t, ctx, fmt.Sprintf(`#boxes .box[data-id=%q]`, pick))
	browse(t, ctx, chromedp.MouseClickXY(r.X+r.W/2, r.Y+r.H/2))
	if got := eval[string](t, ctx, `document.getElementById('details').textContent`); !strings.Contains(got, "Withheld") || !strings.Contains(got, "no legend row names this class") {
		t.Errorf("details of a withheld box: %q", got)
	}
	key(t, ctx, "a")
	if d := apiDetection(t, e, id, 0, pick); d == nil || d.decision() != "accepted" || d.Withheld != nil {
		t.Fatalf("after a on withheld box %s the API has %+v, want it accepted and counted", pick, d)
	}
	if got := eval[string](t, ctx, fmt.Sprintf(`document.querySelector('#boxes .box[data-id=%q]').dataset.withheld ?? ''`, pick)); got != "" {
		t.Errorf("the accepted box is still drawn withheld (%q)", got)
	}
	if j := pollJob(t, e, id); j.Summary.Total != before.Summary.Total+1 {
		t.Errorf("after accepting a withheld box the API counts %d, before %d", j.Summary.Total, before.Summary.Total)
	}
	checkCounts(t, ctx, e, id, 0, "after accepting a withheld box")
}

// nearMissInjector answers every POST .../search with the service's own
// answer and one near miss added to it (near), keeping the bodies sent.
type nearMissInjector struct {
	searchRecorder
	nearMu sync.Mutex
	near   map[string]any
}

// setReason makes the injected near miss's reason r from the next answer.
func (n *nearMissInjector) setReason(r string) {
	n.nearMu.Lock()
	defer n.nearMu.Unlock()
	near := maps.Clone(n.near)
	near["reason"] = r
	n.near = near
}

func (n *nearMissInjector) wrap(h http.Handler) http.Handler {
	return n.searchRecorder.wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/search") {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		var res map[string]any
		if rec.Code != http.StatusOK || json.Unmarshal(rec.Body.Bytes(), &res) != nil {
			w.WriteHeader(rec.Code)
			_, _ = w.Write(rec.Body.Bytes())
			return
		}
		n.nearMu.Lock()
		res["near_misses"] = []any{n.near}
		n.nearMu.Unlock()
		body, _ := json.Marshal(res)
		w.Header().Del("Content-Length")
		_, _ = w.Write(body)
	}))
}

// TestReviewPageNotLikeThisAndNearMisses: a new match marked "not like
// this" runs the search again with that match's place (grown round it) in
// exclude; the near misses are listed below the matches with their reason
// in words, none picked, and one click adds one as a detection of the
// searched class.
func TestReviewPageNotLikeThisAndNearMisses(t *testing.T) {
	ctx := browser(t, "en-US")
	near := map[string]any{"page_index": 0, "bbox_norm": map[string]any{"x": 0.02, "y": 0.02, "width": 0.01, "height": 0.01},
		"bbox_px": map[string]any{"x": 1, "y": 1, "width": 1, "height": 1}, "score": 0.85, "reason": "extra_stroke", "detection_id": nil}
	ni := &nearMissInjector{near: near}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts(), engine: missingEngine(t)}, ni.wrap)
	id := processFile(t, e, "sheet-00002.pdf")
	dets := apiDetections(t, e, id, 0, false)
	n := map[string]int{}
	for _, d := range dets {
		n[d.Class]++
	}
	var probe apiDet
	for _, d := range dets {
		if n[d.Class] > n[probe.Class] {
			probe = d
		}
	}
	browse(t, ctx, chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
	settled(t, ctx, "default", time.Minute)
	for range len(dets) + 1 {
		if eval[string](t, ctx, selectedIDJS) == probe.ID {
			break
		}
		key(t, ctx, "n")
	}
	navAt(t, ctx)
	searchAroundSelected(t, ctx)

	type listed struct {
		Near, Picked int
		Text         string
		NotLike      int
	}
	got := eval[listed](t, ctx, `({Near: document.querySelectorAll('#search-near li').length,
		Picked: document.querySelectorAll('#search-near input:checked').length,
		Text: (document.querySelector('#search-near li') || {}).textContent || '',
		NotLike: document.querySelectorAll('#search-list li.new .not-like').length})`)
	if got.Near != 1 || got.Picked != 0 || !strings.Contains(got.Text, "an extra stroke") || !strings.Contains(got.Text, "0.85") {
		t.Fatalf("near misses listed: %+v, want the one the answer holds, unpicked, with its reason in words", got)
	}
	if got.NotLike == 0 {
		t.Fatal("no new match offers \"not like this\"")
	}
	anyColourShown := `!document.getElementById('search-any-colour').hidden`
	if eval[bool](t, ctx, anyColourShown) {
		t.Error("\"find them in any colour\" offered with no near miss for its colour")
	}
	// The next answers hold a near miss for its colour only.
	ni.setReason("another_colour")

	// "Not like this" on the first new match: the search again, with it
	// in exclude.
	first := len(ni.bodies)
	var m struct {
		BBoxNorm map[string]float64 `json:"bbox_norm"`
	}
	mi := eval[int](t, ctx, `+document.querySelector('#search-list li.new').dataset.m`)
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#search-list li.new .not-like`)))
	caughtUp(t, ctx)
	var req struct {
		Exclude []struct {
			PageIndex int                `json:"page_index"`
			BBoxNorm  map[string]float64 `json:"bbox_norm"`
		} `json:"exclude"`
	}
	if len(ni.bodies) <= first || json.Unmarshal(ni.last(), &req) != nil || len(req.Exclude) != 1 || req.Exclude[0].PageIndex != 0 {
		t.Fatalf("after \"not like this\" the page sent %q", ni.last())
	}
	var res struct {
		Matches []json.RawMessage `json:"matches"`
	}
	if err := json.Unmarshal(e.do("POST", "/v1/jobs/"+id+"/search", keyA, ni.bodies[first-1], nil).Body, &res); err != nil || mi >= len(res.Matches) {
		t.Fatalf("the first answer: %v (match %d)", err, mi)
	}
	_ = json.Unmarshal(res.Matches[mi], &m)
	x := req.Exclude[0].BBoxNorm
	if x["x"] > m.BBoxNorm["x"] || x["y"] > m.BBoxNorm["y"] || x["x"]+x["width"] < m.BBoxNorm["x"]+m.BBoxNorm["width"] || x["y"]+x["height"] < m.BBoxNorm["y"]+m.BBoxNorm["height"] {
		t.Errorf("excluded box %v does not hold the match %v", x, m.BBoxNorm)
	}
	t.Logf("not like this: excluded %v round match %v", x, m.BBoxNorm)

	// A near miss for its colour only: one click searches again in any
	// colour, keeping the look-alike left out; then the offer is gone.
	if !eval[bool](t, ctx, anyColourShown) {
		t.Fatal("no \"find them in any colour\" with a near miss for its colour listed")
	}
	browse(t, ctx, chromedp.Click(chromedp.ID("search-any-colour")))
	caughtUp(t, ctx)
	var anyReq struct {
		AnyColour bool              `json:"any_colour"`
		Exclude   []json.RawMessage `json:"exclude"`
	}
	if json.Unmarshal(ni.last(), &anyReq) != nil || !anyReq.AnyColour || len(anyReq.Exclude) != 1 {
		t.Errorf("\"find them in any colour\" sent %q, want any_colour and the look-alike kept", ni.last())
	}
	if eval[bool](t, ctx, anyColourShown) {
		t.Error("\"find them in any colour\" still offered after searching in any colour")
	}

	// One click accepts the near miss as a detection of the class.
	before := pollJob(t, e, id)
	browse(t, ctx, chromedp.Click(chromedp.CSS(`#search-near li .accept-near`)))
	caughtUp(t, ctx)
	j := pollJob(t, e, id)
	if j.Review == nil || j.Review.Added != 1 || j.classCount(probe.Class) != before.classCount(probe.Class)+1 {
		t.Errorf("after accepting the near miss: review %+v, %s %d (before %d)", j.Review, probe.Class, j.classCount(probe.Class), before.classCount(probe.Class))
	}
	if left := eval[int](t, ctx, `document.querySelectorAll('#search-near li .accept-near').length`); left != 0 {
		t.Errorf("the near miss still offers to be added after it was")
	}
}
