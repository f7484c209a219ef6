package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"blueprint/internal/ratelimit"
)

// Rate counter items: one per key and window, in the jobs table.
const (
	ratePrefix = "rate#"
	attrCount  = "count"
	// rateTTLGrace keeps a window's item this long past the window's end
	// before the table's TTL may remove it (nothing reads it then; TTL
	// deletes within days, and a later window is another item).
	rateTTLGrace = time.Hour
)

// UpdateAPI is the part of the DynamoDB client the rate limiter uses;
// *dynamodb.Client implements it.
type UpdateAPI interface {
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// RateLimiter counts each API key's requests per window
// (ratelimit.Window) in the jobs table, so that every process sharing the
// table (the API's Lambda instances) shares one count per key and window:
// together they allow exactly the limit. Each request is one atomic
// UpdateItem on the item pk "rate#<len(key)>#<key>#<window start, Unix
// seconds>": ADD count 1 under the condition that count is below the
// limit, which also sets ttl (the window's end plus an hour) for the
// table's TTL to remove it. A refused request fails the condition and is
// not counted. It is safe for concurrent use.
type RateLimiter struct {
	db    UpdateAPI
	table string
}

// NewRateLimiter returns a RateLimiter on table (the jobs table: its TTL
// attribute is "ttl").
func NewRateLimiter(db UpdateAPI, table string) *RateLimiter {
	return &RateLimiter{db: db, table: table}
}

// Allow records one request by key at now against limit requests per
// window. It fails only when DynamoDB does; the request is then counted
// or not, unknown.
func (l *RateLimiter) Allow(ctx context.Context, key string, limit int, now time.Time) (ratelimit.Decision, error) {
	start := ratelimit.WindowStart(now)
	d := ratelimit.Decision{Limit: limit, Reset: ratelimit.Reset(now)}
	if limit <= 0 {
		return d, nil
	}
	pk := ratePrefix + strconv.Itoa(len(key)) + "#" + key + "#" + strconv.FormatInt(start.Unix(), 10)
	out, err := l.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                aws.String(l.table),
		Key:                      map[string]types.AttributeValue{attrPK: &types.AttributeValueMemberS{Value: pk}},
		UpdateExpression:         aws.String("ADD #count :one SET #ttl = :ttl"),
		ConditionExpression:      aws.String("attribute_not_exists(#count) OR #count < :limit"),
		ExpressionAttributeNames: map[string]string{"#count": attrCount, "#ttl": attrTTL},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":one":   &types.AttributeValueMemberN{Value: "1"},
			":limit": &types.AttributeValueMemberN{Value: strconv.Itoa(limit)},
			":ttl":   &types.AttributeValueMemberN{Value: strconv.FormatInt(start.Add(ratelimit.Window+rateTTLGrace).Unix(), 10)},
		},
		ReturnValues: types.ReturnValueUpdatedNew,
	})
	if isConditionFailed(err) {
		return d, nil
	}
	if err != nil {
		return d, fmt.Errorf("dynamostore: count a request of key %s: %w", key, err)
	}
	n, ok := out.Attributes[attrCount].(*types.AttributeValueMemberN)
	if !ok {
		return d, errors.New("dynamostore: count a request: no count in the update's answer")
	}
	count, err := strconv.Atoi(n.Value)
	if err != nil {
		return d, fmt.Errorf("dynamostore: count a request: count %q: %w", n.Value, err)
	}
	d.Allowed = true
	d.Remaining = max(limit-count, 0)
	return d, nil
}
