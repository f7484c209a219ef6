package apitest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"blueprint/internal/detect"
	"blueprint/internal/drawing"
)

// ScriptedReferencingEngine is ScriptedLegendEngine that also counts with
// other jobs' glyphs (job.ReferencingEngine), as the production engine
// does: CutReference reads each glyph's page of the referenced job's file
// (its drawing and its image, so the file must be readable wherever the
// deployment keeps it) and keeps the rows that have a glyph; the engine
// then reads those rows after its own legend and finds one detection of
// each row's class on every page, counted under that row.
func ScriptedReferencingEngine() detect.Engine {
	return scriptedReferencing{scriptedLegend: scriptedLegend{ScriptedEngine()}}
}

type scriptedReferencing struct {
	scriptedLegend
	rows []detect.LegendRow // the references' rows, in order
}

func (e scriptedReferencing) CutReference(ctx context.Context, doc detect.ReferenceDoc, ref detect.Reference) ([]byte, error) {
	var keep []detect.LegendRow
	for _, g := range ref.Glyphs {
		if _, err := doc.Drawing(ctx, g.Page); err != nil {
			return nil, err
		}
		if _, err := doc.PageImage(ctx, g.Page); err != nil {
			return nil, err
		}
		if r := ref.Rows[g.Row]; !slices.ContainsFunc(keep, func(k detect.LegendRow) bool { return k == r }) {
			keep = append(keep, r)
		}
	}
	return json.Marshal(keep)
}

func (e scriptedReferencing) WithReferences(cuts [][]byte) (detect.DocumentEngine, error) {
	out := scriptedReferencing{scriptedLegend: e.scriptedLegend}
	for _, c := range cuts {
		var rows []detect.LegendRow
		if err := json.Unmarshal(c, &rows); err != nil {
			return nil, fmt.Errorf("scripted reference: %w", err)
		}
		out.rows = append(out.rows, rows...)
	}
	return out, nil
}

func (e scriptedReferencing) Prepare(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, error) {
	own, info, err := e.scriptedLegend.Prepare(ctx, doc)
	if err != nil {
		return nil, info, err
	}
	first := len(info.Legend)
	info.Legend = append(slices.Clone(info.Legend), e.rows...)
	return detect.EngineFunc(func(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
		ds, err := own.Detect(ctx, p)
		for i, r := range e.rows {
			ds = append(ds, detect.Detection{Class: r.Class, Confidence: 0.95, LegendRow: first + i + 1,
				Box: detect.Box{X: float64(300 + 20*i), Y: 60, W: 10, H: 10}, Source: detect.Source{VectorMatching: true}})
		}
		return ds, err
	}), info, nil
}

func (e scriptedReferencing) PrepareSaved(ctx context.Context, doc detect.Drawings) (detect.Engine, detect.DocumentInfo, []byte, error) {
	eng, info, err := e.Prepare(ctx, doc)
	if err != nil {
		return nil, info, nil, err
	}
	state, err := json.Marshal(struct {
		Pages int
		Rows  []detect.LegendRow
	}{doc.NumPages(), e.rows})
	return eng, info, state, err
}

func (e scriptedReferencing) Resume(ctx context.Context, state []byte) (detect.Engine, detect.DocumentInfo, error) {
	var st struct {
		Pages int
		Rows  []detect.LegendRow
	}
	if err := json.Unmarshal(state, &st); err != nil {
		return nil, detect.DocumentInfo{}, err
	}
	return scriptedReferencing{scriptedLegend: e.scriptedLegend, rows: st.Rows}.Prepare(ctx, pagesOnly(st.Pages))
}

// pagesOnly is a document of n pages without drawings.
type pagesOnly int

func (n pagesOnly) NumPages() int { return int(n) }
func (n pagesOnly) Drawing(context.Context, int) (*drawing.Page, error) {
	return nil, nil
}

// contractReferenceJobs: init's reference_jobs names done jobs of the
// caller's key, at most 10, and is refused with details.field otherwise
// (another key's job exactly like an unknown one); the poll echoes it, and
// the referenced job's legend rows and reviewed detections join the job's
// legend, with reference_job, and count.
func contractReferenceJobs(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedReferencingEngine()})
	a := doneJob(t, svc, api, KeyA, nil)
	// A reviewer gives one of a's detections another class: an exemplar
	// of that class.
	dets := api.Do("GET", "/v1/jobs/"+a+"/pages/0/detections", KeyA, nil, nil).JSON(t)["detections"].([]any)
	det := dets[0].(map[string]any)["id"].(string)
	if r := api.Do("PATCH", "/v1/jobs/"+a+"/pages/0/detections/"+det, KeyA, mustJSON(t, map[string]any{"class": "power_supply"}), nil); r.Status != 200 {
		t.Fatalf("review: %d %s", r.Status, r.Body)
	}
	waiting := api.InitJob(KeyA, map[string]any{"file_name": "w.pdf", "mime_type": "application/pdf", "size": 10})["job_id"].(string)
	other := doneJob(t, svc, api, KeyB, nil)

	refused := func(name string, key string, refs any, reason string) map[string]any {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"file_name": "b.pdf", "mime_type": "application/pdf", "size": 10, "reference_jobs": refs})
		r := api.Do("POST", "/v1/jobs/init", key, b, nil)
		if r.Status != 422 || r.Code(t) != "unprocessable" {
			t.Fatalf("%s: %d %s", name, r.Status, r.Body)
		}
		d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if d["field"] != "reference_jobs" || (reason != "" && d["reason"] != reason) {
			t.Fatalf("%s: details %v, want field reference_jobs, reason %q", name, d, reason)
		}
		return d
	}
	unknown := refused("unknown id", KeyA, []string{"00000000-0000-4000-8000-000000000000"}, "unknown_job")
	foreign := refused("another key's job", KeyA, []string{other}, "unknown_job")
	if len(unknown) != len(foreign) {
		t.Errorf("another key's job answers %v, an unknown one %v: they must not be told apart", foreign, unknown)
	}
	refused("not done", KeyA, []string{waiting}, "not_done")
	refused("repeated", KeyA, []string{a, a}, "repeated")
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = a
	}
	refused("past the limit", KeyA, eleven, "too_many")
	refused("not a list", KeyA, a, "")
	refused("empty id", KeyA, []string{""}, "invalid")

	// An empty list is no reference.
	created := api.InitJob(KeyA, map[string]any{"file_name": "c.pdf", "mime_type": "application/pdf", "size": 10, "reference_jobs": []string{}})
	if _, ok := created["reference_jobs"]; ok {
		t.Errorf("init with an empty reference_jobs echoes %v", created["reference_jobs"])
	}

	b := doneJob(t, svc, api, KeyA, map[string]any{"reference_jobs": []string{a}})
	v := api.Do("GET", "/v1/jobs/"+b, KeyA, nil, nil).JSON(t)
	if refs, _ := v["reference_jobs"].([]any); len(refs) != 1 || refs[0] != a {
		t.Fatalf("poll echoes reference_jobs %v, want [%s]", v["reference_jobs"], a)
	}
	var refRows []map[string]any
	for _, r := range v["legend"].([]any) {
		if row := r.(map[string]any); row["reference_job"] == a {
			refRows = append(refRows, row)
		} else if row["reference_job"] != nil {
			t.Errorf("legend row %v names reference_job %v", row, row["reference_job"])
		}
	}
	classes := map[any]float64{}
	for _, r := range refRows {
		classes[r["class"]] += r["detected"].(float64)
		if r["glyph_bbox_norm"] != nil {
			t.Errorf("reference row %v has a glyph box on this job's pages", r)
		}
	}
	// a's own legend row of a class (socket_outlet, with a glyph box) and
	// the class its reviewer gave, each found once on each of b's 2 pages.
	if len(refRows) != 2 || classes["socket_outlet"] != 2 || classes["power_supply"] != 2 {
		t.Fatalf("reference rows %v: want socket_outlet's and power_supply's, each detected twice", refRows)
	}
	var ps float64
	for _, s := range v["summary"].(map[string]any)["by_symbol"].([]any) {
		if s.(map[string]any)["class"] == "power_supply" {
			ps = s.(map[string]any)["count"].(float64)
		}
	}
	if ps < 2 {
		t.Errorf("power_supply counted %v times, want the reference's 2 at least", ps)
	}
}
