# Islet: the two set-up commands are `make demo` and `make test`; both install what they need.
SHELL := /bin/bash
SWIFT ?= swift
export SWIFT_BACKTRACE := enable=no

# Debian packages the build, the tests and the demo need: pkg-config and the C libraries (the
# system-library targets), the fonts the renderer loads (fonts-terminus-otb: a test of the OTB
# fallback), libfaketime (clock-step tests), systemd (systemd-analyze checks the unit) and procps
# (the unit's /bin/kill, which systemd-analyze checks is there; a minimal Debian lacks it).
APT_PACKAGES := pkg-config libgpiod-dev libi2c-dev libfreetype-dev libfribidi-dev libpng-dev zlib1g-dev libdeflate-dev libmosquitto-dev libmicrohttpd-dev \
                xfonts-terminus xfonts-unifont fonts-terminus-otb faketime systemd procps
# The benchmarks also need a C compiler (the allocation counter), valgrind (instruction counts)
# and Python with venv (luma.oled for bench-compare).
BENCH_APT_PACKAGES := gcc valgrind python3 python3-venv mosquitto mosquitto-clients

BUILD_FLAGS ?=
PREFIX ?= /usr/local
# ARCH=arm64 on an amd64 machine: `make release`, `make deb` and `make test` cross-build in a
# Debian trixie root with Debian's own Swift (scripts/build-in-root.sh), into dist/arm64/; the
# arm64 programs and tests run under qemu-user. Unset, or this machine's architecture: native.
NATIVE_ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
ARCH ?= $(NATIVE_ARCH)
# The kernel's and uname's names for the same architectures (ARCH is often set for kernel builds).
override ARCH := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(ARCH)))
CROSS_SUITE ?= trixie
CROSS_APT_PACKAGES := mmdebstrap rsync qemu-user-static binfmt-support

.PHONY: all deps bench-deps deb-deps cross-deps root-deps toolchain build release deb deb-trixie test-swiftlang fuzz fuzz-build fuzz-replay fuzz-fast-build fuzz-campaign soak test test-mqtt test-web lint-web web-screenshots test-system test-pi test-tools demo bench bench-compare bench-bound link-order gallery install uninstall clean

all: build

# Without `swift` on PATH, Debian's own (swiftlang, trixie and later) is installed with apt; a
# 32-bit system is told it needs a 64-bit OS (scripts/toolchain.sh).
toolchain:
	@command -v $(SWIFT) >/dev/null 2>&1 || SWIFT=$(SWIFT) bash scripts/toolchain.sh

# $(call apt_ensure,PACKAGES): installs those not installed yet, with apt-get as root or through
# sudo; says what to run when neither is possible. Installed packages cost one dpkg-query each.
define apt_ensure
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if ! command -v apt-get >/dev/null 2>&1; then \
	    echo "islet: missing Debian packages:$$missing, and there is no apt-get here: install their equivalents by hand"; exit 1; fi; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; \
	  else echo "islet: missing Debian packages:$$missing. Neither root nor sudo: as root run 'apt-get install$$missing', then make again"; exit 1; fi; \
	  echo "islet: installing Debian packages:$$missing"; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || { \
	    echo "islet: apt-get could not install:$$missing (run '$${SUDO:+sudo }apt-get install$$missing' and read its message)"; exit 1; }; \
	fi
endef

deps: toolchain
	$(call apt_ensure,$(APT_PACKAGES))

bench-deps: deps
	$(call apt_ensure,$(BENCH_APT_PACKAGES))

# Builds everything, test bundles included, and fails on any compiler warning: the bar is zero.
build: deps
	@set -o pipefail; $(SWIFT) build --build-tests $(BUILD_FLAGS) 2>&1 | tee .build-log.txt || { echo "islet: the build failed (above)"; exit 1; }; \
	if grep -q 'warning:' .build-log.txt; then echo "islet: the build printed warnings (see above); the bar is zero."; exit 1; fi

DEB_APT_PACKAGES := dpkg-dev binutils
deb-deps: deps
	$(call apt_ensure,$(DEB_APT_PACKAGES))

# The cross builds need root (mmdebstrap, chroot) and qemu-user for the other architecture.
cross-deps:
	@case "$(ARCH)" in arm64) ;; \
	  armhf|armel|i386) echo "islet: ARCH=$(ARCH): Debian has no Swift for 32-bit $(ARCH); a Raspberry Pi runs Islet on the 64-bit Raspberry Pi OS (ARCH=arm64)"; exit 2 ;; \
	  *) echo "islet: ARCH=$(ARCH): this $(NATIVE_ARCH) machine cross-builds for arm64 only"; exit 2 ;; esac
	@[ "$(NATIVE_ARCH)" = amd64 ] || { echo "islet: cross builds are made on amd64; this is $(NATIVE_ARCH): leave ARCH unset"; exit 2; }
	$(call apt_ensure,$(CROSS_APT_PACKAGES))

# `make test` on a fresh minimal trixie root (mmdebstrap), from nothing: it installs Debian's own
# Swift (swiftlang 6.0.3, the compiler a Pi owner gets from apt) and the libraries itself, builds
# with zero warnings and passes, at native speed (scripts/test-fresh.sh). Needs root.
test-swiftlang: root-deps
	bash scripts/test-fresh.sh $(CROSS_SUITE)

root-deps:
	$(call apt_ensure,mmdebstrap rsync)

ifeq ($(ARCH),$(NATIVE_ARCH))
# The binaries users install: Swift runtime linked in, stripped, checked with the loader, in
# dist/bin (scripts/release.sh). They need Debian's libraries only, never the toolchain.
release: deps
	SWIFT=$(SWIFT) BUILD_FLAGS="$(BUILD_FLAGS)" bash scripts/release.sh

# The same release as a Debian package, dist/islet_<version>_<arch>.deb (scripts/deb.sh);
# DEB_VERSION=x.y.z overrides the version. Then: sudo apt install ./dist/islet_<version>_<arch>.deb
deb: deb-deps release
	SKIP_BUILD=1 bash scripts/deb.sh
else
# ARCH=arm64: both in one build in the trixie root: dist/arm64/bin and dist/arm64/islet_<v>_arm64.deb.
release deb: cross-deps
	ARCH=$(ARCH) bash scripts/build-in-root.sh $(CROSS_SUITE)
endif

# The release and package for another Debian release, built in a root made with mmdebstrap with
# this machine's toolchain: `make deb-trixie` for Raspberry Pi OS / Debian 13 (libgpiod 2.x), into
# dist/trixie/. Needs root (sudo) and Debian's repository.
deb-%: deb-deps
	$(call apt_ensure,mmdebstrap rsync)
	bash scripts/build-in-root.sh $*

ifeq ($(ARCH),$(NATIVE_ARCH))
test: build
	$(SWIFT) test --skip-build $(BUILD_FLAGS)
else
# ARCH=arm64: the whole suite built for arm64 in the trixie root, run under qemu-user.
test: cross-deps
	ARCH=$(ARCH) TASK=test bash scripts/build-in-root.sh $(CROSS_SUITE)
endif

# The preview draws one terminal column per pixel and two pixel rows per line, plus a border and
# a two-line legend: 130x36 for the default 128x64 panel. A smaller terminal garbles it: say so.
# The demo builds the programs only (not the test bundles), so it starts sooner on a Pi.
# It serves the web page on 127.0.0.1, on 8080 or the next free port up to 8099, from a config of
# its own in a temporary folder (no /etc/islet needed), and prints the page's address.
demo: deps
	$(SWIFT) build $(BUILD_FLAGS)
	@if [ -t 0 ] && read -r rows cols < <(stty size 2>/dev/null) && { [ "$$cols" -lt 130 ] || [ "$$rows" -lt 36 ]; }; then \
	  echo "islet: this terminal is $${cols}x$${rows}; the preview of a 128x64 panel needs 130x36. Enlarge it, or: make demo DEMO_ARGS='--size 128x32' (130x20)"; \
	  sleep 3; fi
	@port=; for p in $$(seq 8080 8099); do (exec 3<>/dev/tcp/127.0.0.1/$$p) 2>/dev/null || { port=$$p; break; }; done; \
	dir=$$(mktemp -d); trap 'rm -rf "$$dir"' EXIT; \
	if [ -n "$$port" ]; then printf '[web]\nlisten = 127.0.0.1:%s\n' "$$port" > "$$dir/isletd.conf"; \
	  echo "islet: the web page is on http://127.0.0.1:$$port/ ; isletctl is ./.build/debug/isletctl"; \
	else : > "$$dir/isletd.conf"; echo "islet: ports 8080-8099 are all taken: no web page this time"; fi; \
	sleep 2; ./.build/debug/isletd --config "$$dir/isletd.conf" --bus mock --buttons mock --preview terminal $(DEMO_ARGS)

# Benchmarks (docs/PERFORMANCE.md); not part of `make test`.
BENCH_DIR := .build/bench
BENCH_VENV := .venv-bench

$(BENCH_DIR)/libislet_alloccount.so: bench/alloc_count.c | bench-deps
	@mkdir -p $(BENCH_DIR)
	$(CC) -O2 -fPIC -shared -Wall -Wextra -o $@ $<

bench: bench-deps release $(BENCH_DIR)/libislet_alloccount.so
	LD_PRELOAD=$(abspath $(BENCH_DIR)/libislet_alloccount.so) ./.build/release/islet-bench --json bench.json $(BENCH_ARGS)

bench-compare: bench-deps release
	@mkdir -p $(BENCH_DIR)
	./.build/release/islet-bench export --frames $(BENCH_DIR)/frames.bin --json $(BENCH_DIR)/islet-side.json
	@if why=$$(bench/ensure_venv.sh $(BENCH_VENV)); then \
	  $(BENCH_VENV)/bin/python bench/luma_compare.py --ours $(BENCH_DIR)/islet-side.json --out bench-compare.json; \
	  $(BENCH_VENV)/bin/python bench/luma_init_compare.py --isletd dist/bin/isletd --out $(BENCH_DIR)/luma-init-compare.json; \
	else \
	  echo "bench-compare: skipping the luma.oled side: $$why"; \
	  python3 bench/luma_compare.py --ours $(BENCH_DIR)/islet-side.json --out bench-compare.json --no-luma "$$why"; \
	fi

# The release's code layout (scripts/link-order.txt, read by scripts/release.sh): the functions
# isletd runs through what the bench drives, profiled under valgrind (bench/link_order.py,
# docs/PERFORMANCE.md "Memory"). Regenerate after large changes, then make release.
link-order: bench-deps release
	$(call apt_ensure,valgrind)
	python3 bench/link_order.py

# How few bytes any SSD1306 command sequence could send for the countdown's frames: a lower bound
# and what a planner knowing every future frame would send (bench/plan_bound.c, PERFORMANCE.md).
bench-bound: bench-deps release
	@mkdir -p $(BENCH_DIR)
	./.build/release/islet-bench export --frames $(BENCH_DIR)/frames.bin --json $(BENCH_DIR)/islet-side.json
	$(CC) -O2 -Wall -Wextra -Werror -o $(BENCH_DIR)/plan_bound bench/plan_bound.c
	$(BENCH_DIR)/plan_bound $(BENCH_DIR)/frames.bin > bench-bound.json
	@cat bench-bound.json

# MQTT against Debian's mosquitto, started by the tests on loopback ports of their own, with
# mosquitto_pub/sub/rr and Debian's paho-mqtt (the rogue peer of test_untrusted.py) as the clients,
# a black-holed broker in a network namespace the test
# makes (root), and Home Assistant's own discovery schemas in a venv (.venv-mqtt, from PyPI).
# Slow cases (a last will needs a keep-alive of seconds) are why this is not in `make test`.
MQTT_APT_PACKAGES := mosquitto mosquitto-clients iproute2 openssl python3 python3-venv faketime python3-paho-mqtt
test-mqtt: deps
	$(call apt_ensure,$(MQTT_APT_PACKAGES))
	$(SWIFT) build $(BUILD_FLAGS)
	ISLET_BIN="$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))" python3 mqtt/run.py

# The web page (docs/WEB.md) in a real browser: Debian's chromium driven by Debian's chromedriver
# through Debian's python3-selenium (nothing is downloaded), against isletd on the mock bus, with
# curl and raw sockets for the HTTP cases (web/README.md). Closes with "N passed, M failed".
WEB_APT_PACKAGES := chromium chromium-driver python3-selenium curl openssl
WEB_PYTHON ?= /usr/bin/python3
test-web: deps
	$(call apt_ensure,$(WEB_APT_PACKAGES))
	$(SWIFT) build $(BUILD_FLAGS)
	ISLET_BIN="$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))" $(WEB_PYTHON) web/run.py

# The page's assets (Sources/IsletWeb/Assets) through real parsers (web/lint.py): the script as
# a browser's classic script by Node's V8, index.html by html5lib (the WHATWG parsing algorithm),
# each first shown a broken copy it must refuse. Half a second; not in `make test`, because a
# machine without node would get Debian's nodejs and its 46 MB libnode (.ci/run runs it).
lint-web:
	$(call apt_ensure,python3-html5lib $(if $(shell command -v node 2>/dev/null),,nodejs))
	$(WEB_PYTHON) web/lint.py

# The page's screenshots in docs/gallery (phone and desktop, English and Arabic), taken by that
# browser; not part of CI.
web-screenshots: deps
	$(call apt_ensure,$(WEB_APT_PACKAGES))
	$(SWIFT) build $(BUILD_FLAGS)
	ISLET_BIN="$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))" $(WEB_PYTHON) web/screenshots.py docs/gallery

# The Python tools' own tests: the system test's trace decoders and the bytes bound.
test-tools:
	python3 -m unittest discover -s systest -p 'test_*.py'
	python3 bench/test_plan_bound.py

# On the Pi: `make release` as yourself, then `sudo make install` (docs/HARDWARE.md).
# DRY_RUN=1 prints the steps; DESTDIR=dir stages the files; uninstall keeps state and an edited
# config unless PURGE=1.
install:
	PREFIX=$(PREFIX) SWIFT=$(SWIFT) bash scripts/install.sh

uninstall:
	PREFIX=$(PREFIX) bash scripts/uninstall.sh

# Contact sheets of every presentation, state, panel size and language (docs/gallery/*.png).
gallery: deps
	$(SWIFT) build --product islet-gallery $(BUILD_FLAGS)
	mkdir -p docs/gallery && "$$($(SWIFT) build --show-bin-path $(BUILD_FLAGS))/islet-gallery" docs/gallery

# libFuzzer over what isletd reads from outside (scripts/fuzz.py, docs/RELIABILITY.md). The
# targets are built apart (.build/fuzz) with ASan and the fuzzer's coverage; libFuzzer comes
# from the toolchain without its main (the target's own main hands it the command line).
FUZZ_LIB = $(shell d=$$(dirname "$$(readlink -f "$$(command -v $(SWIFT))")"); echo "$$d/../lib/swift/clang/lib/linux/libclang_rt.fuzzer_no_main-$$(uname -m).a")
fuzz-build: deps
	@test -f "$(FUZZ_LIB)" || { echo "islet: $(FUZZ_LIB) is missing: this Swift toolchain has no libFuzzer"; exit 1; }
	@set -o pipefail; $(SWIFT) build --product islet-fuzz --build-path .build/fuzz -Xswiftc -sanitize=address \
	  -Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xlinker "$(FUZZ_LIB)" -Xlinker -lstdc++ 2>&1 \
	  | grep -v "Cannot export local symbol '__asan" || true
	@test -x .build/fuzz/debug/islet-fuzz || { echo "islet: the fuzz build failed (above)"; exit 1; }

# Explores FUZZ_SECONDS (60) per target; `make fuzz-replay` is CI's fixed-seed, fixed-count run.
fuzz: fuzz-build
	FUZZ_SECONDS=$(or $(FUZZ_SECONDS),60) python3 scripts/fuzz.py explore

fuzz-replay: fuzz-build
	python3 scripts/fuzz.py replay

# The long campaign (docs/RELIABILITY.md, "Fuzzing"): a release build with the fuzzer's coverage
# and no ASan (.build/fuzz-fast, many times faster), FUZZ_CAMPAIGN_RUNS per target on one core.
fuzz-fast-build: deps
	@test -f "$(FUZZ_LIB)" || { echo "islet: $(FUZZ_LIB) is missing: this Swift toolchain has no libFuzzer"; exit 1; }
	$(SWIFT) build -c release --product islet-fuzz --build-path .build/fuzz-fast \
	  -Xswiftc -Xfrontend -Xswiftc -sanitize=fuzzer -Xswiftc -DFUZZING -Xlinker "$(FUZZ_LIB)" -Xlinker -lstdc++

fuzz-campaign: fuzz-fast-build
	FUZZ_BIN=.build/fuzz-fast/release/islet-fuzz nice -n 10 python3 scripts/fuzz.py campaign

# Kill -9 during churn, client abuse and bus faults against the release daemon
# (scripts/soak.py; SOAK_KILLS=100, SOAK_ABUSE_SECONDS=20), then the concurrency tests under
# ThreadSanitizer (its own build in .build/tsan): a report fails the run.
TSAN_FILTER := IsletCoreTests|ButtonsPollLoopTests|atomic file store|StateFileSafetyTests
soak: release
	$(call apt_ensure,strace python3)
	SOAK_BIN=.build/release python3 scripts/soak.py
	@set -o pipefail; $(SWIFT) build --build-tests --build-path .build/tsan --sanitize=thread $(BUILD_FLAGS) 2>&1 | tail -1
	@set -o pipefail; TSAN_OPTIONS=halt_on_error=1 $(SWIFT) test --skip-build --build-path .build/tsan --sanitize=thread \
	  --filter '$(TSAN_FILTER)' 2>&1 | tee .build/tsan/last.log | grep -E "ThreadSanitizer|Test run"; \
	if grep -q "WARNING: ThreadSanitizer" .build/tsan/last.log; then echo "islet: ThreadSanitizer reported a race (.build/tsan/last.log)"; exit 1; fi

# A real kernel and a live systemd under qemu: the .deb and make install in a bookworm guest
# (libgpiod 1.6) and a trixie guest (libgpiod 2.x, the package built as by make deb-trixie), side
# by side, driven through gpio-sim and i2c-stub (docs/SYSTEM-TEST.md). Needs root and Debian's
# apt. SYSTEST_ARGS='--guest bookworm' runs one. systest/run.py builds the releases and packages
# itself (make release deb for bookworm, scripts/build-in-root.sh for trixie). ARCH=arm64: one
# trixie guest under qemu-system-aarch64 (the arm64 package, cross-built).
test-system: deb-deps
	$(call apt_ensure,mmdebstrap rsync)
	python3 systest/run.py --arch $(ARCH) $(SYSTEST_ARGS)

# The Raspberry Pi 3's own I²C controller and driver (docs/SYSTEM-TEST.md, "The Pi 3 leg"): the
# arm64 package's binaries on QEMU 10's raspi3b (trixie's, from a root of its own) with Debian
# trixie's arm64 kernel and bcm2837-rpi-3-b.dtb, i2c-bcm2835 on /dev/i2c-1 (plain I²C: I2C_RDWR),
# QEMU's I²C trace decoded against isletctl render. Needs root and Debian's apt. PI_ARGS: see
# systest/pi.py --help.
PI_APT_PACKAGES := mmdebstrap qemu-user-static binfmt-support cpio xz-utils kmod util-linux python3
test-pi:
	$(call apt_ensure,$(PI_APT_PACKAGES))
	$(MAKE) deb ARCH=arm64
	python3 systest/pi.py $(PI_ARGS)

clean:
	rm -rf .build .build-log.txt dist
