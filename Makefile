# Blueprint symbol detection service. `make run` starts it locally; `make test` is what CI runs.
# Tool versions: one line each here; the Makefile fetches them (go run / npx), nothing is installed by hand.
GO        ?= go
BIN       := bin
STATICCHECK_VERSION := v0.6.1
REDOCLY_VERSION     := 2.77.0
# ONNX Runtime for the raster detector: the shared library inside PyPI's onnxruntime wheel
# (fetched with pip download, checked by sha256). Its C API (24) must be at least the one
# github.com/yalue/onnxruntime_go was built against: v1.27.0 uses the 1.24.1 headers.
ORT_VERSION := 1.24.1
ORT_WHEEL   := onnxruntime-$(ORT_VERSION)-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
ORT_SHA256  := 1cabe71ca14dcfbf812d312aab0a704507ac909c137ee6e89e4908755d0fc60e
ORT_DIR     := layers/onnxruntime/lib
ORT_LIB     := $(ORT_DIR)/libonnxruntime.so.$(ORT_VERSION)
export BLUEPRINT_ONNXRUNTIME_LIB ?= $(abspath $(ORT_LIB))

.PHONY: run build test lint vet staticcheck openapi-lint synth eval tools bench-vector ort train train-check bench-raster calibrate-raster

build:
	$(GO) build -o $(BIN)/ ./cmd/...

run: build $(ORT_LIB)
	./$(BIN)/blueprintd

vet:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Lint the OpenAPI document with Redocly's recommended-strict rules (internal/openapi/redocly.yaml).
openapi-lint:
	npx --yes @redocly/cli@$(REDOCLY_VERSION) lint --config internal/openapi/redocly.yaml internal/openapi/openapi.json

test: vet staticcheck openapi-lint $(ORT_LIB)
	$(GO) test -count=1 ./...

# Generate synthetic drawings with ground truth (internal/synth):
# make synth OUT=<dir> N=<sheets> SEED=<n> KIND=vector|raster
OUT  ?= synth-out
N    ?= 20
SEED ?= 1
KIND ?= vector
synth:
	$(GO) run ./cmd/synth -out $(OUT) -n $(N) -seed $(SEED) -kind $(KIND)

# Score the production engine on a labelled dataset (docs/evaluation.md):
# make eval DATA=<dir> REPORT=<file.json> [EVAL_FLAGS="-confidence 0.3 -max-sheets 20 -quiet"]
DATA   ?= testdata/synth
REPORT ?= eval-report.json
eval: $(ORT_LIB)
	$(GO) run ./cmd/eval -data $(DATA) -report $(REPORT) $(EVAL_FLAGS)

# Time the vector matcher (MuPDF SVG, extraction, matching) per page by paper
# size on a generated set, and print its peak RSS (docs/vector.md):
# make bench-vector [BENCH_DIR=/tmp/bench-vector BENCH_N=200 BENCH_SEED=4242]
BENCH_DIR  ?= /tmp/bench-vector
BENCH_N    ?= 200
BENCH_SEED ?= 4242
bench-vector:
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

# Train the raster detector from scratch on generated sheets, export it and quantise it to int8
# (training/README.md): about 30 minutes on this 2-core machine when it is not shared. The venv (pinned training/requirements.txt) and the
# sheets live in ignored folders; the model lands in internal/raster/model.
TRAIN_SEED   ?= 9101
TRAIN_SHEETS ?= 160
TRAIN_DIR    ?= build/train-sheets
TRAIN_FLAGS  ?= --extra 2500
VENV         := training/.venv
$(VENV)/.ok: training/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install --quiet -r training/requirements.txt
	touch $@
train: $(VENV)/.ok
	test -f $(TRAIN_DIR)/scan-$$(printf %05d $(TRAIN_SHEETS)).json || \
		$(GO) run ./cmd/synth -out $(TRAIN_DIR) -n $(TRAIN_SHEETS) -seed $(TRAIN_SEED) -kind raster
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/train.py --data $(TRAIN_DIR) --out internal/raster/model --work build/train $(TRAIN_FLAGS)
	nice -n 10 $(VENV)/bin/python training/quantize.py --data $(TRAIN_DIR) --out internal/raster/model --use

# Train again into a scratch folder and compare the ONNX file with the committed one byte for byte.
train-check: $(VENV)/.ok
	test -f $(TRAIN_DIR)/scan-$$(printf %05d $(TRAIN_SHEETS)).json || \
		$(GO) run ./cmd/synth -out $(TRAIN_DIR) -n $(TRAIN_SHEETS) -seed $(TRAIN_SEED) -kind raster
	rm -rf build/train-check
	OMP_WAIT_POLICY=PASSIVE nice -n 10 $(VENV)/bin/python training/train.py --data $(TRAIN_DIR) --out build/train-check/model --work build/train-check/work $(TRAIN_FLAGS)
	nice -n 10 $(VENV)/bin/python training/quantize.py --data $(TRAIN_DIR) --out build/train-check/model --use
	cmp build/train-check/model/detector.onnx internal/raster/model/detector.onnx
	cmp build/train-check/model/detector-int8.onnx internal/raster/model/detector-int8.onnx
	@echo "train-check: identical to the committed model"

# Measure the raster detector's score-to-confidence calibration on a generated raster set other
# than the evaluation set and print the JSON points for internal/raster/model/detector.json:
# make calibrate-raster [RASTER_CAL_DIR=/tmp/calibrate-raster RASTER_CAL_N=20 RASTER_CAL_SEED=777001]
RASTER_CAL_DIR  ?= /tmp/calibrate-raster
RASTER_CAL_N    ?= 20
RASTER_CAL_SEED ?= 777001
calibrate-raster: $(ORT_LIB)
	test -d $(RASTER_CAL_DIR) || $(GO) run ./cmd/synth -out $(RASTER_CAL_DIR) -n $(RASTER_CAL_N) -seed $(RASTER_CAL_SEED) -kind raster
	RASTER_CALIBRATE_DATA=$(RASTER_CAL_DIR) $(GO) test -count=1 -timeout 60m -run TestDevCalibrate -v ./internal/raster/ | grep -v "^=== "

# Time the raster detector per page by paper size on a generated raster set (wall and CPU seconds,
# blank tiles skipped): make bench-raster [RASTER_BENCH_DIR=/tmp/bench-raster RASTER_BENCH_MODEL=x.onnx]
RASTER_BENCH_DIR   ?= /tmp/bench-raster
RASTER_BENCH_N     ?= 40
RASTER_BENCH_SEED  ?= 31337
RASTER_BENCH_MODEL ?=
bench-raster: $(ORT_LIB)
	test -d $(RASTER_BENCH_DIR) || $(GO) run ./cmd/synth -out $(RASTER_BENCH_DIR) -n $(RASTER_BENCH_N) -seed $(RASTER_BENCH_SEED) -kind raster
	RASTER_TIMING_DATA=$(RASTER_BENCH_DIR) RASTER_DEV_MODEL=$(RASTER_BENCH_MODEL) $(GO) test -count=1 -timeout 60m -run TestDevTiming -v ./internal/raster/ | grep -v "^=== "
