// Package config reads the service's configuration from BLUEPRINT_*
// environment variables.
package config

import (
	"fmt"
	"math"
	"net"
	"strconv"
	"strings"
	"time"

	"blueprint/internal/apikey"
	"blueprint/internal/job"
)

// Environment variable names.
const (
	EnvListenAddr            = "BLUEPRINT_LISTEN_ADDR"
	EnvDataDir               = "BLUEPRINT_DATA_DIR"
	EnvBaseURL               = "BLUEPRINT_BASE_URL"
	EnvAPIKeys               = "BLUEPRINT_API_KEYS"
	EnvAllowPrivateCallbacks = "BLUEPRINT_ALLOW_PRIVATE_CALLBACKS"
	EnvCatalogFile           = "BLUEPRINT_CATALOG_FILE"
	EnvRetention             = "BLUEPRINT_RETENTION"
	EnvUploadTTL             = "BLUEPRINT_UPLOAD_TTL"
	EnvMaxPages              = "BLUEPRINT_MAX_PAGES"
	EnvMaxPagePixels         = "BLUEPRINT_MAX_PAGE_PIXELS"
	EnvRasterDetector        = "BLUEPRINT_RASTER_DETECTOR"
	EnvRasterOnVector        = "BLUEPRINT_RASTER_ON_VECTOR"
	EnvOCR                   = "BLUEPRINT_OCR"
	EnvImageLegends          = "BLUEPRINT_IMAGE_LEGENDS"
	EnvImageTrace            = "BLUEPRINT_IMAGE_TRACE"
	EnvOnnxRuntimeLib        = "BLUEPRINT_ONNXRUNTIME_LIB"
	EnvMaxDocuments          = "BLUEPRINT_MAX_DOCUMENTS"
	EnvMemoryBudget          = "BLUEPRINT_MEMORY_BUDGET"
	EnvJobTimeout            = "BLUEPRINT_JOB_TIMEOUT"
	EnvMaxDrawingOps         = "BLUEPRINT_MAX_DRAWING_OPS"
	EnvMaxDrawingBytes       = "BLUEPRINT_MAX_DRAWING_BYTES"
	EnvBatchPages            = "BLUEPRINT_BATCH_PAGES"
	EnvSearchBudget          = "BLUEPRINT_SEARCH_BUDGET"
)

// DefaultJobTimeout bounds one processing attempt of a job in the local
// server: twice the AWS processing function's 15 minutes, far above the
// slowest real set measured.
const DefaultJobTimeout = 30 * time.Minute

// Defaults of the document budget when the environment names none:
// MemoryShare of the memory the process may use (the cgroup limit or the
// machine's), and one document per core, fewer when the budget gives each
// less than MinBytesPerDocument.
const (
	MemoryShare         = 0.5
	MinBytesPerDocument = 1 << 30
)

// Defaults of the settings without a contract constant.
const (
	DefaultListenAddr = "127.0.0.1:8080"
	DefaultDataDir    = "./var"
)

// Config is the whole configuration of blueprintd.
type Config struct {
	ListenAddr string
	DataDir    string
	// BaseURL is the public base of every URL in responses, without a
	// trailing slash.
	BaseURL string
	// APIKeys are the configured keys; empty means "create a development
	// key in the data dir".
	APIKeys []apikey.Entry
	// AllowPrivateCallbacks admits http:// and private callback URLs (local
	// testing only).
	AllowPrivateCallbacks bool
	CatalogFile           string
	Retention             time.Duration
	UploadTTL             time.Duration
	// MaxPages and MaxPagePixels override the document limits; 0 keeps
	// the defaults of docs/decisions.md (docfiles.New applies them).
	MaxPages      int
	MaxPagePixels int64
	// Raster configures the raster detector.
	Raster Raster
	// MaxDocuments is how many documents are checked or processed at
	// once; MemoryBudget the bytes their work may hold together.
	MaxDocuments int
	MemoryBudget int64
	// JobTimeout bounds one processing attempt of a job (local server).
	JobTimeout time.Duration
	// MaxDrawingOps and MaxDrawingBytes bound reading one PDF page's
	// drawing; 0 keeps the defaults of docs/decisions.md
	// (drawing.DefaultLimits, applied by docfiles.ForConfig).
	MaxDrawingOps   int64
	MaxDrawingBytes int64
	// BatchPages is the page budget of one processing run: a document of
	// more pages is processed in batches of this many (job.Config); 0
	// keeps job.DefaultBatchPages.
	BatchPages int
	// SearchBudget is how long one search may run before it answers with
	// the pages it finished; 0 keeps job.DefaultSearchBudget (under API
	// Gateway's 29 s).
	SearchBudget time.Duration
}

// Raster is the raster detector's configuration.
type Raster struct {
	// Off turns the raster detector off: images fail, PDFs get the vector
	// matcher alone.
	Off bool
	// Library is the path of ONNX Runtime's libonnxruntime.so.
	Library string
	// OnVector runs the raster detector on PDF pages drawn as vectors as
	// well, not only on images and scanned pages (engine.Options).
	OnVector bool
	// ImageLegends reads legend tables on image pages and searches their
	// glyphs there (engine.Options.OCR); off by default: docs/raster.md,
	// "Legends on images", has the measurements that keep it off.
	ImageLegends bool
	// ImageTrace reads image pages as the vector geometry their ink
	// traces to, with their words read by OCR (engine.Options.TraceImages).
	ImageTrace bool
	// OCR is the tesseract program that reads legends on image pages
	// (internal/ocr) when ImageLegends is on: "" uses tesseract from PATH
	// when it is installed, "off" reads no legends on images, anything
	// else is the program, which must run.
	OCR string
}

// LoadRaster reads the raster detector's settings through getenv.
func LoadRaster(getenv func(string) string) (Raster, error) {
	r := Raster{Library: getenv(EnvOnnxRuntimeLib), OCR: strings.TrimSpace(getenv(EnvOCR))}
	if strings.EqualFold(r.OCR, "off") {
		r.OCR = "off"
	}
	on, err := onOff(getenv, EnvRasterDetector, true)
	if err != nil {
		return r, err
	}
	r.Off = !on
	if r.OnVector, err = onOff(getenv, EnvRasterOnVector, false); err != nil {
		return r, err
	}
	if r.ImageLegends, err = onOff(getenv, EnvImageLegends, false); err != nil {
		return r, err
	}
	if r.ImageTrace, err = onOff(getenv, EnvImageTrace, false); err != nil {
		return r, err
	}
	return r, nil
}

// onOff reads the switch name: on, 1, true, yes or off, 0, false, no (any
// case), def when unset.
func onOff(getenv func(string) string, name string, def bool) (bool, error) {
	switch v := strings.ToLower(strings.TrimSpace(getenv(name))); v {
	case "":
		return def, nil
	case "on", "1", "true", "yes":
		return true, nil
	case "off", "0", "false", "no":
		return false, nil
	default:
		return def, fmt.Errorf("%s: %q is not on or off", name, v)
	}
}

// Machine is what the defaults are derived from.
type Machine struct {
	MemoryBytes int64 // memory the process may use
	Cores       int
}

// Load reads the configuration through getenv (os.Getenv in production),
// with the document budget's defaults derived from this machine.
func Load(getenv func(string) string) (Config, error) {
	return LoadFor(getenv, ThisMachine())
}

// LoadFor reads the configuration for the given machine.
func LoadFor(getenv func(string) string, m Machine) (Config, error) {
	c := Config{
		ListenAddr:  orDefault(getenv(EnvListenAddr), DefaultListenAddr),
		DataDir:     orDefault(getenv(EnvDataDir), DefaultDataDir),
		BaseURL:     strings.TrimRight(getenv(EnvBaseURL), "/"),
		CatalogFile: getenv(EnvCatalogFile),
		Retention:   job.DefaultRetention,
		UploadTTL:   job.DefaultUploadTTL,
		JobTimeout:  DefaultJobTimeout,
	}
	if c.BaseURL == "" {
		c.BaseURL = baseFromListen(c.ListenAddr)
	} else if !strings.HasPrefix(c.BaseURL, "http://") && !strings.HasPrefix(c.BaseURL, "https://") {
		return c, fmt.Errorf("%s: %q must start with http:// or https://", EnvBaseURL, c.BaseURL)
	}
	var err error
	if c.APIKeys, err = apikey.ParseEntries(getenv(EnvAPIKeys)); err != nil {
		return c, fmt.Errorf("%s: %w", EnvAPIKeys, err)
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv(EnvAllowPrivateCallbacks))); v {
	case "", "0", "false", "no":
	case "1", "true", "yes":
		c.AllowPrivateCallbacks = true
	default:
		return c, fmt.Errorf("%s: %q is not 1 or 0", EnvAllowPrivateCallbacks, v)
	}
	if c.Retention, err = duration(getenv, EnvRetention, c.Retention); err != nil {
		return c, err
	}
	if c.UploadTTL, err = duration(getenv, EnvUploadTTL, c.UploadTTL); err != nil {
		return c, err
	}
	if c.JobTimeout, err = duration(getenv, EnvJobTimeout, c.JobTimeout); err != nil {
		return c, err
	}
	if c.SearchBudget, err = duration(getenv, EnvSearchBudget, 0); err != nil {
		return c, err
	}
	if v := getenv(EnvMaxDrawingOps); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s: %q is not a positive integer", EnvMaxDrawingOps, v)
		}
		c.MaxDrawingOps = n
	}
	if v := getenv(EnvMaxDrawingBytes); v != "" {
		n, err := ParseBytes(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvMaxDrawingBytes, err)
		}
		c.MaxDrawingBytes = n
	}
	if c.Raster, err = LoadRaster(getenv); err != nil {
		return c, err
	}
	if v := getenv(EnvMaxPages); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s: %q is not a positive integer", EnvMaxPages, v)
		}
		c.MaxPages = n
	}
	if v := getenv(EnvMaxPagePixels); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s: %q is not a positive integer", EnvMaxPagePixels, v)
		}
		c.MaxPagePixels = n
	}
	if v := getenv(EnvBatchPages); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s: %q is not a positive integer", EnvBatchPages, v)
		}
		c.BatchPages = n
	}
	c.MemoryBudget = int64(float64(m.MemoryBytes) * MemoryShare)
	if v := getenv(EnvMemoryBudget); v != "" {
		n, err := ParseBytes(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", EnvMemoryBudget, err)
		}
		c.MemoryBudget = n
	}
	c.MaxDocuments = max(1, min(m.Cores, int(c.MemoryBudget/MinBytesPerDocument)))
	if v := getenv(EnvMaxDocuments); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 1024 {
			return c, fmt.Errorf("%s: %q is not an integer from 1 to 1024", EnvMaxDocuments, v)
		}
		c.MaxDocuments = n
	}
	return c, nil
}

// byteUnits are the suffixes ParseBytes accepts.
var byteUnits = []struct {
	suffix string
	mult   int64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}

// ParseBytes reads a positive size: an integer of bytes, optionally with a
// unit (KiB, MiB, GiB, TiB, KB, MB, GB, TB, B), for example "1536MiB".
func ParseBytes(v string) (int64, error) {
	num, mult := strings.TrimSpace(v), int64(1)
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(num, u.suffix); ok {
			num, mult = strings.TrimSpace(n), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 1 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("%q is not a positive size in bytes (e.g. 1536MiB or 2GiB)", v)
	}
	return n * mult, nil
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

func duration(getenv func(string) string, name string, def time.Duration) (time.Duration, error) {
	v := getenv(name)
	if v == "" {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s: %q is not a positive Go duration (e.g. 720h)", name, v)
	}
	return d, nil
}

// baseFromListen derives http://host:port from a listen address; an
// unspecified host (":8080", "0.0.0.0:8080") becomes 127.0.0.1.
func baseFromListen(addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "http://" + addr
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
