package job_test

import (
	"context"
	"fmt"
	"testing"

	"blueprint/internal/apitest"
	"blueprint/internal/detect"
	"blueprint/internal/job"
)

// TestReferenceJobsInBatches: a job whose reference_jobs name a done job,
// processed in page batches, counts with the reference's rows on every
// page: the references are cut once, in the document pass, and each batch
// resumes the engine from the saved pass, which must hold them
// (TestReferenceLegendOnImage checks that the production engine's resumed
// pass detects what the prepared one does).
func TestReferenceJobsInBatches(t *testing.T) {
	ctx := context.Background()
	e := newBatchEnv(t, 2)
	svc := e.cfgWith(t, apitest.ScriptedReferencingEngine()) // two pages a batch
	doc := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72}, [2]int{144, 72})
	e.queue(t, "legend", doc)
	if err := svc.Process(ctx, "legend"); err != nil {
		t.Fatal(err)
	}
	e.queueRef(t, "plan", doc, []string{"legend"})
	if err := svc.Process(ctx, "plan"); err != nil {
		t.Fatal(err)
	}
	v, err := svc.Get(ctx, job.Caller{KeyID: "owner"}, "plan", job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done, ok := v.(*job.DoneView)
	if !ok {
		t.Fatalf("the plan job is %+v, not done", v)
	}
	if len(done.ReferenceJobs) != 1 || done.ReferenceJobs[0] != "legend" {
		t.Errorf("reference_jobs %v, want [legend]", done.ReferenceJobs)
	}
	var lent []job.LegendView
	for _, r := range done.Legend {
		if r.ReferenceJob != "" {
			lent = append(lent, r)
		}
	}
	// The legend job's one row of a class, found once on each of the
	// plan's 3 pages, in both batches.
	if len(lent) != 1 || lent[0].ReferenceJob != "legend" || lent[0].Class == nil || *lent[0].Class != "socket_outlet" || lent[0].Detected != 3 {
		t.Errorf("lent rows %+v: want the legend job's socket outlet row, detected on each of 3 pages", lent)
	}
	// A reference that is gone when the job is processed is left out,
	// with a warning; the job is still counted.
	e.queueRef(t, "orphan", doc, []string{"nobody"})
	if err := svc.Process(ctx, "orphan"); err != nil {
		t.Fatal(err)
	}
	v, err = svc.Get(ctx, job.Caller{KeyID: "owner"}, "orphan", job.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	done, ok = v.(*job.DoneView)
	if !ok {
		t.Fatalf("the orphan job is %+v, not done", v)
	}
	warned := false
	for _, w := range done.Warnings {
		warned = warned || w.Code == "reference_unavailable"
	}
	if !warned {
		t.Errorf("warnings %+v: want reference_unavailable", done.Warnings)
	}
}

// queueRef queues a job as queue does, naming its reference jobs.
func (e *batchEnv) queueRef(t *testing.T, id string, data []byte, refs []string) {
	t.Helper()
	e.queue(t, id, data)
	ctx := context.Background()
	j, err := e.store.GetJob(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	j.ReferenceJobs = refs
	if err := e.store.UpdateJob(ctx, j); err != nil {
		t.Fatal(err)
	}
}

// TestFloodedRowLendsNoGlyph: a legend row its own job withheld as a
// flood (its glyph matched lines and corners there) lends no glyph to the
// jobs that reference it, so it cannot flood them; its other rows lend
// theirs.
func TestFloodedRowLendsNoGlyph(t *testing.T) {
	ctx := context.Background()
	e := newBatchEnv(t, 2)
	svc := e.cfgWith(t, apitest.ScriptedReferencingEngine())
	doc := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72})
	lent := func(legendWithheld bool) []job.LegendView {
		t.Helper()
		legend, plan := "legend", "plan"
		if legendWithheld {
			legend, plan = "flooded-legend", "flooded-plan"
		}
		e.queue(t, legend, doc)
		if err := svc.Process(ctx, legend); err != nil {
			t.Fatal(err)
		}
		if legendWithheld {
			j, err := e.store.GetJob(ctx, legend)
			if err != nil {
				t.Fatal(err)
			}
			j.Withheld = nil
			for i, r := range j.Legend {
				if r.Class == "socket_outlet" {
					j.Withheld = append(j.Withheld, i+1)
				}
			}
			if len(j.Withheld) == 0 {
				t.Fatalf("the legend job read no socket outlet row: %+v", j.Legend)
			}
			if err := e.store.UpdateJob(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		e.queueRef(t, plan, doc, []string{legend})
		if err := svc.Process(ctx, plan); err != nil {
			t.Fatal(err)
		}
		v, err := svc.Get(ctx, job.Caller{KeyID: "owner"}, plan, job.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done, ok := v.(*job.DoneView)
		if !ok {
			t.Fatalf("the plan job is %+v, not done", v)
		}
		var out []job.LegendView
		for _, r := range done.Legend {
			if r.ReferenceJob != "" {
				out = append(out, r)
			}
		}
		return out
	}
	if got := lent(false); len(got) != 1 {
		t.Fatalf("lent rows %+v: want the legend job's socket outlet row", got)
	}
	if got := lent(true); len(got) != 0 {
		t.Errorf("lent rows %+v: want none, the socket outlet row was withheld as a flood in its own job", got)
	}
}

// recordingRefs is a ReferencingEngine that records the references it is
// asked to cut.
type recordingRefs struct {
	job.ReferencingEngine
	got *[]detect.Reference
}

func (r recordingRefs) CutReference(ctx context.Context, doc detect.ReferenceDoc, ref detect.Reference) ([]byte, error) {
	*r.got = append(*r.got, ref)
	return r.ReferencingEngine.CutReference(ctx, doc, ref)
}

// TestReferenceGlyphsCarryTheirPageCount: each glyph a job lends carries
// its own page (a legend glyph) or every page the job counts, its own
// first (a glyph as the plans draw it), with how many of its row's and
// class's devices each counts (what a search for the glyph there should
// find; the engine checks its image search against them).
func TestReferenceGlyphsCarryTheirPageCount(t *testing.T) {
	ctx := context.Background()
	e := newBatchEnv(t, 2)
	var got []detect.Reference
	eng := recordingRefs{apitest.ScriptedReferencingEngine().(job.ReferencingEngine), &got}
	svc := e.cfgWith(t, eng)
	doc := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72})
	e.queue(t, "legend", doc)
	if err := svc.Process(ctx, "legend"); err != nil {
		t.Fatal(err)
	}
	v, err := svc.Get(ctx, job.Caller{KeyID: "owner"}, "legend", job.ReadOptions{IncludeDetections: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]int{} // page -> the socket row's detections counted there
	for _, p := range v.(*job.DoneView).Pages {
		for _, d := range *p.Detections {
			if d.Class == "socket_outlet" { // the scripted legend's row 1 finds every socket
				want[p.PageIndex]++
			}
		}
	}
	e.queueRef(t, "plan", doc, []string{"legend"})
	if err := svc.Process(ctx, "plan"); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || len(got[0].Glyphs) == 0 {
		t.Fatalf("references cut: %+v, want the legend job's", got)
	}
	drawn := 0
	for _, g := range got[0].Glyphs {
		pages := 1 // a legend glyph: its own page
		if g.PixelsOnly {
			pages, drawn = len(want), drawn+1 // as the plans draw it: every page counted
		}
		if len(g.Checks) != pages || g.Checks[0].Page != g.Page {
			t.Errorf("glyph of row %d on page %d (drawn %v): checks %+v; want its own page first, %d pages in all", g.Row, g.Page, g.PixelsOnly, g.Checks, pages)
		}
		for _, c := range g.Checks {
			if c.Count != want[c.Page] || c.ClassCount != want[c.Page] || c.Count == 0 {
				t.Errorf("glyph of row %d: check %+v, want the %d socket outlets page %d counts, of the row and of the class", g.Row, c, want[c.Page], c.Page)
			}
		}
	}
	if drawn == 0 || len(want) < 2 {
		t.Errorf("%d glyphs as the plans draw them, %d pages counted: want one, on two pages", drawn, len(want))
	}
}

// TestReferenceCutKept: the glyphs a done job lends are cut once per build
// and kept with the job's files: the next job that references it reads
// them back instead of opening its file and searching its pages again
// (building2's cut took minutes). Another build cuts again (its code may
// cut otherwise), and so does a build with no id; a cut removed from
// storage is made again.
func TestReferenceCutKept(t *testing.T) {
	ctx := context.Background()
	e := newBatchEnv(t, 2)
	var cuts []detect.Reference
	eng := recordingRefs{ReferencingEngine: apitest.ScriptedReferencingEngine().(job.ReferencingEngine), got: &cuts}
	build := func(id string) func(*job.Config) { return func(c *job.Config) { c.BuildID = id } }
	doc := apitest.PDFDoc([2]int{144, 72}, [2]int{144, 72})
	legend := e.cfgWith(t, eng, build("b1"))
	e.queue(t, "legend", doc)
	if err := legend.Process(ctx, "legend"); err != nil {
		t.Fatal(err)
	}
	n := 0
	plan := func(svc *job.Service) int {
		t.Helper()
		n++
		id := fmt.Sprintf("plan-%d", n)
		e.queueRef(t, id, doc, []string{"legend"})
		if err := svc.Process(ctx, id); err != nil {
			t.Fatal(err)
		}
		v, err := svc.Get(ctx, job.Caller{KeyID: "owner"}, id, job.ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		done, ok := v.(*job.DoneView)
		if !ok {
			t.Fatalf("job %s is %+v, not done", id, v)
		}
		detected := 0
		for _, r := range done.Legend {
			if r.ReferenceJob == "legend" {
				detected += r.Detected
			}
		}
		return detected
	}
	steps := []struct {
		name string
		svc  *job.Service
		cuts int // CutReference calls so far
	}{
		{"first job", legend, 1},
		{"second job, same build", legend, 1},
		{"another build", e.cfgWith(t, eng, build("b2")), 2},
		{"the first build again", e.cfgWith(t, eng, build("b1")), 2},
		{"a build with no id", e.cfgWith(t, eng), 3},
		{"a build with no id, again", e.cfgWith(t, eng), 4},
	}
	for _, s := range steps {
		// the legend job's one socket outlet row, found on both pages
		if got := plan(s.svc); got != 2 {
			t.Errorf("%s: the lent row detected %d, want 2", s.name, got)
		}
		if len(cuts) != s.cuts {
			t.Errorf("%s: %d cuts made in all, want %d", s.name, len(cuts), s.cuts)
		}
	}
	if err := e.blobs.DeletePrefix(ctx, job.JobPrefix("legend")+"reference-cuts/"); err != nil {
		t.Fatal(err)
	}
	if got := plan(legend); got != 2 || len(cuts) != 5 {
		t.Errorf("after the kept cuts were removed: detected %d, %d cuts in all; want 2 and 5", got, len(cuts))
	}
}
