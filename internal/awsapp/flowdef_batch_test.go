package awsapp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"testing"

	"go.yaml.in/yaml/v3"

	"blueprint/internal/awstest"
)

// TestBatchMapRetries: the Map's batch task waits out throttling as the
// Process task does (a batch past the reserved concurrency is not a
// failure), retries a failed batch once but not one that ran out of time,
// and the Map runs at most half the processing function's default
// reserved concurrency at once, so a large document leaves slots for other
// jobs' starts.
func TestBatchMapRetries(t *testing.T) {
	root, err := awstest.ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "infra", "statemachine.asl.json"))
	if err != nil {
		t.Fatal(err)
	}
	type task struct {
		Retry []retrier
	}
	var def struct {
		States map[string]struct {
			Type           string
			MaxConcurrency int
			ItemProcessor  struct {
				States map[string]task
			}
			Retry []retrier
			Next  string
		}
	}
	if err := json.Unmarshal(b, &def); err != nil {
		t.Fatal(err)
	}
	m := def.States["Batches"]
	batch, ok := m.ItemProcessor.States["Batch"]
	if m.Type != "Map" || !ok || m.Next != "Merge" {
		t.Fatalf("Batches: %+v", m)
	}
	if !reflect.DeepEqual(batch.Retry[0], def.States["Process"].Retry[0]) {
		t.Errorf("the batch task's first retrier %+v is not Process's throttle retrier %+v", batch.Retry[0], def.States["Process"].Retry[0])
	}
	first := func(name string) retrier {
		for _, r := range batch.Retry {
			if slices.Contains(r.ErrorEquals, name) || slices.Contains(r.ErrorEquals, "States.TaskFailed") || slices.Contains(r.ErrorEquals, "States.ALL") {
				return r
			}
		}
		return retrier{}
	}
	if r := first("ProcessingTimeout"); r.MaxAttempts != 0 {
		t.Errorf("a batch that ran out of time is retried: %+v", r)
	}
	if r := first("SomeHandlerError"); r.MaxAttempts != 1 {
		t.Errorf("a failed batch: %+v, want one retry", r)
	}
	tb, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tmpl struct {
		Parameters map[string]struct {
			Default string `yaml:"Default"`
		} `yaml:"Parameters"`
	}
	if err := yaml.Unmarshal(tb, &tmpl); err != nil {
		t.Fatal(err)
	}
	reserved, err := strconv.Atoi(tmpl.Parameters["ProcessReservedConcurrency"].Default)
	if err != nil {
		t.Fatalf("ProcessReservedConcurrency's default: %v", err)
	}
	if m.MaxConcurrency < 1 || 2*m.MaxConcurrency > reserved {
		t.Errorf("the Map runs %d batches at once of the function's %d reserved", m.MaxConcurrency, reserved)
	}
}
