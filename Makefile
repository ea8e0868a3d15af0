# The two commands a newcomer needs:
#   make run    install what is missing, build (Release), serve the default model
#   make test   install what is missing, build, run every test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)
# Tests run at a time (scripts/run-tests.sh); JOBS unless set.
TEST_JOBS ?= $(JOBS)
# Unity build (each target's sources compiled together): a fresh Release build takes about 40%
# less CPU time than file by file (docs/testing.md); UNITY_BUILD=OFF compiles
# file by file. UNITY_BATCH=0 puts all of a target's batchable sources in one file: the headers
# (httplib, nlohmann-json, GoogleTest) are parsed and their templates compiled once per target, not
# once per 8 sources (the sanitized server library: 120 -> 39 CPU s).
UNITY_BUILD ?= ON
UNITY_BATCH ?= 0
UNITY_FLAGS = -DCMAKE_UNITY_BUILD=$(UNITY_BUILD) -DCMAKE_UNITY_BUILD_BATCH_SIZE=$(UNITY_BATCH)

.PHONY: run test build deps test-deps image test-sanitize sanitize-build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test
	@scripts/install-test-clients.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release $(UNITY_FLAGS) >/dev/null
	@ninja -C $(BUILD_DIR) -j $(JOBS)

run: build
	@scripts/run-default.sh $(BUILD_DIR)/src/cli/strata

# Every test of the build dir (scripts/run-tests.sh): each GoogleTest binary once and every other
# ctest test, TEST_JOBS at a time, longest first; skipped tests print why at the end.
test: test-deps build
	@scripts/run-tests.sh $(BUILD_DIR) $(TEST_JOBS)

# The whole suite again on a tree built by clang with ASan + UBSan (-DSTRATA_SANITIZE=ON: no
# recovery, leak checks; the kernels, tensor, grammar, tokenizer and model at -O1, so the
# exactness tests and the structured-output clients run at speed, the rest at -O0) in its own
# build dir: every GoogleTest binary and the e2e tests and real clients against the sanitized
# `strata` (scripts/run-tests.sh --sanitized says what it leaves out); any report fails.
# SANITIZE_TESTS=NAME... builds and runs only those GoogleTest binaries; SANITIZE_TESTS=binaries
# builds the tree and runs every GoogleTest binary but not the e2e tests and real clients. CI
# (.ci/run) runs the whole suite. clang, not gcc: it builds this tree in 25% less CPU time (961
# vs 1279 CPU s side by side; gcc's UBSan makes a test source compile in twice clang's time), and
# install-deps.sh --test installs it (with lld and the sanitizer runtimes) for the fuzzers anyway.
SANITIZE_DIR ?= build-sanitize
SANITIZE_CXX ?= clang++
SANITIZE_TESTS ?= all
SANITIZE_TARGETS = $(filter-out all binaries,$(SANITIZE_TESTS))
sanitize-build: test-deps
	@cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_SANITIZE=ON \
	  -DCMAKE_CXX_COMPILER=$(SANITIZE_CXX) -DSTRATA_SANITIZE_OPT=-O0 $(UNITY_FLAGS) >/dev/null
	@ninja -C $(SANITIZE_DIR) -j $(JOBS) $(SANITIZE_TARGETS)

test-sanitize: sanitize-build
	@scripts/run-tests.sh --sanitized $(SANITIZE_DIR) $(TEST_JOBS) $(SANITIZE_TESTS)

# The container image (Containerfile) with podman or docker: `make image [IMAGE=strata:0.1.0]
# [BASE_IMAGE=...]`; deploy/README.md says how to tag and push it.
image:
	@BASE_IMAGE="$(BASE_IMAGE)" deploy/container/build-image.sh $(IMAGE)
