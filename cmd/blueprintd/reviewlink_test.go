package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"blueprint/internal/apikey"
	"blueprint/internal/apitest"
	"blueprint/internal/config"
)

// randomKey is an API key no other test or file holds, so that finding
// its bytes anywhere means it was put there.
func randomKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return "key-rnd-" + hex.EncodeToString(b)
}

// withKeys adds keys (rate 1000 a minute) to the configuration.
func withKeys(keys ...string) func(*config.Config) {
	return func(c *config.Config) {
		for _, k := range keys {
			c.APIKeys = append(c.APIKeys, apikey.Entry{Key: k, WebhookSecret: "whsec-" + k, RequestsPerMinute: 1000})
		}
	}
}

// keyRecorder remembers the X-API-Key of every request the server got
// from the browser (not from the test's own client).
type keyRecorder struct {
	mu   sync.Mutex
	keys map[string]int
}

func (k *keyRecorder) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k.mu.Lock()
		if k.keys == nil {
			k.keys = map[string]int{}
		}
		if strings.Contains(r.UserAgent(), "Chrome") {
			k.keys[r.Header.Get("X-API-Key")]++
		}
		k.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

// used is the number of the browser's requests that carried key.
func (k *keyRecorder) used(key string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.keys[key]
}

// pageState is what the review page holds and shows about its key.
type pageState struct {
	Hash    string `json:"hash"`
	Stored  string `json:"stored"`
	Field   string `json:"field"`
	Message string `json:"message"`
	Status  string `json:"status"`
	Dialog  bool   `json:"dialog"`
}

const pageStateJS = `({hash: location.hash, stored: sessionStorage.getItem('blueprint.apiKey') || '',
	field: document.getElementById('api-key').value, message: document.getElementById('message').textContent,
	status: document.body.dataset.status || '', dialog: document.getElementById('key-change').open})`

// waitPage polls the page until cond (a JavaScript expression over the
// pageState s) holds, and returns the state.
func waitPage(t *testing.T, ctx context.Context, what, cond string) pageState {
	t.Helper()
	expr := `(() => { const s = ` + pageStateJS + `; return (` + cond + `) ? 'yes' : ''; })()`
	if _, err := chromedp.Run(ctx, chromedp.Poll[string](expr, chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(50*time.Millisecond))); err != nil {
		t.Fatalf("%s: the page never had %s: %+v (%v)", what, cond, eval[pageState](t, ctx, pageStateJS), err)
	}
	return eval[pageState](t, ctx, pageStateJS)
}

// historyBytes returns the bytes of the profile's History database with
// its journal and write-ahead log: where Chromium keeps the URLs visited
// (tables urls and visits).
func historyBytes(t *testing.T, profile string) []byte {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(profile, "Default", "History*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no History database in the profile %s (%v)", profile, err)
	}
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// TestReviewLinkKeepsKeyOutOfHistory follows links the way a person does,
// in a Chromium with its own profile, and then reads the browser's History
// database after it has exited:
//
//   - a review link (#job=…&handoff=…) signs the page in with a review
//     credential of its job, never the key (which the browser never sends
//     nor sees); the page shows that job without the job list and the
//     upload; the link works once;
//   - later links in the same tab: #key= is ignored; a link replaces a
//     credential in use; with the key in use, a link to one of its jobs
//     just opens it, a link the key cannot open asks first (the answer
//     "keep" keeps it, "switch" switches);
//   - a #key= link is never used: the key leaves the address bar, is not
//     stored, never reaches the server, and the page asks for the key.
//     The browser writes the URL it was asked to open into History before
//     any page code runs, so such a link's key is in History as part of
//     that URL, and nowhere else.
func TestReviewLinkKeepsKeyOutOfHistory(t *testing.T) {
	profile := t.TempDir()
	ctx := browserIn(t, "en-US", profile)
	handoffKey, otherKey, linkKey := randomKey(t), randomKey(t), randomKey(t)
	rec := &keyRecorder{}
	e := startEnvWrapped(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()}, rec.wrap, withKeys(handoffKey, otherKey, linkKey))
	id := processPDF(t, e, handoffKey, "plan.pdf", pdfDoc([2]int{144, 72}), nil)
	otherID := processPDF(t, e, otherKey, "other.pdf", pdfDoc([2]int{144, 72}), nil)

	// A review link signs the page in for its job and opens it.
	link := e.api.CreateReviewLink(handoffKey, id)
	token := apitest.LinkFragment(t, link).Get("handoff")
	browse(t, ctx, chromedp.Navigate(link))
	settled(t, ctx, "default", time.Minute)
	s := eval[pageState](t, ctx, pageStateJS)
	cred := s.Stored
	if s.Hash != "#job="+id || !strings.HasPrefix(cred, "rvc1.") || s.Field != "" {
		t.Errorf("after the review link: %+v; want #job= only and a review credential stored, not in the key field", s)
	}
	hidden := `['jobs-panel', 'upload-panel'].every((id) => getComputedStyle(document.getElementById(id)).display === 'none') && !document.getElementById('review-note').hidden`
	if !eval[bool](t, ctx, hidden) {
		t.Error("with a review credential the page shows the job list or the upload, or no note")
	}
	// The same link again: the token is spent, and the page says so.
	browse(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(link))
	if s := waitPage(t, ctx, "a used link", `s.status === 'error'`); !strings.Contains(s.Message, "already been used") || s.Stored != cred || s.Hash != "#job="+id {
		t.Errorf("a used link: %+v", s)
	}

	// A later #key= in the same tab changes nothing but the address bar.
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '#key=`+otherKey+`&job=`+otherID+`'`))
	if s := waitPage(t, ctx, "#key= in a later link", `s.hash === '#job=`+otherID+`'`); s.Stored != cred {
		t.Errorf("#key= in a later link changed the key: %+v", s)
	}
	hash := func(link string) string { return link[strings.Index(link, "#"):] }
	title := func(want string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Poll[bool](`document.getElementById('job-title').textContent === '`+want+`'`, chromedp.WithPollingTimeout(30*time.Second))); err != nil {
			t.Errorf("the page shows %q, want %q (%v)", eval[string](t, ctx, `document.getElementById('job-title').textContent`), want, err)
		}
	}
	// Another link while a credential is in use replaces it: a link
	// grants no more than the one it replaces.
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '`+hash(e.api.CreateReviewLink(otherKey, otherID))+`'`))
	waitPage(t, ctx, "a second link", `s.stored !== '`+cred+`'`)
	title("other.pdf")
	if s := eval[pageState](t, ctx, pageStateJS); s.Dialog || !strings.HasPrefix(s.Stored, "rvc1.") || s.Hash != "#job="+otherID {
		t.Errorf("after a second link: %+v", s)
	}
	if rec.used(cred) == 0 {
		t.Fatal("the recorder saw no request of the browser with the credential it uses")
	}
	for _, k := range []string{handoffKey, otherKey} {
		if n := rec.used(k); n != 0 {
			t.Errorf("the browser sent an API key %d times: a review link must never give it one", n)
		}
	}

	// The person's own key in use: a link to one of its jobs just opens
	// it, without asking and without a credential.
	pasteKey := func() {
		t.Helper()
		browse(t, ctx, chromedp.SetValue(chromedp.ID("api-key"), handoffKey), chromedp.Click(chromedp.CSS(`#key-form button[type=submit]`)))
		waitPage(t, ctx, "the key pasted", `s.stored === '`+handoffKey+`'`)
	}
	pasteKey()
	if eval[bool](t, ctx, hidden) {
		t.Error("with the key the page hides the job list and the upload")
	}
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '`+hash(e.api.CreateReviewLink(handoffKey, id))+`'`))
	title("plan.pdf")
	if s := eval[pageState](t, ctx, pageStateJS); s.Dialog || s.Stored != handoffKey || s.Hash != "#job="+id {
		t.Errorf("a link to a job of the key in use: %+v", s)
	}
	// A link the key cannot open asks; "keep" keeps the key in use.
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '`+hash(e.api.CreateReviewLink(otherKey, otherID))+`'`))
	waitPage(t, ctx, "a link to another key's job", `s.dialog`)
	browse(t, ctx, chromedp.Click(chromedp.ID("key-keep")))
	if s := waitPage(t, ctx, "keep", `!s.dialog && s.message.includes('Kept')`); s.Stored != handoffKey {
		t.Errorf("after keep: %+v", s)
	}
	// "switch" takes the link's credential and opens its job.
	browse(t, ctx, chromedp.Evaluate[chromedp.Void](`location.hash = '`+hash(e.api.CreateReviewLink(otherKey, otherID))+`'`))
	waitPage(t, ctx, "a second link to another key's job", `s.dialog`)
	browse(t, ctx, chromedp.Click(chromedp.ID("key-switch")))
	waitPage(t, ctx, "switch", `s.stored.startsWith('rvc1.')`)
	title("other.pdf")
	if s := eval[pageState](t, ctx, pageStateJS); s.Hash != "#job="+otherID || s.Field != "" {
		t.Errorf("after switch: %+v", s)
	}
	if n := rec.used(otherKey); n != 0 {
		t.Errorf("the browser sent another key %d times", n)
	}

	// A #key= link in a tab that holds no key: never used, and said so.
	browse(t, ctx, chromedp.Click(chromedp.ID("forget-key")), chromedp.Navigate("about:blank"),
		chromedp.Navigate(e.base+"/app/#key="+linkKey+"&job="+id))
	if s := waitPage(t, ctx, "a #key= link", `s.message.includes('Paste your key')`); s.Hash != "#job="+id || s.Stored != "" || s.Field != "" {
		t.Errorf("a #key= link: %+v; want the key gone from the address bar and unused", s)
	}
	if n := rec.used(linkKey); n != 0 {
		t.Errorf("the key of a #key= link reached the server %d times", n)
	}

	// Close Chromium the way a person does, then read its History.
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Cancel(cctx); err != nil {
		t.Fatalf("close Chromium: %v", err)
	}
	hist := historyBytes(t, profile)
	if !bytes.Contains(hist, []byte(token)) {
		t.Fatal("History does not hold the review link the browser opened: the test reads the wrong file")
	}
	if bytes.Contains(hist, []byte(handoffKey)) || bytes.Contains(hist, []byte(cred)) {
		t.Errorf("the key or the review credential is in the browser's History")
	}
	// Keys that links carried in #key= are in History only inside those
	// URLs ("…/app/#key=K&job=…"), which the browser recorded on opening
	// them: the page wrote no URL, title or anything else with a key.
	for _, k := range []string{otherKey, linkKey} {
		all, inLink := bytes.Count(hist, []byte(k)), bytes.Count(hist, []byte("/app/#key="+k+"&job="))
		if all != inLink {
			t.Errorf("History holds a key %d times, only %d of them in the #key= link that carried it", all, inLink)
		}
	}
	if bytes.Count(hist, []byte("/app/#key="+linkKey)) == 0 {
		t.Log("this Chromium did not record the #key= link in History")
	}
}

// TestReviewPageTakeoffFileNames downloads the take-off of jobs whose
// file names hold "%" (plain and with a non-ASCII letter, which the
// service sends as filename*=utf-8”…) and checks the name the page saves
// it under; it also checks the page's Content-Disposition reading on
// headers no job gives.
func TestReviewPageTakeoffFileNames(t *testing.T) {
	ctx := browser(t, "en-US")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	for name, want := range map[string]string{
		"100% plan.pdf":      "100% plan-takeoff.csv",
		"Kytkentä 5%.pdf":    "Kytkentä 5%-takeoff.csv",
		"50%25 – mix.pdf":    "50%25 – mix-takeoff.csv",
		`say "%E0%A4%A".pdf`: `say "%E0%A4%A"-takeoff.csv`,
	} {
		id := processPDF(t, e, keyA, name, pdfDoc([2]int{144, 72}), nil)
		browse(t, ctx, chromedp.Navigate("about:blank"), chromedp.Navigate(e.api.CreateReviewLink(keyA, id)))
		settled(t, ctx, "default", time.Minute)
		// Record the download instead of saving a file.
		browse(t, ctx, chromedp.Evaluate[chromedp.Void](`window.saved = []; HTMLAnchorElement.prototype.click = function () { window.saved.push(this.download); }`),
			chromedp.Click(chromedp.ID("download-csv")))
		s := waitPage(t, ctx, name, `s.message !== '' && s.message !== 'Loading…'`)
		saved := eval[[]string](t, ctx, `window.saved`)
		if s.Status == "error" || !slices.Equal(saved, []string{want}) || s.Message != "Downloaded "+want+"." {
			t.Errorf("%q: saved as %q, the page says %q (status %s); want %q", name, saved, s.Message, s.Status, want)
		}
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`import('/app/api.js').then((m) => [
		"attachment; filename=\"a%zz.csv\"",
		"attachment; filename=\"q\\\"uote\\\\d.csv\"",
		"attachment; filename*=utf-8''%E2%82%AC%25.csv",
		"attachment; filename*=utf-8''bad%E2.csv; filename=\"fallback.csv\"",
		"attachment; filename=plain.csv",
		"attachment",
		null,
	].map(m.dispositionFileName))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{"a%zz.csv", `q"uote\d.csv`, "€%.csv", "fallback.csv", "plain.csv", nil, nil}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dispositionFileName: %q, want %q", got, want)
	}
}

// TestSignedFilesHeadAndNosniff checks that HEAD on a page's signed
// image_url and on a signed icon URL answers as GET does, without the
// body, and that JSON answers, errors and files all carry
// X-Content-Type-Options: nosniff.
func TestSignedFilesHeadAndNosniff(t *testing.T) {
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: scriptedEngine()})
	id := processPDF(t, e, keyA, "a.pdf", pdfDoc([2]int{144, 72}), nil)
	poll := e.do("GET", "/v1/jobs/"+id, keyA, nil, nil)
	image := poll.JSON(t)["pages"].([]any)[0].(map[string]any)["image_url"].(string)
	icon := e.do("GET", "/v1/symbols/socket_outlet/icon", keyA, nil, nil).Header.Get("Location")
	raw := func(method, u string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, u, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	for _, u := range []string{image, icon} {
		get, body := raw("GET", u)
		head, none := raw("HEAD", u)
		if get.StatusCode != 200 || head.StatusCode != 200 || len(none) != 0 || len(body) == 0 {
			t.Errorf("%s: GET %d (%d bytes), HEAD %d (%d bytes); want 200 both, HEAD without the body", u, get.StatusCode, len(body), head.StatusCode, len(none))
			continue
		}
		for _, h := range []string{"Content-Type", "Content-Length", "Cache-Control", "X-Content-Type-Options"} {
			if head.Header.Get(h) != get.Header.Get(h) {
				t.Errorf("%s: %s %q on HEAD, %q on GET", u, h, head.Header.Get(h), get.Header.Get(h))
			}
		}
		if get.Header.Get("Content-Length") != fmt.Sprint(len(body)) {
			t.Errorf("%s: Content-Length %s for %d bytes", u, get.Header.Get("Content-Length"), len(body))
		}
	}
	if r, _ := raw("HEAD", strings.Replace(image, "sig=", "sig=0", 1)); r.StatusCode != 403 {
		t.Errorf("HEAD with a forged signature: %d", r.StatusCode)
	}
	for _, r := range []response{
		poll,
		e.do("GET", "/v1/jobs/"+id+"/takeoff.csv", keyA, nil, nil),
		e.do("GET", "/v1/jobs/nope", keyA, nil, nil),
		e.do("GET", "/v1/jobs", "", nil, nil),
		e.do("GET", "/v1/symbols/socket_outlet/icon", keyA, nil, nil),
		e.do("GET", "/v1/openapi.json", "", nil, nil),
	} {
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%d %s answer without X-Content-Type-Options: nosniff", r.Status, r.Header.Get("Content-Type"))
		}
	}
	for _, u := range []string{image, icon} {
		if r, _ := raw("GET", u); r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no X-Content-Type-Options: nosniff", u)
		}
	}
}
