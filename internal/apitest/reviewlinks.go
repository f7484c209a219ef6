package apitest

import (
	"net/url"
	"strings"
	"testing"
)

// CreateReviewLink asks for a review link of key (opening job when it is
// not "") and returns its URL.
func (c *Client) CreateReviewLink(key, job string) string {
	c.t.Helper()
	var body []byte
	if job != "" {
		body = []byte(`{"job_id":"` + job + `"}`)
	}
	r := c.Do("POST", "/v1/review-links", key, body, nil)
	if r.Status != 201 {
		c.t.Fatalf("create review link: %d %s", r.Status, r.Body)
	}
	u, _ := r.JSON(c.t)["url"].(string)
	return u
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

// contractReviewLinks: a review link opens the review page with a
// single-use handoff token in its fragment and never the key; the token is
// exchanged without a key, once, for the key and the job; a used or
// unknown token is 401 with details.reason; a job of another key is 404.
func contractReviewLinks(t *testing.T, newSvc NewService) {
	svc, api := newSvc(t, Options{Engine: ScriptedEngine()})
	id := api.InitJob(KeyA, map[string]any{"file_name": "a.pdf", "mime_type": "application/pdf", "size": 100})["job_id"].(string)
	exchange := func(token string) Response {
		t.Helper()
		return api.Do("POST", "/v1/review-links/exchange", "", []byte(`{"handoff":"`+token+`"}`), map[string]string{"Content-Type": "application/json"})
	}

	link := api.CreateReviewLink(KeyA, id)
	f := LinkFragment(t, link)
	if !strings.HasPrefix(link, strings.TrimRight(svc.Base(), "/")+"/app/#") || f.Get("job") != id || f.Get("handoff") == "" ||
		strings.Contains(link, KeyA) || len(f) != 2 {
		t.Fatalf("review link %s: want the page with job and handoff only in the fragment", link)
	}
	r := exchange(f.Get("handoff"))
	if m := r.JSON(t); r.Status != 200 || m["api_key"] != KeyA || m["job_id"] != id || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("exchange: %d %s", r.Status, r.Body)
	}
	for what, token := range map[string]string{"used": f.Get("handoff"), "unknown": f.Get("handoff") + "x"} {
		r := exchange(token)
		d, _ := r.JSON(t)["error"].(map[string]any)["details"].(map[string]any)
		if r.Status != 401 || r.Code(t) != "unauthorized" || d["reason"] != what {
			t.Errorf("%s token: %d %s", what, r.Status, r.Body)
		}
	}

	// No job: the page opens signed in; another key's job is not found.
	noJob := LinkFragment(t, api.CreateReviewLink(KeyB, ""))
	if noJob.Has("job") {
		t.Errorf("link without a job has fragment %v", noJob)
	}
	if r := exchange(noJob.Get("handoff")); r.Status != 200 || r.JSON(t)["api_key"] != KeyB || r.JSON(t)["job_id"] != nil {
		t.Errorf("exchange of a link without a job: %d %s", r.Status, r.Body)
	}
	if r := api.Do("POST", "/v1/review-links", KeyB, []byte(`{"job_id":"`+id+`"}`), nil); r.Status != 404 || r.Code(t) != "not_found" {
		t.Errorf("link to another key's job: %d %s", r.Status, r.Body)
	}
	if r := api.Do("POST", "/v1/review-links", "", nil, nil); r.Status != 401 {
		t.Errorf("link without a key: %d %s", r.Status, r.Body)
	}
	if r := exchange(""); r.Status != 422 || r.Code(t) != "unprocessable" {
		t.Errorf("exchange without a token: %d %s", r.Status, r.Body)
	}
	if r := api.Do("GET", "/v1/review-links/exchange", "", nil, nil); r.Status != 405 || r.Header.Get("Allow") != "POST" {
		t.Errorf("GET of the exchange: %d Allow %q", r.Status, r.Header.Get("Allow"))
	}
	// Every answer, an error or not, forbids content sniffing.
	for _, r := range []Response{exchange("nope"), api.Do("GET", "/v1/jobs/"+id, KeyA, nil, nil), api.Do("GET", "/v1/jobz", KeyA, nil, nil)} {
		if r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%d %s: X-Content-Type-Options %q", r.Status, r.Body, r.Header.Get("X-Content-Type-Options"))
		}
	}
}
