// Package awsapp wires the Lambda functions of template.yaml: it reads
// their configuration from the environment, builds the AWS clients and
// adapters (dynamostore, s3blob, sfnflow, the API keys from Secrets
// Manager) and the job service. The functions differ only in what they
// ask for: a file reader and an engine (api, process), the flow (api,
// sweep), the API keys (api, webhook, sweep). It never imports the
// document reader itself, so the functions that do not open files build
// without MuPDF.
package awsapp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/sfn"

	"blueprint/internal/apikey"
	"blueprint/internal/budget"
	"blueprint/internal/buildid"
	"blueprint/internal/catalog"
	"blueprint/internal/config"
	"blueprint/internal/detect"
	"blueprint/internal/dynamostore"
	"blueprint/internal/httpapi"
	"blueprint/internal/job"
	"blueprint/internal/lambdafn"
	"blueprint/internal/openapi"
	"blueprint/internal/s3blob"
	"blueprint/internal/sfnflow"
	"blueprint/internal/webhook"
)

// Environment variables of the Lambda functions (template.yaml), beside
// the shared ones of package config (BLUEPRINT_BASE_URL, _RETENTION,
// _UPLOAD_TTL, _MAX_PAGES, _MAX_PAGE_PIXELS, _CATALOG_FILE, ...). The AWS
// SDK's own variables (AWS_REGION, credentials, AWS_ENDPOINT_URL_<SERVICE>)
// are read the SDK's way.
const (
	EnvTable            = "BLUEPRINT_JOBS_TABLE"
	EnvBucket           = "BLUEPRINT_BUCKET"
	EnvStateMachineARN  = "BLUEPRINT_STATE_MACHINE_ARN"
	EnvAPIKeysSecretARN = "BLUEPRINT_API_KEYS_SECRET_ARN"
)

// Config is a function's configuration.
type Config struct {
	config.Config
	Table            string
	Bucket           string
	StateMachineARN  string // api and sweep only
	APIKeysSecretARN string // functions that need the keys
}

// LoadConfig reads the configuration through getenv. BLUEPRINT_BASE_URL
// (the API's public URL: links in responses and webhooks) is required.
func LoadConfig(getenv func(string) string) (Config, error) {
	c, err := config.Load(getenv)
	if err != nil {
		return Config{}, err
	}
	cfg := Config{Config: c, Table: getenv(EnvTable), Bucket: getenv(EnvBucket),
		StateMachineARN: getenv(EnvStateMachineARN), APIKeysSecretARN: getenv(EnvAPIKeysSecretARN)}
	var missing []string
	for name, v := range map[string]string{EnvTable: cfg.Table, EnvBucket: cfg.Bucket, config.EnvBaseURL: getenv(config.EnvBaseURL)} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		return Config{}, fmt.Errorf("awsapp: %s not set", strings.Join(missing, ", "))
	}
	if cfg.UploadTTL > s3blob.MaxPresignTTL {
		return Config{}, fmt.Errorf("awsapp: %s is %s; a presigned S3 URL lives at most %s", config.EnvUploadTTL, cfg.UploadTTL, s3blob.MaxPresignTTL)
	}
	return cfg, nil
}

// Needs says what a function uses beyond the store, blobs and catalog.
type Needs struct {
	// Files and Engine read and process uploads (api, upload: Files;
	// process: both), built from the configuration and the loaded catalog.
	Files  func(config.Config) job.Files
	Engine func(config.Config, *catalog.Catalog) (detect.Engine, error)
	// GiveBack returns to the system the memory the function's C code
	// freed (cmalloc.Trim where Files reads documents with MuPDF), called
	// after each large release of the admission gate; nil for none.
	GiveBack func()
	// Flow hands started jobs to the state machine (api, upload, sweep).
	Flow bool
	// Keys loads the API keys from Secrets Manager (api: authentication;
	// webhook, sweep: signing webhooks).
	Keys bool
	// WebhookRetries is the schedule of a refused webhook's retries; the
	// zero value is webhook.RetrySchedule (minutes to hours), which the
	// deployed functions use. A test that runs the state machine, whose
	// Wait states wait the wait_seconds the domain computes from it, sets
	// a schedule of seconds.
	WebhookRetries webhook.Schedule
	// Clock and Logger are test seams; nil is the system clock and JSON
	// lines on stderr (CloudWatch Logs).
	Clock  job.Clock
	Logger *slog.Logger
}

// App is a wired function.
type App struct {
	Config  Config
	Service *job.Service
	Store   *dynamostore.Store
	Blobs   *s3blob.Store
	Links   *httpapi.PresignedLinks
	Catalog *catalog.Catalog
	Keys    *apikey.Keyring // nil unless Needs.Keys
	// Logs adds the invocation's request and job ids to every line that
	// Log writes while a lambdafn handler given Logs runs.
	Logs  *lambdafn.Logs
	Log   *slog.Logger
	clock job.Clock
	// limiter counts each key's requests in the table, shared by every
	// instance of the api function (docs/decisions.md).
	limiter *dynamostore.RateLimiter
	// handoffs keeps review links' handoff tokens in the table.
	handoffs *dynamostore.Handoffs
}

// New builds a function's App from getenv.
func New(ctx context.Context, getenv func(string) string, needs Needs) (*App, error) {
	cfg, err := LoadConfig(getenv)
	if err != nil {
		return nil, err
	}
	base := slog.Handler(slog.NewJSONHandler(os.Stderr, nil))
	if needs.Logger != nil {
		base = needs.Logger.Handler()
	}
	logs := lambdafn.NewLogs(base)
	log := logs.Logger()
	awsCfg, err := loadAWS(ctx, getenv)
	if err != nil {
		return nil, err
	}
	cat, err := catalog.Load(cfg.CatalogFile)
	if err != nil {
		return nil, fmt.Errorf("awsapp: load catalog: %w", err)
	}
	a := &App{Config: cfg, Catalog: cat, Logs: logs, Log: log, clock: needs.Clock}
	db := dynamodb.NewFromConfig(awsCfg, endpoint[dynamodb.Options](getenv, "DYNAMODB"))
	a.Store = dynamostore.New(db, cfg.Table)
	a.limiter = dynamostore.NewRateLimiter(db, cfg.Table)
	a.handoffs = dynamostore.NewHandoffs(db, cfg.Table)
	a.Blobs = s3blob.New(s3.NewFromConfig(awsCfg, endpoint[s3.Options](getenv, "S3"), func(o *s3.Options) {
		// An endpoint override is a test server on an IP address.
		o.UsePathStyle = getenv("AWS_ENDPOINT_URL_S3") != ""
	}), cfg.Bucket)
	a.Links = httpapi.NewPresignedLinks(cfg.BaseURL, a.Blobs, cat, needs.Clock)
	secrets := func(string) ([]byte, bool) { return nil, false }
	if needs.Keys {
		if a.Keys, err = loadKeys(ctx, cfg, secretsmanager.NewFromConfig(awsCfg, endpoint[secretsmanager.Options](getenv, "SECRETS_MANAGER"))); err != nil {
			return nil, err
		}
		secrets = func(keyID string) ([]byte, bool) {
			k, ok := a.Keys.ByID(keyID)
			return k.WebhookSecret, ok
		}
	}
	// LazyPageImages stays off: image_url is a presigned S3 GET
	// (httpapi.PresignedLinks), which S3 answers only for an object that
	// exists, so the process function stores every page's PNG alongside
	// its detection.
	jc := job.Config{Store: a.Store, Blobs: a.Blobs, Direct: a.Blobs, Catalog: cat, Links: a.Links,
		Guard: webhook.Guard{AllowPrivate: cfg.AllowPrivateCallbacks}, WebhookSecret: secrets, WebhookRetries: needs.WebhookRetries,
		UploadTTL: cfg.UploadTTL, Retention: cfg.Retention, BatchPages: cfg.BatchPages, SearchBudget: cfg.SearchBudget, Clock: needs.Clock, Logger: log}
	if needs.Files != nil {
		jc.Files = needs.Files(cfg.Config)
		// Only a function that reads files cuts references and keeps the
		// cuts under its build's id (the api, webhook and sweep functions
		// never read their executable for it).
		jc.BuildID = buildid.Current()
		// The same admission gate as the local server's, sized from the
		// function's memory (BLUEPRINT_MEMORY_BUDGET, else half of what the
		// environment may use). Lambda runs one invocation per environment
		// at a time, so it seldom waits here; it still refuses nothing,
		// bounds a check or a document that the budget cannot hold beside
		// another to run alone, and returns a large page raster's memory to
		// the system at once in an environment that stays warm (Go's, and
		// the C heap's through GiveBack).
		var giveBack []func()
		if needs.GiveBack != nil {
			giveBack = append(giveBack, needs.GiveBack)
		}
		jc.Admission = budget.New(cfg.MemoryBudget, cfg.MaxDocuments, giveBack...)
	}
	if needs.Engine != nil {
		if jc.Engine, err = needs.Engine(cfg.Config, cat); err != nil {
			return nil, fmt.Errorf("awsapp: build engine: %w", err)
		}
	}
	if needs.Flow {
		if cfg.StateMachineARN == "" {
			return nil, fmt.Errorf("awsapp: %s not set", EnvStateMachineARN)
		}
		jc.Flow = sfnflow.New(sfn.NewFromConfig(awsCfg, endpoint[sfn.Options](getenv, "SFN")), cfg.StateMachineARN)
	}
	if a.Service, err = job.NewService(jc); err != nil {
		return nil, err
	}
	return a, nil
}

// Handler is the partner API's http.Handler (the same router as the local
// server's). The App must have been built with Needs.Keys.
func (a *App) Handler() (*httpapi.Server, error) {
	if a.Keys == nil {
		return nil, errors.New("awsapp: the API needs the keys (Needs.Keys)")
	}
	// Review links' handoff tokens live in the table, so that a link made
	// by one instance is exchanged by any other; review credentials are
	// signed with a secret derived from the API keys, which every
	// instance loads alike (docs/deploy.md).
	return httpapi.New(httpapi.Config{Service: a.Service, Keys: a.Keys, Limiter: a.limiter, Links: a.Links,
		Catalog: a.Catalog, OpenAPI: openapi.Document(), Clock: a.clock, Logger: a.Log,
		Handoffs: a.handoffs}), nil
}

// loadAWS is the SDK configuration: AWS_REGION and, when set, the
// credentials of the environment (the Lambda runtime sets both), else the
// SDK's default chain.
func loadAWS(ctx context.Context, getenv func(string) string) (aws.Config, error) {
	opts := []func(*awsconfig.LoadOptions) error{awsconfig.WithRegion(getenv("AWS_REGION"))}
	if id := getenv("AWS_ACCESS_KEY_ID"); id != "" {
		opts = append(opts, awsconfig.WithCredentialsProvider(
			credentials.NewStaticCredentialsProvider(id, getenv("AWS_SECRET_ACCESS_KEY"), getenv("AWS_SESSION_TOKEN"))))
	}
	c, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return aws.Config{}, fmt.Errorf("awsapp: AWS configuration: %w", err)
	}
	return c, nil
}

// endpoint applies AWS_ENDPOINT_URL_<service> from getenv (the SDK reads
// the same variables from the process environment; tests pass their own).
func endpoint[O any](getenv func(string) string, service string) func(*O) {
	u := getenv("AWS_ENDPOINT_URL_" + service)
	return func(o *O) {
		if u == "" {
			return
		}
		switch o := any(o).(type) {
		case *dynamodb.Options:
			o.BaseEndpoint = aws.String(u)
		case *s3.Options:
			o.BaseEndpoint = aws.String(u)
		case *sfn.Options:
			o.BaseEndpoint = aws.String(u)
		case *secretsmanager.Options:
			o.BaseEndpoint = aws.String(u)
		}
	}
}

// loadKeys reads the API keys: BLUEPRINT_API_KEYS when set (a test or a
// stack without a secret), else the Secrets Manager secret, whose string
// is that same list or a JSON object holding it under BLUEPRINT_API_KEYS.
func loadKeys(ctx context.Context, cfg Config, sm *secretsmanager.Client) (*apikey.Keyring, error) {
	entries := cfg.APIKeys
	if len(entries) == 0 {
		if cfg.APIKeysSecretARN == "" {
			return nil, fmt.Errorf("awsapp: neither %s nor %s is set", config.EnvAPIKeys, EnvAPIKeysSecretARN)
		}
		out, err := sm.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(cfg.APIKeysSecretARN)})
		if err != nil {
			return nil, fmt.Errorf("awsapp: read the API keys secret: %w", err)
		}
		spec := strings.TrimSpace(aws.ToString(out.SecretString))
		if strings.HasPrefix(spec, "{") {
			var obj map[string]string
			if err := json.Unmarshal([]byte(spec), &obj); err != nil {
				return nil, fmt.Errorf("awsapp: the API keys secret is JSON but not an object of strings: %w", err)
			}
			spec = obj[config.EnvAPIKeys]
		}
		if entries, err = apikey.ParseEntries(spec); err != nil {
			return nil, fmt.Errorf("awsapp: the API keys secret: %w", err)
		}
		if len(entries) == 0 {
			return nil, errors.New("awsapp: the API keys secret holds no key")
		}
	}
	return apikey.NewKeyring(entries)
}
