# Blueprint symbol detection service. `make run` starts it locally; `make test` is what CI runs.
# Tool versions: one line each here; the Makefile fetches them (go run / npx), nothing is installed by hand.
GO        ?= go
BIN       := bin
STATICCHECK_VERSION := v0.6.1
REDOCLY_VERSION     := 2.77.0
# AWS deployment and its tests (README "Deploying to AWS"), fetched into .tools/ by `make aws-tools`:
# S3 server, DynamoDB Local (Maven Central), moto's server (PyPI, Step Functions), SAM CLI and
# cfn-lint with AWS's serverless rules (PyPI), and zig (PyPI), the C toolchain that builds the cgo
# functions for glibc 2.34.
VERSITYGW_VERSION      := v1.8.0
DYNAMODB_LOCAL_VERSION := 3.3.1
MOTO_VERSION           := 5.2.5
SAM_CLI_VERSION        := 1.170.0
CFN_LINT_VERSION       := 1.58.0
CFN_LINT_SERVERLESS_VERSION := 0.3.6
ZIG_VERSION            := 0.15.1

# ONNX Runtime for the raster detector: the shared library inside PyPI's onnxruntime wheel
# (fetched with pip download, checked by sha256). Its C API (24) must be at least the one
# github.com/yalue/onnxruntime_go was built against: v1.27.0 uses the 1.24.1 headers.
ORT_VERSION := 1.24.1
ORT_WHEEL   := onnxruntime-$(ORT_VERSION)-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
ORT_SHA256  := 1cabe71ca14dcfbf812d312aab0a704507ac909c137ee6e89e4908755d0fc60e
ORT_DIR     := layers/onnxruntime/lib
ORT_LIB     := $(ORT_DIR)/libonnxruntime.so.$(ORT_VERSION)
export BLUEPRINT_ONNXRUNTIME_LIB ?= $(abspath $(ORT_LIB))

.PHONY: run build test lint vet tidy-check staticcheck openapi-lint synth eval search-eval tools bench-vector review-screenshot bench-review mupdf-headers bench-real real-eval calibrate-unnamed bench-heavy bench-scans bench-resident mem chaos load fairness takeoff explain fuzz ort ort-gpu-layer gpu-check train train-check train-compare train-sheets bench-raster calibrate-raster \
	aws-tools sam-tools test-aws sam-check lambdas lambda-process local-setup tesseract-layer process-rootfs-check smoke

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

run: build $(ORT_LIB)
	./$(BIN)/blueprintd

vet: mupdf-headers
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags aws ./...

# go.mod and go.sum as `go mod tidy` would write them (a test-only import such as chromedp's
# cdproto is a direct requirement, not an indirect one): a dependency added or dropped without
# tidying fails make test here and in CI. `go mod tidy` fixes it.
tidy-check:
	@$(GO) mod tidy -diff || { echo "go.mod/go.sum are not tidy: run go mod tidy and commit the result"; exit 1; }

staticcheck: mupdf-headers
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) -tags aws ./...

# Lint the OpenAPI document with Redocly's recommended-strict rules (internal/openapi/redocly.yaml).
openapi-lint:
	npx --yes @redocly/cli@$(REDOCLY_VERSION) lint --config internal/openapi/redocly.yaml internal/openapi/openapi.json

# The review page's browser tests (cmd/blueprintd/browser_test.go) drive a headless Chromium;
# where none is installed they skip, and this says so (Debian: apt-get install chromium).
test: tidy-check vet staticcheck openapi-lint $(ORT_LIB)
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || test -n "$$BLUEPRINT_CHROMIUM" || \
		echo "NOTE: no Chromium found: the review page's browser tests will be skipped (Debian: apt-get install chromium; .ci/run installs it)"
	$(GO) test -count=1 -timeout 30m ./...
	$(MAKE) --no-print-directory fuzz FUZZTIME=$(FUZZTIME_CI)
	$(MAKE) test-aws

# Generate synthetic drawings with ground truth (internal/synth):
# make synth OUT=<dir> N=<sheets> SEED=<n> KIND=vector|raster|legend|scan-legend|heavy (legend: novel glyphs defined only by each set's legend, docs/legend.md;
# scan-legend: the same legend sets as PDFs of scanned page images, docs/raster.md;
# heavy: clip-heavy A1 legend sheets of 1.5 million hatching strokes, 12 MB each, docs/page-reading.md)
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
eval: mupdf-headers $(ORT_LIB)
	$(GO) run ./cmd/eval -data $(DATA) -report $(REPORT) $(EVAL_FLAGS)

# Score "find more like this" (POST /v1/jobs/{id}/search) as the service
# runs it, vector and image alike (docs/evaluation.md, "Find more like
# this"). On a generated set (make synth: PDFs by the vector search, scans
# by the glyph search): one instance of each class per sheet as the
# exemplar, recall and precision against the sheet's truth, the time per
# search. REAL=1 runs it on the real sets instead (testdata/realtruth
# positions; the PDFs and their 200-DPI renders, ev_charging_us_e003.png):
# make search-eval DATA=<dir> [SEARCH_EVAL_FLAGS="-queries 2 -max-sheets 4 -misses /tmp/m.jsonl"]
# make search-eval REAL=1 [REAL_DATA=../shared/realdata] [SEARCH_EVAL_FLAGS="-modes vector -json /tmp/se.json"]
search-eval: mupdf-headers
ifeq ($(REAL),1)
	$(GO) run ./cmd/searcheval -real $(REAL_DATA) $(SEARCH_EVAL_FLAGS)
else
	$(GO) run ./cmd/searcheval -data $(DATA) $(SEARCH_EVAL_FLAGS)
endif

# Time the vector matcher (reading the drawing, matching) per page by paper
# size on a generated set, and print its peak RSS (docs/vector.md):
# make bench-vector [BENCH_DIR=/tmp/bench-vector BENCH_N=200 BENCH_SEED=4242]
BENCH_DIR  ?= /tmp/bench-vector
BENCH_N    ?= 200
BENCH_SEED ?= 4242
bench-vector: mupdf-headers
	test -d $(BENCH_DIR) || $(GO) run ./cmd/synth -out $(BENCH_DIR) -n $(BENCH_N) -seed $(BENCH_SEED) -kind vector
	VECTOR_TIMING_DATA=$(BENCH_DIR) $(GO) test -count=1 -timeout 30m -run TestDevTiming -v ./internal/vector/ | grep -v "^=== \|A1 sheet"

# ONNX Runtime's shared library (make ort): pip download of the pinned wheel, sha256 checked,
# the one .so extracted. Needs python3 with pip; nothing is installed.
ort: $(ORT_LIB)
$(ORT_LIB):
	@mkdir -p $(ORT_DIR)/.wheel
	python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.11 \
		--platform manylinux_2_28_x86_64 --implementation cp -d $(ORT_DIR)/.wheel onnxruntime==$(ORT_VERSION)
	echo "$(ORT_SHA256)  $(ORT_DIR)/.wheel/$(ORT_WHEEL)" | sha256sum -c --quiet
	python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); open(sys.argv[3],"wb").write(z.read(sys.argv[2]))' \
		$(ORT_DIR)/.wheel/$(ORT_WHEEL) onnxruntime/capi/libonnxruntime.so.$(ORT_VERSION) $@.tmp
	mv $@.tmp $@
	rm -rf $(ORT_DIR)/.wheel

# ONNX Runtime's CUDA build for the SageMaker serve mode on a GPU instance (make ort-gpu-layer;
# docs/deploy.md, "Raster inference on SageMaker"): PyPI's onnxruntime-gpu at ORT_VERSION and the
# CUDA 12 runtime, cuBLAS, cuDNN 9, cuFFT, cuRAND and NVRTC wheels its CUDA provider loads, pinned
# with their sha256 in ORT_GPU_REQ (pip checks them), every shared library laid flat in
# ORT_GPU_DIR (about 2.7 GB; scripts/ort-gpu-layer.py lists them in MANIFEST). The serving image
# (functions/process/Dockerfile.sagemaker) copies the folder to ORT_GPU_ROOT and puts it on
# LD_LIBRARY_PATH. TestSageMakerGPULayer checks every library's dependencies are in the folder.
ORT_GPU_REQ  := layers/onnxruntime-gpu/requirements.txt
ORT_GPU_DIR  := layers/onnxruntime-gpu/lib
ORT_GPU_LIB  := $(ORT_GPU_DIR)/libonnxruntime.so.$(ORT_VERSION)
ORT_GPU_ROOT := /opt/onnxruntime-gpu/lib
# The wheels' platform tags that run on glibc 2.34 (Amazon Linux 2023): pip takes only those named.
ORT_GPU_PLATFORMS := $(foreach p,manylinux_2_28 manylinux_2_27 manylinux_2_17 manylinux2014 manylinux_2_12 manylinux2010,--platform $(p)_x86_64)
ort-gpu-layer: $(ORT_GPU_DIR)/MANIFEST
$(ORT_GPU_DIR)/MANIFEST: $(ORT_GPU_REQ) scripts/ort-gpu-layer.py
	@grep -q '^onnxruntime-gpu==$(ORT_VERSION) ' $(ORT_GPU_REQ) || { echo "$(ORT_GPU_REQ) does not pin onnxruntime-gpu==$(ORT_VERSION)"; exit 1; }
	rm -rf $(ORT_GPU_DIR) $(ORT_GPU_DIR).wheels && mkdir -p $(ORT_GPU_DIR) $(ORT_GPU_DIR).wheels
	python3 -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --require-hashes \
		--python-version 3.11 --implementation cp $(ORT_GPU_PLATFORMS) -d $(ORT_GPU_DIR).wheels -r $(ORT_GPU_REQ)
	python3 scripts/ort-gpu-layer.py $(ORT_GPU_DIR).wheels $(ORT_GPU_DIR) $(ORT_VERSION) > $(ORT_GPU_DIR)/MANIFEST.tmp
	rm -rf $(ORT_GPU_DIR).wheels
	mv $(ORT_GPU_DIR)/MANIFEST.tmp $@

# Train the raster detector from scratch on generated sheets, export it and quantise it to int8
# and train the crop classifier on its proposals (training/README.md). The venv (pinned
# training/requirements.txt) and the sheets live in ignored folders; the model lands in
# internal/raster/model. The detector learns from the first TRAIN_SHEETS sheets and the
# classifier from the first CLASSIFIER_SHEETS (sheet i of a seed is the same whatever n is),
# with a share of its crops' strokes thickened (--bold); the defaults reproduce the committed
# model (byte for byte on the CPU that trained it, elsewhere within train-compare's tolerance).
# The classifier ends with a tune cycle (--tune) on TUNE_SHEETS more sheets, nine classes drawn
# three times as often and 15 % of its crops shrunk and enlarged back (--tiny). Time on
# this 2-core machine: the classifier's 12 000 steps took 110 minutes on 2026-11-26 (0.55-0.7 s
# a step; about 40 minutes on a quiet day's 0.2 s), its 2 500-step tune cycle 35 minutes (0.6 s a
# step, 2 minutes to load the sheets), the detector before them about 35 minutes on a quiet day
# (36 minutes on the evening of 2026-11-26, when the classifier ran at 0.66 s a step: 3+ hours).
# On 2026-11-27's AVX-512 machine: the detector 20 minutes, the classifier 0.39-0.48 s a step
# (116 minutes, make train-check's run): about 2 h 17 min in all. --bf16 in TRAIN_FLAGS and
# CLASSIFIER_FLAGS trains in bfloat16 (training/README.md, "Speed": 91 minutes; about 12 times
# slower on a CPU without BF16 instructions); the committed model is float32's: a bfloat16 run
# was measured and failed its adoption rule by one seed of twelve.
TRAIN_SEED   ?= 9101
TRAIN_SHEETS ?= 160
CLASSIFIER_SHEETS ?= 320
TUNE_SHEETS  ?= 320
SHEETS_NEEDED = $(shell echo $$(( $(TRAIN_SHEETS) > $(CLASSIFIER_SHEETS) + $(TUNE_SHEETS) ? $(TRAIN_SHEETS) : $(CLASSIFIER_SHEETS) + $(TUNE_SHEETS) )))
TRAIN_DIR    ?= build/train-sheets
TRAIN_FLAGS  ?= --extra 2500
HARD_CLASSES := beam_detector,socket_outlet_earthed,aspirating_detector,telephone_outlet,sprinkler_flow_switch,luminaire,speaker_visual,luminaire_linear,switch_two_pole
CLASSIFIER_FLAGS ?= --extra 4000 --bold 0.15 --tune 2500 --tune-sheets $(TUNE_SHEETS) --tiny 0.15 --hard $(HARD_CLASSES)
VENV         := training/.venv
# The training sheets both stages read: the larger of TRAIN_SHEETS and CLASSIFIER_SHEETS +
# TUNE_SHEETS of seed TRAIN_SEED, generated once.
train-sheets: mupdf-headers
	test -f $(TRAIN_DIR)/scan-$$(printf %05d $(SHEETS_NEEDED)).json || \
		$(GO) run ./cmd/synth -out $(TRAIN_DIR) -n $(SHEETS_NEEDED) -seed $(TRAIN_SEED) -kind raster
$(VENV)/.ok: training/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet -r training/requirements.txt
	touch $@
train: mupdf-headers $(VENV)/.ok train-sheets
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/train.py --data $(TRAIN_DIR) --max-sheets $(TRAIN_SHEETS) --out internal/raster/model --work build/train $(TRAIN_FLAGS)
	nice -n 10 $(VENV)/bin/python training/quantize.py --data $(TRAIN_DIR) --out internal/raster/model --use
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/classifier.py --data $(TRAIN_DIR) --max-sheets $(CLASSIFIER_SHEETS) \
		--detector internal/raster/model/detector-int8.onnx --out internal/raster/model --work build/train-classifier $(CLASSIFIER_FLAGS)

# Train again into a scratch folder and compare it with the committed model (train-compare).
train-check: mupdf-headers $(VENV)/.ok train-sheets
	rm -rf build/train-check
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/train.py --data $(TRAIN_DIR) --max-sheets $(TRAIN_SHEETS) --out build/train-check/model --work build/train-check/work $(TRAIN_FLAGS)
	nice -n 10 $(VENV)/bin/python training/quantize.py --data $(TRAIN_DIR) --out build/train-check/model --use
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/classifier.py --data $(TRAIN_DIR) --max-sheets $(CLASSIFIER_SHEETS) \
		--detector build/train-check/model/detector-int8.onnx --out build/train-check/model --work build/train-check/classifier $(CLASSIFIER_FLAGS)
	$(MAKE) --no-print-directory train-compare

# Compare build/train-check's networks with the committed ones: byte for byte first; where the
# bytes differ (training is bit-exact only on the CPU that trained it: training/README.md,
# "Reproducibility"), both are run with the committed JSON on a generated raster set and must
# agree within 0.01 in precision, recall and mAP50 (TestDevReproduced).
REPRO_DIR  ?= build/repro-sheets
REPRO_SEED ?= 31337
REPRO_N    ?= 40
train-compare: mupdf-headers $(ORT_LIB)
	@test -f build/train-check/model/classifier-int8.onnx || { echo "train-compare: no finished build/train-check (make train-check trains it)"; exit 1; }
	@if cmp -s build/train-check/model/detector.onnx internal/raster/model/detector.onnx && \
	    cmp -s build/train-check/model/detector-int8.onnx internal/raster/model/detector-int8.onnx && \
	    cmp -s build/train-check/model/classifier-int8.onnx internal/raster/model/classifier-int8.onnx; then \
		echo "train-check: identical to the committed model"; \
	else \
		echo "train-check: the ONNX files differ from the committed ones; comparing their accuracy on $(REPRO_DIR)" && \
		{ test -d $(REPRO_DIR) || $(GO) run ./cmd/synth -out $(REPRO_DIR) -n $(REPRO_N) -seed $(REPRO_SEED) -kind raster; } && \
		RASTER_REPRO_DATA=$(abspath $(REPRO_DIR)) RASTER_DEV_MODEL=$(abspath build/train-check/model/detector-int8.onnx) \
		RASTER_DEV_CLASSIFIER=$(abspath build/train-check/model/classifier-int8.onnx) \
		$(GO) test -count=1 -timeout 60m -run TestDevReproduced -v ./internal/raster/; \
	fi

# Measure the raster classifier's long-look classes, box corrections and score-to-confidence
# calibration (pooled and per class) on a generated raster set other than the evaluation set and
# print the JSON for internal/raster/model/detector.json ("long_look", "box_scale", "calibration",
# "class_calibration") and the catalog's default threshold (the break-even; 9-12 minutes on this
# 2-core machine, the set detected two or three times):
# make calibrate-raster [RASTER_CAL_N=120 RASTER_CAL_SEED=777001 RASTER_CAL_DIR=/tmp/calibrate-raster-777001-120]
RASTER_CAL_N    ?= 120
RASTER_CAL_SEED ?= 777001
RASTER_CAL_DIR  ?= /tmp/calibrate-raster-$(RASTER_CAL_SEED)-$(RASTER_CAL_N)
calibrate-raster: mupdf-headers $(ORT_LIB)
	test -d $(RASTER_CAL_DIR) || $(GO) run ./cmd/synth -out $(RASTER_CAL_DIR) -n $(RASTER_CAL_N) -seed $(RASTER_CAL_SEED) -kind raster
	@mkdir -p build
	{ RASTER_CALIBRATE_DATA=$(RASTER_CAL_DIR) $(GO) test -count=1 -timeout 60m -run TestDevCalibrate -v ./internal/raster/; \
		echo $$? > build/calibrate-raster.rc; } | grep -v "^=== "; exit $$(cat build/calibrate-raster.rc)

# Time the raster detector per page by paper size on a generated raster set (wall and CPU seconds,
# blank tiles skipped): make bench-raster [RASTER_BENCH_DIR=/tmp/bench-raster RASTER_BENCH_MODEL=x.onnx]
RASTER_BENCH_DIR   ?= /tmp/bench-raster
RASTER_BENCH_N     ?= 40
RASTER_BENCH_SEED  ?= 31337
RASTER_BENCH_MODEL ?=
bench-raster: mupdf-headers $(ORT_LIB)
	test -d $(RASTER_BENCH_DIR) || $(GO) run ./cmd/synth -out $(RASTER_BENCH_DIR) -n $(RASTER_BENCH_N) -seed $(RASTER_BENCH_SEED) -kind raster
	RASTER_TIMING_DATA=$(RASTER_BENCH_DIR) RASTER_DEV_MODEL=$(RASTER_BENCH_MODEL) $(GO) test -count=1 -timeout 60m -run TestDevTiming -v ./internal/raster/ | grep -v "^=== "


# The GPU check, for a machine with an NVIDIA GPU (not in make test; docs/raster.md, "On a GPU"):
# the CUDA provider's detections against the CPU build's on the fixture scans (within 1e-3), the
# serve mode choosing the GPU, then Detect's time per page by paper size (A1 among them) on the CPU
# build and on the CUDA provider, over the same generated scans.
GPU_ENV := LD_LIBRARY_PATH=$(abspath $(ORT_GPU_DIR)) BLUEPRINT_ONNXRUNTIME_GPU_LIB=$(abspath $(ORT_GPU_LIB)) RASTER_GPU_PROVIDER=cuda
gpu-check: mupdf-headers $(ORT_LIB) ort-gpu-layer
	RASTER_GPU_PROVIDER=cuda $(GO) test -count=1 -run 'TestGPUBuildDetections' -v ./internal/raster/
	$(GO) test -count=1 -run 'TestServeModeProvider' -v ./internal/sagemakerdetect/
	$(MAKE) bench-raster
	$(GPU_ENV) $(MAKE) bench-raster

# Issue 11's memory check: a real server under its default configuration
# takes four concurrent starts of a 12 200 × 12 200 16-bit RGBA PNG; prints
# its peak RSS (must stay at or under 1.5 GiB) and fails if a job does not
# end done.
mem: mupdf-headers $(ORT_LIB)
	BLUEPRINT_MEM_TEST=1 $(GO) test -count=1 -timeout 20m -run '^TestMemoryFourBigPNGs$$' -v ./cmd/blueprintd/

# Go native fuzzing of every parser of outside input: each Fuzz target of
# every package runs for FUZZTIME, a duration (make fuzz FUZZTIME=5m) or a
# count of inputs (FUZZTIME=500x). New findings land in the package's
# testdata/fuzz/<Target>/; commit them with the fix. The seed corpora
# (f.Add and testdata/fuzz) also run as plain tests in every go test.
# Go 1.26's fuzz coordinator can end a duration run with a bare "context
# deadline exceeded" (golang/go#75804); such an end that wrote no new
# failing input is reported as that race and does not fail the run.
FUZZTIME    ?= 30s
FUZZTIME_CI ?= 100x
fuzz: mupdf-headers
	@$(GO) test -list '^Fuzz' ./... | awk '/^Fuzz/ {t = t " " $$1} /^(ok|\?)/ && t != "" {print $$2 t; t = ""}' > .fuzz-targets
	@while read -r pkg targets; do for t in $$targets; do \
		dir=$$($(GO) list -f '{{.Dir}}' "$$pkg")/testdata/fuzz/$$t; \
		before=$$(ls "$$dir" 2>/dev/null | wc -l); \
		echo "== $$pkg $$t for $(FUZZTIME)"; \
		if ! $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) "$$pkg" > .fuzz-log 2>&1; then \
			if grep -q 'context deadline exceeded' .fuzz-log && [ "$$(ls "$$dir" 2>/dev/null | wc -l)" = "$$before" ]; then \
				echo "   ended by the fuzz coordinator's deadline race (golang/go#75804), no failing input"; \
			else grep -v '^warning: \|^fuzz: elapsed' .fuzz-log; rm -f .fuzz-log .fuzz-targets; exit 1; fi; \
		else grep '^fuzz: elapsed' .fuzz-log | tail -1; fi; \
	done; done < .fuzz-targets; rm -f .fuzz-log .fuzz-targets

# Issue 11's crash check (not in make test): the server is SIGKILLed at
# random moments and restarted while CHAOS_JOBS jobs with webhooks go
# through; every job must end done, every webhook be acknowledged under one
# event id, no job finish twice.
CHAOS_JOBS ?= 120
chaos: mupdf-headers $(ORT_LIB)
	BLUEPRINT_CHAOS_TEST=1 CHAOS_JOBS=$(CHAOS_JOBS) $(GO) test -count=1 -timeout 30m -run '^TestChaosKills$$' -v ./cmd/blueprintd/

# Count the symbols of local drawings as the API does, without a server (docs/cli.md):
# make takeoff FILES="a.pdf b.pdf" [ARGS="--csv|--json|--xlsx OUT"]; make explain FILE=a.pdf [ARGS=--json]
takeoff: build $(ORT_LIB)
	./$(BIN)/blueprint takeoff $(ARGS) $(FILES)
explain: build $(ORT_LIB)
	./$(BIN)/blueprint explain $(ARGS) $(FILE)

# Issue 34's fair-sharing check (not in make test): key B's one-page drawing
# beside three heavy jobs of key A must end within 3x its time alone + 15 s.
fairness: mupdf-headers $(ORT_LIB)
	BLUEPRINT_FAIRNESS_TEST=1 $(GO) test -count=1 -timeout 20m -run '^(TestFairShare|TestSearchFairShare)$$' -v ./cmd/blueprintd/ | grep -v "^=== \|level="

# Issue 11's load check (not in make test): 16 clients read a page of 200
# detections, a page of 2000, and poll, LOAD_SECONDS each; prints req/s and
# p50/p99; fails on an error or p99 over 100 ms (200) / 250 ms (2000).
LOAD_SECONDS ?= 10
LOAD_CLIENTS ?= 16
load: mupdf-headers $(ORT_LIB)
	BLUEPRINT_LOAD_TEST=1 LOAD_SECONDS=$(LOAD_SECONDS) LOAD_CLIENTS=$(LOAD_CLIENTS) $(GO) test -count=1 -timeout 10m -run '^TestLoad$$' -v ./cmd/blueprintd/
# Whole jobs through the local server, one fresh server per document, against
# `mutool draw -r 200` of the same file in the same run (Debian's mupdf-tools;
# the ratio is skipped without it): pages, seconds from start to done, ratio,
# peak and idle RSS, over ../shared/realdata and a generated dense A0/A1 set
# (docs/page-reading.md):
# make bench-real [BENCH_REAL_FILES="a.pdf b.pdf" BENCH_DENSE=/tmp/bench-dense BENCH_REPEAT=3]
# The generated sets (dense plans, clip-heavy sheets) are written into BENCH_DENSE, never the repository.
BENCH_REAL_FILES ?= $(wildcard ../shared/realdata/*.pdf ../shared/realdata/*.png)
BENCH_DENSE      ?= /tmp/bench-dense
BENCH_REPEAT     ?= 3
bench-real: build $(ORT_LIB)
	$(GO) run ./cmd/benchreal -server $(BIN)/blueprintd -repeat $(BENCH_REPEAT) -dense $(BENCH_DENSE) -heavy $(BENCH_DENSE) $(BENCH_REAL_FILES)

# What a long-running server keeps between jobs: one server processes the files in turn,
# BENCH_ROUNDS times over; each job's seconds, peak RSS and the resident size after it:
# make bench-resident [BENCH_REAL_FILES="a.pdf b.pdf" BENCH_ROUNDS=8]
BENCH_ROUNDS ?= 8
bench-resident: build $(ORT_LIB)
	$(GO) run ./cmd/benchreal -server $(BIN)/blueprintd -rounds $(BENCH_ROUNDS) $(BENCH_REAL_FILES)

# The clip-heavy A1 sheet alone (synth KIND=heavy); fails past 2× mutool draw -r 200 or 1 GiB peak RSS.
# Issue 51's real-set evaluation: every set in ../shared/realdata with a count truth in
# testdata/realtruth, through `blueprint takeoff` (the job service's path); per set and class the
# truth, the count, within tolerance and error; per set and overall the within-tolerance share and
# median error (docs/evaluation.md). Skips with a message where ../shared/realdata is absent.
# make real-eval [REAL_EVAL_REPORT=/tmp/real-eval.json] [REAL_EVAL_SETS="voice_alarm_ro_floor1"] [REAL_EVAL_ARGS="-json", "-turn 90", "-scale 0.7" or "-outline"]
REAL_DATA        ?= ../shared/realdata
REAL_EVAL_REPORT ?=
real-eval: build $(ORT_LIB)
	@$(GO) run ./cmd/realeval -data $(REAL_DATA) -blueprint $(BIN)/blueprint $(if $(REAL_EVAL_REPORT),-report $(REAL_EVAL_REPORT)) $(REAL_EVAL_ARGS) $(REAL_EVAL_SETS)

# The floors of detections of classes no legend row names (detect.UnnamedFloor, docs/decisions.md,
# "Answers that say when they do not know"): the production engine in one process on every real
# set's vector pages, on them plotted at CALIBRATE_SCALES times their size, and on each plan page
# rendered at 200 DPI (into CALIBRATE_RENDERS, outside the repository) and sent alone as an image; prints the confidences of right-class and wrong-class
# detections per finder (catalog glyphs, raster detector), the floors they give and the share of
# reported detections in a class the sheet has. CALIBRATE_FROM=<an earlier CALIBRATE_REPORT> re-reads.
# make calibrate-unnamed [CALIBRATE_REPORT=/tmp/unnamed.json] [CALIBRATE_FROM=/tmp/unnamed.json] [REAL_EVAL_SETS=...]
CALIBRATE_RENDERS ?= /tmp/realeval-renders
CALIBRATE_SCALES  ?= 0.5,0.7,1.41,2
CALIBRATE_REPORT  ?=
CALIBRATE_FROM    ?=
calibrate-unnamed: mupdf-headers $(ORT_LIB)
	@$(GO) run ./cmd/realeval -calibrate -data $(REAL_DATA) -renders $(CALIBRATE_RENDERS) -calibrate-scales $(CALIBRATE_SCALES) $(if $(CALIBRATE_REPORT),-report $(CALIBRATE_REPORT)) $(if $(CALIBRATE_FROM),-from $(CALIBRATE_FROM)) $(REAL_EVAL_SETS)

bench-heavy: build $(ORT_LIB)
	$(GO) run ./cmd/benchreal -server $(BIN)/blueprintd -repeat 2 -heavy $(BENCH_DENSE) -heavy-max-ratio 2 -heavy-max-rss 1024

# Real sets sent as images (docs/raster.md): each plan page as a 200-DPI PNG (alone, and with the
# PDF job as reference_jobs: png-ref) and as a scan-like JPEG, and the whole set as an image PDF
# and a scanned PDF, against the count truth. The renders go to
# BENCH_SCANS_OUT, outside the repository (never commit renders of ../shared/realdata):
# make bench-scans [BENCH_REAL_FILES="a.pdf b.pdf" BENCH_SCANS_OUT=/tmp/bench-scans BENCH_SCANS_MODES=png-ref]
BENCH_SCANS_OUT   ?= /tmp/bench-scans
BENCH_SCANS_MODES ?=
bench-scans: build $(ORT_LIB)
	$(GO) run ./cmd/benchscans -server $(BIN)/blueprintd -out $(BENCH_SCANS_OUT) $(if $(BENCH_SCANS_MODES),-modes $(BENCH_SCANS_MODES)) $(BENCH_REAL_FILES)

# Screenshot of the review page on a synthetic sheet for the README (docs/review-page.png);
# needs Chromium. Screenshots of ../shared/realdata must never be committed: write them elsewhere
# with BLUEPRINT_SCREENSHOT_DIR=<dir> BLUEPRINT_SCREENSHOT_REAL=1 go test -run TestReviewScreenshots ./cmd/blueprintd
review-screenshot: mupdf-headers $(ORT_LIB)
	rm -rf $(BIN)/screenshots && mkdir -p $(BIN)/screenshots
	BLUEPRINT_SCREENSHOT_DIR=$(CURDIR)/$(BIN)/screenshots $(GO) test -count=1 -run 'TestReviewScreenshots$$' -v ./cmd/blueprintd/ | grep -v "^=== "
	cp $(BIN)/screenshots/review-synthetic.png docs/review-page.png

# Frame times of the review page zooming and panning an A0 sheet with 2000 boxes in headless
# Chromium [VIEWER_PDF=<a drawing to show instead of a blank A0 page>].
bench-review: mupdf-headers $(ORT_LIB)
	BLUEPRINT_VIEWER_A0=1 BLUEPRINT_VIEWER_PDF=$(VIEWER_PDF) $(GO) test -count=1 -run 'TestReviewPage2000Boxes$$' -v ./cmd/blueprintd/ | grep -v "^=== \|level=INFO"

# ---- AWS: Lambda builds, the stack's checks, and the tests against AWS-compatible servers ----
TOOLS        := $(CURDIR)/.tools
VERSITYGW    := $(TOOLS)/versitygw-$(VERSITYGW_VERSION)/versitygw
DDB_LOCAL    := $(TOOLS)/dynamodb-local-$(DYNAMODB_LOCAL_VERSION)
MOTO_VENV    := $(TOOLS)/moto-$(MOTO_VERSION)
SAM_VENV     := $(TOOLS)/sam-$(SAM_CLI_VERSION)
ZIG_VENV     := $(TOOLS)/zig-$(ZIG_VERSION)
ZIG_CC       := $(ZIG_VENV)/zig-cc
LAMBDA_DIR   ?= $(CURDIR)/build/lambda
# Lambda binaries: provided.al2023 custom runtime without the RPC mode, no paths from this machine,
# stripped: -s -w for Go's own linker, and --strip-all for the external linker (zig cc) that links
# the cgo functions, which keeps the symbol table and the C code's DWARF despite -s -w (api:
# 38.1 MB before, 33.9 MB after; TestBinariesAreStripped).
LAMBDA_FLAGS := -trimpath -tags lambda.norpc -ldflags '-s -w -extldflags=-Wl,--strip-all'
# Every function is built for Lambda's OS and architecture whatever the host (a Mac, an arm64
# machine): each target below sets GOOS=linux and GOARCH (TestBuildTargetsIgnoreTheHost).
# SAM's makefile builder runs `make build-<LogicalId>` with its own environment and ARTIFACTS_DIR
# only, never the function's architecture (aws_lambda_builders, custom_make/actions.py), so the
# pure-Go functions' architecture is LAMBDA_ARCH here and the template's PureGoArchitecture
# parameter there, set together: LAMBDA_ARCH=arm64 sam build --parameter-overrides
# PureGoArchitecture=arm64, and the same override at sam deploy (docs/decisions.md, "AWS").
# The cgo functions (api, upload, process) are x86_64 only: zig's target, go-fitz's MuPDF and ONNX Runtime.
LAMBDA_ARCH  ?= x86_64
LAMBDA_GOARCH = $(if $(filter arm64,$(LAMBDA_ARCH)),arm64,$(if $(filter x86_64,$(LAMBDA_ARCH)),amd64,$(error LAMBDA_ARCH is x86_64 or arm64, not "$(LAMBDA_ARCH)")))
# The functions that open uploads link MuPDF with cgo; zig cc links them against glibc 2.34
# (Amazon Linux 2023), whatever this machine's glibc (TestFileReadersRunOnAmazonLinux2023).
LAMBDA_CGO   := GOOS=linux GOARCH=amd64 CGO_ENABLED=1 CC="$(ZIG_CC)" CXX="$(ZIG_CC) --driver-mode=g++"
LAMBDA_PURE   = GOOS=linux GOARCH=$(LAMBDA_GOARCH) CGO_ENABLED=0

aws-tools: $(VERSITYGW) $(DDB_LOCAL)/.ok $(MOTO_VENV)/.ok
# The marker names the versions, so that a machine with an older venv installs what changed.
SAM_OK       := $(SAM_VENV)/.ok-cfn-lint-$(CFN_LINT_VERSION)-serverless-$(CFN_LINT_SERVERLESS_VERSION)
sam-tools: $(SAM_OK)

$(VERSITYGW):
	GOBIN=$(dir $@) $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

$(DDB_LOCAL)/.ok: internal/awstest/dynamodb-local.pom.xml
	mvn -q -B -f $< dependency:copy-dependencies -Ddynamodb.local.version=$(DYNAMODB_LOCAL_VERSION) -DoutputDirectory=$(DDB_LOCAL)
	touch $@

$(MOTO_VENV)/.ok:
	python3 -m venv $(MOTO_VENV)
	$(MOTO_VENV)/bin/pip install --quiet --disable-pip-version-check "moto[server,stepfunctions]==$(MOTO_VERSION)"
	touch $@

$(SAM_OK):
	python3 -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install --quiet --disable-pip-version-check "aws-sam-cli==$(SAM_CLI_VERSION)" \
		"cfn-lint==$(CFN_LINT_VERSION)" "cfn-lint-serverless==$(CFN_LINT_SERVERLESS_VERSION)"
	touch $@

$(ZIG_CC):
	python3 -m venv $(ZIG_VENV)
	$(ZIG_VENV)/bin/pip install --quiet --disable-pip-version-check "ziglang==$(ZIG_VERSION)"
	printf '#!/bin/sh\nexec "%s" -m ziglang cc -target x86_64-linux-gnu.2.34 "$$@"\n' "$(ZIG_VENV)/bin/python" > $@.tmp
	chmod +x $@.tmp && mv $@.tmp $@

# sam build (BuildMethod: makefile) runs these with ARTIFACTS_DIR set; `make lambdas` runs them
# into build/lambda/<function>/ for the tests. The process function is a container image:
# lambda-process puts its binary (the detector model embedded) and ONNX Runtime where its Dockerfile takes them.
build-ApiFunction: $(ZIG_CC) mupdf-headers
	$(LAMBDA_CGO) $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/api
build-WebhookFunction:
	$(LAMBDA_PURE) $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/webhook
build-SweepFunction:
	$(LAMBDA_PURE) $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/sweep
build-UploadFunction: $(ZIG_CC) mupdf-headers
	$(LAMBDA_CGO) $(GO) build $(LAMBDA_FLAGS) -o $(ARTIFACTS_DIR)/bootstrap ./functions/upload
# The detector model is embedded in the binary (internal/raster/model); ONNX Runtime's library
# (make ort) goes beside it under lib/, named as the image's BLUEPRINT_ONNXRUNTIME_LIB says.
lambda-process: $(ZIG_CC) mupdf-headers $(ORT_LIB)
	$(LAMBDA_CGO) $(GO) build $(LAMBDA_FLAGS) -o $(LAMBDA_DIR)/process/bootstrap ./functions/process
	mkdir -p $(LAMBDA_DIR)/process/lib
	cp $(ORT_LIB) $(LAMBDA_DIR)/process/lib/
	ln -sf $(notdir $(ORT_LIB)) $(LAMBDA_DIR)/process/lib/libonnxruntime.so

# Tesseract for the processing image (scripts/tesseract-layer.sh): Debian bookworm's program with
# every library it loads down to its own glibc and loader, and the English and Finnish data, for
# TESSERACT_ROOT in the image (functions/process/Dockerfile copies it there; its interpreter and
# RPATH name that folder). Needs Debian bookworm's apt (the image's build stage has it).
TESSERACT_LAYER := layers/tesseract
TESSERACT_ROOT  := /opt/tesseract
tesseract-layer: $(TESSERACT_LAYER)/MANIFEST
$(TESSERACT_LAYER)/MANIFEST: scripts/tesseract-layer.sh
	scripts/tesseract-layer.sh $(TESSERACT_LAYER) $(TESSERACT_ROOT)

# The processing image without Docker (needs root and Debian bookworm's apt): its final stage's
# COPY and ENV applied to a folder (internal/awstest/imageroot), the build stage's /out and /src
# mapped to LAMBDA_DIR and this checkout, on a stand-in for the Lambda base: Debian's glibc (the
# binary is linked for 2.34, Amazon Linux 2023's; the base image itself cannot be fetched here).
# Then under chroot: Tesseract --list-langs in a root holding nothing but its COPY, and
# `bootstrap ocr-check` in the whole root (docs/deploy.md, "Reading text on images").
PROCESS_BASE   := build/process-base
PROCESS_ROOTFS := build/process-rootfs
$(PROCESS_BASE)/.ok:
	rm -rf $(PROCESS_BASE) && mkdir -p $(PROCESS_BASE)
	debs=$$(mktemp -d) && chmod 755 $$debs && (cd $$debs && apt-get download -q libc6:amd64 libgcc-s1:amd64 >/dev/null) && \
		for d in $$debs/*.deb; do dpkg-deb -x $$d $(PROCESS_BASE) || exit 1; done; rm -rf $$debs
	rm -rf $(PROCESS_BASE)/usr/share
	touch $@
process-rootfs-check: lambda-process tesseract-layer $(PROCESS_BASE)/.ok
	@test "$$(id -u)" = 0 || { echo "process-rootfs-check: chroot and mknod need root"; exit 1; }
	$(GO) run ./internal/awstest/imageroot -dockerfile functions/process/Dockerfile -base $(PROCESS_BASE) \
		-out $(PROCESS_ROOTFS) -map /out/=$(LAMBDA_DIR)/ -map /src/=$(CURDIR)/ -- ocr-check

lambdas: lambda-process
	$(MAKE) build-ApiFunction ARTIFACTS_DIR=$(LAMBDA_DIR)/api
	$(MAKE) build-WebhookFunction ARTIFACTS_DIR=$(LAMBDA_DIR)/webhook
	$(MAKE) build-SweepFunction ARTIFACTS_DIR=$(LAMBDA_DIR)/sweep
	$(MAKE) build-UploadFunction ARTIFACTS_DIR=$(LAMBDA_DIR)/upload

# The stack's checks: sam validate --lint; cfn-lint over the template after the SAM transform
# (cfn-lint applies it) with AWS's serverless rules, as deployed by default and with every
# optional part on (custom domain, alarm topic, arm64, raster inference on SageMaker); sam build --build-in-source of every zip
# function through the targets above, and of the pure-Go functions (webhook, sweep) for arm64
# (LAMBDA_ARCH with PureGoArchitecture), each bootstrap checked for Lambda's OS and machine (ELF, e_machine at byte
# 18: 62 x86_64, 183 arm64). The process image needs Docker (not here): lambda-process builds its binary.
SAM := SAM_CLI_TELEMETRY=0 $(SAM_VENV)/bin/sam
CFN_LINT := $(SAM_VENV)/bin/cfn-lint --append-rules cfn_lint_serverless.rules
CFN_LINT_ALL_ON := CustomDomainName=api.example.com AlarmTopicArn=arn:aws:sns:eu-north-1:123456789012:ops \
	CustomDomainCertificateArn=arn:aws:acm:eu-north-1:123456789012:certificate/00000000-0000-0000-0000-000000000000 \
	PureGoArchitecture=arm64 RasterInference=sagemaker RasterInstanceType=ml.g5.xlarge \
	RasterImageUri=123456789012.dkr.ecr.eu-north-1.amazonaws.com/blueprint-process:latest
elf_machine = test "$$(od -An -c -N4 $(1) | tr -d ' ')" = "177ELF" && test "$$(od -An -tu2 -j18 -N2 $(1) | tr -d ' ')" = "$(2)" \
	|| { echo "$(1) is not an ELF binary for machine $(2)"; exit 1; }
sam-check: sam-tools $(ZIG_CC)
	$(SAM) validate --lint --region eu-north-1
	$(CFN_LINT) -- template.yaml
	$(CFN_LINT) --parameters $(CFN_LINT_ALL_ON) -- template.yaml
	for fn in ApiFunction WebhookFunction SweepFunction UploadFunction; do \
		$(SAM) build --build-in-source --region eu-north-1 $$fn || exit 1; \
		$(call elf_machine,.aws-sam/build/$$fn/bootstrap,62); \
	done
	for fn in WebhookFunction SweepFunction; do \
		LAMBDA_ARCH=arm64 $(SAM) build --build-in-source --region eu-north-1 $$fn --parameter-overrides PureGoArchitecture=arm64 || exit 1; \
		$(call elf_machine,.aws-sam/build/$$fn/bootstrap,183); \
	done

# Smoke test of a running service, deployed or local (scripts/smoke.sh; docs/deploy.md, "Smoke
# test"): make smoke API_URL=<the stack's ApiUrl> API_KEY=<a key> [SMOKE_FILE=a.pdf]
smoke:
	@test -n "$(API_URL)" && test -n "$(API_KEY)" || { echo "usage: make smoke API_URL=<base URL> API_KEY=<key> [SMOKE_FILE=<pdf, png or jpg>]"; exit 2; }
	@scripts/smoke.sh "$(API_URL)" "$(API_KEY)" $(SMOKE_FILE) # @: the key stays out of the log

# `sam local` (needs Docker; docs/deploy.md, "sam local"): make local-invoke-<Function>
# [EVENT=events/x.json] runs `sam local invoke` of the built function (sam build first) with its
# sample event and events/env.json, which points the functions at DynamoDB Local on
# 127.0.0.1:8000 and the S3 server on 127.0.0.1:7070 (host networking, so that 127.0.0.1 is this
# machine's); the credentials are those the local servers are started with. The same events run
# through the handlers in TestSampleEvents.
LOCAL_EVENT_ApiFunction     := events/api-init-job.json
LOCAL_EVENT_ProcessFunction := events/process-task.json
LOCAL_EVENT_WebhookFunction := events/webhook-deliver-task.json
LOCAL_EVENT_SweepFunction   := events/sweep-schedule.json
LOCAL_EVENT_UploadFunction  := events/upload-object-created.json
LOCAL_AWS_ENV := AWS_ACCESS_KEY_ID=blueprintlocal AWS_SECRET_ACCESS_KEY=blueprintlocalsecret AWS_DEFAULT_REGION=us-east-1
# The table, bucket and (with moto's server) state machine that events/env.json names.
local-setup:
	$(LOCAL_AWS_ENV) $(GO) run ./internal/awstest/localsetup
local-invoke-%: sam-tools
	@test -n "$(LOCAL_EVENT_$*)" || { echo "no function $* in template.yaml (ApiFunction ProcessFunction WebhookFunction SweepFunction UploadFunction)"; exit 1; }
	$(LOCAL_AWS_ENV) $(SAM) local invoke $* --region us-east-1 --docker-network host \
		--env-vars events/env.json --event $(or $(EVENT),$(LOCAL_EVENT_$*))

# The AWS adapters, the Lambda handlers and the state machine against DynamoDB Local, versitygw
# and moto, started on 127.0.0.1 by the tests themselves (internal/awstest).
AWS_TEST_ENV := BLUEPRINT_DYNAMODB_LOCAL=$(DDB_LOCAL) BLUEPRINT_VERSITYGW=$(VERSITYGW) \
	BLUEPRINT_MOTO_SERVER=$(MOTO_VENV)/bin/moto_server BLUEPRINT_LAMBDA_DIR=$(LAMBDA_DIR)
test-aws: aws-tools lambdas sam-check mupdf-headers $(ORT_LIB)
	$(AWS_TEST_ENV) $(GO) test -tags aws -count=1 -v -timeout 30m \
		./internal/dynamostore/ ./internal/s3blob/ ./internal/awsapp/
