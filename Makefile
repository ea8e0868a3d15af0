# The two commands a newcomer needs:
#   make run    install what is missing, build (Release), serve the default model
#   make test   install what is missing, build, run every test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# Unity build (each target's sources compiled in batches): a fresh Release build takes about 40%
# less CPU time (README "Sanitizers and fuzzing in CI"); UNITY_BUILD=OFF compiles file by file.
UNITY_BUILD ?= ON

.PHONY: run test build deps test-deps image test-sanitize

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test
	@scripts/install-test-clients.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) >/dev/null
	@ninja -C $(BUILD_DIR) -j $(JOBS)

run: build
	@scripts/run-default.sh $(BUILD_DIR)/src/cli/strata

# ctest shows a skipped test's output nowhere; its "SKIPPED: <why>" line is printed after the run.
test: test-deps build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS); status=$$?; \
	  grep -h '^SKIPPED: ' $(BUILD_DIR)/Testing/Temporary/LastTest.log 2>/dev/null; exit $$status

# Unit tests again on a tree built with ASan + UBSan (-DSTRATA_SANITIZE=ON: no recovery, leak
# checks; tensor and model at -O1, the kernels at -O2, so the exactness tests run at speed, the
# rest at -O0) in its own build dir, each binary run once (scripts/test-sanitized.sh); any report
# fails. CI runs it after `make test` with the default list: every module below the model that has
# tests, and the kernels. The whole suite does not fit CI's 20 minutes (README "Sanitizers and fuzzing in
# CI"); `make test-sanitize SANITIZE_TESTS=all` builds the whole tree and runs all of it, e2e and
# real clients against the sanitized `strata` included.
SANITIZE_DIR ?= build-sanitize
SANITIZE_TESTS ?= base_test tensor_test gguf_test gguf_quant_reference_test modelgen_test fetch_test \
                  tokenizer_test tokenizer_reference_test chat_test grammar_test sampling_test \
                  sampling_alloc_test metrics_test web_test kernels_test kernels_matmul_test
test-sanitize: test-deps
	@cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_SANITIZE=ON \
	  -DSTRATA_SANITIZE_OPT=-O0 -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) >/dev/null
	@ninja -C $(SANITIZE_DIR) -j $(JOBS) $(filter-out all,$(SANITIZE_TESTS))
	@scripts/test-sanitized.sh $(SANITIZE_DIR) $(JOBS) $(SANITIZE_TESTS)

# The container image (Containerfile) with podman or docker: `make image [IMAGE=strata:0.1.0]
# [BASE_IMAGE=...]`; deploy/README.md says how to tag and push it.
image:
	@BASE_IMAGE="$(BASE_IMAGE)" deploy/container/build-image.sh $(IMAGE)
