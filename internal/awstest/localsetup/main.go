// Command localsetup creates what `sam local` needs in the local servers
// that events/env.json names (make local-setup; docs/deploy.md, "sam
// local"): the jobs table in DynamoDB Local, shaped like template.yaml's
// JobsTable, the files bucket in the S3 server and, when a Step Functions
// endpoint is named (moto's server), the state machine of
// infra/statemachine.asl.json invoking the functions by their logical ids
// (as `sam local start-lambda` serves them). What exists already is kept.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	dtypes "github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/awstest"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "localsetup:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	root, err := awstest.ModuleRoot()
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(filepath.Join(root, "events", "env.json"))
	if err != nil {
		return err
	}
	var env map[string]map[string]string
	if err := json.Unmarshal(raw, &env); err != nil {
		return fmt.Errorf("events/env.json: %w", err)
	}
	p, api := env["Parameters"], env["ApiFunction"]
	cfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider(
		os.Getenv("AWS_ACCESS_KEY_ID"), os.Getenv("AWS_SECRET_ACCESS_KEY"), "")}
	if r := os.Getenv("AWS_DEFAULT_REGION"); r != "" {
		cfg.Region = r
	}
	db := dynamodb.NewFromConfig(cfg, func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(p["AWS_ENDPOINT_URL_DYNAMODB"]) })
	var inUse *dtypes.ResourceInUseException
	if err := awstest.CreateJobsTable(ctx, db, p["BLUEPRINT_JOBS_TABLE"]); err != nil && !errors.As(err, &inUse) {
		return fmt.Errorf("table %s: %w", p["BLUEPRINT_JOBS_TABLE"], err)
	}
	fmt.Println("table", p["BLUEPRINT_JOBS_TABLE"], "at", p["AWS_ENDPOINT_URL_DYNAMODB"])
	s3c := s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(p["AWS_ENDPOINT_URL_S3"])
		o.UsePathStyle = true
	})
	if _, err := s3c.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(p["BLUEPRINT_BUCKET"])}); err != nil {
		if err := awstest.CreateBucket(ctx, s3c, p["BLUEPRINT_BUCKET"]); err != nil {
			return fmt.Errorf("bucket %s: %w", p["BLUEPRINT_BUCKET"], err)
		}
	}
	fmt.Println("bucket", p["BLUEPRINT_BUCKET"], "at", p["AWS_ENDPOINT_URL_S3"])
	endpoint, arn := api["AWS_ENDPOINT_URL_SFN"], api["BLUEPRINT_STATE_MACHINE_ARN"]
	if endpoint == "" || arn == "" {
		return nil
	}
	def, err := os.ReadFile(filepath.Join(root, "infra", "statemachine.asl.json"))
	if err != nil {
		return err
	}
	fn := func(name string) string { return "arn:aws:lambda:" + cfg.Region + ":123456789012:function:" + name }
	d := strings.NewReplacer("${ProcessFunctionArn}", fn("ProcessFunction"), "${WebhookFunctionArn}", fn("WebhookFunction")).Replace(string(def))
	// moto's server runs executions only when told to (no-op elsewhere).
	if resp, err := http.Post(endpoint+"/moto-api/config", "application/json",
		strings.NewReader(`{"stepfunctions": {"execute_state_machine": true}}`)); err == nil {
		resp.Body.Close()
	}
	name := arn[strings.LastIndex(arn, ":")+1:]
	sf := sfn.NewFromConfig(cfg, func(o *sfn.Options) { o.BaseEndpoint = aws.String(endpoint) })
	if _, err := sf.DescribeStateMachine(ctx, &sfn.DescribeStateMachineInput{StateMachineArn: aws.String(arn)}); err == nil {
		fmt.Println("state machine", arn, "exists")
		return nil
	}
	out, err := sf.CreateStateMachine(ctx, &sfn.CreateStateMachineInput{Name: aws.String(name), Definition: aws.String(d),
		RoleArn: aws.String("arn:aws:iam::123456789012:role/blueprint-local")})
	if err != nil {
		return fmt.Errorf("state machine at %s: %w", endpoint, err)
	}
	fmt.Println("state machine", aws.ToString(out.StateMachineArn), "at", endpoint)
	if aws.ToString(out.StateMachineArn) != arn {
		return fmt.Errorf("the state machine is %s, but events/env.json says %s", aws.ToString(out.StateMachineArn), arn)
	}
	return nil
}
