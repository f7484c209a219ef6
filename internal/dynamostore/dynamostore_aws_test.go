//go:build aws

package dynamostore

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"blueprint/internal/awstest"
	"blueprint/internal/job"
	"blueprint/internal/job/jobtest"
)

// server is DynamoDB Local, started once for the package's tests.
var server *awstest.Server

func TestMain(m *testing.M) { os.Exit(awstest.Main(m, &server, awstest.StartDynamoDB)) }

var tables atomic.Int64

// newTable creates a new table shaped like template.yaml's JobsTable.
func newTable(t *testing.T) (*dynamodb.Client, string) {
	t.Helper()
	db := awstest.DynamoDB(server)
	name := fmt.Sprintf("jobs-%d", tables.Add(1))
	if err := awstest.CreateJobsTable(context.Background(), db, name); err != nil {
		t.Fatalf("%v\n%s", err, server.Logs())
	}
	return db, name
}

func TestStoreConformance(t *testing.T) {
	jobtest.RunStoreConformance(t, func(t *testing.T) job.Store {
		db, name := newTable(t)
		return New(db, name)
	})
}

func TestHandoffsConformance(t *testing.T) {
	jobtest.RunHandoffsConformance(t, func(t *testing.T) job.Handoffs {
		db, name := newTable(t)
		return NewHandoffs(db, name)
	})
}
