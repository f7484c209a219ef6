// Package sfnflow is the job.Flow of the AWS deployment: a started job is
// handed to the Step Functions state machine infra/statemachine.asl.json,
// which drives processing, failure and webhook delivery.
package sfnflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"blueprint/internal/job"
)

// API is the part of the Step Functions client the flow uses;
// *sfn.Client implements it.
type API interface {
	StartExecution(ctx context.Context, in *sfn.StartExecutionInput, opts ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
}

// Input is the execution input: the state machine's $.
type Input struct {
	JobID string `json:"job_id"`
}

// Flow starts one execution per job.
type Flow struct {
	c   API
	arn string
}

var _ job.Flow = (*Flow)(nil)

// New returns a Flow on the state machine stateMachineARN.
func New(c API, stateMachineARN string) *Flow { return &Flow{c: c, arn: stateMachineARN} }

// Enqueue starts the job's execution, named after the job id. Execution
// names are unique per state machine for 90 days, so a repeated Enqueue
// (a retried start, the sweep's re-enqueue) starts nothing new and is not
// an error.
func (f *Flow) Enqueue(ctx context.Context, jobID string) error {
	input, err := json.Marshal(Input{JobID: jobID})
	if err != nil {
		return fmt.Errorf("sfnflow: enqueue %s: %w", jobID, err)
	}
	_, err = f.c.StartExecution(ctx, &sfn.StartExecutionInput{
		StateMachineArn: aws.String(f.arn),
		Name:            aws.String(jobID),
		Input:           aws.String(string(input)),
	})
	var exists *types.ExecutionAlreadyExists
	if errors.As(err, &exists) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sfnflow: enqueue %s: %w", jobID, err)
	}
	return nil
}

// ExecutionARN is the ARN of the job's execution of the state machine
// stateMachineARN (arn:…:stateMachine:<name> → arn:…:execution:<name>:<job>).
func ExecutionARN(stateMachineARN, jobID string) string {
	return strings.Replace(stateMachineARN, ":stateMachine:", ":execution:", 1) + ":" + jobID
}
