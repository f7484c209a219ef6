// Command blueprintd runs the blueprint symbol detection service locally:
// the partner API over HTTP, an embedded bbolt store, blobs on local disk
// behind HMAC-signed URLs and an in-process job runner. It is configured by
// BLUEPRINT_* environment variables (see README.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/boltstore"
	"blueprint/internal/budget"
	"blueprint/internal/buildid"
	"blueprint/internal/catalog"
	"blueprint/internal/cmalloc"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/docfiles"
	"blueprint/internal/engine"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/localblob"
	"blueprint/internal/ocr"
	"blueprint/internal/raster"
	"blueprint/internal/ratelimit"
	"blueprint/internal/runner"
	"blueprint/internal/signing"
	"blueprint/internal/webapp"
	"blueprint/internal/webhook"
)

// Files inside the data directory.
const (
	dbFile   = "blueprint.db"
	blobsDir = "blobs"
)

// memoryHeadroom is the memory beyond the document budget the process
// expects to need (HTTP, store, catalog, engine): its soft memory limit is
// the budget plus this.
const memoryHeadroom = 256 << 20

// shutdownGrace bounds the wait for in-flight requests at shutdown.
const shutdownGrace = 15 * time.Second

func main() {
	raster.ServeChildCheck() // when started by raster.CheckInChild: check and exit
	if code, exit := parseArgs(os.Args[1:], os.Stdout, os.Stderr); exit {
		os.Exit(code)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout, log); err != nil {
		// One plain line: a configuration error names its variable.
		fmt.Fprintln(os.Stderr, "blueprintd:", err)
		os.Exit(1)
	}
}

// envVars are the environment variables blueprintd reads (package
// config), in the order the usage lists them.
var envVars = []string{
	config.EnvListenAddr, config.EnvDataDir, config.EnvBaseURL, config.EnvAPIKeys, config.EnvAllowPrivateCallbacks,
	config.EnvCatalogFile, config.EnvRetention, config.EnvUploadTTL, config.EnvJobTimeout,
	config.EnvMaxPages, config.EnvMaxPagePixels, config.EnvMaxDrawingOps, config.EnvMaxDrawingBytes,
	config.EnvMaxDocuments, config.EnvMemoryBudget, config.EnvOnnxRuntimeLib, config.EnvRasterDetector,
	config.EnvRasterOnVector,
}

// usage writes blueprintd's usage.
func usage(w io.Writer) {
	fmt.Fprintf(w, `usage: blueprintd [-h]

Blueprintd serves the blueprint symbol detection API, and its review page
under /app/, with an embedded store, blobs on disk and an in-process job
runner. It takes no arguments: it is configured by the environment
variables below, described in README.md (Configuration). It listens on
%s, %s by default.

`, config.EnvListenAddr, config.DefaultListenAddr)
	for _, v := range envVars {
		fmt.Fprintf(w, "\t%s\n", v)
	}
	fmt.Fprint(w, "\nTo count the symbols of a file without a server, use blueprint takeoff (docs/cli.md).\n")
}

// parseArgs reads blueprintd's command line, which asks at most for help
// (-h, --help, help): it reports whether to exit before serving, and
// with which status: 0 after the usage on stdout, 2 for anything else,
// after a line saying what and the usage on stderr.
func parseArgs(args []string, stdout, stderr io.Writer) (code int, exit bool) {
	fs := flag.NewFlagSet("blueprintd", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp) || err == nil && fs.NArg() == 1 && fs.Arg(0) == "help":
		usage(stdout)
		return 0, true
	case err == nil && fs.NArg() > 0:
		err = fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if err != nil {
		fmt.Fprintln(stderr, "blueprintd:", err)
		usage(stderr)
		return 2, true
	}
	return 0, false
}

// app is the wired service of one data directory.
type app struct {
	store   *boltstore.Store
	runner  *runner.Runner
	service *job.Service
	handler http.Handler
	log     *slog.Logger
}

// options are test seams; production uses the zero value.
type options struct {
	runner   runner.Options
	engine   detect.Engine // nil: engine.New
	resolver *net.Resolver
	openAPI  []byte    // nil: the embedded document
	clock    job.Clock // nil: job.SystemClock
}

// rasterStartError says how to go on from an engine that does not build.
func rasterStartError(err error) error {
	return fmt.Errorf("build engine: %w (set %s to ONNX Runtime's libonnxruntime.so, which make ort fetches, or %s=off to run without the raster detector)",
		err, config.EnvOnnxRuntimeLib, config.EnvRasterDetector)
}

// newApp opens the data directory and wires every component. The caller
// must call close. The returned devKey is non-empty when a development key
// was created or loaded because none is configured.
func newApp(ctx context.Context, cfg config.Config, log *slog.Logger, opt options) (a *app, devKey apikey.Entry, err error) {
	// What can refuse to start without touching the data directory (the
	// catalog, OCR, ONNX Runtime) is checked first, so a server that
	// refuses leaves no key files behind.
	cat, err := catalog.Load(cfg.CatalogFile)
	if err != nil {
		return nil, devKey, fmt.Errorf("load catalog: %w", err)
	}
	eng := opt.engine
	if eng == nil {
		// The raster detector opens on the first page that needs it, so
		// an idle server does not hold ONNX Runtime (about 30 MB); a
		// child process checks now that it opens.
		rcfg := raster.Config{Library: cfg.Raster.Library}
		eopt := engine.Options{RasterOff: cfg.Raster.Off, RasterOnVector: cfg.Raster.OnVector, Raster: rcfg, LazyRaster: true, TraceImages: cfg.Raster.ImageTrace}
		if eopt.OCR, err = ocr.Open(ctx, cfg.Raster.ImageLegends, cfg.Raster.OCR); err != nil {
			return nil, devKey, fmt.Errorf("%s: %w", config.EnvOCR, err)
		}
		// Words drawn as outlines are read wherever tesseract is.
		if eopt.Outlines, err = ocr.Open(ctx, true, cfg.Raster.OCR); err != nil {
			return nil, devKey, fmt.Errorf("%s: %w", config.EnvOCR, err)
		}
		if eopt.OCR == nil && cfg.Raster.ImageLegends {
			slog.Warn("legends on image pages are not read: no OCR (install tesseract-ocr with its eng and fin data, or set " + config.EnvOCR + ")")
		}
		if !cfg.Raster.Off {
			if err := raster.CheckInChild(ctx, rcfg); err != nil {
				return nil, devKey, rasterStartError(fmt.Errorf("engine: raster detector: %w", err))
			}
		}
		if eng, err = engine.New(cat, eopt); err != nil {
			return nil, devKey, rasterStartError(err)
		}
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, devKey, fmt.Errorf("create data dir: %w", err)
	}
	entries := cfg.APIKeys
	if len(entries) == 0 {
		devKey, _, err = apikey.LoadOrCreateDevKey(cfg.DataDir)
		if err != nil {
			return nil, devKey, err
		}
		entries = []apikey.Entry{devKey}
	}
	keys, err := apikey.NewKeyring(entries)
	if err != nil {
		return nil, devKey, err
	}
	signer, err := signing.LoadOrCreate(cfg.DataDir)
	if err != nil {
		return nil, devKey, err
	}
	blobs, err := localblob.New(filepath.Join(cfg.DataDir, blobsDir))
	if err != nil {
		return nil, devKey, fmt.Errorf("open blobs: %w", err)
	}
	store, err := boltstore.Open(filepath.Join(cfg.DataDir, dbFile))
	if err != nil {
		return nil, devKey, fmt.Errorf("open store: %w", err)
	}
	ropt := opt.runner
	slots := cfg.MaxDocuments
	if ropt.Workers == 0 && slots > 1 {
		// Two workers at least, so that one key's jobs never hold every
		// worker while another key's wait (runner.Options.Workers), and
		// one document slot more for start checks, which a partner waits
		// on. BLUEPRINT_MAX_DOCUMENTS=1 keeps one document at a time.
		ropt.Workers = max(2, slots-1)
		slots = max(slots, ropt.Workers+1)
	}
	gate := budget.New(cfg.MemoryBudget, slots, cmalloc.Trim)
	ropt.Logger = log
	ropt.Clock = opt.clock
	ropt.Idempotency = store
	ropt.Temp = blobs
	r := runner.New(store, ropt)
	links := httpapi.NewLocalLinks(cfg.BaseURL, signer)
	svc, err := job.NewService(job.Config{
		Store: store, Blobs: blobs, Flow: r, Clock: opt.clock, Catalog: cat, Links: links,
		Files: docfiles.ForConfig(cfg), Engine: eng, JobTimeout: cfg.JobTimeout, BatchPages: cfg.BatchPages, SearchBudget: cfg.SearchBudget,
		Guard: webhook.Guard{AllowPrivate: cfg.AllowPrivateCallbacks, Resolver: opt.resolver},
		WebhookSecret: func(keyID string) ([]byte, bool) {
			k, ok := keys.ByID(keyID)
			return k.WebhookSecret, ok
		},
		Admission: gate, UploadTTL: cfg.UploadTTL, Retention: cfg.Retention, Logger: log,
		BuildID: buildid.Current(),
		// image_url is served by this process (httpapi.LocalLinks), so a
		// page's PNG is rendered on its first view instead of during
		// processing: jobs are done sooner and uncounted pages are
		// never rendered unless someone looks at them.
		LazyPageImages: true,
	})
	if err != nil {
		store.Close()
		return nil, devKey, err
	}
	doc := opt.openAPI
	if doc == nil {
		doc = openAPIDocument()
	}
	h := httpapi.New(httpapi.Config{Service: svc, Keys: keys, Limiter: ratelimit.New(), Links: links,
		Catalog: cat, OpenAPI: doc, Clock: opt.clock, Logger: log,
		Handoffs: store, ReviewSecret: signer.Derive(httpapi.ReviewSecretPurpose)})
	return &app{store: store, runner: r, service: svc, handler: h, log: log}, devKey, nil
}

func (a *app) close() error { return a.store.Close() }

// run serves until ctx is cancelled, then shuts down gracefully: the
// listener stops, in-flight requests finish, the runner stops (an
// interrupted job stays processing and resumes at the next start).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer, log *slog.Logger) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return err
	}
	if cfg.AllowPrivateCallbacks {
		log.Warn(config.EnvAllowPrivateCallbacks + " is on: http:// and private callback URLs are accepted; for local testing only")
	}
	if getenv("GOMEMLIMIT") == "" {
		// The collector keeps the heap near the document budget rather
		// than letting garbage grow to twice the live heap.
		debug.SetMemoryLimit(cfg.MemoryBudget + memoryHeadroom)
	}
	a, devKey, err := newApp(ctx, cfg, log, options{})
	if err != nil {
		return err
	}
	defer a.close()
	if devKey.Key != "" {
		fmt.Fprintf(stdout, "No %s configured; development key (stored in %s):\n  X-API-Key: %s\n  webhook secret: %s\n",
			config.EnvAPIKeys, filepath.Join(cfg.DataDir, apikey.DevKeyFile), devKey.Key, devKey.WebhookSecret)
	}
	ln, err := net.Listen("tcp", cfg.ListenAddr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	srv := &http.Server{
		Handler:           a.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       10 * time.Minute, // a 50 MB upload on a slow link
		WriteTimeout:      10 * time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	runCtx, stopRunner := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = a.runner.Run(runCtx, a.service)
	}()
	log.Info("blueprintd listening", "addr", ln.Addr().String(), "base_url", cfg.BaseURL, "review_page", cfg.BaseURL+webapp.Prefix, "data_dir", cfg.DataDir,
		"max_documents", cfg.MaxDocuments, "memory_budget_bytes", cfg.MemoryBudget)
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	select {
	case err = <-serveErr:
	case <-ctx.Done():
		log.Info("shutting down")
		sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
		err = srv.Shutdown(sctx)
		cancel()
	}
	stopRunner()
	wg.Wait()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}
