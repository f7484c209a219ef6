package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"blueprint/internal/detect"
	docpkg "blueprint/internal/document"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/search"
	"blueprint/internal/webhook"
)

// at returns the value at a JSON Pointer (RFC 6901) in the document.
func at(t *testing.T, doc any, ptr string) any {
	t.Helper()
	cur := doc
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			if a, isArr := cur.([]any); isArr {
				var i int
				if _, err := fmt.Sscan(tok, &i); err == nil && i < len(a) {
					cur = a[i]
					continue
				}
			}
			t.Fatalf("%s: no %q", ptr, tok)
		}
		if cur, ok = m[tok]; !ok {
			t.Fatalf("%s: no %q", ptr, tok)
		}
	}
	return cur
}

// The document restates numbers and names the Go code defines once; this
// test keeps the two in step.
func TestDocumentAgreesWithCode(t *testing.T) {
	var doc any
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	num := func(ptr string, want float64) {
		t.Helper()
		if got, ok := at(t, doc, ptr).(float64); !ok || got != want {
			t.Errorf("%s = %v, want %v", ptr, at(t, doc, ptr), want)
		}
	}
	str := func(ptr, want string) {
		t.Helper()
		if got, _ := at(t, doc, ptr).(string); got != want {
			t.Errorf("%s = %v, want %q", ptr, at(t, doc, ptr), want)
		}
	}
	const s = "/components/schemas/"
	num(s+"UploadDescriptor/properties/max_bytes/const", job.MaxUploadBytes)
	num(s+"InitRequest/properties/size/maximum", job.MaxUploadBytes)
	num(s+"Page/properties/render_dpi/const", detect.RenderDPI)
	num(s+"PageDetections/properties/render_dpi/const", detect.RenderDPI)
	num(s+"PageDetections/properties/limit/maximum", job.MaxPageLimit)
	detections := "/paths/~1v1~1jobs~1{job_id}~1pages~1{page_index}~1detections/get/parameters/"
	num(detections+"2/schema/maximum", job.MaxPageLimit)
	num(detections+"2/schema/default", job.DefaultPageLimit)
	num("/paths/~1v1~1jobs~1init/post/parameters/0/schema/maxLength", job.MaxIdempotencyKeyLen)
	num("/paths/~1v1~1jobs/get/parameters/0/schema/maximum", job.MaxListLimit)
	num("/paths/~1v1~1jobs/get/parameters/0/schema/default", job.DefaultListLimit)
	num(s+"SearchRequest/properties/exclude/maxItems", job.MaxSearchExcludes)
	num(s+"SearchResult/properties/near_misses/maxItems", job.MaxSearchNearMisses)
	for i, r := range []string{search.ReasonMissingStroke, search.ReasonExtraStroke, search.ReasonLargerSymbol,
		search.ReasonOtherColour, search.ReasonOtherSize, search.ReasonOtherTag} {
		str(fmt.Sprintf("%sSearchNearMiss/properties/reason/enum/%d", s, i), r)
	}
	// The near-miss floors and the size tolerance, stated in words.
	for _, v := range []float64{search.NearMissFloor, search.ImageNearMissFloor} {
		if got, _ := at(t, doc, s+"SearchNearMiss/properties/score/description").(string); !strings.Contains(got, fmt.Sprint(v)) {
			t.Errorf("SearchNearMiss score = %q, want it to say %v", got, v)
		}
	}
	if got, _ := at(t, doc, s+"SearchNearMiss/properties/reason/description").(string); !strings.Contains(got, fmt.Sprint(search.ImageSizeTolerance)) {
		t.Errorf("SearchNearMiss reason = %q, want it to say %v", got, search.ImageSizeTolerance)
	}
	str(s+"JobExpired/properties/expiry_reason/enum/0", job.ReasonUploadNotReceived)
	str(s+"JobExpired/properties/expiry_reason/enum/1", job.ReasonRetentionElapsed)
	for i, d := range []string{docpkg.DamageTruncated, docpkg.DamageXref, docpkg.DamageObjectOffsets,
		docpkg.DamageNoCatalog, docpkg.DamagePageSize, docpkg.DamageStream} {
		str(fmt.Sprintf("%sStartValidationDetails/properties/damage/enum/%d", s, i), d)
	}

	// The lifetime of a review link's handoff token, stated in words.
	ttl := fmt.Sprintf("%d minutes", int(httpapi.ReviewLinkTTL/time.Minute))
	for _, ptr := range []string{"/paths/~1v1~1review-links/post/description",
		"/paths/~1v1~1review-links~1exchange/post/description", s + "ReviewLink/properties/expires_at/description"} {
		if got, _ := at(t, doc, ptr).(string); !strings.Contains(got, ttl) {
			t.Errorf("%s = %q, want it to say %s", ptr, got, ttl)
		}
	}

	// The bounds of additions and of an upload's pace, stated in words.
	add := "/paths/~1v1~1jobs~1{job_id}~1pages~1{page_index}~1detections/post/responses/422/description"
	upload := "/paths/~1uploads~1{job_id}/put/responses/422/description"
	for ptr, figures := range map[string][]int{
		add:    {job.MaxAddDetections, job.MaxAddedPerPage, job.MaxAddedPerJob, job.MinAddedBoxPx},
		upload: {int(httpapi.UploadGrace / time.Second), httpapi.MinUploadRate, int(httpapi.MaxUploadTime / time.Minute)},
	} {
		got, _ := at(t, doc, ptr).(string)
		for _, n := range figures {
			if !strings.Contains(got, fmt.Sprintf(" %d ", n)) {
				t.Errorf("%s = %q, want it to say %d", ptr, got, n)
			}
		}
	}

	// The review credential's lifetime and the wrong-key limit, in words.
	credTTL := fmt.Sprintf("%d hours", int(httpapi.ReviewCredentialTTL/time.Hour))
	fails := fmt.Sprintf("%d wrong keys", httpapi.AuthFailuresPerMinute)
	for _, c := range []struct{ ptr, want string }{
		{"/paths/~1v1~1review-links/post/description", credTTL},
		{"/components/securitySchemes/ApiKey/description", credTTL},
		{s + "ReviewLinkExchange/properties/expires_at/description", credTTL},
		{"/components/securitySchemes/ApiKey/description", fails},
		{"/components/responses/RateLimited/description", fails},
	} {
		if got, _ := at(t, doc, c.ptr).(string); !strings.Contains(got, c.want) {
			t.Errorf("%s = %q, want it to say %s", c.ptr, got, c.want)
		}
	}

	for _, ev := range []string{webhook.EventDone, webhook.EventFailed} {
		post := "/webhooks/" + ev + "/post/parameters/"
		str(post+"0/name", webhook.SignatureHeader)
		str(post+"1/name", webhook.EventIDHeader)
		str(post+"2/name", webhook.EventTypeHeader)
		str(post+"2/schema/const", ev)
	}
}
