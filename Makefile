# Thin wrapper over CMake. `make run` and `make test` work on a fresh Debian 12 as root.
JOBS ?= $(shell nproc)
BUILD ?= build
ASAN_BUILD ?= build-asan

.PHONY: all deps build build-asan run test unit fuzz bench format clean install

all: build

deps:
	@bash scripts/install-deps.sh

build:
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-asan:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DFLOE_SANITIZE=ON >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

run: deps build
	@bash scripts/run.sh

test: deps
	@bash scripts/test.sh

unit: build
	@cd $(BUILD) && ctest --output-on-failure -L unit -j $(JOBS)

fuzz: deps
	@bash scripts/fuzz.sh

bench: deps build
	@bash bench/run.sh

format:
	@find src include tests fuzz bench -name '*.[ch]' | xargs clang-format -i

# `make install [PREFIX=/usr/local] [DESTDIR=/stage]`: the floe binary, libfloe (static and shared) and
# include/floe/*.h, floe.pc and the man pages (from --help), through CMake's install rules over the build.
PREFIX ?= /usr/local
install: build
	@DESTDIR="$(DESTDIR)" cmake --install $(BUILD) --prefix "$(PREFIX)"

clean:
	@rm -rf $(BUILD) $(ASAN_BUILD) build-fuzz
