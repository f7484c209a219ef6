//go:build aws

package dynamostore

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"blueprint/internal/awstest"
	"blueprint/internal/ratelimit"
)

// TestRateLimiterSharedAcrossInstances: two limiters with their own
// clients on one table (two Lambda instances) taking requests at once
// together allow exactly the limit in a window, each allowed request
// seeing its own remaining count; the rest are refused with the time to
// the window's end; the next window starts again; other keys are apart;
// the window's item carries the TTL attribute.
func TestRateLimiterSharedAcrossInstances(t *testing.T) {
	db, table := newTable(t)
	ctx := context.Background()
	a := NewRateLimiter(db, table)
	b := NewRateLimiter(awstest.DynamoDB(server), table)
	const limit, requests = 12, 40
	now := time.Date(2026, 3, 1, 9, 30, 20, 0, time.UTC)
	var (
		mu        sync.Mutex
		remaining []int
		refused   int
		wg        sync.WaitGroup
	)
	for i := range requests {
		l := a
		if i%2 == 1 {
			l = b
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := l.Allow(ctx, "key-1", limit, now)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Error(err)
				return
			}
			if d.Limit != limit || d.Reset != 40*time.Second {
				t.Errorf("decision %+v", d)
			}
			if d.Allowed {
				remaining = append(remaining, d.Remaining)
			} else {
				refused++
				if d.Remaining != 0 {
					t.Errorf("refused with %d remaining", d.Remaining)
				}
			}
		}()
	}
	wg.Wait()
	slices.Sort(remaining)
	want := make([]int, limit)
	for i := range want {
		want[i] = i
	}
	if !slices.Equal(remaining, want) || refused != requests-limit {
		t.Fatalf("allowed with remaining %v (want each of 0..%d once), refused %d", remaining, limit-1, refused)
	}
	// Later in the same window: still refused, by either instance.
	if d, err := b.Allow(ctx, "key-1", limit, now.Add(39*time.Second)); err != nil || d.Allowed || d.Reset != time.Second {
		t.Fatalf("end of window: %+v %v", d, err)
	}
	// Another key has its own count; the next window starts afresh.
	if d, err := a.Allow(ctx, "key-2", limit, now); err != nil || !d.Allowed || d.Remaining != limit-1 {
		t.Fatalf("other key: %+v %v", d, err)
	}
	if d, err := b.Allow(ctx, "key-1", limit, now.Add(40*time.Second)); err != nil || !d.Allowed || d.Remaining != limit-1 || d.Reset != time.Minute {
		t.Fatalf("next window: %+v %v", d, err)
	}
	start := ratelimit.WindowStart(now)
	out, err := db.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
		Key: map[string]types.AttributeValue{attrPK: &types.AttributeValueMemberS{Value: "rate#5#key-1#" + strconv.FormatInt(start.Unix(), 10)}}})
	if err != nil {
		t.Fatal(err)
	}
	ttl, _ := out.Item[attrTTL].(*types.AttributeValueMemberN)
	count, _ := out.Item[attrCount].(*types.AttributeValueMemberN)
	wantTTL := strconv.FormatInt(start.Add(ratelimit.Window+rateTTLGrace).Unix(), 10)
	if ttl == nil || ttl.Value != wantTTL || count == nil || count.Value != strconv.Itoa(limit) {
		t.Fatalf("window item %v, want count %d and ttl %s", out.Item, limit, wantTTL)
	}
}
