package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"blueprint/internal/apitest"
)

// TestReviewPageUploadWithReference: the upload offers "Count with the
// legend of" the key's done jobs; a drawing uploaded with one chosen is a
// job whose reference_jobs names it, and the legend panel lists the rows
// that job lent, saying whose they are.
func TestReviewPageUploadWithReference(t *testing.T) {
	ctx := browser(t, "en-GB")
	e := startEnv(t, t.TempDir(), options{runner: runnerOpts(), engine: apitest.ScriptedReferencingEngine()})
	doc := apitest.PDFDoc([2]int{144, 72})
	legend := processPDF(t, e, keyA, "legend.pdf", doc, nil)
	path := filepath.Join(t.TempDir(), "plan.pdf")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	browse(t, ctx, chromedp.Navigate(e.base+"/app/"),
		chromedp.SetValue(chromedp.ID("api-key"), keyA),
		chromedp.Click(chromedp.CSS(`#key-form button[type=submit]`)),
	)
	expr := `[...document.querySelectorAll('#upload-reference option')].map((o) => o.value).join(' ')`
	got, err := chromedp.Run(ctx, chromedp.Poll[string](expr+` + (document.getElementById('upload-reference-row').hidden ? '' : ' shown')`,
		chromedp.WithPollingTimeout(30*time.Second), chromedp.WithPollingInterval(50*time.Millisecond)))
	if err != nil || got != " "+legend+" shown" {
		t.Fatalf("reference choices %q (%v), want none and %s, shown", got, err, legend)
	}
	browse(t, ctx,
		chromedp.SetValue(chromedp.ID("upload-reference"), legend),
		chromedp.SetUploadFiles(chromedp.ID("upload-file"), []string{path}),
		chromedp.Click(chromedp.CSS(`#upload-form button[type=submit]`)),
	)
	settled(t, ctx, "default", 2*time.Minute)
	id := strings.TrimPrefix(eval[string](t, ctx, `location.hash`), "#job=")
	poll := e.waitStatus(keyA, id, "done")
	if refs, _ := poll["reference_jobs"].([]any); len(refs) != 1 || refs[0] != legend {
		t.Fatalf("the uploaded job's reference_jobs %v, want [%s]", poll["reference_jobs"], legend)
	}
	rows := eval[[]string](t, ctx, `[...document.querySelectorAll('#legend tbody tr[data-reference]')].map((r) => r.dataset.reference + ' ' + r.textContent)`)
	if len(rows) == 0 {
		t.Fatal("the legend panel lists no row of the reference job")
	}
	for _, r := range rows {
		if !strings.HasPrefix(r, legend+" From legend.pdf") {
			t.Errorf("reference row %q: want it named as from legend.pdf", r)
		}
	}
}
