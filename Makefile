# nouvelle front door (QEMU-style, over Meson).
#
#   make demo    install what is missing, build, run nvl's main job on the model
#   make check   install what is missing, build with sanitizers, run every test
#   make bench BENCH="--json sync"   release build, run nvl bench with BENCH
#
# Build directories: build/release, build/check (ASan+UBSan),
# build/tsan (ThreadSanitizer, concurrency suites), build/fuzz (clang libFuzzer).

MESON ?= meson
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 30
BENCH ?= --json
B := build

.PHONY: all demo check bench deps deps-check release check-asan check-tsan \
	check-fuzz clean format

all: release

deps:
	@scripts/deps.sh build

deps-check:
	@scripts/deps.sh check

$(B)/release/build.ninja:
	$(MESON) setup $(B)/release -Dbuildtype=release -Dtests=false >&2

release: deps $(B)/release/build.ninja
	ninja -C $(B)/release -j $(JOBS) >&2

demo: release
	$(B)/release/tools/nvl/nvl demo

bench: release
	@$(B)/release/tools/nvl/nvl bench $(BENCH)

$(B)/check/build.ninja:
	$(MESON) setup $(B)/check -Dbuildtype=debug -Db_sanitize=address,undefined \
		-Dwerror=true

$(B)/tsan/build.ninja:
	$(MESON) setup $(B)/tsan -Dbuildtype=debugoptimized -Db_sanitize=thread \
		-Dconcurrency_only=true

$(B)/fuzz/build.ninja:
	CC=clang $(MESON) setup $(B)/fuzz -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false -Dfuzz=true -Dtests=false \
		-Dc_args=-fsanitize=fuzzer-no-link

check-asan: deps-check $(B)/check/build.ninja
	ninja -C $(B)/check -j $(JOBS)
	-$(MESON) test -C $(B)/check --num-processes $(JOBS) --print-errorlogs

check-tsan: deps-check $(B)/tsan/build.ninja
	ninja -C $(B)/tsan -j $(JOBS)
	-$(MESON) test -C $(B)/tsan --suite concurrency --num-processes $(JOBS) --print-errorlogs

check-fuzz: deps-check $(B)/fuzz/build.ninja
	ninja -C $(B)/fuzz -j $(JOBS)
	@scripts/run-fuzz.sh $(B)/fuzz $(FUZZ_SECONDS) > $(B)/fuzz-results.txt

check: deps-check
	@rm -f $(B)/fuzz-results.txt
	$(MAKE) --no-print-directory check-asan check-tsan check-fuzz
	@scripts/test-summary.py $(B)/check $(B)/tsan --fuzz $(B)/fuzz-results.txt

format:
	@scripts/format.sh

clean:
	rm -rf $(B)
