//go:build aws

package awsapp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/apitest"
	"blueprint/internal/config"
	"blueprint/internal/synth"
)

// fanOutPages is the generated document's length, fanOutBatch the page
// budget of the deployment that fans it out: 6 batches of 9 pages and one
// of 6.
const (
	fanOutPages = 60
	fanOutBatch = 9
)

// TestLargeDocumentFansOut: a 60-page document (a generated legend set:
// its legend read on the first sheets, its glyphs on every plan) runs on
// two deployments, one whose page budget holds it (one processing
// invocation) and one that processes it in batches of 9 pages through the
// state machine's Map (the document pass, the batches in parallel, the
// merge). A partner reads the same job from both: the summary, every
// page's kind and detections, and the legend check. pages_done only grows
// while the batches run, and ends at 60.
func TestLargeDocumentFansOut(t *testing.T) {
	t.Parallel()
	_, g, err := synth.Embedded()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := g.LegendDocument(52817, 0, fanOutPages, synth.Options{MaxPaper: "A4"})
	if err != nil {
		t.Fatal(err)
	}
	var got [2]string
	for k, budget := range []int{fanOutPages, fanOutBatch} {
		s := newAWSService(t, serviceOptions{env: map[string]string{
			config.EnvBatchPages: strconv.Itoa(budget)}})
		api := apitest.NewClient(t, s.Base())
		created := api.InitJob(apitest.KeyA, map[string]any{"file_name": "set.pdf", "mime_type": "application/pdf", "size": len(doc.Data)})
		if r := s.Upload(t, api, created, doc.Data, "application/pdf"); r.Status != http.StatusOK {
			t.Fatalf("PUT: %d %s", r.Status, r.Body)
		}
		id := created["job_id"].(string)
		start := time.Now()
		if r := api.Do("POST", "/v1/jobs/"+id+"/start", apitest.KeyA, nil, nil); r.Status != http.StatusAccepted {
			t.Fatalf("start: %d %s", r.Status, r.Body)
		}
		// pages_done as the partner polls it while the job runs.
		var seen []float64
		apitest.WaitFor(t, 20*time.Minute, 500*time.Millisecond, func() bool {
			m := api.Do("GET", "/v1/jobs/"+id, apitest.KeyA, nil, nil).JSON(t)
			if d, ok := m["pages_done"].(float64); ok && (len(seen) == 0 || seen[len(seen)-1] != d) {
				seen = append(seen, d)
			}
			return m["status"] != "queued" && m["status"] != "processing"
		}, func() string { return fmt.Sprintf("job %s still running, pages_done %v", id, seen) })
		ex := s.waitExecution(t, id, time.Minute)
		if ex.Status != "SUCCEEDED" {
			t.Fatalf("budget %d: execution %s: %s %s", budget, ex.Status, aws.ToString(ex.Error), aws.ToString(ex.Cause))
		}
		for i := 1; i < len(seen); i++ {
			if seen[i] < seen[i-1] || seen[i] > fanOutPages {
				t.Fatalf("budget %d: pages_done went %v", budget, seen)
			}
		}
		maps := s.mapIterations(t, id)
		if want := (fanOutPages + fanOutBatch - 1) / fanOutBatch; budget == fanOutBatch && maps != want || budget == fanOutPages && maps != 0 {
			t.Fatalf("budget %d: %d Map iterations", budget, maps)
		}
		got[k] = partnerView(t, api, id, fanOutPages)
		t.Logf("budget %d pages: done in %s, %d Map iterations, pages_done seen %v", budget, time.Since(start).Round(time.Second), maps, seen)
	}
	if !strings.Contains(got[0], `"legend": [`) || !strings.Contains(got[0], `"total_detections"`) {
		t.Fatalf("the job shows no legend check or summary:\n%.2000s", got[0])
	}
	if got[0] != got[1] {
		t.Fatalf("the job processed in batches differs from the one processed at once:\nat once:\n%.4000s\nin batches:\n%.4000s", got[0], got[1])
	}
}

// mapIterations counts the iterations of Map states the job's execution
// ran, from its history.
func (s *awsService) mapIterations(t *testing.T, jobID string) int {
	t.Helper()
	arn := aws.String(strings.Replace(s.machine, ":stateMachine:", ":execution:", 1) + ":" + jobID)
	n := 0
	p := sfn.NewGetExecutionHistoryPaginator(sfnClient(), &sfn.GetExecutionHistoryInput{ExecutionArn: arn})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("execution history of %s: %v", jobID, err)
		}
		for _, e := range out.Events {
			if e.Type == "MapIterationStarted" {
				n++
			}
		}
	}
	return n
}

// partnerView is what a partner reads of a done job: the poll response and
// every page's detections (the first 2000), without what differs between
// two jobs of one document (ids, times, URLs).
func partnerView(t *testing.T, api *apitest.Client, id string, pages int) string {
	t.Helper()
	var b strings.Builder
	r := api.Do("GET", "/v1/jobs/"+id, apitest.KeyA, nil, nil)
	if r.Status != http.StatusOK {
		t.Fatalf("poll: %d %s", r.Status, r.Body)
	}
	b.WriteString(scrubbed(t, r.Body))
	for i := range pages {
		r := api.Do("GET", fmt.Sprintf("/v1/jobs/%s/pages/%d/detections?limit=2000", id, i), apitest.KeyA, nil, nil)
		if r.Status != http.StatusOK {
			t.Fatalf("detections of page %d: %d %s", i, r.Status, r.Body)
		}
		fmt.Fprintf(&b, "\npage %d: %s", i, scrubbed(t, r.Body))
	}
	return b.String()
}

// scrubbed is a JSON body, indented, without ids, times and URLs.
func scrubbed(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	var scrub func(v any)
	scrub = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "id" || k == "job_id" || k == "url" || strings.HasSuffix(k, "_at") || strings.HasSuffix(k, "_url") {
					delete(x, k)
					continue
				}
				scrub(e)
			}
		case []any:
			for _, e := range x {
				scrub(e)
			}
		}
	}
	scrub(v)
	out, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
