package dynamostore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"blueprint/internal/job"
)

// Handoff items: one per review link's handoff token, in the jobs table.
const (
	handoffPrefix = "handoff#"
	attrKeyID     = "key_id"
	attrJobID     = "job_id"
	attrUsedAt    = "used_at"
)

// HandoffAPI is the part of the DynamoDB client Handoffs uses;
// *dynamodb.Client implements it.
type HandoffAPI interface {
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	UpdateItem(ctx context.Context, in *dynamodb.UpdateItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.UpdateItemOutput, error)
}

// Handoffs is the job.Handoffs of the AWS deployment: the handoff tokens
// of review links in the jobs table, so that a link made by one instance
// of the api function is exchanged by any other. An item is pk
// "handoff#<token hash>", key_id S, job_id S, expires_at N (Unix
// nanoseconds), ttl N (Unix seconds, job.HandoffGrace past the expiry, for
// the table's TTL) and, once exchanged, used_at N. The exchange is one
// conditional UpdateItem (exists, not used, not expired) that sets
// used_at, so of concurrent exchanges on any instances exactly one wins.
// It is safe for concurrent use.
type Handoffs struct {
	db    HandoffAPI
	table string
}

var _ job.Handoffs = (*Handoffs)(nil)

// NewHandoffs returns Handoffs on table (the jobs table).
func NewHandoffs(db HandoffAPI, table string) *Handoffs { return &Handoffs{db: db, table: table} }

// PutHandoff stores h; job.ErrExists if its token hash is stored.
func (s *Handoffs) PutHandoff(ctx context.Context, h job.Handoff) error {
	_, err := s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{
			attrPK:        str(handoffPrefix + h.TokenHash),
			attrKeyID:     str(h.KeyID),
			attrJobID:     str(h.JobID),
			attrExpiresAt: number(h.ExpiresAt.UnixNano()),
			attrTTL:       number(h.ExpiresAt.Add(job.HandoffGrace).Unix()),
		},
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	if isConditionFailed(err) {
		return fmt.Errorf("dynamostore: put handoff: %w", job.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: put handoff: %w", err)
	}
	return nil
}

// TakeHandoff marks the token used and returns its record, once, before
// it expires. A refused condition returns the stored item, which tells an
// unknown token from a used or an expired one.
func (s *Handoffs) TakeHandoff(ctx context.Context, tokenHash string, now time.Time) (*job.Handoff, error) {
	out, err := s.db.UpdateItem(ctx, &dynamodb.UpdateItemInput{
		TableName:                           aws.String(s.table),
		Key:                                 key(handoffPrefix + tokenHash),
		UpdateExpression:                    aws.String("SET #used = :now"),
		ConditionExpression:                 aws.String("attribute_exists(#pk) AND attribute_not_exists(#used) AND #e > :now"),
		ExpressionAttributeNames:            map[string]string{"#pk": attrPK, "#used": attrUsedAt, "#e": attrExpiresAt},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": number(now.UnixNano())},
		ReturnValues:                        types.ReturnValueAllNew,
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var cf *types.ConditionalCheckFailedException
	if errors.As(err, &cf) {
		if len(cf.Item) == 0 {
			return nil, fmt.Errorf("dynamostore: take handoff: %w", job.ErrNotFound)
		}
		exp, err := intAttr(cf.Item, attrExpiresAt)
		if err != nil {
			return nil, fmt.Errorf("dynamostore: take handoff: %w", err)
		}
		if now.UnixNano() >= exp {
			return nil, fmt.Errorf("dynamostore: take handoff: %w", job.ErrHandoffExpired)
		}
		return nil, fmt.Errorf("dynamostore: take handoff: %w", job.ErrHandoffUsed)
	}
	if err != nil {
		return nil, fmt.Errorf("dynamostore: take handoff: %w", err)
	}
	keyID, _ := strAttr(out.Attributes, attrKeyID)
	jobID, _ := strAttr(out.Attributes, attrJobID)
	exp, err := intAttr(out.Attributes, attrExpiresAt)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: take handoff: %w", err)
	}
	return &job.Handoff{TokenHash: tokenHash, KeyID: keyID, JobID: jobID, ExpiresAt: time.Unix(0, exp).UTC()}, nil
}
