package awstest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"go.yaml.in/yaml/v3"
)

// Config is the SDK configuration for the test servers: Region and the
// test credentials. Clients set their endpoint with BaseEndpoint.
func Config() aws.Config {
	return aws.Config{
		Region:      Region,
		Credentials: credentials.NewStaticCredentialsProvider(AccessKey, SecretKey, ""),
	}
}

// DynamoDB returns a client of the DynamoDB Local server s.
func DynamoDB(s *Server) *dynamodb.Client {
	return dynamodb.NewFromConfig(Config(), func(o *dynamodb.Options) { o.BaseEndpoint = aws.String(s.URL) })
}

// S3 returns a client of the S3 server s (path-style addressing: the
// server is an IP address).
func S3(s *Server) *s3.Client {
	return s3.NewFromConfig(Config(), func(o *s3.Options) {
		o.BaseEndpoint = aws.String(s.URL)
		o.UsePathStyle = true
	})
}

// Env is the environment of a Lambda function pointed at the test
// servers: region, credentials and the SDK's per-service endpoint
// variables (AWS_ENDPOINT_URL_<SERVICE>). Nil servers are left out.
func Env(dynamo, s3srv, moto *Server) map[string]string {
	env := map[string]string{
		"AWS_REGION":            Region,
		"AWS_ACCESS_KEY_ID":     AccessKey,
		"AWS_SECRET_ACCESS_KEY": SecretKey,
	}
	if dynamo != nil {
		env["AWS_ENDPOINT_URL_DYNAMODB"] = dynamo.URL
	}
	if s3srv != nil {
		env["AWS_ENDPOINT_URL_S3"] = s3srv.URL
	}
	if moto != nil {
		env["AWS_ENDPOINT_URL_SFN"] = moto.URL
		env["AWS_ENDPOINT_URL_SECRETS_MANAGER"] = moto.URL
	}
	return env
}

// tableProperties is the part of an AWS::DynamoDB::Table's properties that
// shapes the table.
type tableProperties struct {
	BillingMode          string `yaml:"BillingMode"`
	AttributeDefinitions []struct {
		AttributeName string `yaml:"AttributeName"`
		AttributeType string `yaml:"AttributeType"`
	} `yaml:"AttributeDefinitions"`
	KeySchema              []keyElement `yaml:"KeySchema"`
	GlobalSecondaryIndexes []struct {
		IndexName  string       `yaml:"IndexName"`
		KeySchema  []keyElement `yaml:"KeySchema"`
		Projection struct {
			ProjectionType string `yaml:"ProjectionType"`
		} `yaml:"Projection"`
	} `yaml:"GlobalSecondaryIndexes"`
	TimeToLiveSpecification struct {
		AttributeName string `yaml:"AttributeName"`
		Enabled       bool   `yaml:"Enabled"`
	} `yaml:"TimeToLiveSpecification"`
}

type keyElement struct {
	AttributeName string `yaml:"AttributeName"`
	KeyType       string `yaml:"KeyType"`
}

// parseTemplate parses the repository's template.yaml; CloudFormation's
// short tags (!Ref, !Sub) stay on the nodes.
func parseTemplate() (*yaml.Node, error) {
	root, err := ModuleRoot()
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("parse template.yaml: %w", err)
	}
	return doc.Content[0], nil
}

// templateTable reads the properties of the resource named logicalID in
// the repository's template.yaml.
func templateTable(logicalID string) (*tableProperties, error) {
	tmpl, err := parseTemplate()
	if err != nil {
		return nil, err
	}
	props := lookup(lookup(lookup(tmpl, "Resources"), logicalID), "Properties")
	if props == nil {
		return nil, fmt.Errorf("template.yaml has no Resources.%s.Properties", logicalID)
	}
	var tp tableProperties
	if err := props.Decode(&tp); err != nil {
		return nil, fmt.Errorf("decode %s properties: %w", logicalID, err)
	}
	return &tp, nil
}

// lookup returns the value of key in the mapping node n (n itself for "").
func lookup(n *yaml.Node, key string) *yaml.Node {
	if n == nil || key == "" {
		return n
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// CreateJobsTable creates table name exactly as template.yaml declares
// the JobsTable resource (attributes, keys, global secondary indexes,
// billing, TTL), so that the adapter is tested against the deployed
// shape.
func CreateJobsTable(ctx context.Context, db *dynamodb.Client, name string) error {
	tp, err := templateTable("JobsTable")
	if err != nil {
		return err
	}
	in := &dynamodb.CreateTableInput{TableName: aws.String(name), BillingMode: types.BillingMode(tp.BillingMode)}
	for _, a := range tp.AttributeDefinitions {
		in.AttributeDefinitions = append(in.AttributeDefinitions, types.AttributeDefinition{
			AttributeName: aws.String(a.AttributeName), AttributeType: types.ScalarAttributeType(a.AttributeType)})
	}
	keys := func(ks []keyElement) []types.KeySchemaElement {
		var out []types.KeySchemaElement
		for _, k := range ks {
			out = append(out, types.KeySchemaElement{AttributeName: aws.String(k.AttributeName), KeyType: types.KeyType(k.KeyType)})
		}
		return out
	}
	in.KeySchema = keys(tp.KeySchema)
	for _, g := range tp.GlobalSecondaryIndexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName: aws.String(g.IndexName), KeySchema: keys(g.KeySchema),
			Projection: &types.Projection{ProjectionType: types.ProjectionType(g.Projection.ProjectionType)}})
	}
	if _, err := db.CreateTable(ctx, in); err != nil {
		return fmt.Errorf("create table %s from template.yaml: %w", name, err)
	}
	if tp.TimeToLiveSpecification.Enabled {
		_, err := db.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{TableName: aws.String(name),
			TimeToLiveSpecification: &types.TimeToLiveSpecification{AttributeName: aws.String(tp.TimeToLiveSpecification.AttributeName), Enabled: aws.Bool(true)}})
		if err != nil {
			return fmt.Errorf("turn on TTL of %s: %w", name, err)
		}
	}
	return nil
}

// CreateBucket creates a bucket on the S3 server.
func CreateBucket(ctx context.Context, c *s3.Client, name string) error {
	if _, err := c.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		return fmt.Errorf("create bucket %s: %w", name, err)
	}
	return nil
}
