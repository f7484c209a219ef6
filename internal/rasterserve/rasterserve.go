// Package rasterserve serves the raster detector over SageMaker's contract
// for inference containers: the image is started with the argument "serve"
// (Arg), listens on port 8080, answers GET /ping with 200 once the model is
// loaded, and POST /invocations with one page's detections. The
// processing function's image runs it (functions/process) on a SageMaker
// real-time endpoint, so the endpoint serves the very model and code the
// function would run itself; internal/sagemakerdetect is its client.
//
// An invocation is JSON (ContentType): the page as an 8-bit gray PNG of
// what the detector reads (raster.Gray), inline or, for a page over
// SageMaker's payload limit, staged in the bucket under StagePrefix, and
// either a search of the whole page (ModeDetect, raster.Detector.Detect)
// or a judgement of given boxes (ModeVerify, raster.Detector.Verify). The
// answer is the detections those return, exactly: the same page gives the
// same detections here as in the processing function.
package rasterserve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/document"
	"blueprint/internal/raster"
	"blueprint/internal/s3blob"
)

// The container contract (SageMaker, "Use your own inference code with
// hosting services").
const (
	// Arg is the argument SageMaker starts the image with.
	Arg = "serve"
	// DefaultAddr is where SageMaker sends /ping and /invocations.
	DefaultAddr = ":8080"
	// EnvAddr overrides DefaultAddr (a local run: 127.0.0.1:0 picks a
	// free port, which the "serving" log line names).
	EnvAddr = "BLUEPRINT_SERVE_ADDR"
	// ContentType is the type of requests and answers.
	ContentType = "application/json"
	// MaxRequestBytes is the largest invocation body: SageMaker real-time
	// endpoints take at most 6 MB (read as 6 000 000 bytes, the smaller
	// reading).
	MaxRequestBytes = 6_000_000
	// StagePrefix is where pages too large for an invocation are staged
	// in the bucket (template.yaml expires them after a day; the client
	// deletes each after its invocation).
	StagePrefix = "raster-inference/"
	// EnvBucket names the bucket staged pages are read from (the stack's
	// files bucket); unset, only inline pages are taken.
	EnvBucket = "BLUEPRINT_BUCKET"
	// EnvProvider is the detector's execution provider: auto (the
	// default here: the CUDA build on an instance with an NVIDIA GPU, the
	// CPU build otherwise), cpu or cuda (raster.Provider).
	EnvProvider = "BLUEPRINT_RASTER_PROVIDER"
	// EnvGPULibrary is the path of ONNX Runtime's CUDA build
	// (functions/process/Dockerfile.sagemaker sets it); unset, auto runs
	// on the CPU.
	EnvGPULibrary = "BLUEPRINT_ONNXRUNTIME_GPU_LIB"
	// maxStagedBytes bounds a staged page's PNG.
	maxStagedBytes = 512 << 20
	// pingPath and invocationsPath are the contract's two routes.
	pingPath        = "/ping"
	invocationsPath = "/invocations"
)

// Modes of an invocation.
const (
	ModeDetect = "detect" // search the whole page
	ModeVerify = "verify" // judge Request.Boxes
)

// Box is a detect.Box on the wire: pixels of the page, top-left origin.
type Box struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	W float64 `json:"width"`
	H float64 `json:"height"`
}

// Request is the body of POST /invocations.
type Request struct {
	Mode      string `json:"mode"`
	PageIndex int    `json:"page_index"` // for messages only
	// Page is the page as an 8-bit gray PNG (raster.Gray of its raster);
	// base64 in the JSON. Empty when the page is staged (PageS3).
	Page []byte `json:"page,omitempty"`
	// PageS3 is where the page's PNG is staged instead.
	PageS3 *S3Object `json:"page_s3,omitempty"`
	// Boxes are the boxes ModeVerify judges.
	Boxes []Box `json:"boxes,omitempty"`
}

// S3Object names a staged page: a key under StagePrefix in the server's
// bucket (EnvBucket).
type S3Object struct {
	Bucket string `json:"bucket"`
	Key    string `json:"key"`
}

// Objects reads staged pages (*s3blob.Store).
type Objects interface {
	Bucket() string
	Get(ctx context.Context, key string) (io.ReadCloser, error)
}

// Detection is a raster detection on the wire (its source is always the
// detector).
type Detection struct {
	Class      string  `json:"class"`
	Confidence float64 `json:"confidence"`
	Box        Box     `json:"box"`
}

// Response is the answer of POST /invocations.
type Response struct {
	Detections []Detection `json:"detections"`
}

// ErrorBody is the answer to a refused or failed invocation: 400 for a
// request that is not a page (Code "bad_request"), 413 for one over
// MaxRequestBytes, 500 when the detector fails ("internal_error").
type ErrorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// Detector is what the server runs (raster.Detector).
type Detector interface {
	Detect(ctx context.Context, p detect.Page) ([]detect.Detection, error)
	Verify(ctx context.Context, p detect.Page, boxes []detect.Box) ([]detect.Detection, error)
}

// Handler serves the contract with det. Pages over maxPixels are refused
// (a small PNG can hold a huge blank page). Staged pages are read from
// objects; nil takes only inline pages.
func Handler(det Detector, maxPixels int64, objects Objects, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+pingPath, func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusOK)
	})
	mux.HandleFunc("POST "+invocationsPath, func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		req, status, err := readRequest(w, r, maxPixels, objects)
		var page detect.Page
		if err == nil {
			page, err = decodePage(req)
			if err != nil {
				status = http.StatusBadRequest
			}
		}
		if err != nil {
			writeError(w, status, err)
			return
		}
		var dets []detect.Detection
		if req.Mode == ModeVerify {
			boxes := make([]detect.Box, len(req.Boxes))
			for i, b := range req.Boxes {
				boxes[i] = detect.Box{X: b.X, Y: b.Y, W: b.W, H: b.H}
			}
			dets, err = det.Verify(r.Context(), page, boxes)
		} else {
			dets, err = det.Detect(r.Context(), page)
		}
		if err != nil {
			log.Error("invocation failed", "page_index", req.PageIndex, "mode", req.Mode, "err", err)
			writeError(w, http.StatusInternalServerError, fmt.Errorf("page %d: %w", req.PageIndex, err))
			return
		}
		resp := Response{Detections: make([]Detection, len(dets))}
		for i, d := range dets {
			resp.Detections[i] = Detection{Class: d.Class, Confidence: d.Confidence, Box: Box{X: d.Box.X, Y: d.Box.Y, W: d.Box.W, H: d.Box.H}}
		}
		body, err := json.Marshal(resp)
		if err != nil {
			writeError(w, http.StatusInternalServerError, fmt.Errorf("encode detections: %w", err))
			return
		}
		log.Info("invocation", "page_index", req.PageIndex, "mode", req.Mode, "width", page.Width, "height", page.Height,
			"detections", len(dets), "ms", time.Since(start).Milliseconds())
		w.Header().Set("Content-Type", ContentType)
		_, _ = w.Write(body)
	})
	return mux
}

// readRequest reads and checks an invocation's body; on error, the status
// to answer.
func readRequest(w http.ResponseWriter, r *http.Request, maxPixels int64, objects Objects) (Request, int, error) {
	var req Request
	if ct := r.Header.Get("Content-Type"); ct != ContentType {
		return req, http.StatusUnsupportedMediaType, fmt.Errorf("content type %q; want %s", ct, ContentType)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return req, http.StatusRequestEntityTooLarge, fmt.Errorf("request over %d bytes", MaxRequestBytes)
	}
	if err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("read request: %w", err)
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("request is not JSON of a page: %w", err)
	}
	if req.Mode != ModeDetect && req.Mode != ModeVerify {
		return req, http.StatusBadRequest, fmt.Errorf("mode %q; want %q or %q", req.Mode, ModeDetect, ModeVerify)
	}
	if req.PageS3 != nil {
		if req.Page, err = fetchStaged(r.Context(), objects, *req.PageS3); err != nil {
			var bad *badRequest
			if errors.As(err, &bad) {
				return req, http.StatusBadRequest, err
			}
			return req, http.StatusInternalServerError, err
		}
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(req.Page))
	if err != nil {
		return req, http.StatusBadRequest, fmt.Errorf("page is not a PNG: %w", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || int64(cfg.Width)*int64(cfg.Height) > maxPixels {
		return req, http.StatusBadRequest, fmt.Errorf("page of %d×%d pixels; at most %d pixels", cfg.Width, cfg.Height, maxPixels)
	}
	return req, 0, nil
}

// badRequest is a staged page the request should not have named.
type badRequest struct{ msg string }

func (e *badRequest) Error() string { return e.msg }

// fetchStaged reads a staged page: only from the server's bucket, under
// StagePrefix.
func fetchStaged(ctx context.Context, objects Objects, o S3Object) ([]byte, error) {
	if objects == nil {
		return nil, &badRequest{"this server takes no staged pages (no " + EnvBucket + ")"}
	}
	if o.Bucket != objects.Bucket() || !strings.HasPrefix(o.Key, StagePrefix) {
		return nil, &badRequest{fmt.Sprintf("staged page s3://%s/%s is not under s3://%s/%s", o.Bucket, o.Key, objects.Bucket(), StagePrefix)}
	}
	rc, err := objects.Get(ctx, o.Key)
	if err != nil {
		return nil, fmt.Errorf("read staged page %s: %w", o.Key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxStagedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read staged page %s: %w", o.Key, err)
	}
	if len(b) > maxStagedBytes {
		return nil, &badRequest{fmt.Sprintf("staged page %s is over %d bytes", o.Key, maxStagedBytes)}
	}
	return b, nil
}

// decodePage decodes the request's PNG into the page the detector sees.
func decodePage(req Request) (detect.Page, error) {
	img, err := png.Decode(bytes.NewReader(req.Page))
	if err != nil {
		return detect.Page{}, fmt.Errorf("page is not a PNG: %w", err)
	}
	b := img.Bounds()
	return detect.Page{Index: req.PageIndex, Width: b.Dx(), Height: b.Dy(), Raster: img}, nil
}

func writeError(w http.ResponseWriter, status int, err error) {
	var e ErrorBody
	e.Error.Code = "bad_request"
	if status >= 500 {
		e.Error.Code = "internal_error"
	}
	e.Error.Message = err.Error()
	body, _ := json.Marshal(e) // strings only: cannot fail
	w.Header().Set("Content-Type", ContentType)
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// EncodePage is the Request.Page of a page raster: raster.Gray as an
// 8-bit gray PNG, compressed for size (it crosses the network).
func EncodePage(img image.Image) ([]byte, error) {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&b, raster.Gray(img)); err != nil {
		return nil, fmt.Errorf("rasterserve: encode page: %w", err)
	}
	return b.Bytes(), nil
}

// Run opens the embedded model with ONNX Runtime (BLUEPRINT_ONNXRUNTIME_LIB,
// one thread per CPU; on an instance with a GPU, the CUDA build that
// EnvGPULibrary names with its CUDA provider: EnvProvider), listens on
// EnvAddr or DefaultAddr and serves until ctx ends (SageMaker stops a
// container with SIGTERM), then lets running invocations finish. The
// "serving" log line names the address, the milliseconds from Run's start
// until the model was loaded and the port open, and the execution
// provider with how it was chosen.
func Run(ctx context.Context, getenv func(string) string, log *slog.Logger) error {
	start := time.Now()
	rc, err := config.LoadRaster(getenv)
	if err != nil {
		return fmt.Errorf("rasterserve: %w", err)
	}
	maxPixels := document.DefaultLimits().MaxPagePixels
	if v := getenv(config.EnvMaxPagePixels); v != "" {
		if maxPixels, err = strconv.ParseInt(v, 10, 64); err != nil || maxPixels <= 0 {
			return fmt.Errorf("rasterserve: %s: %q is not a positive integer", config.EnvMaxPagePixels, v)
		}
	}
	var objects Objects
	if bucket := getenv(EnvBucket); bucket != "" {
		if objects, err = bucketObjects(ctx, getenv, bucket); err != nil {
			return err
		}
	}
	provider := raster.ProviderAuto
	if v := getenv(EnvProvider); v != "" {
		if provider, err = raster.ParseProvider(v); err != nil {
			return fmt.Errorf("rasterserve: %s: %w", EnvProvider, err)
		}
	}
	det, err := raster.New(raster.Config{Library: rc.Library, GPULibrary: getenv(EnvGPULibrary), Provider: provider,
		Threads: runtime.NumCPU(), Log: log})
	if err != nil {
		return fmt.Errorf("rasterserve: open the detector: %w", err)
	}
	defer det.Close()
	addr := getenv(EnvAddr)
	if addr == "" {
		addr = DefaultAddr
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("rasterserve: %w", err)
	}
	srv := &http.Server{Handler: Handler(det, maxPixels, objects, log), ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	log.Info("serving", "addr", ln.Addr().String(), "ready_ms", time.Since(start).Milliseconds(),
		"provider", string(det.Provider()), "provider_reason", det.ProviderReason())
	select {
	case err := <-done:
		return fmt.Errorf("rasterserve: %w", err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return fmt.Errorf("rasterserve: shut down: %w", err)
	}
	return nil
}

// bucketObjects is the bucket of staged pages through an S3 client
// configured from getenv: AWS_REGION, the credentials of the environment
// or the SDK's default chain (the endpoint's role on SageMaker), and
// AWS_ENDPOINT_URL_S3 for a test's server (path-style).
func bucketObjects(ctx context.Context, getenv func(string) string, bucket string) (*s3blob.Store, error) {
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(getenv("AWS_REGION"))}
	if id := getenv("AWS_ACCESS_KEY_ID"); id != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, getenv("AWS_SECRET_ACCESS_KEY"), getenv("AWS_SESSION_TOKEN"))))
	}
	ac, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("rasterserve: AWS configuration: %w", err)
	}
	client := s3.NewFromConfig(ac, func(o *s3.Options) {
		if u := getenv("AWS_ENDPOINT_URL_S3"); u != "" {
			o.BaseEndpoint = aws.String(u)
			o.UsePathStyle = true
		}
	})
	return s3blob.New(client, bucket), nil
}
