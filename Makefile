# The two commands a newcomer needs:
#   make run    install what is missing, build (Release), serve the default model
#   make test   install what is missing, build, run every test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: run test build deps test-deps

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

test: test-deps build
	@ctest --test-dir $(BUILD_DIR) --output-on-failure -j $(JOBS)
