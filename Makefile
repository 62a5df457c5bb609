# blog: the two set-up commands are `make build` and `make test` (see README.md).
SWIFT ?= swift
BLOG_RELEASE := .build/release/blog
BLOG_DEBUG := .build/debug/blog
# Release builds on Linux link the Swift runtime and Foundation into the binary: start-up takes
# half the time (no dynamic symbol resolution), runtime calls skip the PLT, and the binary runs
# where no Swift toolchain is installed. (macOS has the runtime in the system.)
ifeq ($(shell uname -s),Linux)
RELEASE_FLAGS := -Xswiftc -static-stdlib
else
RELEASE_FLAGS :=
endif
# The portable build: every Linux-only call takes the path other systems (macOS) take.
PORTABLE_FLAGS := -Xswiftc -DBLOG_PORTABLE --build-path .build-portable
# Line-buffered test output where stdbuf exists (GNU coreutils).
LINE_BUFFERED := $(shell command -v stdbuf >/dev/null 2>&1 && echo stdbuf -oL -eL)

.PHONY: all deps test-deps build release debug test swift-test e2e-test bench clean

all: build

deps:
	@scripts/install-deps.sh

test-deps:
	@scripts/install-deps.sh test

release: deps
	$(SWIFT) build -c release --product blog $(RELEASE_FLAGS)

debug: deps
	$(SWIFT) build --product blog

## Builds the example site from content/ into public/.
build: release
	$(BLOG_RELEASE) build --source . --output public

# $(call within,MINUTES,WHAT,COMMAND): runs COMMAND, stopped after MINUTES with a message naming WHAT.
within = timeout --kill-after=30 $$(($(1) * 60)) $(3) || { rc=$$?; [ $$rc -ne 124 ] || echo "make test: $(2) did not finish within $(1) minutes (the last one named above hung)" >&2; exit $$rc; }

## Runs the whole test suite: Swift unit and end-to-end tests (twice: as built, and built with
## -D BLOG_PORTABLE), then the browser, validator and GitHub Action checks.
## The Swift tests print line by line (so a test that hangs is the last one named, not one a few
## kilobytes of buffered output earlier) and are stopped after 20 minutes (they take about one);
## the integration tests (half a minute) after 15, so that a hang fails well within CI's time.
test: test-deps
	$(SWIFT) build --build-tests
	$(call within,20,the Swift tests,$(LINE_BUFFERED) $(SWIFT) test --skip-build)
	$(SWIFT) build --build-tests $(PORTABLE_FLAGS)
	$(call within,20,the Swift tests built with -D BLOG_PORTABLE,$(LINE_BUFFERED) $(SWIFT) test --skip-build $(PORTABLE_FLAGS))
	$(SWIFT) build --product blog
	BLOG=$(BLOG_DEBUG) $(call within,15,the integration tests,.venv/bin/python -m pytest -q Tests/integration)

swift-test: deps
	$(SWIFT) test

bench: deps test-deps
	@scripts/install-deps.sh bench
	RELEASE_FLAGS="$(RELEASE_FLAGS)" scripts/bench.sh

clean:
	rm -rf .build .build-portable public .bench
