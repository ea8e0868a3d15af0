# The two commands a newcomer needs:
#   make run    install what is missing, build (Release), serve the default model
#   make test   install what is missing, build, run every test
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: run test build deps test-deps image

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

# The container image (Containerfile) with podman or docker: `make image [IMAGE=strata:0.1.0]
# [BASE_IMAGE=...]`; deploy/README.md says how to tag and push it.
image:
	@BASE_IMAGE="$(BASE_IMAGE)" deploy/container/build-image.sh $(IMAGE)
