#!/usr/bin/env bash
# Installs what blog needs on Debian 12 (apt) or macOS (Homebrew), only what is missing.
#   scripts/install-deps.sh          build dependencies (C libraries, pkg-config)
#   scripts/install-deps.sh test     also the test tools (Chromium, its driver, a Japanese font for
#                                    looking at pages, Java, Python packages, KaTeX for
#                                    scripts/katex-golden.js)
#   scripts/install-deps.sh bench    also the benchmark peers (hugo, valgrind, hyperfine)
# apt-get is used when a package is missing; sudo only when not root.
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then
  # The same C libraries from Homebrew; the Swift toolchain comes with Xcode.
  formulae=(pkg-config cmark libyaml libmicrohttpd mimalloc)
  missing=()
  for formula in "${formulae[@]}"; do
    brew list --versions "$formula" >/dev/null 2>&1 || missing+=("$formula")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    command -v brew >/dev/null 2>&1 || { echo "install-deps: missing ${missing[*]}; install Homebrew (https://brew.sh) or them by hand" >&2; exit 1; }
    echo "install-deps: brew install ${missing[*]}" >&2
    brew install "${missing[@]}"
  fi
  if [ "${1:-}" != "" ]; then
    echo "install-deps: the '$1' tools are installed on Debian only; on macOS 'make build' and 'swift test' work" >&2
    exit 1
  fi
  command -v swift >/dev/null 2>&1 || { echo "install-deps: the Swift 6 toolchain is required (install Xcode)" >&2; exit 1; }
  exit 0
fi

# libcurl4-openssl-dev: the headers of libcurl, which blog loads only when it fetches (blog import qiita).
want=(pkg-config libcmark-dev libyaml-dev libmicrohttpd-dev libmimalloc-dev libcurl4-openssl-dev)
case "${1:-}" in
  test) want+=(chromium chromium-driver default-jre-headless python3-venv fonts-ipafont-gothic katex strace) ;;
  bench) want+=(hugo hyperfine time) ;;
esac

missing=()
for pkg in "${want[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ "${#missing[@]}" -gt 0 ]; then
  if command -v apt-get >/dev/null 2>&1; then
    sudo_cmd=()
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
    echo "install-deps: installing ${missing[*]}" >&2
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "install-deps: missing ${missing[*]} and apt-get is not available; install them by hand" >&2
    exit 1
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "install-deps: the Swift 6 toolchain is required (swift not found on PATH)" >&2
  exit 1
fi

if [ "${1:-}" = "test" ]; then
  # Python tools for the browser, feed and HTML checks, in a venv inside the checkout.
  venv=".venv"
  if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" 2>/dev/null || python3 -m venv --without-pip "$venv"
  fi
  reqs=scripts/test-requirements.txt
  stamp="$venv/.requirements"
  if ! cmp -s "$reqs" "$stamp" 2>/dev/null; then
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$reqs"
    cp "$reqs" "$stamp"
  fi
fi
