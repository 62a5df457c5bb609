// blog-bench: micro-benchmarks used by `make bench` (scripts/bench.sh). Not part of the product.
//
//   blog-bench markdown  SITE_DIR [--passes N]   Qiita Markdown (dialect + highlighting) vs plain cmark
//   blog-bench markdown-dump SITE_DIR OUT_FILE     every rendered Markdown output in one file (byte-identity checks)
//   blog-bench templates SITE_DIR [--passes N]   template rendering throughput inside the site pipeline
//   blog-bench search    SITE_DIR [--query Q]... search index size and bytes a browser fetches per query
//   blog-bench http      SITE_DIR                   requests per second of the preview server
//   blog-bench watch     SITE_DIR [--passes N]     the polling watcher's idle cost and edit latency
//   blog-bench files     BUILT_SITE NEW_DIR        the file system alone: a built site's folders and files made again
//   blog-bench memory    [MB]                      what fresh memory costs (first touch vs reuse)
//   blog-bench math      CORPUS.tex [--passes N]   TeX-to-MathML throughput
//
// Each subcommand prints a readable report on stderr and one JSON object on stdout (for bench.sh).
// Timings are the median of N passes (default 3) and single-threaded unless they say otherwise.
// Each subcommand lives in its own file (markdown-dump in MarkdownDump.swift; the load generator `http`
// drives is HTTPLoad.swift); this one only dispatches.
import Foundation

if CommandLine.arguments.dropFirst().first == "memory" {
    #if os(Linux)
    benchMemory(Array(CommandLine.arguments.dropFirst(2)))
    exit(0)
    #else
    fail("blog-bench memory measures Linux's transparent huge pages")
    #endif
}
let arguments = Arguments(Array(CommandLine.arguments.dropFirst()))
switch arguments.command {
case "markdown": benchMarkdown(arguments)
case "markdown-dump": dumpMarkdown(arguments)
case "templates": benchTemplates(arguments)
case "search": benchSearch(arguments)
case "http": benchHTTP(arguments)
case "files": benchFiles(arguments)
case "math": benchMath(arguments)
case "watch": benchWatch(arguments)
default: fail("unknown benchmark '\(arguments.command)'; use markdown, markdown-dump, templates, search, http, files, math, watch or memory", code: 64)
}
