package awsapp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"blueprint/internal/awstest"
	"blueprint/internal/job"
)

// retrier is a Retry entry of infra/statemachine.asl.json.
type retrier struct {
	ErrorEquals     []string
	IntervalSeconds float64
	MaxAttempts     int
	BackoffRate     float64
	MaxDelaySeconds float64
	JitterStrategy  string
}

// waits are the retrier's waits before each retry (no jitter).
func (r retrier) waits() []time.Duration {
	var out []time.Duration
	d := r.IntervalSeconds
	for range r.MaxAttempts {
		w := d
		if r.MaxDelaySeconds > 0 {
			w = min(w, r.MaxDelaySeconds)
		}
		out = append(out, time.Duration(w*float64(time.Second)))
		d *= r.BackoffRate
	}
	return out
}

// processTimeout reads ProcessFunction's Timeout from template.yaml.
func templateProcessTimeout(t *testing.T, root string) time.Duration {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Resources map[string]struct {
			Properties struct {
				Timeout string `yaml:"Timeout"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	if err := yaml.Unmarshal(b, &tmpl); err != nil {
		t.Fatal(err)
	}
	s, err := strconv.Atoi(tmpl.Resources["ProcessFunction"].Properties.Timeout)
	if err != nil {
		t.Fatalf("ProcessFunction's Timeout: %v", err)
	}
	return time.Duration(s) * time.Second
}

// TestProcessThrottleBudget: a start throttled by the processing
// function's reserved concurrency waits for a slot over minutes (not the
// minute the other Lambda errors get), without jitter that could cut the
// waits short, and no longer than the sweep allows: waiting it out and
// then running for the function's whole timeout must end before
// job.StallAfter, when the sweep fails a job still queued or processing.
func TestProcessThrottleBudget(t *testing.T) {
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "infra", "statemachine.asl.json"))
	if err != nil {
		t.Fatal(err)
	}
	var def struct {
		States map[string]struct {
			Retry []retrier
		}
	}
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	var throttle *retrier
	for i, r := range def.States["Process"].Retry {
		if slices.Contains(r.ErrorEquals, "Lambda.TooManyRequestsException") || slices.Contains(r.ErrorEquals, "States.ALL") {
			throttle = &def.States["Process"].Retry[i] // the first that matches is the one applied
			break
		}
	}
	if throttle == nil || !slices.Equal(throttle.ErrorEquals, []string{"Lambda.TooManyRequestsException"}) {
		t.Fatalf("Process: the first retrier for Lambda.TooManyRequestsException is %+v, want one of its own", throttle)
	}
	if throttle.JitterStrategy != "NONE" {
		t.Errorf("throttle retrier's jitter %q: FULL jitter can make every wait near zero", throttle.JitterStrategy)
	}
	var total time.Duration
	for _, w := range throttle.waits() {
		total += w
	}
	run := templateProcessTimeout(t, root)
	t.Logf("throttled start: %d attempts, waits %v, %s in all; + %s run = %s of job.StallAfter %s",
		throttle.MaxAttempts, throttle.waits(), total, run, total+run, job.StallAfter)
	if total < 20*time.Minute {
		t.Errorf("a throttled start gives up after %s of waiting: a slot frees up at most every %s / reserved concurrency", total, run)
	}
	if total+run+5*time.Minute > job.StallAfter {
		t.Errorf("waiting %s and running %s comes within 5 minutes of job.StallAfter %s: the sweep would fail jobs the flow still runs", total, run, job.StallAfter)
	}
}
