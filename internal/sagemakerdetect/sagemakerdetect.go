// Package sagemakerdetect runs the raster detector's inference on a
// SageMaker real-time endpoint instead of in the processing function: a
// Detector sends each page (and the boxes to judge) to the endpoint,
// which serves the same model with the same code (internal/rasterserve,
// the processing image started with "serve"), and returns what it found.
// It is an engine.RasterDetector, so the engine fuses its detections as it
// does the in-process detector's. template.yaml's RasterInference
// parameter chooses it (docs/deploy.md, "GPU inference on SageMaker").
package sagemakerdetect

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/sagemakerruntime"

	"blueprint/internal/detect"
	"blueprint/internal/raster"
	"blueprint/internal/rasterserve"
	"blueprint/internal/s3blob"
)

// EnvEndpoint names the SageMaker endpoint; unset or empty, inference
// runs in the processing function.
const EnvEndpoint = "BLUEPRINT_RASTER_ENDPOINT"

// InvokeAPI is the part of the SageMaker Runtime client a Detector uses;
// *sagemakerruntime.Client implements it.
type InvokeAPI interface {
	InvokeEndpoint(ctx context.Context, in *sagemakerruntime.InvokeEndpointInput, opts ...func(*sagemakerruntime.Options)) (*sagemakerruntime.InvokeEndpointOutput, error)
}

// Local runs the model in this process (raster.Lazy): the metadata the
// engine checks, and the pages the endpoint cannot take.
type Local interface {
	Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error)
	Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error)
	Meta() raster.Meta
}

// Staging holds pages too large for an invocation where the endpoint
// reads them (*s3blob.Store on the stack's bucket).
type Staging interface {
	Bucket() string
	PutBytes(ctx context.Context, key, contentType string, data []byte) error
	Delete(ctx context.Context, key string) error
}

// Detector sends pages to a SageMaker endpoint. A page whose request
// would exceed the endpoint's payload limit (rasterserve.MaxRequestBytes;
// a scanned A2 or A1 page's PNG does) is staged under
// rasterserve.StagePrefix for the endpoint to read, and deleted after
// the invocation; without Staging it is run by Local instead, and logged.
// Safe for concurrent use.
type Detector struct {
	api      InvokeAPI
	endpoint string
	local    Local
	staging  Staging // nil: large pages run in this process
	log      *slog.Logger
	// maxRequest is the largest request sent inline; a test sets it lower.
	maxRequest int
}

// New returns a Detector on the endpoint. staging may be nil; log may be
// nil (slog.Default).
func New(api InvokeAPI, endpoint string, local Local, staging Staging, log *slog.Logger) *Detector {
	if log == nil {
		log = slog.Default()
	}
	return &Detector{api: api, endpoint: endpoint, local: local, staging: staging, log: log, maxRequest: rasterserve.MaxRequestBytes}
}

// FromEnv returns a Detector on the endpoint named by EnvEndpoint, with a
// SageMaker Runtime client configured from getenv (AWS_REGION, the
// credentials the Lambda runtime sets, AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME
// for a test's server), raster.NewLazy(cfg) as Local, and the bucket
// rasterserve.EnvBucket names (AWS_ENDPOINT_URL_S3 for a test's server) as
// Staging; nil, nil when EnvEndpoint is not set.
func FromEnv(ctx context.Context, getenv func(string) string, cfg raster.Config, log *slog.Logger) (*Detector, error) {
	name := getenv(EnvEndpoint)
	if name == "" {
		return nil, nil
	}
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(getenv("AWS_REGION"))}
	if id := getenv("AWS_ACCESS_KEY_ID"); id != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, getenv("AWS_SECRET_ACCESS_KEY"), getenv("AWS_SESSION_TOKEN"))))
	}
	ac, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("sagemakerdetect: AWS configuration: %w", err)
	}
	client := sagemakerruntime.NewFromConfig(ac, func(o *sagemakerruntime.Options) {
		if u := getenv("AWS_ENDPOINT_URL_SAGEMAKER_RUNTIME"); u != "" {
			o.BaseEndpoint = aws.String(u)
		}
	})
	local, err := raster.NewLazy(cfg)
	if err != nil {
		return nil, fmt.Errorf("sagemakerdetect: %w", err)
	}
	var staging Staging
	if bucket := getenv(rasterserve.EnvBucket); bucket != "" {
		staging = s3blob.New(s3.NewFromConfig(ac, func(o *s3.Options) {
			if u := getenv("AWS_ENDPOINT_URL_S3"); u != "" {
				o.BaseEndpoint = aws.String(u)
				o.UsePathStyle = true
			}
		}), bucket)
	}
	return New(client, name, local, staging, log), nil
}

// Meta returns the model's metadata (the endpoint serves the same model).
func (d *Detector) Meta() raster.Meta { return d.local.Meta() }

// Detect searches the page on the endpoint.
func (d *Detector) Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error) {
	return d.invoke(ctx, p, rasterserve.ModeDetect, nil)
}

// Verify has the endpoint judge the boxes (raster.Detector.Verify). Like
// the in-process detector it finds nothing without boxes or without a
// classifier in the model.
func (d *Detector) Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error) {
	if len(boxes) == 0 || d.local.Meta().Classifier == nil {
		return nil, nil
	}
	return d.invoke(ctx, p, rasterserve.ModeVerify, boxes)
}

// stage puts a page's PNG under rasterserve.StagePrefix with a random
// name and returns its key.
func (d *Detector) stage(ctx context.Context, png []byte) (string, error) {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", fmt.Errorf("stage page: %w", err)
	}
	key := rasterserve.StagePrefix + hex.EncodeToString(id[:]) + ".png"
	if err := d.staging.PutBytes(ctx, key, "image/png", png); err != nil {
		return "", fmt.Errorf("stage page: %w", err)
	}
	return key, nil
}

func (d *Detector) invoke(ctx context.Context, p detect.Page, mode string, boxes []detect.Box) ([]detect.Detection, error) {
	if p.Raster == nil {
		return nil, fmt.Errorf("sagemakerdetect: page %d has no raster", p.Index)
	}
	png, err := rasterserve.EncodePage(p.Raster)
	if err != nil {
		return nil, fmt.Errorf("sagemakerdetect: page %d: %w", p.Index, err)
	}
	req := rasterserve.Request{Mode: mode, PageIndex: p.Index, Page: png}
	for _, b := range boxes {
		req.Boxes = append(req.Boxes, rasterserve.Box{X: b.X, Y: b.Y, W: b.W, H: b.H})
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, fmt.Errorf("sagemakerdetect: page %d: %w", p.Index, err)
	}
	if len(body) > d.maxRequest {
		if d.staging == nil {
			d.log.Info("page over the endpoint's payload limit: inference in this function",
				"page_index", p.Index, "request_bytes", len(body), "limit_bytes", d.maxRequest)
			if mode == rasterserve.ModeVerify {
				return d.local.Verify(ctx, p, boxes)
			}
			return d.local.Detect(ctx, p)
		}
		key, err := d.stage(ctx, png)
		if err != nil {
			return nil, fmt.Errorf("sagemakerdetect: page %d: %w", p.Index, err)
		}
		defer func() {
			if err := d.staging.Delete(context.WithoutCancel(ctx), key); err != nil {
				d.log.Warn("staged page not deleted (the bucket's lifecycle removes it)", "key", key, "err", err)
			}
		}()
		req.Page, req.PageS3 = nil, &rasterserve.S3Object{Bucket: d.staging.Bucket(), Key: key}
		if body, err = json.Marshal(req); err != nil {
			return nil, fmt.Errorf("sagemakerdetect: page %d: %w", p.Index, err)
		}
	}
	out, err := d.api.InvokeEndpoint(ctx, &sagemakerruntime.InvokeEndpointInput{
		EndpointName: aws.String(d.endpoint),
		ContentType:  aws.String(rasterserve.ContentType),
		Accept:       aws.String(rasterserve.ContentType),
		Body:         body,
	})
	if err != nil {
		return nil, fmt.Errorf("sagemakerdetect: page %d on endpoint %s: %w", p.Index, d.endpoint, err)
	}
	var resp rasterserve.Response
	if err := json.Unmarshal(out.Body, &resp); err != nil {
		return nil, fmt.Errorf("sagemakerdetect: page %d: the endpoint's answer: %w", p.Index, err)
	}
	if resp.Detections == nil {
		return nil, errors.New("sagemakerdetect: the endpoint's answer has no detections list")
	}
	dets := make([]detect.Detection, len(resp.Detections))
	for i, r := range resp.Detections {
		dets[i] = detect.Detection{Class: r.Class, Confidence: r.Confidence,
			Box: detect.Box{X: r.Box.X, Y: r.Box.Y, W: r.Box.W, H: r.Box.H}, Source: detect.Source{Detector: true}}
	}
	return dets, nil
}
