package apitest

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pageDetections lists a page's detections (query without "?").
func pageDetections(t *testing.T, api *Client, id string, page int, query string) []map[string]any {
	t.Helper()
	r := api.Do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?%s", id, page, query), KeyA, nil, nil)
	if r.Status != 200 {
		t.Fatalf("detections of page %d: %d %s", page, r.Status, r.Body)
	}
	var out []map[string]any
	for _, d := range r.JSON(t)["detections"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

func decisionOf(d map[string]any) any {
	rv, ok := d["review"].(map[string]any)
	if !ok {
		return "none"
	}
	return rv["decision"]
}

// reviewState is what a poll, the per-page endpoint and the CSV take-off
// say after reviews; all must agree.
type reviewState struct {
	total                     int
	perPage                   []int
	bySymbol                  map[string]int
	accepted, rejected, added int
	reviewed                  bool
}

func checkReviewState(t *testing.T, api *Client, id string, want reviewState) {
	t.Helper()
	poll := api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil).JSON(t)
	sum := poll["summary"].(map[string]any)
	if got := int(sum["total_detections"].(float64)); got != want.total {
		t.Errorf("total_detections %d, want %d", got, want.total)
	}
	got := map[string]int{}
	for _, row := range sum["by_symbol"].([]any) {
		m := row.(map[string]any)
		got[m["class"].(string)] = int(m["count"].(float64))
	}
	if fmt.Sprint(got) != fmt.Sprint(want.bySymbol) {
		t.Errorf("by_symbol %v, want %v", got, want.bySymbol)
	}
	for i, p := range poll["pages"].([]any) {
		n := int(p.(map[string]any)["detection_count"].(float64))
		if n != want.perPage[i] {
			t.Errorf("page %d detection_count %d, want %d", i, n, want.perPage[i])
		}
		if l := len(pageDetections(t, api, id, i, "")); l != n {
			t.Errorf("page %d lists %d detections, its detection_count is %d", i, l, n)
		}
	}
	rv := poll["review"].(map[string]any)
	if int(rv["accepted"].(float64)) != want.accepted || int(rv["rejected"].(float64)) != want.rejected || int(rv["added"].(float64)) != want.added ||
		(rv["reviewed_at"] != nil) != want.reviewed {
		t.Errorf("review %v, want accepted %d rejected %d added %d reviewed %v", rv, want.accepted, want.rejected, want.added, want.reviewed)
	}
	r := api.Do("GET", "/v1/jobs/"+id+"/takeoff.csv", KeyA, nil, nil)
	rows, err := csv.NewReader(bytes.NewReader(r.Body)).ReadAll()
	if err != nil || r.Status != 200 {
		t.Fatalf("csv: %d %v\n%s", r.Status, err, r.Body)
	}
	fromCSV := map[string]int{}
	for _, row := range rows[1:] {
		n, _ := strconv.Atoi(row[4])
		fromCSV[row[0]] = n
	}
	if fmt.Sprint(fromCSV) != fmt.Sprint(want.bySymbol) {
		t.Errorf("csv take-off %v, want %v", fromCSV, want.bySymbol)
	}
}

// contractReviews accepts, rejects, reclassifies and adds detections and
// checks that every count reconciles, that bad input changes nothing, and
// that reviews belong to the job's key.
func contractReviews(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	id := doneJob(t, svc, api, KeyA, nil)
	checkReviewState(t, api, id, reviewState{total: 5, perPage: []int{2, 3}, bySymbol: map[string]int{"socket_outlet": 5}})

	// Page 0 under ?confidence=0: sockets 0.9, 0.6, 0.3 and power_supply 0.3.
	all0 := pageDetections(t, api, id, 0, "confidence=0")
	if len(all0) != 4 {
		t.Fatalf("page 0 has %d detections at confidence 0, want 4", len(all0))
	}
	strong, weak := all0[0]["id"].(string), all0[2]["id"].(string)
	page1 := pageDetections(t, api, id, 1, "")
	patch := func(page int, det string, body any) Response {
		t.Helper()
		return api.Do("PATCH", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections/%s", id, page, det), KeyA, mustJSON(t, body), nil)
	}
	if r := patch(0, strong, map[string]any{"decision": "rejected"}); r.Status != 200 || decisionOf(r.JSON(t)) != "rejected" {
		t.Fatalf("reject: %d %s", r.Status, r.Body)
	}
	if r := patch(0, weak, map[string]any{"decision": "accepted"}); r.Status != 200 || decisionOf(r.JSON(t)) != "accepted" {
		t.Fatalf("accept: %d %s", r.Status, r.Body)
	}
	if r := patch(1, page1[0]["id"].(string), map[string]any{"class": "power_supply"}); r.Status != 200 || r.JSON(t)["class"] != "power_supply" {
		t.Fatalf("reclassify: %d %s", r.Status, r.Body)
	}

	add := map[string]any{"class": "socket_outlet", "bbox_norm": map[string]any{"x": 0.5, "y": 0.5, "width": 0.1, "height": 0.2}}
	key := map[string]string{"Idempotency-Key": "add-1"}
	r := api.Do("POST", "/v1/jobs/"+id+"/pages/1/detections", KeyA, mustJSON(t, add), key)
	if r.Status != 201 {
		t.Fatalf("add: %d %s", r.Status, r.Body)
	}
	added := r.JSON(t)["detections"].([]any)[0].(map[string]any)
	src := added["source"].(map[string]any)
	if decisionOf(added) != "added" || added["confidence"] != 1.0 || src["detector"] != false || src["vector_matching"] != false || added["class"] != "socket_outlet" {
		t.Errorf("added detection %v", added)
	}
	again := api.Do("POST", "/v1/jobs/"+id+"/pages/1/detections", KeyA, mustJSON(t, add), key)
	if again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["detections"].([]any)[0].(map[string]any)["id"] != added["id"] {
		t.Errorf("repeat with the same Idempotency-Key: %d %v %s", again.Status, again.Header, again.Body)
	}
	other := map[string]any{"detections": []any{add, add}}
	if r := api.Do("POST", "/v1/jobs/"+id+"/pages/1/detections", KeyA, mustJSON(t, other), key); r.Status != 422 || r.Code(t) != "unprocessable" {
		t.Errorf("same Idempotency-Key, other body: %d %s", r.Status, r.Body)
	}
	reviewed := reviewState{total: 6, perPage: []int{2, 4}, bySymbol: map[string]int{"socket_outlet": 5, "power_supply": 1}, accepted: 1, rejected: 1, added: 1, reviewed: true}
	checkReviewState(t, api, id, reviewed)
	if all := pageDetections(t, api, id, 0, "review=all"); len(all) != 3 || decisionOf(all[0]) != "rejected" {
		t.Errorf("?review=all lists %d detections, first %v; want 3 with the rejected first", len(all), all)
	}

	// Bad input is refused with the contract's error shape and changes nothing.
	bad := []struct {
		name, method, path string
		key                string
		body               any
		status             int
	}{
		{"other key", "PATCH", fmt.Sprintf("/pages/0/detections/%s", weak), KeyB, map[string]any{"decision": "rejected"}, 404},
		{"other key adds", "POST", "/pages/0/detections", KeyB, add, 404},
		{"unknown detection", "PATCH", "/pages/0/detections/nope", KeyA, map[string]any{"decision": "rejected"}, 404},
		{"detection of another page", "PATCH", fmt.Sprintf("/pages/1/detections/%s", weak), KeyA, map[string]any{"decision": "rejected"}, 404},
		{"page out of range", "POST", "/pages/2/detections", KeyA, add, 404},
		{"page not a number", "PATCH", fmt.Sprintf("/pages/x/detections/%s", weak), KeyA, map[string]any{"decision": "rejected"}, 404},
		{"unknown class", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "no_such", "bbox_norm": add["bbox_norm"]}, 422},
		{"unknown class on patch", "PATCH", fmt.Sprintf("/pages/0/detections/%s", weak), KeyA, map[string]any{"class": "no_such"}, 422},
		{"box off the page", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "socket_outlet", "bbox_norm": map[string]any{"x": 0.95, "y": 0, "width": 0.1, "height": 0.1}}, 422},
		{"box of no size", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "socket_outlet", "bbox_norm": map[string]any{"x": 0.1, "y": 0.1, "width": 0, "height": 0.1}}, 422},
		{"box 1e-308 wide", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "socket_outlet", "bbox_norm": map[string]any{"x": 0.1, "y": 0.1, "width": 1e-308, "height": 0.1}}, 422},
		{"box under 2 pixels high", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "socket_outlet", "bbox_norm": map[string]any{"x": 0.1, "y": 0.1, "width": 0.1, "height": 1e-5}}, 422},
		{"no box", "POST", "/pages/0/detections", KeyA, map[string]any{"class": "socket_outlet"}, 422},
		{"empty list", "POST", "/pages/0/detections", KeyA, map[string]any{"detections": []any{}}, 422},
		{"one bad of two", "POST", "/pages/0/detections", KeyA, map[string]any{"detections": []any{add, map[string]any{"class": "x", "bbox_norm": add["bbox_norm"]}}}, 422},
		{"bad decision", "PATCH", fmt.Sprintf("/pages/0/detections/%s", weak), KeyA, map[string]any{"decision": "added"}, 422},
		{"nothing to change", "PATCH", fmt.Sprintf("/pages/0/detections/%s", weak), KeyA, map[string]any{}, 422},
		{"unknown field", "PATCH", fmt.Sprintf("/pages/0/detections/%s", weak), KeyA, map[string]any{"decison": "rejected"}, 422},
	}
	for _, c := range bad {
		r := api.Do(c.method, "/v1/jobs/"+id+c.path, c.key, mustJSON(t, c.body), nil)
		if r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.name, r.Status, r.Body, c.status)
			continue
		}
		if msg, _ := r.JSON(t)["error"].(map[string]any)["message"].(string); msg == "" {
			t.Errorf("%s: error without a message: %s", c.name, r.Body)
		}
	}
	checkReviewState(t, api, id, reviewed)
	// A key given twice is refused, naming it (issue 47: the last won).
	for _, c := range []struct{ name, method, path, body, field string }{
		{"decision twice", "PATCH", fmt.Sprintf("/v1/jobs/%s/pages/0/detections/%s", id, weak), `{"decision":"accepted","decision":"rejected"}`, "decision"},
		{"class twice in a list", "POST", "/v1/jobs/" + id + "/pages/0/detections",
			`{"detections":[{"class":"socket_outlet","bbox_norm":{"x":0.1,"y":0.1,"width":0.1,"height":0.1}},{"class":"socket_outlet","class":"power_supply","bbox_norm":{"x":0.1,"y":0.1,"width":0.1,"height":0.1}}]}`, "detections[1].class"},
		{"init size twice", "POST", "/v1/jobs/init", `{"file_name":"a.pdf","mime_type":"application/pdf","size":10,"size":20}`, "size"},
		{"search box width twice", "POST", "/v1/jobs/" + id + "/search", `{"page_index":0,"bbox_norm":{"x":0.1,"y":0.1,"width":0.1,"height":0.1,"width":0.2}}`, "bbox_norm.width"},
	} {
		r := api.Do(c.method, c.path, KeyA, []byte(c.body), nil)
		if r.Status != 422 || r.Code(t) != "unprocessable" {
			t.Errorf("%s: %d %s, want 422", c.name, r.Status, r.Body)
			continue
		}
		if got, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)["field"].(string); got != c.field {
			t.Errorf("%s: details.field %q, want %q (%s)", c.name, got, c.field, r.Body)
		}
	}
	checkReviewState(t, api, id, reviewed)

	// A job that is not done cannot be reviewed.
	waiting := api.InitJob(KeyA, map[string]any{"file_name": "w.pdf", "mime_type": "application/pdf", "size": 10})
	if r := api.Do("POST", fmt.Sprintf("/v1/jobs/%s/pages/0/detections", waiting["job_id"]), KeyA, mustJSON(t, add), nil); r.Status != 409 || r.Code(t) != "conflict" {
		t.Errorf("add to a job awaiting upload: %d %s", r.Status, r.Body)
	}

	// Withdrawing decisions and rejecting the added detection.
	if r := patch(0, strong, map[string]any{"decision": nil}); r.Status != 200 || decisionOf(r.JSON(t)) != "none" {
		t.Errorf("withdraw: %d %s", r.Status, r.Body)
	}
	if r := patch(1, added["id"].(string), map[string]any{"decision": "rejected"}); r.Status != 200 || decisionOf(r.JSON(t)) != "rejected" {
		t.Errorf("reject the added: %d %s", r.Status, r.Body)
	}
	checkReviewState(t, api, id, reviewState{total: 6, perPage: []int{3, 3}, bySymbol: map[string]int{"socket_outlet": 5, "power_supply": 1}, accepted: 1, rejected: 1, reviewed: true})
}
