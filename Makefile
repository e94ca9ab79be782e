# Islet: the two set-up commands are `make demo` and `make test`; both install what they need.
SHELL := /bin/bash
SWIFT ?= swift
export SWIFT_BACKTRACE := enable=no

# Debian packages the build, the tests and the demo need (C libraries, fonts, test tools).
APT_PACKAGES := pkg-config libgpiod-dev libi2c-dev libfreetype-dev libfribidi-dev libpng-dev \
                xfonts-terminus xfonts-unifont faketime systemd

BUILD_FLAGS ?=
PREFIX ?= /usr/local

.PHONY: all deps toolchain build release test demo bench bench-compare gallery install uninstall clean

all: build

toolchain:
	@command -v $(SWIFT) >/dev/null 2>&1 || { \
	  echo "islet: the Swift toolchain (swift) is not on PATH."; \
	  echo "       Debian packages no Swift compiler: see 'Installing the Swift toolchain' in README.md."; \
	  exit 69; }

deps: toolchain
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "islet: installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=""; \
	  elif command -v sudo >/dev/null 2>&1; then SUDO="sudo"; \
	  else echo "islet: missing packages:$$missing; run as root or install sudo, then: apt-get install$$missing"; exit 1; fi; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || { \
	    echo "islet: apt-get could not install:$$missing"; exit 1; }; \
	fi

# Builds everything, test bundles included, and fails on any compiler warning: the bar is zero.
build: deps
	@set -o pipefail; $(SWIFT) build --build-tests $(BUILD_FLAGS) 2>&1 | tee .build-log.txt; \
	if grep -q 'warning:' .build-log.txt; then echo "islet: the build printed warnings (see above); the bar is zero."; exit 1; fi

release: deps
	$(SWIFT) build -c release $(BUILD_FLAGS)

test: build
	$(SWIFT) test --skip-build $(BUILD_FLAGS)

demo: build
	./.build/debug/isletd --bus mock --buttons mock --preview terminal $(DEMO_ARGS)

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

clean:
	rm -rf .build .build-log.txt
