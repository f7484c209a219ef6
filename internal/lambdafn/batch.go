package lambdafn

import (
	"context"

	"blueprint/internal/job"
)

// ProcessInput is the payload of the processing function's tasks: the
// job's own task ({"job_id"}), one page batch of a large document (the
// Map's items: {"job_id", "batch"}), or its merge ({"job_id", "merge":
// true}).
type ProcessInput struct {
	JobID string     `json:"job_id"`
	Batch *job.Batch `json:"batch,omitempty"`
	Merge bool       `json:"merge,omitempty"`
}

// ProcessOutput is the result of the processing function's tasks: the
// webhook's state, as every task reports it, and, when the job's own task
// planned the document in page batches, Batched with the Map's items
// (each a ProcessInput for one batch). Batches is [] otherwise, never
// absent, so that the state machine's ResultSelector always finds it.
type ProcessOutput struct {
	JobOutput
	Batched bool           `json:"batched"`
	Batches []ProcessInput `json:"batches"`
}

// processTask runs the task in asks for. The webhook's state is left to
// Process.
func processTask(ctx context.Context, svc *job.Service, in ProcessInput) (ProcessOutput, error) {
	out := ProcessOutput{JobOutput: JobOutput{JobID: in.JobID}, Batches: []ProcessInput{}}
	switch {
	case in.Batch != nil:
		return out, svc.ProcessBatch(ctx, in.JobID, *in.Batch)
	case in.Merge:
		return out, svc.MergeBatches(ctx, in.JobID)
	}
	batches, err := svc.Begin(ctx, in.JobID)
	if err != nil {
		return out, err
	}
	for _, b := range batches {
		out.Batches = append(out.Batches, ProcessInput{JobID: in.JobID, Batch: &b})
	}
	out.Batched = len(batches) > 0
	return out, nil
}
