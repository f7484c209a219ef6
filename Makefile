# Blueprint symbol detection service. `make run` starts it locally; `make test` is what CI runs.
# Tool versions: one line each here; the Makefile fetches them (go run / npx), nothing is installed by hand.
GO        ?= go
BIN       := bin
STATICCHECK_VERSION := v0.6.1
REDOCLY_VERSION     := 2.77.0

.PHONY: run build test lint vet staticcheck openapi-lint synth eval tools bench-vector review-screenshot bench-review mupdf-headers bench-real

# MuPDF headers for internal/mupdf's C code: exactly those go-fitz ships with
# the static MuPDF library it links (go-fitz v1.24.15: MuPDF 1.24.9), copied
# from the Go module cache into internal/mupdf/include (ignored by git).
# Every target that compiles Go depends on it; bumping go-fitz in go.mod
# copies them again.
MUPDF_INCLUDE := internal/mupdf/include
mupdf-headers: $(MUPDF_INCLUDE)/.go-fitz-headers

$(MUPDF_INCLUDE)/.go-fitz-headers: go.mod go.sum
	$(GO) mod download github.com/gen2brain/go-fitz
	rm -rf $(MUPDF_INCLUDE) && mkdir -p $(MUPDF_INCLUDE)
	cp -R "$$($(GO) list -m -f '{{.Dir}}' github.com/gen2brain/go-fitz)/include/mupdf" $(MUPDF_INCLUDE)/
	chmod -R u+w $(MUPDF_INCLUDE)
	find $(MUPDF_INCLUDE) -name '*.go' -delete
	touch $@

build: mupdf-headers
	$(GO) build -o $(BIN)/ ./cmd/...

run: build
	./$(BIN)/blueprintd

vet: mupdf-headers
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

staticcheck: mupdf-headers
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Lint the OpenAPI document with Redocly's recommended-strict rules (internal/openapi/redocly.yaml).
openapi-lint:
	npx --yes @redocly/cli@$(REDOCLY_VERSION) lint --config internal/openapi/redocly.yaml internal/openapi/openapi.json

# The review page's browser tests (cmd/blueprintd/browser_test.go) drive a headless Chromium;
# where none is installed they skip, and this says so (Debian: apt-get install chromium).
test: vet staticcheck openapi-lint
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || test -n "$$BLUEPRINT_CHROMIUM" || \
		echo "NOTE: no Chromium found: the review page's browser tests will be skipped (Debian: apt-get install chromium; .ci/run installs it)"
	$(GO) test -count=1 ./...

# Generate synthetic drawings with ground truth (internal/synth):
# make synth OUT=<dir> N=<sheets> SEED=<n> KIND=vector|raster|legend (legend: novel glyphs defined only by each set's legend, docs/legend.md)
OUT  ?= synth-out
N    ?= 20
SEED ?= 1
KIND ?= vector
synth: mupdf-headers
	$(GO) run ./cmd/synth -out $(OUT) -n $(N) -seed $(SEED) -kind $(KIND)

# Score the production engine on a labelled dataset (docs/evaluation.md):
# make eval DATA=<dir> REPORT=<file.json> [EVAL_FLAGS="-confidence 0.3 -max-sheets 20 -quiet"]
DATA   ?= testdata/synth
REPORT ?= eval-report.json
eval: mupdf-headers
	$(GO) run ./cmd/eval -data $(DATA) -report $(REPORT) $(EVAL_FLAGS)

# Time the vector matcher (reading the drawing, matching) per page by paper
# size on a generated set, and print its peak RSS (docs/vector.md):
# make bench-vector [BENCH_DIR=/tmp/bench-vector BENCH_N=200 BENCH_SEED=4242]
BENCH_DIR  ?= /tmp/bench-vector
BENCH_N    ?= 200
BENCH_SEED ?= 4242
bench-vector: mupdf-headers
	test -d $(BENCH_DIR) || $(GO) run ./cmd/synth -out $(BENCH_DIR) -n $(BENCH_N) -seed $(BENCH_SEED) -kind vector
	VECTOR_TIMING_DATA=$(BENCH_DIR) $(GO) test -count=1 -timeout 30m -run TestDevTiming -v ./internal/vector/ | grep -v "^=== \|A1 sheet"

# Whole jobs through the local server, one fresh server per document, against
# `mutool draw -r 200` of the same file in the same run (Debian's mupdf-tools;
# the ratio is skipped without it): pages, seconds from start to done, ratio,
# peak and idle RSS, over ../shared/realdata and a generated dense A0/A1 set
# (docs/page-reading.md):
# make bench-real [BENCH_REAL_FILES="a.pdf b.pdf" BENCH_DENSE=/tmp/bench-dense BENCH_REPEAT=3]
BENCH_REAL_FILES ?= $(wildcard ../shared/realdata/*.pdf)
BENCH_DENSE      ?= /tmp/bench-dense
BENCH_REPEAT     ?= 3
bench-real: build
	$(GO) run ./cmd/benchreal -server $(BIN)/blueprintd -repeat $(BENCH_REPEAT) -dense $(BENCH_DENSE) $(BENCH_REAL_FILES)

# Screenshot of the review page on a synthetic sheet for the README (docs/review-page.png);
# needs Chromium. Screenshots of ../shared/realdata must never be committed: write them elsewhere
# with BLUEPRINT_SCREENSHOT_DIR=<dir> BLUEPRINT_SCREENSHOT_REAL=1 go test -run TestReviewScreenshots ./cmd/blueprintd
review-screenshot: mupdf-headers
	rm -rf $(BIN)/screenshots && mkdir -p $(BIN)/screenshots
	BLUEPRINT_SCREENSHOT_DIR=$(CURDIR)/$(BIN)/screenshots $(GO) test -count=1 -run 'TestReviewScreenshots$$' -v ./cmd/blueprintd/ | grep -v "^=== "
	cp $(BIN)/screenshots/review-synthetic.png docs/review-page.png

# Frame times of the review page zooming and panning an A0 sheet with 2000 boxes in headless
# Chromium [VIEWER_PDF=<a drawing to show instead of a blank A0 page>].
bench-review: mupdf-headers
	BLUEPRINT_VIEWER_A0=1 BLUEPRINT_VIEWER_PDF=$(VIEWER_PDF) $(GO) test -count=1 -run 'TestReviewPage2000Boxes$$' -v ./cmd/blueprintd/ | grep -v "^=== \|level=INFO"
