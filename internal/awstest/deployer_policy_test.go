package awstest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// deployerActions says, for each resource type of template.yaml, the
// actions infra/deployer-policy.json (docs/deploy.md, "IAM permissions to
// deploy") must allow for CloudFormation to create it. SAM's types stand for
// what the transform makes of them: a function is a Lambda function, its
// role, its event rules and its failure destination's invoke config.
var deployerActions = map[string][]string{
	"AWS::Serverless::Function":       {"lambda:CreateFunction", "iam:CreateRole", "iam:PassRole", "iam:AttachRolePolicy", "events:PutRule", "events:PutTargets", "lambda:AddPermission", "lambda:PutFunctionEventInvokeConfig", "lambda:PutFunctionConcurrency", "ecr:PutImage", "s3:PutObject"},
	"AWS::Serverless::StateMachine":   {"states:CreateStateMachine", "iam:CreateRole", "iam:PutRolePolicy", "iam:PassRole", "logs:CreateLogDelivery"},
	"AWS::DynamoDB::Table":            {"dynamodb:CreateTable", "dynamodb:UpdateTimeToLive", "dynamodb:UpdateContinuousBackups"},
	"AWS::S3::Bucket":                 {"s3:CreateBucket", "s3:PutBucketCORS", "s3:PutLifecycleConfiguration", "s3:PutBucketNotification", "s3:PutEncryptionConfiguration", "s3:PutBucketPublicAccessBlock"},
	"AWS::S3::BucketPolicy":           {"s3:PutBucketPolicy"},
	"AWS::ApiGatewayV2::Api":          {"apigateway:POST"},
	"AWS::ApiGatewayV2::Integration":  {"apigateway:POST"},
	"AWS::ApiGatewayV2::Route":        {"apigateway:POST"},
	"AWS::ApiGatewayV2::Stage":        {"apigateway:POST"},
	"AWS::ApiGatewayV2::DomainName":   {"apigateway:POST", "acm:DescribeCertificate"},
	"AWS::ApiGatewayV2::ApiMapping":   {"apigateway:POST"},
	"AWS::Lambda::Permission":         {"lambda:AddPermission"},
	"AWS::Logs::LogGroup":             {"logs:CreateLogGroup", "logs:PutRetentionPolicy"},
	"AWS::Logs::MetricFilter":         {"logs:PutMetricFilter"},
	"AWS::CloudWatch::Alarm":          {"cloudwatch:PutMetricAlarm"},
	"AWS::SQS::Queue":                 {"sqs:CreateQueue"},
	"AWS::SQS::QueuePolicy":           {"sqs:SetQueueAttributes"},
	"AWS::IAM::Role":                  {"iam:CreateRole", "iam:PutRolePolicy", "iam:PassRole"},
	"AWS::SageMaker::Model":           {"sagemaker:CreateModel"},
	"AWS::SageMaker::EndpointConfig":  {"sagemaker:CreateEndpointConfig"},
	"AWS::SageMaker::Endpoint":        {"sagemaker:CreateEndpoint"},
	"AWS::CloudFormation::Transform*": {"cloudformation:CreateChangeSet", "cloudformation:ExecuteChangeSet"},
}

// TestDeployerPolicyCoversTheTemplate: every resource type the template
// declares has its creating actions in the deployer's policy, so that a
// resource added to the template without them fails here rather than at an
// operator's first deploy. (The policy is not exercised against IAM: no
// AWS account here.)
func TestDeployerPolicyCoversTheTemplate(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, "infra", "deployer-policy.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version   string
		Statement []struct {
			Effect   string
			Action   any
			Resource any
		}
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != "2012-10-17" {
		t.Errorf("policy Version %q", doc.Version)
	}
	allowed := map[string]bool{}
	for i, s := range doc.Statement {
		if s.Effect != "Allow" || s.Resource == nil {
			t.Errorf("statement %d: not an Allow with a Resource", i)
		}
		switch a := s.Action.(type) {
		case string:
			allowed[a] = true
		case []any:
			for _, x := range a {
				allowed[x.(string)] = true
			}
		}
	}
	tmpl := loadTemplate(t)
	resources := lookup(tmpl, "Resources")
	types := map[string]bool{"AWS::CloudFormation::Transform*": true}
	for i := 0; i+1 < len(resources.Content); i += 2 {
		types[lookup(resources.Content[i+1], "Type").Value] = true
	}
	for typ := range types {
		actions, ok := deployerActions[typ]
		if !ok {
			t.Errorf("%s: not in deployerActions; add the actions that create it to infra/deployer-policy.json and here", typ)
			continue
		}
		for _, a := range actions {
			if !allowed[a] {
				t.Errorf("%s needs %s; infra/deployer-policy.json does not allow it", typ, a)
			}
		}
	}
	for a := range allowed {
		if strings.Contains(a, "*") {
			t.Errorf("action %s: a wildcard; name the actions", a)
		}
	}
}
