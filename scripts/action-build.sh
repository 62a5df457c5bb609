#!/usr/bin/env bash
# The build steps of blog's GitHub Action (action.yml), runnable anywhere:
#   scripts/action-build.sh cache-key   prints the key the action caches blog's .build folder under
#   scripts/action-build.sh build       installs the libraries, builds blog, builds the site
# Settings come from the environment (the action passes its inputs):
#   BLOG_SOURCE         the site folder (default: .)
#   BLOG_OUTPUT         the output folder (default: public inside the site folder)
#   BLOG_BASE_URL       the site's address (default: base_url from blog.yml)
#   BLOG_DRAFTS         true to include drafts
#   BLOG_CONFIGURATION  release (default) or debug: how blog itself is compiled
#   BLOG_BUILD_PATH     where blog is compiled (default: .build in blog's checkout)
# blog is compiled from the checkout this script belongs to; the site folder is never written to
# except for its output folder. `make test` runs it end to end on a site made by `blog init`.
set -euo pipefail

blog_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

cache_key() {
  # The toolchain and blog's own sources: a new ref or a new Swift gets a new cache.
  local toolchain sources
  toolchain=$(swift --version 2>&1 | sha256sum | cut -c1-16)
  sources=$(cd "$blog_root" && find Package.swift Package.resolved Sources Plugins themes -type f 2>/dev/null \
    | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16)
  echo "blog-build-$(uname -s)-$(uname -m)-$toolchain-$sources"
}

build() {
  local source=${BLOG_SOURCE:-.}
  local output=${BLOG_OUTPUT:-$source/public}
  local configuration=${BLOG_CONFIGURATION:-release}
  case "$configuration" in release|debug) ;; *) echo "action-build: BLOG_CONFIGURATION must be release or debug, not '$configuration'" >&2; exit 64 ;; esac
  if [ ! -f "$source/blog.yml" ]; then
    echo "action-build: $source/blog.yml not found: 'source' must be the site's folder (made by blog init)" >&2
    exit 66
  fi

  echo "::group::Libraries"
  "$blog_root/scripts/install-deps.sh"
  echo "::endgroup::"

  local build_path=${BLOG_BUILD_PATH:-$blog_root/.build}
  mkdir -p "$build_path"
  build_path=$(cd "$build_path" && pwd)
  echo "::group::Compile blog ($configuration)"
  (cd "$blog_root" && swift build -c "$configuration" --product blog --build-path "$build_path")
  echo "::endgroup::"

  local args=(build --source "$source" --output "$output")
  if [ -n "${BLOG_BASE_URL:-}" ]; then
    # configure-pages gives the address without the final slash.
    args+=(--base-url "${BLOG_BASE_URL%/}/")
  fi
  case "${BLOG_DRAFTS:-false}" in
    true) args+=(--drafts) ;;
    false|"") ;;
    *) echo "action-build: drafts must be true or false, not '$BLOG_DRAFTS'" >&2; exit 64 ;;
  esac
  "$build_path/$configuration/blog" "${args[@]}"
  # blog's record of what it wrote stays out of the published site.
  rm -f "$output/.blog-manifest"

  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "output=$output" >> "$GITHUB_OUTPUT"
  fi
}

case "${1:-}" in
  cache-key) cache_key ;;
  build) build ;;
  *) echo "usage: scripts/action-build.sh cache-key|build" >&2; exit 64 ;;
esac
