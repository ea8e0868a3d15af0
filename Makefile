# The two commands a newcomer needs:
#   make run    install what is missing, build (Release), serve the default model
#   make test   install what is missing, build, run every test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: run test build deps test-deps image test-sanitize

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh --test
	@scripts/install-test-clients.sh

build: deps
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
	@ninja -C $(BUILD_DIR) -j $(JOBS)

run: build
	@scripts/run-default.sh $(BUILD_DIR)/src/cli/strata

# ctest shows a skipped test's output nowhere; its "SKIPPED: <why>" line is printed after the run.
test: test-deps build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS); status=$$?; \
	  grep -h '^SKIPPED: ' $(BUILD_DIR)/Testing/Temporary/LastTest.log 2>/dev/null; exit $$status

# The unit tests of the parser and core modules that do not need the model code (base, tensor,
# gguf, tokenizer, chat, grammar, sampling) built with ASan + UBSan (-DSTRATA_SANITIZE=ON) in their
# own build dir and run once per binary; any sanitizer report fails. CI runs it after `make test`
# (README "Sanitizers and fuzzing in CI" says why this subset and what it costs).
SANITIZE_DIR ?= build-sanitize
SANITIZE_TESTS ?= base/base_test tensor/tensor_test gguf/gguf_test tokenizer/tokenizer_test chat/chat_test \
                  grammar/grammar_test sampling/sampling_test
test-sanitize: deps
	@cmake -S . -B $(SANITIZE_DIR) -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_SANITIZE=ON \
	  -DSTRATA_SANITIZE_OPT=-O0 >/dev/null
	@ninja -C $(SANITIZE_DIR) -j $(JOBS) $(notdir $(SANITIZE_TESTS))
	@for t in $(SANITIZE_TESTS); do \
	  echo "sanitize: $$t"; \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    $(SANITIZE_DIR)/src/$$t --gtest_brief=1 || exit 1; \
	done

# The container image (Containerfile) with podman or docker: `make image [IMAGE=strata:0.1.0]
# [BASE_IMAGE=...]`; deploy/README.md says how to tag and push it.
image:
	@BASE_IMAGE="$(BASE_IMAGE)" deploy/container/build-image.sh $(IMAGE)
