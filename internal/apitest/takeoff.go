package apitest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"mime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// contractTakeoffExports checks the CSV and XLSX take-off of a real job against
// the poll's summary under the same filter: one row per class with the
// summary's name, category, code and count, counts summing to
// total_detections; the legend check (legend-check.csv, one row per poll
// legend row; an XLSX sheet only when there are some); and (XLSX)
// category names rather than keys, and one sheet per page with detections
// summing to the page's detection_count, none for a page without.
func contractTakeoffExports(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedLegendEngine()})
	sink := NewSink(t)
	id := doneJob(t, svc, api, KeyA, map[string]any{"callback_url": sink.URL})
	// The webhook's payload carries the legend rows as the poll does.
	var payload map[string]any
	if err := json.Unmarshal(sink.Next(t).Body, &payload); err != nil {
		t.Fatalf("webhook payload: %v", err)
	}
	checkGlyphBoxes(t, payload)
	for _, c := range []struct {
		query, lang, sheet, page, legendSheet string
	}{
		{"", "", "Take-off", "Page %d", "Legend check"},
		{"?confidence=0.3", "", "Take-off", "Page %d", "Legend check"},
		{"?confidence=0.95", "", "Take-off", "Page %d", "Legend check"}, // no page has detections: one sheet
		{"?confidence=0", "fi", "Määrälaskenta", "Sivu %d", "Selitteen tarkistus"},
	} {
		t.Run(c.query+c.lang, func(t *testing.T) {
			hdr := map[string]string{"Accept-Language": c.lang}
			poll := api.Do("GET", "/v1/jobs/"+id+c.query, KeyA, nil, hdr).JSON(t)
			sum := poll["summary"].(map[string]any)
			total := int(sum["total_detections"].(float64))
			var want [][]string
			for _, r := range sum["by_symbol"].([]any) {
				m := r.(map[string]any)
				s := func(k string) string { v, _ := m[k].(string); return v }
				want = append(want, []string{s("class"), s("display_name"), s("category"), s("talo2010_code"), strconv.Itoa(int(m["count"].(float64)))})
			}

			r := api.Do("GET", "/v1/jobs/"+id+"/takeoff.csv"+c.query, KeyA, nil, hdr)
			if r.Status != 200 {
				t.Fatalf("csv: %d %s", r.Status, r.Body)
			}
			if _, p, err := mime.ParseMediaType(r.Header.Get("Content-Disposition")); err != nil || p["filename"] != "a-takeoff.csv" {
				t.Errorf("Content-Disposition %q", r.Header.Get("Content-Disposition"))
			}
			legend := poll["legend"].([]any)
			lr := api.Do("GET", "/v1/jobs/"+id+"/legend-check.csv"+c.query, KeyA, nil, hdr)
			if lr.Status != 200 {
				t.Fatalf("legend-check.csv: %d %s", lr.Status, lr.Body)
			}
			if _, p, err := mime.ParseMediaType(lr.Header.Get("Content-Disposition")); err != nil || p["filename"] != "a-legend-check.csv" {
				t.Errorf("legend check Content-Disposition %q", lr.Header.Get("Content-Disposition"))
			}
			lrows, err := csv.NewReader(bytes.NewReader(lr.Body)).ReadAll()
			if err != nil || len(lrows) != len(legend)+1 || !slices.Equal(lrows[0], []string{"page_index", "description", "class", "display_name", "tag", "part_number", "printed_quantity", "detected", "difference", "code", "source", "tagged", "agreement", "withheld"}) {
				t.Fatalf("legend-check.csv (%v): %q, want a header and %d rows", err, lrows, len(legend))
			}
			// The legend rows as read: tag and part number (null where
			// none), and the row of no class counting its finds.
			if len(legend) != 2 {
				t.Fatalf("legend %v, want the engine's 2 rows", legend)
			}
			r0, r1 := legend[0].(map[string]any), legend[1].(map[string]any)
			if r0["tag"] != "S1" || r0["part_number"] != "4098-9714" || r1["tag"] != nil || r1["part_number"] != nil || r1["class"] != nil {
				t.Errorf("legend rows %v", legend)
			}
			checkGlyphBoxes(t, poll)
			socket := 0
			for _, r := range sum["by_symbol"].([]any) {
				if m := r.(map[string]any); m["class"] == "socket_outlet" {
					socket = int(m["count"].(float64))
				}
			}
			// Row 2's finds: 0.9 and 0.2 under the defaults (the stored
			// floor of a class the catalog does not know) and at 0, 0.9
			// alone at 0.3, none at 0.95.
			want1 := map[string]int{"": 2, "?confidence=0.3": 1, "?confidence=0.95": 0, "?confidence=0": 2}[c.query]
			if r0["detected"] != float64(socket) || r1["detected"] != float64(want1) {
				t.Errorf("detected %v and %v, want %d (the socket count) and %d", r0["detected"], r1["detected"], socket, want1)
			}
			for i, l := range legend {
				m := l.(map[string]any)
				// tag and part_number: strings or null, never absent.
				tag, tok := m["tag"]
				part, pok := m["part_number"]
				str := func(v any) string { s, _ := v.(string); return s }
				if !tok || !pok || lrows[i+1][4] != str(tag) || lrows[i+1][5] != str(part) {
					t.Errorf("legend check row %d %q: tag and part number of poll legend %v", i, lrows[i+1], m)
				}
				if lrows[i+1][7] != strconv.Itoa(int(m["detected"].(float64))) {
					t.Errorf("legend check row %d %q, poll legend %v", i, lrows[i+1], m)
				}
			}
			classSection := r.Body // one table: a strict reader reads it whole
			rows, err := csv.NewReader(bytes.NewReader(classSection)).ReadAll()
			if err != nil {
				t.Fatalf("csv: %v\n%s", err, r.Body)
			}
			if !slices.Equal(rows[0], []string{"class", "display_name", "category", "talo2010_code", "count", "printed_quantity", "withheld"}) {
				t.Fatalf("csv header %q", rows[0])
			}
			got, n := [][]string{}, 0
			for _, row := range rows[1:] {
				got = append(got, row[:5])
				k, _ := strconv.Atoi(row[4])
				n += k
			}
			if n != total || !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("csv rows %q (sum %d), want the summary's %q (total %d)", got, n, want, total)
			}

			r = api.Do("GET", "/v1/jobs/"+id+"/takeoff.xlsx"+c.query, KeyA, nil, hdr)
			if r.Status != 200 {
				t.Fatalf("xlsx: %d %s", r.Status, r.Body)
			}
			f, err := excelize.OpenReader(bytes.NewReader(r.Body))
			if err != nil {
				t.Fatalf("xlsx does not open: %v", err)
			}
			defer f.Close()
			pages := poll["pages"].([]any)
			wantSheets := []string{c.sheet}
			if len(legend) > 0 {
				wantSheets = append(wantSheets, c.legendSheet)
			}
			pageSheets := map[int]string{}
			for i, p := range pages {
				if p.(map[string]any)["detection_count"].(float64) > 0 {
					pageSheets[i] = fmt.Sprintf(c.page, i+1)
					wantSheets = append(wantSheets, pageSheets[i])
				}
			}
			if !slices.Equal(f.GetSheetList(), wantSheets) {
				t.Fatalf("sheets %q, want %q", f.GetSheetList(), wantSheets)
			}
			sheetSum := func(name string) (rows [][]string, sum int) {
				all, err := f.GetRows(name)
				if err != nil {
					t.Fatal(err)
				}
				for _, row := range all[1 : len(all)-1] {
					k, _ := strconv.Atoi(row[4])
					sum += k
				}
				if last := all[len(all)-1]; last[4] != strconv.Itoa(sum) {
					t.Errorf("sheet %s: total row %q, rows sum to %d", name, last, sum)
				}
				return all[1 : len(all)-1], sum
			}
			first, n := sheetSum(c.sheet)
			if n != total || len(first) != len(want) {
				t.Errorf("xlsx take-off: %d rows summing to %d, want %d rows summing to %d", len(first), n, len(want), total)
			}
			for i, row := range first {
				if row[0] != want[i][1] || row[1] != want[i][0] || row[4] != want[i][4] {
					t.Errorf("xlsx row %d %q, want %q", i, row, want[i])
				}
				if want[i][2] != "" && (row[2] == "" || row[2] == want[i][2]) {
					t.Errorf("xlsx row %d category %q, want the name of category %q", i, row[2], want[i][2])
				}
			}
			for i, p := range pages {
				name, ok := pageSheets[i]
				if !ok {
					continue
				}
				if _, n := sheetSum(name); n != int(p.(map[string]any)["detection_count"].(float64)) {
					t.Errorf("page %d sheet sums to %d, page detection_count %v", i, n, p.(map[string]any)["detection_count"])
				}
			}
		})
	}

	created := api.InitJob(KeyA, map[string]any{"file_name": "b.pdf", "mime_type": "application/pdf", "size": 100})
	for _, c := range []struct {
		name, path, key string
		status          int
	}{
		{"not done", "/v1/jobs/" + created["job_id"].(string) + "/takeoff.csv", KeyA, 404},
		{"other key", "/v1/jobs/" + id + "/takeoff.xlsx", KeyB, 404},
		{"unknown job", "/v1/jobs/nope/takeoff.csv", KeyA, 404},
		{"no key", "/v1/jobs/" + id + "/takeoff.csv", "", 401},
		{"bad confidence", "/v1/jobs/" + id + "/takeoff.xlsx?confidence=2", KeyA, 422},
	} {
		t.Run(c.name, func(t *testing.T) {
			if r := api.Do("GET", c.path, c.key, nil, nil); r.Status != c.status {
				t.Fatalf("%d, want %d: %s", r.Status, c.status, r.Body)
			}
		})
	}
}

// contractTakeoffFileName checks the suggested download name of odd uploads.
func contractTakeoffFileName(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	for name, want := range map[string]string{
		"Pohjapiirros 2.krs ä.pdf": "Pohjapiirros 2.krs ä-takeoff.csv",
		`C:\plans\"quoted";x.pdf`:  `"quoted";x-takeoff.csv`,
		"noext":                    "noext-takeoff.csv",
	} {
		id := doneJob(t, svc, api, KeyA, map[string]any{"file_name": name})
		r := api.Do("GET", "/v1/jobs/"+id+"/takeoff.csv", KeyA, nil, nil)
		_, p, err := mime.ParseMediaType(r.Header.Get("Content-Disposition"))
		if err != nil || p["filename"] != want {
			t.Errorf("%q: Content-Disposition %q (%v), want filename %q", name, r.Header.Get("Content-Disposition"), err, want)
		}
	}
}

// contractListJobs pages through a key's jobs, newest first, and never shows
// another key's.
func contractListJobs(t *testing.T, newSvc NewService) {
	clock := NewClock(time.Now().UTC().Truncate(time.Second))
	svc, api := newSvc(t, Options{Engine: ScriptedEngine(), Clock: clock})
	var ids []string
	for i := range 5 {
		c := api.InitJob(KeyA, map[string]any{"file_name": fmt.Sprintf("p%d.pdf", i), "mime_type": "application/pdf", "size": 100, "external_ref": fmt.Sprint("ref-", i)})
		ids = append(ids, c["job_id"].(string))
		clock.Advance(time.Second)
	}
	other := api.InitJob(KeyB, map[string]any{"file_name": "b.pdf", "mime_type": "application/pdf", "size": 100})["job_id"].(string)
	slices.Reverse(ids) // newest first

	var got []string
	cursor := ""
	for pages := 0; ; pages++ {
		q := "/v1/jobs?limit=2"
		if cursor != "" {
			q += "&cursor=" + cursor
		}
		m := api.Do("GET", q, KeyA, nil, nil).JSON(t)
		for _, j := range m["jobs"].([]any) {
			jm := j.(map[string]any)
			got = append(got, jm["job_id"].(string))
			if jm["status"] != "awaiting_upload" || jm["poll_url"] != svc.Base()+"/v1/jobs/"+jm["job_id"].(string) {
				t.Errorf("item %v", jm)
			}
		}
		if m["next"] == nil {
			break
		}
		cursor = m["next"].(string)
		if pages > 5 {
			t.Fatal("the list does not end")
		}
	}
	if !slices.Equal(got, ids) {
		t.Errorf("paged list %q, want %q (newest first)", got, ids)
	}
	if m := api.Do("GET", "/v1/jobs", KeyB, nil, nil).JSON(t); len(m["jobs"].([]any)) != 1 || m["jobs"].([]any)[0].(map[string]any)["job_id"] != other || m["next"] != nil {
		t.Errorf("key B sees %v", m)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?cursor=%25%25", "?cursor=bm9wZQ", "?cursor=a&cursor=b"} {
		r := api.Do("GET", "/v1/jobs"+q, KeyA, nil, nil)
		if r.Status != 422 {
			t.Errorf("%s: %d %s, want 422", q, r.Status, r.Body)
		}
	}
}
