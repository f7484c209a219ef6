// Package dynamostore is the job.Store of the AWS deployment: one DynamoDB
// table (template.yaml, JobsTable) holding jobs and idempotency records.
//
// Item layout (attribute names; "status" and "ttl" are DynamoDB reserved
// words and are always written through expression attribute names):
//
//	job:          pk "job#<id>", version N, job S (the job as JSON),
//	              status S, status_sort S (<created_at>#<id>), owner S,
//	              owner_sort S (<created_at>#<id>), and while a
//	              webhook delivery is pending webhook_pending S ("pending")
//	              and webhook_due S (<next_attempt_at>#<id>)
//	idempotency:  pk "idem#<len(owner)>#<owner>#<key>", rec S (JSON),
//	              expires_at N (Unix nanoseconds), ttl N (Unix seconds)
//	reviews:      pk "review#<job id>#<page>", version N, added N (the
//	              count of added detections), recz B (the page's reviews
//	              as gzipped JSON, at most maxReviewsItemBytes; items
//	              written before hold rec S, the JSON itself, and no added)
//	rate:         pk "rate#<len(key)>#<key>#<minute>", count N, ttl N
//	              (RateLimiter, ratelimit.go)
//	handoff:      pk "handoff#<token hash>", key_id S, job_id S,
//	              expires_at N, ttl N, used_at N once exchanged
//	              (Handoffs, handoffs.go)
//
// Index by-status (status, status_sort) lists jobs by state oldest first;
// by-owner (owner, owner_sort) a key's jobs, read newest first; the sparse
// index pending-webhooks (webhook_pending, webhook_due) holds
// only jobs with a pending delivery. Times in sort keys are fixed-width hex
// that sorts like the time. Every write is conditional: creates on
// attribute_not_exists, updates on the stored version, idempotency records
// on absence or expiry; a failed condition returns the stored item, which
// tells a missing job from a stale version. The table's TTL on "ttl"
// removes expired idempotency records (they already count as absent),
// rate counters of past minutes and handoff records an hour past expiry.
package dynamostore

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"blueprint/internal/job"
)

// Attribute and index names of the table, as template.yaml declares them.
const (
	attrPK             = "pk"
	attrVersion        = "version"
	attrJob            = "job"
	attrStatus         = "status"
	attrStatusSort     = "status_sort"
	attrOwner          = "owner"
	attrOwnerSort      = "owner_sort"
	attrWebhookPending = "webhook_pending"
	attrWebhookDue     = "webhook_due"
	attrRecord         = "rec"
	attrRecordGzip     = "recz"
	attrAdded          = "added"
	attrExpiresAt      = "expires_at"
	attrTTL            = "ttl"

	// IndexByStatus lists jobs of one state, oldest first.
	IndexByStatus = "by-status"
	// IndexByOwner lists a key's jobs.
	IndexByOwner = "by-owner"
	// IndexPendingWebhooks is the sparse index of pending deliveries.
	IndexPendingWebhooks = "pending-webhooks"

	pendingValue = "pending"
	jobPrefix    = "job#"
	idemPrefix   = "idem#"
	reviewPrefix = "review#"
)

// API is the part of the DynamoDB client the store uses;
// *dynamodb.Client implements it.
type API interface {
	GetItem(ctx context.Context, in *dynamodb.GetItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.GetItemOutput, error)
	PutItem(ctx context.Context, in *dynamodb.PutItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error)
	DeleteItem(ctx context.Context, in *dynamodb.DeleteItemInput, opts ...func(*dynamodb.Options)) (*dynamodb.DeleteItemOutput, error)
	Query(ctx context.Context, in *dynamodb.QueryInput, opts ...func(*dynamodb.Options)) (*dynamodb.QueryOutput, error)
}

// Store is a job.Store on one DynamoDB table. It is safe for concurrent
// use.
type Store struct {
	db    API
	table string
}

var _ job.Store = (*Store)(nil)

// New returns a Store on table.
func New(db API, table string) *Store { return &Store{db: db, table: table} }

// CreateJob stores j with Version 1 and sets j.Version to 1; ErrExists if
// the ID is taken.
func (s *Store) CreateJob(ctx context.Context, j *job.Job) error {
	rec := *j
	rec.Version = 1
	item, err := jobItem(&rec)
	if err != nil {
		return fmt.Errorf("dynamostore: create job: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                aws.String(s.table),
		Item:                     item,
		ConditionExpression:      aws.String("attribute_not_exists(#pk)"),
		ExpressionAttributeNames: map[string]string{"#pk": attrPK},
	})
	if isConditionFailed(err) {
		return fmt.Errorf("dynamostore: create job %s: %w", j.ID, job.ErrExists)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: create job %s: %w", j.ID, err)
	}
	j.Version = 1
	return nil
}

// GetJob reads the job with a strongly consistent read; ErrNotFound if
// there is none.
func (s *Store) GetJob(ctx context.Context, id string) (*job.Job, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            key(jobPrefix + id),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get job %s: %w", id, err)
	}
	if out.Item == nil {
		return nil, fmt.Errorf("dynamostore: get job %s: %w", id, job.ErrNotFound)
	}
	j, err := decodeJob(out.Item)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get job %s: %w", id, err)
	}
	return j, nil
}

// UpdateJob replaces the job if its stored version is j.Version, then sets
// j.Version to the new version. ErrVersionConflict or ErrNotFound
// otherwise; on error j is unchanged.
func (s *Store) UpdateJob(ctx context.Context, j *job.Job) error {
	rec := *j
	rec.Version = j.Version + 1
	item, err := jobItem(&rec)
	if err != nil {
		return fmt.Errorf("dynamostore: update job: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName:                           aws.String(s.table),
		Item:                                item,
		ConditionExpression:                 aws.String("attribute_exists(#pk) AND #v = :v"),
		ExpressionAttributeNames:            map[string]string{"#pk": attrPK, "#v": attrVersion},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":v": number(j.Version)},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var cf *types.ConditionalCheckFailedException
	if errors.As(err, &cf) {
		if cf.Item == nil {
			return fmt.Errorf("dynamostore: update job %s: %w", j.ID, job.ErrNotFound)
		}
		stored, _ := intAttr(cf.Item, attrVersion)
		return fmt.Errorf("dynamostore: update job %s: stored version %d, update based on %d: %w", j.ID, stored, j.Version, job.ErrVersionConflict)
	}
	if err != nil {
		return fmt.Errorf("dynamostore: update job %s: %w", j.ID, err)
	}
	j.Version = rec.Version
	return nil
}

// DeleteJob removes the job; deleting an absent job succeeds.
func (s *Store) DeleteJob(ctx context.Context, id string) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: key(jobPrefix + id)})
	if err != nil {
		return fmt.Errorf("dynamostore: delete job %s: %w", id, err)
	}
	return nil
}

// ListJobs returns the IDs of jobs in state, oldest CreatedAt first (ties
// by ID), at most limit (limit <= 0: all), from the by-status index. The
// index is eventually consistent: a change shows within about a second.
func (s *Store) ListJobs(ctx context.Context, state job.State, limit int) ([]string, error) {
	ids, err := s.query(ctx, &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(IndexByStatus),
		KeyConditionExpression:    aws.String("#s = :s"),
		ExpressionAttributeNames:  map[string]string{"#s": attrStatus},
		ExpressionAttributeValues: map[string]types.AttributeValue{":s": str(string(state))},
		ScanIndexForward:          aws.Bool(true),
	}, limit)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list %s jobs: %w", state, err)
	}
	return ids, nil
}

// ListOwnerJobs returns the IDs of owner's jobs, newest CreatedAt first
// (ties: greater ID first), strictly after the position after, at most
// limit (limit <= 0: all), from the by-owner index (eventually
// consistent).
func (s *Store) ListOwnerJobs(ctx context.Context, owner string, after job.JobCursor, limit int) ([]string, error) {
	in := &dynamodb.QueryInput{
		TableName:                 aws.String(s.table),
		IndexName:                 aws.String(IndexByOwner),
		KeyConditionExpression:    aws.String("#o = :o"),
		ExpressionAttributeNames:  map[string]string{"#o": attrOwner},
		ExpressionAttributeValues: map[string]types.AttributeValue{":o": str(owner)},
		ScanIndexForward:          aws.Bool(false),
	}
	if !after.IsZero() {
		in.KeyConditionExpression = aws.String("#o = :o AND #s < :after")
		in.ExpressionAttributeNames["#s"] = attrOwnerSort
		in.ExpressionAttributeValues[":after"] = str(timeKey(after.CreatedAt) + "#" + after.ID)
	}
	ids, err := s.query(ctx, in, limit)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list jobs of %s: %w", owner, err)
	}
	return ids, nil
}

// ListPendingWebhooks returns the IDs of jobs with a pending delivery due
// at or before before, earliest first, at most limit (limit <= 0: all),
// from the sparse pending-webhooks index (eventually consistent).
func (s *Store) ListPendingWebhooks(ctx context.Context, before time.Time, limit int) ([]string, error) {
	ids, err := s.query(ctx, &dynamodb.QueryInput{
		TableName:                aws.String(s.table),
		IndexName:                aws.String(IndexPendingWebhooks),
		KeyConditionExpression:   aws.String("#p = :p AND #d < :upper"),
		ExpressionAttributeNames: map[string]string{"#p": attrWebhookPending, "#d": attrWebhookDue},
		ExpressionAttributeValues: map[string]types.AttributeValue{
			":p": str(pendingValue),
			// Every sort key at time t starts "<hex(t)>#"; '$' follows '#'.
			":upper": str(timeKey(before) + "$"),
		},
		ScanIndexForward: aws.Bool(true),
	}, limit)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: list pending webhooks: %w", err)
	}
	return ids, nil
}

// query pages through an index query and returns the job IDs of its items.
func (s *Store) query(ctx context.Context, in *dynamodb.QueryInput, limit int) ([]string, error) {
	ids := []string{}
	p := dynamodb.NewQueryPaginator(s.db, in)
	for p.HasMorePages() {
		out, err := p.NextPage(ctx)
		if err != nil {
			return nil, err
		}
		for _, it := range out.Items {
			pk, ok := strAttr(it, attrPK)
			id, isJob := strings.CutPrefix(pk, jobPrefix)
			if !ok || !isJob {
				return nil, fmt.Errorf("index item with key %q is not a job", pk)
			}
			ids = append(ids, id)
			if limit > 0 && len(ids) >= limit {
				return ids, nil
			}
		}
	}
	return ids, nil
}

// PutIdempotency stores rec unless an unexpired record with the same
// (Owner, Key) exists; then it returns that record and ErrExists. One
// conditional write decides, so of concurrent callers exactly one wins.
func (s *Store) PutIdempotency(ctx context.Context, rec job.IdempotencyRecord, now time.Time) (*job.IdempotencyRecord, error) {
	data, err := json.Marshal(&rec)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: put idempotency record: encode: %w", err)
	}
	_, err = s.db.PutItem(ctx, &dynamodb.PutItemInput{
		TableName: aws.String(s.table),
		Item: map[string]types.AttributeValue{
			attrPK:        str(idemKey(rec.Owner, rec.Key)),
			attrRecord:    str(string(data)),
			attrExpiresAt: number(rec.ExpiresAt.UnixNano()),
			attrTTL:       number(rec.ExpiresAt.Unix() + 1),
		},
		ConditionExpression:                 aws.String("attribute_not_exists(#pk) OR #e <= :now"),
		ExpressionAttributeNames:            map[string]string{"#pk": attrPK, "#e": attrExpiresAt},
		ExpressionAttributeValues:           map[string]types.AttributeValue{":now": number(now.UnixNano())},
		ReturnValuesOnConditionCheckFailure: types.ReturnValuesOnConditionCheckFailureAllOld,
	})
	var cf *types.ConditionalCheckFailedException
	if errors.As(err, &cf) {
		raw, _ := strAttr(cf.Item, attrRecord)
		var existing job.IdempotencyRecord
		if err := json.Unmarshal([]byte(raw), &existing); err != nil {
			return nil, fmt.Errorf("dynamostore: put idempotency record: decode stored record: %w", err)
		}
		return &existing, fmt.Errorf("dynamostore: put idempotency record for job %s: key already used for job %s: %w", rec.JobID, existing.JobID, job.ErrExists)
	}
	if err != nil {
		return nil, fmt.Errorf("dynamostore: put idempotency record: %w", err)
	}
	out := rec
	return &out, nil
}

// jobItem is the table item of j, with its index attributes.
func jobItem(j *job.Job) (map[string]types.AttributeValue, error) {
	if j == nil || j.ID == "" {
		return nil, errors.New("job has no ID")
	}
	data, err := json.Marshal(j)
	if err != nil {
		return nil, fmt.Errorf("encode job %s: %w", j.ID, err)
	}
	item := map[string]types.AttributeValue{
		attrPK:         str(jobPrefix + j.ID),
		attrVersion:    number(j.Version),
		attrJob:        str(string(data)),
		attrStatus:     str(string(j.Status)),
		attrStatusSort: str(timeKey(j.CreatedAt) + "#" + j.ID),
		attrOwner:      str(j.Owner),
		attrOwnerSort:  str(timeKey(j.CreatedAt) + "#" + j.ID),
	}
	if j.Webhook.Pending() {
		item[attrWebhookPending] = str(pendingValue)
		item[attrWebhookDue] = str(timeKey(j.Webhook.NextAttemptAt) + "#" + j.ID)
	}
	return item, nil
}

func decodeJob(item map[string]types.AttributeValue) (*job.Job, error) {
	raw, ok := strAttr(item, attrJob)
	if !ok {
		return nil, errors.New("stored item has no job attribute")
	}
	var j job.Job
	if err := json.Unmarshal([]byte(raw), &j); err != nil {
		return nil, fmt.Errorf("decode stored job: %w", err)
	}
	v, err := intAttr(item, attrVersion)
	if err != nil {
		return nil, err
	}
	j.Version = v
	return &j, nil
}

// timeKey encodes t as 24 hex digits that sort like the time: seconds
// since 1970 with the sign bit flipped, then nanoseconds.
func timeKey(t time.Time) string {
	return fmt.Sprintf("%016x%08x", uint64(t.Unix())^(1<<63), uint32(t.Nanosecond()))
}

// idemKey joins owner and key without ambiguity (the owner's length comes
// first).
func idemKey(owner, key string) string {
	return idemPrefix + strconv.Itoa(len(owner)) + "#" + owner + "#" + key
}

func key(pk string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{attrPK: str(pk)}
}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

func number(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

func strAttr(item map[string]types.AttributeValue, name string) (string, bool) {
	v, ok := item[name].(*types.AttributeValueMemberS)
	if !ok {
		return "", false
	}
	return v.Value, true
}

func intAttr(item map[string]types.AttributeValue, name string) (int64, error) {
	v, ok := item[name].(*types.AttributeValueMemberN)
	if !ok {
		return 0, fmt.Errorf("stored item has no number %s", name)
	}
	n, err := strconv.ParseInt(v.Value, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stored %s %q: %w", name, v.Value, err)
	}
	return n, nil
}

func isConditionFailed(err error) bool {
	var cf *types.ConditionalCheckFailedException
	return errors.As(err, &cf)
}

// maxReviewsItemBytes bounds the gzipped reviews of a page, below
// DynamoDB's 400 KB item size with room for the key and the version.
const maxReviewsItemBytes = 380 << 10

func reviewsKey(jobID string, page int) map[string]types.AttributeValue {
	return key(reviewPrefix + jobID + "#" + strconv.Itoa(page))
}

// GetPageReviews reads the reviews of a page of a job with a strongly
// consistent read, all or those of the IDs in only; ErrNotFound if none
// are stored.
func (s *Store) GetPageReviews(ctx context.Context, jobID string, page int, only []string) (*job.PageReviews, error) {
	if only != nil && len(only) == 0 {
		if pr, err := s.getPageReviewsHead(ctx, jobID, page); pr != nil || err != nil {
			return pr, err
		}
	}
	pr, err := s.getPageReviews(ctx, jobID, page)
	if err != nil {
		return nil, err
	}
	if only != nil {
		pr.Reviews = slices.DeleteFunc(pr.Reviews, func(r job.Review) bool { return !slices.Contains(only, r.DetectionID) })
		if len(pr.Reviews) == 0 {
			pr.Reviews = nil
		}
	}
	return pr, nil
}

// getPageReviewsHead reads only the version and the count of added
// detections of a page's reviews; nil, nil for an item written before it
// held the count.
func (s *Store) getPageReviewsHead(ctx context.Context, jobID string, page int) (*job.PageReviews, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:                aws.String(s.table),
		Key:                      reviewsKey(jobID, page),
		ConsistentRead:           aws.Bool(true),
		ProjectionExpression:     aws.String("#v, #a"),
		ExpressionAttributeNames: map[string]string{"#v": attrVersion, "#a": attrAdded},
	})
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	if out.Item == nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, job.ErrNotFound)
	}
	if _, ok := out.Item[attrAdded]; !ok {
		return nil, nil
	}
	v, err := intAttr(out.Item, attrVersion)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	added, err := intAttr(out.Item, attrAdded)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	return &job.PageReviews{JobID: jobID, Page: page, Version: v, Added: int(added)}, nil
}

func (s *Store) getPageReviews(ctx context.Context, jobID string, page int) (*job.PageReviews, error) {
	out, err := s.db.GetItem(ctx, &dynamodb.GetItemInput{
		TableName:      aws.String(s.table),
		Key:            reviewsKey(jobID, page),
		ConsistentRead: aws.Bool(true),
	})
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	if out.Item == nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, job.ErrNotFound)
	}
	var raw []byte
	if z, ok := out.Item[attrRecordGzip].(*types.AttributeValueMemberB); ok {
		zr, err := gzip.NewReader(bytes.NewReader(z.Value))
		if err == nil {
			raw, err = io.ReadAll(zr)
		}
		if err != nil {
			return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: gunzip: %w", jobID, page, err)
		}
	} else if s, ok := strAttr(out.Item, attrRecord); ok {
		raw = []byte(s)
	} else {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: stored item has no %s attribute", jobID, page, attrRecordGzip)
	}
	var pr job.PageReviews
	if err := json.Unmarshal(raw, &pr); err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: decode: %w", jobID, page, err)
	}
	v, err := intAttr(out.Item, attrVersion)
	if err != nil {
		return nil, fmt.Errorf("dynamostore: get reviews of job %s page %d: %w", jobID, page, err)
	}
	pr.Version = v
	pr.CountAdded()
	return &pr, nil
}

// UpdatePageReviews applies u if the stored reviews of its page have
// version u.Version (0: none stored) and returns the new version;
// ErrVersionConflict otherwise, and nothing changes. A page's reviews are
// one item, read and written whole, gzipped to fit DynamoDB's 400 KB item
// size (10 000 reviews, 4 000 of them additions, take about 300 KB); a
// page that would need more is job.ErrPageReviewsFull.
func (s *Store) UpdatePageReviews(ctx context.Context, u job.PageReviewsUpdate) (int64, error) {
	if u.JobID == "" {
		return 0, errors.New("dynamostore: update reviews: no job ID")
	}
	pr := &job.PageReviews{JobID: u.JobID, Page: u.Page}
	if u.Version > 0 {
		var err error
		if pr, err = s.getPageReviews(ctx, u.JobID, u.Page); errors.Is(err, job.ErrNotFound) {
			return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d based on version %d, none stored: %w", u.JobID, u.Page, u.Version, job.ErrVersionConflict)
		} else if err != nil {
			return 0, err
		}
		if pr.Version != u.Version {
			return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d based on version %d, stored %d: %w", u.JobID, u.Page, u.Version, pr.Version, job.ErrVersionConflict)
		}
	}
	pr.Apply(u)
	data, err := json.Marshal(pr)
	if err != nil {
		return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d: encode: %w", u.JobID, u.Page, err)
	}
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, _ = zw.Write(data) // a bytes.Buffer takes every write
	if err := zw.Close(); err != nil {
		return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d: gzip: %w", u.JobID, u.Page, err)
	}
	if z.Len() > maxReviewsItemBytes {
		return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d: %d reviews take %d bytes gzipped, over %d: %w",
			u.JobID, u.Page, len(pr.Reviews), z.Len(), maxReviewsItemBytes, job.ErrPageReviewsFull)
	}
	item := reviewsKey(u.JobID, u.Page)
	item[attrVersion] = number(pr.Version)
	item[attrAdded] = number(int64(pr.Added))
	item[attrRecordGzip] = &types.AttributeValueMemberB{Value: z.Bytes()}
	in := &dynamodb.PutItemInput{
		TableName:                 aws.String(s.table),
		Item:                      item,
		ConditionExpression:       aws.String("#v = :v"),
		ExpressionAttributeNames:  map[string]string{"#v": attrVersion},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": number(u.Version)},
	}
	if u.Version == 0 {
		in.ConditionExpression = aws.String("attribute_not_exists(#pk)")
		in.ExpressionAttributeNames = map[string]string{"#pk": attrPK}
		in.ExpressionAttributeValues = nil
	}
	_, err = s.db.PutItem(ctx, in)
	if isConditionFailed(err) {
		return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d based on version %d: %w", u.JobID, u.Page, u.Version, job.ErrVersionConflict)
	}
	if err != nil {
		return 0, fmt.Errorf("dynamostore: update reviews of job %s page %d: %w", u.JobID, u.Page, err)
	}
	return pr.Version, nil
}

// DeletePageReviews removes the reviews of a page of a job; deleting
// absent reviews succeeds.
func (s *Store) DeletePageReviews(ctx context.Context, jobID string, page int) error {
	_, err := s.db.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String(s.table), Key: reviewsKey(jobID, page)})
	if err != nil {
		return fmt.Errorf("dynamostore: delete reviews of job %s page %d: %w", jobID, page, err)
	}
	return nil
}
