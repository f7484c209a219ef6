//go:build aws

package awsapp_test

import (
	"testing"

	"blueprint/internal/apitest"
)

// TestContract runs the partner-API contract tests (package apitest), the
// same ones the local server passes, against the Lambda api handler behind
// an emulated API Gateway HTTP API, with DynamoDB Local, S3 (versitygw:
// presigned PUTs and GETs), the upload-event function, and moto running
// the real state machine, which invokes the real process and webhook
// handlers.
func TestContract(t *testing.T) {
	apitest.RunContract(t, func(t *testing.T, o apitest.Options) (apitest.Service, *apitest.Client) {
		s := newAWSService(t, serviceOptions{Options: o})
		return s, apitest.NewClient(t, s.Base())
	})
}
