#!/usr/bin/env bash
# Benchmarks blog on generated Qiita-style corpora, side by side with Hugo when it is installed.
#
#   scripts/bench.sh            1,000 and 10,000 posts, median of 3 runs (about 10 minutes on 2 cores)
#   scripts/bench.sh --quick    1,000 posts, 1 run (for trying things)
#   scripts/bench.sh --huge     also 100,000 posts (1 run, no Hugo; long: see docs/benchmarks.md)
#
# Other options: --runs N, --no-hugo, --no-serve, --seed N, --no-build (use the existing release build).
# Corpora are generated into .bench/ (ignored by git) by scripts/gen_corpus.py and reused when the
# post count, seed, size and generator are the same. Results: a table on stdout, .bench/results.json,
# and a Markdown table to paste into README.md. `make bench` installs hugo, hyperfine and time first.
set -euo pipefail

cd "$(dirname "$0")/.."
root=$PWD

usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }

sizes=(1000 10000)
runs=3
seed=1
post_size=8000
build=1
extra=()
command_line="scripts/bench.sh${*:+ $*}"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) sizes=(1000); runs=1 ;;
    --huge) sizes+=(100000) ;;
    --runs) shift; runs=${1:?--runs needs a number} ;;
    --seed) shift; seed=${1:?--seed needs a number} ;;
    --no-hugo|--no-serve) extra+=("$1") ;;
    --no-build) build=0 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "bench: unknown option '$1'" >&2; usage >&2; exit 64 ;;
  esac
  shift
done

for tool in python3 /usr/bin/time; do
  command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool is required (make bench installs it)" >&2; exit 1; }
done

# The Makefile passes its RELEASE_FLAGS; run by hand, the same default.
release_flags=${RELEASE_FLAGS:-"-Xswiftc -static-stdlib"}
if [ "$build" = 1 ]; then
  echo "bench: building release binaries" >&2
  # the same flags as `make build` (the Makefile's RELEASE_FLAGS), so neither rebuilds the other's work
  swift build -c release --product blog $release_flags >&2
  swift build -c release --product blog-bench $release_flags >&2
fi
bin=$(swift build -c release $release_flags --show-bin-path)
for exe in blog blog-bench; do
  [ -x "$bin/$exe" ] || { echo "bench: $bin/$exe is missing (run without --no-build)" >&2; exit 1; }
done

mkdir -p .bench
generator_hash=$(sha256sum scripts/gen_corpus.py | cut -c1-16)
corpus_args=()
for n in "${sizes[@]}"; do
  dir=".bench/corpus-$n-s$seed"
  stamp="posts=$n seed=$seed size=$post_size generator=$generator_hash"
  if [ ! -f "$dir/.stamp" ] || [ "$(cat "$dir/.stamp")" != "$stamp" ]; then
    echo "bench: generating $n posts into $dir" >&2
    rm -rf "$dir"
    date +%s > .bench/.last-delete # run.py waits for freed inodes to settle (see GARBAGE there)
    python3 scripts/gen_corpus.py "$dir" --posts "$n" --seed "$seed" --size "$post_size"
    printf '%s\n' "$stamp" > "$dir/.stamp"
  fi
  corpus_args+=(--corpus "$n=$root/$dir")
done

# A math-heavy archive (1,000 posts, formulas in every prose paragraph): what MathML costs a build.
math_dir=".bench/corpus-1000-math-s$seed"
math_stamp="posts=1000 seed=$seed size=$post_size math generator=$generator_hash"
if [ ! -f "$math_dir/.stamp" ] || [ "$(cat "$math_dir/.stamp")" != "$math_stamp" ]; then
  echo "bench: generating a math-heavy archive into $math_dir" >&2
  rm -rf "$math_dir"
  date +%s > .bench/.last-delete
  python3 scripts/gen_corpus.py "$math_dir" --posts 1000 --seed "$seed" --size "$post_size" --math
  printf '%s\n' "$math_stamp" > "$math_dir/.stamp"
fi

python3 scripts/bench/run.py --blog "$bin/blog" --bench "$bin/blog-bench" "${corpus_args[@]}" \
  --math-corpus "$root/$math_dir" --runs "$runs" --json .bench/results.json --command "$command_line" --work "$root/.bench" \
  ${extra[@]+"${extra[@]}"}

# Search in a real browser on the largest site built above (needs the test venv and Chromium).
largest=${sizes[${#sizes[@]}-1]}
if [ -x .venv/bin/python ] && [ -d ".bench/out-$largest/search" ]; then
  echo "== search in the browser, $largest posts"
  .venv/bin/python scripts/bench/search_browser.py ".bench/out-$largest" --json .bench/search-browser.json
else
  echo "search in the browser: skipped (run 'make test-deps' for the venv with selenium)"
fi
