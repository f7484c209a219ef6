package apitest

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"
)

// CreateReviewLink asks for a review link of key opening job and returns
// its URL.
func (c *Client) CreateReviewLink(key, job string) string {
	c.t.Helper()
	r := c.Do("POST", "/v1/review-links", key, []byte(`{"job_id":"`+job+`"}`), nil)
	if r.Status != 201 {
		c.t.Fatalf("create review link: %d %s", r.Status, r.Body)
	}
	u, _ := r.JSON(c.t)["url"].(string)
	return u
}

// ReviewCredential makes a review link of key's job and exchanges it, as
// the review page does, and returns the credential.
func (c *Client) ReviewCredential(key, job string) string {
	c.t.Helper()
	f := LinkFragment(c.t, c.CreateReviewLink(key, job))
	r := c.Do("POST", "/v1/review-links/exchange", "", []byte(`{"handoff":"`+f.Get("handoff")+`"}`), map[string]string{"Content-Type": "application/json"})
	cred, _ := r.JSON(c.t)["credential"].(string)
	if r.Status != 200 || cred == "" {
		c.t.Fatalf("exchange: %d %s", r.Status, r.Body)
	}
	return cred
}

// LinkFragment returns the fragment parameters of a review link.
func LinkFragment(t *testing.T, link string) url.Values {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	f, err := url.ParseQuery(u.Fragment)
	if err != nil {
		t.Fatalf("fragment of %s: %v", link, err)
	}
	return f
}

// contractReviewLinks: a review link names a job of the caller's and
// opens the review page with a single-use handoff token in its fragment,
// never the key; the token is exchanged without a key, once, for a review
// credential (never the key) that expires within hours and grants that
// job's reading, review, search and exports only: listing, creating and
// starting jobs and making links are 403 forbidden, any other job is 404
// like another key's; a used or unknown token is 401 with details.reason.
func contractReviewLinks(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	id := doneJob(t, svc, api, KeyA, nil)
	sibling := doneJob(t, svc, api, KeyA, nil) // the same key's other job
	idB := api.InitJob(KeyB, map[string]any{"file_name": "b.pdf", "mime_type": "application/pdf", "size": 100})["job_id"].(string)
	exchange := func(body string) Response {
		t.Helper()
		return api.Do("POST", "/v1/review-links/exchange", "", []byte(body), map[string]string{"Content-Type": "application/json"})
	}

	link := api.CreateReviewLink(KeyA, id)
	f := LinkFragment(t, link)
	if !strings.HasPrefix(link, strings.TrimRight(svc.Base(), "/")+"/app/#") || f.Get("job") != id || f.Get("handoff") == "" ||
		strings.Contains(link, KeyA) || len(f) != 2 {
		t.Fatalf("review link %s: want the page with job and handoff only in the fragment", link)
	}
	before := time.Now()
	r := exchange(`{"handoff":"` + f.Get("handoff") + `"}`)
	m := r.JSON(t)
	cred, _ := m["credential"].(string)
	exp, err := time.Parse(time.RFC3339, fmt.Sprint(m["expires_at"]))
	if r.Status != 200 || cred == "" || cred == KeyA || m["api_key"] != cred || m["access"] != "review" || m["job_id"] != id ||
		strings.Contains(string(r.Body), KeyA) || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("exchange: %d %s; want a review credential of the job, never the key", r.Status, r.Body)
	}
	if err != nil || exp.Before(before.Add(time.Hour)) || exp.After(before.Add(12*time.Hour)) {
		t.Errorf("credential expires at %v (%v): want within hours", m["expires_at"], err)
	}
	for what, token := range map[string]string{"used": f.Get("handoff"), "unknown": f.Get("handoff") + "x"} {
		r := exchange(`{"handoff":"` + token + `"}`)
		d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 401 || r.Code(t) != "unauthorized" || d["reason"] != what {
			t.Errorf("%s token: %d %s", what, r.Status, r.Body)
		}
	}

	// What the credential may do: its job's reading, review, search and
	// exports, and the catalog the page shows.
	dets := api.Do("GET", "/v1/jobs/"+id+"/pages/0/detections?confidence=0", cred, nil, nil)
	list, _ := dets.JSON(t)["detections"].([]any)
	if dets.Status != 200 || len(list) == 0 {
		t.Fatalf("detections with the credential: %d %s", dets.Status, dets.Body)
	}
	det := list[0].(map[string]any)["id"].(string)
	box := map[string]any{"x": 0.4, "y": 0.4, "width": 0.05, "height": 0.05}
	for _, c := range []struct {
		method, path string
		body         any
		status       int
	}{
		{"GET", "/v1/jobs/" + id, nil, 200},
		{"GET", "/v1/jobs/" + id + "?include=detections", nil, 200},
		{"PATCH", fmt.Sprintf("/v1/jobs/%s/pages/0/detections/%s", id, det), map[string]any{"decision": "accepted"}, 200},
		{"POST", "/v1/jobs/" + id + "/pages/1/detections", map[string]any{"class": "socket_outlet", "bbox_norm": box}, 201},
		{"GET", "/v1/jobs/" + id + "/takeoff.csv", nil, 200},
		{"GET", "/v1/jobs/" + id + "/takeoff.xlsx", nil, 200},
		{"GET", "/v1/jobs/" + id + "/legend-check.csv", nil, 200},
		{"GET", "/v1/symbols", nil, 200},
		{"GET", "/v1/symbols/socket_outlet/icon", nil, 302},
	} {
		var body []byte
		if c.body != nil {
			body = mustJSON(t, c.body)
		}
		if r := api.Do(c.method, c.path, cred, body, nil); r.Status != c.status {
			t.Errorf("%s %s with the credential: %d %s, want %d", c.method, c.path, r.Status, r.Body, c.status)
		}
	}
	// A search reaches the service (a box the engine finds nothing in
	// may be refused as a search, never as a matter of access).
	if r := api.Do("POST", "/v1/jobs/"+id+"/search", cred, mustJSON(t, map[string]any{"page_index": 0, "bbox_norm": box}), nil); r.Status != 200 && r.Status != 422 {
		t.Errorf("search with the credential: %d %s", r.Status, r.Body)
	}

	// What it may not: anything beyond its job.
	for _, c := range []struct {
		method, path, body string
		status             int
		code               string
	}{
		{"GET", "/v1/jobs", "", 403, "forbidden"},
		{"POST", "/v1/jobs/init", `{"file_name":"a.pdf","mime_type":"application/pdf","size":100}`, 403, "forbidden"},
		{"POST", "/v1/jobs/" + id + "/start", "", 403, "forbidden"},
		{"POST", "/v1/review-links", `{"job_id":"` + id + `"}`, 403, "forbidden"},
		{"GET", "/v1/jobs/" + sibling, "", 404, "not_found"},
		{"GET", "/v1/jobs/" + sibling + "/pages/0/detections", "", 404, "not_found"},
		{"PATCH", fmt.Sprintf("/v1/jobs/%s/pages/0/detections/%s", sibling, det), `{"decision":"rejected"}`, 404, "not_found"},
		{"POST", "/v1/jobs/" + sibling + "/pages/0/detections", string(mustJSON(t, map[string]any{"class": "socket_outlet", "bbox_norm": box})), 404, "not_found"},
		{"POST", "/v1/jobs/" + sibling + "/search", string(mustJSON(t, map[string]any{"page_index": 0, "bbox_norm": box})), 404, "not_found"},
		{"GET", "/v1/jobs/" + sibling + "/takeoff.csv", "", 404, "not_found"},
		{"GET", "/v1/jobs/" + idB, "", 404, "not_found"},
	} {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		r := api.Do(c.method, c.path, cred, body, nil)
		if r.Status != c.status || r.Code(t) != c.code {
			t.Errorf("%s %s with the credential: %d %s, want %d %s", c.method, c.path, r.Status, r.Body, c.status, c.code)
		}
	}
	if r := api.Do("GET", "/v1/jobs", cred, nil, nil); r.Status == 403 {
		if d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any); d["reason"] != "review_credential" {
			t.Errorf("403 details %v, want reason review_credential", d)
		}
	}
	altered := cred[:len(cred)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(cred, "AA")]
	if r := api.Do("GET", "/v1/jobs/"+id, altered, nil, nil); r.Status != 401 || r.Code(t) != "unauthorized" {
		t.Errorf("an altered credential: %d %s", r.Status, r.Body)
	}
	// The key itself still sees everything.
	if r := api.Do("GET", "/v1/jobs/"+sibling, KeyA, nil, nil); r.Status != 200 {
		t.Errorf("the key after a credential: %d", r.Status)
	}

	// Making links: a job is required, of the caller's; bodies are strict.
	for _, c := range []struct {
		key, body string
		status    int
		code      string
	}{
		{KeyB, `{"job_id":"` + id + `"}`, 404, "not_found"},
		{KeyA, ``, 422, "unprocessable"},
		{KeyA, `{}`, 422, "unprocessable"},
		{KeyA, `{"job_id":"` + id + `","expires_in":3600}`, 422, "unprocessable"},
		{"", `{"job_id":"` + id + `"}`, 401, "unauthorized"},
	} {
		var body []byte
		if c.body != "" {
			body = []byte(c.body)
		}
		if r := api.Do("POST", "/v1/review-links", c.key, body, nil); r.Status != c.status || r.Code(t) != c.code {
			t.Errorf("POST /v1/review-links %s: %d %s, want %d %s", c.body, r.Status, r.Body, c.status, c.code)
		}
	}
	if r := exchange(`{"handoff":"x","api_key":"y"}`); r.Status != 422 || r.Code(t) != "unprocessable" {
		t.Errorf("exchange with an unknown field: %d %s", r.Status, r.Body)
	}
	if r := exchange(`{"handoff":""}`); r.Status != 422 || r.Code(t) != "unprocessable" {
		t.Errorf("exchange without a token: %d %s", r.Status, r.Body)
	}
	if r := api.Do("GET", "/v1/review-links/exchange", "", nil, nil); r.Status != 405 || r.Header.Get("Allow") != "POST" {
		t.Errorf("GET of the exchange: %d Allow %q", r.Status, r.Header.Get("Allow"))
	}
	// Every answer, an error or not, forbids content sniffing.
	for _, r := range []Response{exchange(`{"handoff":"nope"}`), api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil), api.Do("GET", "/v1/jobz", KeyA, nil, nil)} {
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%d %s: X-Content-Type-Options %q", r.Status, r.Body, r.Header.Get("X-Content-Type-Options"))
		}
	}
}
