package awstest

import "testing"

func TestMatchJSONFilter(t *testing.T) {
	line := map[string]any{"msg": "webhook gave up", "level": "WARN", "job_id": "j1", "n": 3.0}
	for _, c := range []struct {
		pattern string
		want    bool
	}{
		{`{ $.msg = "webhook gave up" }`, true},
		{`{$.msg="webhook gave up"}`, true},
		{`{ $.msg = "webhook gave up" && $.level = "WARN" }`, true},
		{`{ $.msg = "webhook gave up" && $.level = "INFO" }`, false},
		{`{ $.msg = "webhook delivered" }`, false},
		{`{ $.missing = "webhook gave up" }`, false},
		{`{ $.msg != "webhook delivered" }`, true},
		{`{ $.n = "3" }`, false},
	} {
		got, err := MatchJSONFilter(c.pattern, line)
		if err != nil || got != c.want {
			t.Errorf("%s: %v, %v; want %v", c.pattern, got, err, c.want)
		}
	}
	for _, bad := range []string{`webhook gave up`, `{ $.n > 2 }`, `{ $.msg = "a" || $.msg = "b" }`} {
		if _, err := MatchJSONFilter(bad, line); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestTemplateMetricFilters: the webhook give-up filter is found and is
// one MatchJSONFilter understands.
func TestTemplateMetricFilters(t *testing.T) {
	p, err := TemplateFilterPattern("WebhookGiveUpsMetricFilter")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MatchJSONFilter(p, map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if _, err := TemplateFilterPattern("JobsTable"); err == nil {
		t.Error("JobsTable taken for a metric filter")
	}
}
