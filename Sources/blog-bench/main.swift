// blog-bench: micro-benchmarks used by `make bench` (scripts/bench.sh). Not part of the product.
//
//   blog-bench markdown  SITE_DIR [--passes N]   Qiita Markdown (dialect + highlighting) vs plain cmark
//   blog-bench markdown-dump SITE_DIR OUT_FILE     every rendered Markdown output in one file (byte-identity checks)
//   blog-bench templates SITE_DIR [--passes N]   template rendering throughput inside the site pipeline
//   blog-bench search    SITE_DIR [--query Q]... search index size and bytes a browser fetches per query
//   blog-bench files     BUILT_SITE NEW_DIR        the file system alone: a built site's folders and files made again
//   blog-bench memory    [MB]                      what fresh memory costs on this machine (first touch vs reuse)
//
// Each subcommand prints a readable report on stderr and one JSON object on stdout (for bench.sh).
// Timings are the median of N passes (default 3) and single-threaded unless they say otherwise.
import BlogContent
import BlogCore
import BlogMarkdown
import BlogMath
import BlogMustache
import BlogSearch
import BlogSite
import BlogServer
import CCmark
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Small helpers

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data(("blog-bench: " + message + "\n").utf8))
    exit(code)
}

func say(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// CPU time of the calling thread (not counting time the machine gave to other jobs).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU time of the whole process (all threads), user + system.
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs `body` `passes` times and returns the median duration in seconds.
func medianTime(passes: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<max(1, passes) {
        let start = monotonicSeconds()
        try body()
        samples.append(monotonicSeconds() - start)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// A tiny JSON value for the machine-readable line (keys keep insertion order).
indirect enum JSON {
    case number(Double)
    case int(Int)
    case string(String)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])
    case null

    var text: String {
        switch self {
        case .number(let d): return d.isFinite ? String(format: "%.6g", d) : "null"
        case .int(let i): return String(i)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .string(let s):
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\t": out += "\\t"
                default:
                    if scalar.value < 0x20 { out += String(format: "\\u%04x", scalar.value) } else { out.unicodeScalars.append(scalar) }
                }
            }
            return out + "\""
        case .array(let items): return "[" + items.map(\.text).joined(separator: ",") + "]"
        case .object(let pairs): return "{" + pairs.map { JSON.string($0.0).text + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }
}

func emit(_ value: JSON) {
    print(value.text)
}

struct Arguments {
    var command: String
    var site: URL
    var passes = 3
    var queries: [String] = []
    /// Positionals after SITE_DIR (only `markdown-dump` takes one: the output file).
    var extra: [String] = []

    init(_ argv: [String]) {
        let usage = "usage: blog-bench <markdown|templates|search|http|watch> SITE_DIR [--passes N] [--query Q]...\n"
            + "       blog-bench markdown-dump SITE_DIR OUT_FILE\n       blog-bench files BUILT_SITE NEW_DIR\n"
            + "       blog-bench memory [MB]\n       blog-bench math CORPUS.tex [--passes N]"
        var positionals: [String] = []
        var i = 0
        while i < argv.count {
            let a = argv[i]
            switch a {
            case "--passes":
                i += 1
                guard i < argv.count, let n = Int(argv[i]), n > 0 else { fail("--passes needs a positive number\n" + usage, code: 64) }
                passes = n
            case "--query":
                i += 1
                guard i < argv.count else { fail("--query needs a value\n" + usage, code: 64) }
                queries.append(argv[i])
            case "-h", "--help":
                say(usage)
                exit(0)
            default:
                if a.hasPrefix("-") { fail("unknown option \(a)\n" + usage, code: 64) }
                positionals.append(a)
            }
            i += 1
        }
        guard positionals.count == 2 || (positionals.count == 3 && ["markdown-dump", "files"].contains(positionals.first)) else { fail(usage, code: 64) }
        command = positionals[0]
        site = URL(fileURLWithPath: positionals[1]).standardizedFileURL
        extra = Array(positionals.dropFirst(2))
    }
}

func loadConfig(_ site: URL) -> SiteConfig {
    do {
        return try SiteConfig.load(siteDirectory: site, console: nil)
    } catch {
        fail("cannot read \(site.path)/blog.yml: \(error)")
    }
}

func buildSite(_ site: URL) -> BuiltSite {
    do {
        return try SiteBuilder.build(BuildOptions(siteDirectory: site), console: nil)
    } catch let list as DiagnosticList {
        fail("the site does not build: \(list)")
    } catch {
        fail("the site does not build: \(error)")
    }
}

// MARK: - markdown

/// Every post body of the corpus (front matter split off), rendered by the Qiita renderer and by
/// plain cmark. Plain cmark is libcmark's `cmark_markdown_to_html` called directly (CMARK_OPT_UNSAFE,
/// no hard breaks), the floor any Markdown renderer on top of cmark pays.
func benchMarkdown(_ args: Arguments) {
    let config = loadConfig(args.site)
    let loader = ContentLoader(siteDirectory: args.site, config: config)
    var bodies: [String] = []
    for relative in ((try? loader.markdownFiles()) ?? []) {
        let url = args.site.appendingPathComponent(relative)
        guard let data = FileManager.default.contents(atPath: url.path) else { fail("cannot read \(relative)") }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = try? SplitDocument.split(text, path: relative) else { fail("cannot split front matter of \(relative)") }
        bodies.append(split.body)
    }
    let bytes = bodies.reduce(0) { $0 + $1.utf8.count }
    let qiita = MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe,
                                                          qiitaExtensions: true, highlightCode: true))
    let noHighlight = MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe,
                                                                qiitaExtensions: true, highlightCode: false))
    let plainOptions = MarkdownRenderer(options: MarkdownOptions(hardBreaks: false, unsafeHTML: true, qiitaExtensions: false, highlightCode: false))

    var sink = 0
    // Warm up caches and lazily built tables once, outside the timed passes.
    for body in bodies.prefix(20) { sink &+= qiita.render(body).html.utf8.count }

    // BLOG_BENCH_MARKDOWN_ONLY=raw|qiita runs one side only (for profiling with callgrind or perf).
    let only = ProcessInfo.processInfo.environment["BLOG_BENCH_MARKDOWN_ONLY"]
    if let only {
        let t = medianTime(passes: args.passes) {
            for body in bodies {
                if only == "raw" {
                    body.withCString { pointer in
                        if let out = cmark_markdown_to_html(pointer, strlen(pointer), CMARK_OPT_DEFAULT | CMARK_OPT_UNSAFE) {
                            sink &+= strlen(out)
                            free(out)
                        }
                    }
                } else {
                    let r = qiita.render(body)
                    sink &+= r.html.utf8.count &+ r.plainText.utf8.count &+ r.headings.count &+ r.links.count
                }
            }
        }
        say(String(format: "markdown: %@ only, %.3f s (sink %d)", only, t, sink))
        return
    }
    // The four variants run in turn within each pass (raw, plain, dialect, full, raw, ...), so that a
    // change in the machine's load hits all of them alike; wall and thread CPU time, median per variant.
    let variants: [() -> Void] = [
        {
            for body in bodies {
                body.withCString { pointer in
                    if let out = cmark_markdown_to_html(pointer, strlen(pointer), CMARK_OPT_DEFAULT | CMARK_OPT_UNSAFE) {
                        sink &+= strlen(out)
                        free(out)
                    }
                }
            }
        },
        { for body in bodies { sink &+= plainOptions.render(body).html.utf8.count } },
        { for body in bodies { sink &+= noHighlight.render(body).html.utf8.count } },
        { for body in bodies { sink &+= qiita.render(body).html.utf8.count } },
    ]
    var wall = [[Double]](repeating: [], count: variants.count)
    var cpu = [[Double]](repeating: [], count: variants.count)
    for _ in 0..<max(1, args.passes) {
        for (k, run) in variants.enumerated() {
            let (w, c) = (monotonicSeconds(), threadCPUSeconds())
            run()
            wall[k].append(monotonicSeconds() - w)
            cpu[k].append(threadCPUSeconds() - c)
        }
    }
    func median(_ xs: [Double]) -> Double { let s = xs.sorted(); return s[s.count / 2] }
    let rawCmark = median(wall[0]), plain = median(wall[1]), dialect = median(wall[2]), full = median(wall[3])
    let rawCPU = median(cpu[0]), plainCPU = median(cpu[1]), dialectCPU = median(cpu[2]), fullCPU = median(cpu[3])
    let mb = Double(bytes) / 1_000_000
    say(String(format: "markdown: %d bodies, %.1f MB, median of %d interleaved passes, 1 thread (wall / thread CPU)", bodies.count, mb, args.passes))
    say(String(format: "  cmark_markdown_to_html (raw C)           %8.3f s / %6.3f s  %7.1f MB/s", rawCmark, rawCPU, mb / rawCmark))
    say(String(format: "  MarkdownRenderer, plain options          %8.3f s / %6.3f s  %7.1f MB/s", plain, plainCPU, mb / plain))
    say(String(format: "  MarkdownRenderer, Qiita, no highlighting %8.3f s / %6.3f s  %7.1f MB/s", dialect, dialectCPU, mb / dialect))
    say(String(format: "  MarkdownRenderer, Qiita + highlighting   %8.3f s / %6.3f s  %7.1f MB/s  (%.2f× raw cmark wall, %.2f× CPU)",
                full, fullCPU, mb / full, full / rawCmark, fullCPU / rawCPU))
    if sink == 42 { say("") }  // keeps the work observable
    emit(.object([
        ("bench", .string("markdown")), ("posts", .int(bodies.count)), ("bytes", .int(bytes)), ("passes", .int(args.passes)),
        ("raw_cmark_s", .number(rawCmark)), ("plain_renderer_s", .number(plain)),
        ("qiita_no_highlight_s", .number(dialect)), ("qiita_s", .number(full)),
        ("qiita_mb_s", .number(mb / full)), ("raw_cmark_mb_s", .number(mb / rawCmark)),
        ("ratio_qiita_vs_raw_cmark", .number(full / rawCmark)),
        ("ratio_qiita_vs_plain_renderer", .number(full / plain)),
        ("raw_cmark_cpu_s", .number(rawCPU)), ("qiita_cpu_s", .number(fullCPU)),
        ("ratio_qiita_vs_raw_cmark_cpu", .number(fullCPU / rawCPU)),
    ]))
}

/// `blog-bench markdown-dump SITE_DIR OUT_FILE`: every Markdown file's rendered output (HTML, headings,
/// plain text, code text, links) with the site's options, highlighting on and off, in one file, to check
/// that an optimisation of BlogMarkdown leaves the output byte-identical (compare two dumps with `cmp`).
func dumpMarkdown(_ args: Arguments) {
    guard let outPath = args.extra.first else { fail("usage: blog-bench markdown-dump SITE_DIR OUT_FILE", code: 64) }
    let config = loadConfig(args.site)
    let loader = ContentLoader(siteDirectory: args.site, config: config)
    var out: [UInt8] = []
    for highlight in [true, false] {
        let renderer = MarkdownRenderer(options: MarkdownOptions(hardBreaks: config.markdownHardBreaks, unsafeHTML: config.markdownUnsafe,
                                                                 qiitaExtensions: true, highlightCode: highlight))
        for relative in ((try? loader.markdownFiles()) ?? []) {
            let url = args.site.appendingPathComponent(relative)
            guard let data = FileManager.default.contents(atPath: url.path) else { fail("cannot read \(relative)") }
            let text = String(decoding: data, as: UTF8.self)
            guard let split = try? SplitDocument.split(text, path: relative) else { fail("cannot split front matter of \(relative)") }
            let r = renderer.render(split.body)
            var block = "=== \(relative) highlight=\(highlight)\n--- html\n\(r.html)\n--- headings\n"
            for h in r.headings { block += "\(h.level) \(h.id) \(h.text)\n" }
            block += "--- plain\n\(r.plainText)\n--- code\n\(r.codeText)\n--- links\n"
            for l in r.links { block += "\(l.line) \(l.destination)\n" }
            out.append(contentsOf: block.utf8)
        }
    }
    guard FileManager.default.createFile(atPath: outPath, contents: Data(out)) else { fail("cannot write \(outPath)") }
    say("wrote \(out.count) bytes to \(outPath)")
}

// MARK: - templates

/// Template throughput two ways:
/// - inside the pipeline: `SiteBuilder.build`'s "render" phase (view models + Mustache, all cores)
///   over every HTML page, and its share of the in-memory build;
/// - the `post` template alone, one thread, against a post context shaped like the theme view model
///   (docs/themes.md), to separate the Mustache engine from view-model building.
func benchTemplates(_ args: Arguments) {
    var renderSeconds: [Double] = []
    var totalSeconds: [Double] = []
    var site: BuiltSite! = nil
    for _ in 0..<args.passes {
        site = buildSite(args.site)
        let render = site.timings.first { $0.phase == "render" }?.seconds ?? .nan
        renderSeconds.append(render)
        totalSeconds.append(site.timings.reduce(0) { $0 + $1.seconds })
    }
    func median(_ values: [Double]) -> Double { let s = values.sorted(); return s[s.count / 2] }
    let render = median(renderSeconds)
    let total = median(totalSeconds)
    let htmlPages = site.files.filter { $0.path.hasSuffix(".html") }.count
    let htmlBytes = site.files.filter { $0.path.hasSuffix(".html") }.reduce(0) { $0 + $1.bytes.count }
    let model = site.model

    // The post template alone.
    let config = model.config
    let theme: Theme
    do { theme = try Theme.load(siteDirectory: args.site, config: config) } catch { fail("theme: \(error)") }
    let language = config.language
    let tagValues: [MustacheValue] = model.tags.map { tag in
        .object(["name": .string(tag.name), "slug": .string(tag.slug), "url": .string(config.basePath + "tags/" + tag.slug + "/"),
                 "count": .int(tag.postIndices.count)])
    }
    let siteValue: MustacheValue = .object([
        "title": .string(config.title), "description": .string(config.description), "author": .string(config.author),
        "language": .string(language), "base_url": .string(config.baseURL), "base_path": .string(config.basePath),
        "feed_url": .string(config.basePath + "feed.xml"), "year": .int(2026), "generator": .string("blog " + BlogVersion.current),
    ])
    let asset = MustacheValue.lambda(MustacheLambda(section: { path in config.basePath + "assets/" + path }))
    var lang: [String: MustacheValue] = [:]
    for key in ["tags", "archive", "search", "search_placeholder", "newer", "older", "previous_post", "next_post", "related", "toc",
                "published", "updated", "minutes_suffix", "posts", "home"] {
        lang[key] = .string(key)
    }
    let contexts: [MustacheValue] = model.posts.indices.map { index in
        let post = model.posts[index]
        let url = config.basePath + "posts/" + post.slug + "/"
        let toc: [MustacheValue] = post.content.headings.map { .object(["level": .int($0.level), "text": .string($0.text), "id": .string($0.id)]) }
        let related: [MustacheValue] = model.related[index].map { other in
            .object(["title": .string(model.posts[other].title), "url": .string(config.basePath + "posts/" + model.posts[other].slug + "/"),
                     "date_iso": .string(model.posts[other].date.iso8601), "date_display": .string(model.posts[other].date.display(language: language))])
        }
        var postFields: [String: MustacheValue] = [
            "id": .string(post.id), "title": .string(post.title), "url": .string(url), "permalink": .string(config.baseURL + url.dropFirst()),
            "date_iso": .string(post.date.iso8601), "date_display": .string(post.date.display(language: language)),
            "summary": .string(post.summary), "reading_minutes": .int(post.readingMinutes),
            "tags": .array(model.postTags[index].map { tagValues[$0] }), "content": .string(post.content.html),
            "toc": .array(toc), "has_toc": .bool(toc.count >= config.tocMinHeadings), "has_updated": .bool(false),
            "related": .array(related), "has_related": .bool(!related.isEmpty),
        ]
        if index > 0 { postFields["next"] = .object(["title": .string(model.posts[index - 1].title), "url": .string(url)]) }
        if index + 1 < model.posts.count { postFields["prev"] = .object(["title": .string(model.posts[index + 1].title), "url": .string(url)]) }
        return .object([
            "site": siteValue, "asset": asset, "lang": .object(lang),
            "page": .object(["kind": "post", "title": .string(post.title), "url": .string(url), "is_post": true, "og_type": "article"]),
            "post": .object(postFields),
        ])
    }
    var outBytes = 0
    var buffer: [UInt8] = []
    buffer.reserveCapacity(1 << 16)
    let postOnly: Double
    do {
        postOnly = try medianTime(passes: args.passes) {
            outBytes = 0
            for context in contexts {
                buffer.removeAll(keepingCapacity: true)
                try theme.library.renderBytes("post", context, into: &buffer)
                outBytes += buffer.count
            }
        }
    } catch {
        fail("rendering the post template failed: \(error)")
    }
    let posts = model.posts.count
    say(String(format: "templates: %d posts, %d HTML pages (%.1f MB), median of %d passes", posts, htmlPages, Double(htmlBytes) / 1e6, args.passes))
    say(String(format: "  render phase (view models + Mustache, all cores) %7.3f s  %8.0f pages/s  %4.1f%% of the in-memory build (%.2f s)",
               render, Double(htmlPages) / render, 100 * render / total, total))
    say(String(format: "  post template alone (Mustache only, 1 thread)    %7.3f s  %8.0f posts/s  %6.1f MB/s",
               postOnly, Double(posts) / postOnly, Double(outBytes) / 1e6 / postOnly))
    emit(.object([
        ("bench", .string("templates")), ("posts", .int(posts)), ("html_pages", .int(htmlPages)), ("html_bytes", .int(htmlBytes)),
        ("passes", .int(args.passes)), ("render_s", .number(render)), ("build_in_memory_s", .number(total)),
        ("render_pages_per_s", .number(Double(htmlPages) / render)), ("render_share", .number(render / total)),
        ("post_template_s", .number(postOnly)), ("post_template_posts_per_s", .number(Double(posts) / postOnly)),
        ("post_template_mb_s", .number(Double(outBytes) / 1e6 / postOnly)),
        ("timings", .object(site.timings.map { ($0.phase, JSON.number($0.seconds)) })),
    ]))
}

// MARK: - search

/// What a browser downloads for one query with the static index (docs/search-index.md, "Queries"):
/// `search/meta.json`, the shards holding each lookup term (the last shard whose first term is ≤ the
/// term, UTF-16 order; every word of 2 or more characters also as a prefix, up to 2 shards), then
/// the document-store chunks of the first 10 results. Long CJK runs look up a cover of their bigrams
/// (every other one and the last). Results are ranked with `SearchScoring` without the phrase bonus
/// and prefix expansions, so the doc chunks counted can differ slightly from the page's; shards cannot.
struct StaticIndex {
    var files: [String: [UInt8]]
    var docs: Int
    var docChunk: Int
    var shardFirsts: [String]
    var weights: [Double]
    var k1: Double
    var b: Double
    var avgText: Double
    var norms: [Double]

    init?(files: [OutputFile]) {
        var map: [String: [UInt8]] = [:]
        for file in files where file.path.hasPrefix("search/") { map[file.path] = file.bytes }
        guard let meta = map["search/meta.json"],
              let object = try? JSONSerialization.jsonObject(with: Data(meta)) as? [String: Any],
              object["format"] as? String == "blog-search",
              let docs = (object["docs"] as? NSNumber)?.intValue, let chunk = (object["docChunk"] as? NSNumber)?.intValue,
              let shards = object["shards"] as? [Any] else { return nil }
        self.files = map
        self.docs = docs
        self.docChunk = max(1, chunk)
        // A list of first terms (format 1), or of [first term, size] pairs (an earlier draft).
        self.shardFirsts = shards.compactMap { ($0 as? String) ?? (($0 as? [Any])?.first as? String) }
        self.weights = (object["weights"] as? [NSNumber])?.map(\.doubleValue) ?? [6, 4, 2.5, 1, 0.7]
        self.k1 = (object["k1"] as? NSNumber)?.doubleValue ?? 1.2
        self.b = (object["b"] as? NSNumber)?.doubleValue ?? 0.75
        self.avgText = max(1, (object["avgText"] as? NSNumber)?.doubleValue ?? 1)
        let normText = Array((object["norms"] as? String ?? "").utf8)
        self.norms = normText.map { pow(2, Double(StaticIndex.digit[$0] ?? 0) / 4) - 1 }
    }

    func shard(for term: String) -> Int? {
        var lo = 0, hi = shardFirsts.count - 1, found: Int? = nil
        while lo <= hi {
            let mid = (lo + hi) / 2
            if term.utf16.lexicographicallyPrecedes(shardFirsts[mid].utf16) { hi = mid - 1 } else { found = mid; lo = mid + 1 }
        }
        return found
    }

    static let digit: [UInt8: Int] = {
        var m: [UInt8: Int] = [:]
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() { m[c] = i }
        return m
    }()

    /// doc → (field mask, body+code term frequency) for one term, or nil when the term is absent.
    func postings(_ term: String) -> [Int: Int]? {
        guard let s = shard(for: term), let bytes = files["search/shards/\(s).json"],
              let entries = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[Any]] else { return nil }
        guard let entry = entries.first(where: { $0.first as? String == term }), entry.count > 1,
              let encoded = entry[1] as? String else { return nil }
        let digits = Array(encoded.utf8).map { StaticIndex.digit[$0] ?? 0 }
        var i = 0
        func varint() -> Int {
            var value = 0, shift = 0
            while i < digits.count {
                let d = digits[i]; i += 1
                value |= (d & 31) << shift
                shift += 5
                if d & 32 == 0 { break }
            }
            return value
        }
        var result: [Int: Int] = [:]
        var doc = -1
        while i < digits.count {
            doc += varint() + 1
            result[doc] = varint()
            i += 1  // position residues
        }
        return result
    }

    struct QueryCost {
        var query: String
        var terms: [String]
        var files: [String]
        var bytes: Int
        var hits: Int
    }

    static func isCJK(_ word: Substring) -> Bool {
        word.unicodeScalars.allSatisfy { $0.value >= 0x3000 }
    }

    func cost(of query: String, topResults: Int = 10) -> QueryCost {
        var lookups: [(term: String, share: Double, group: Int)] = []
        for (group, word) in query.split(separator: " ").enumerated() {
            if word.hasPrefix("tag:") {
                lookups.append(("#" + SearchTokenizer.normalizeTag(String(word.dropFirst(4))), 0, -1))
                continue
            }
            let terms = SearchTokenizer.queryTerms(String(word))
            if StaticIndex.isCJK(word), terms.count > 1 {
                var cover = terms.count > 2 ? stride(from: 0, to: terms.count, by: 2).map { terms[$0] } : terms
                if terms.count > 2 && terms.count % 2 == 0 { cover.append(terms[terms.count - 1]) }
                lookups += zip(cover, SearchScoring.shares(lookupsPerWord: [cover.count])).map { ($0, $1, group) }
            } else {
                lookups += terms.enumerated().map { ($1, 1, group * 1000 + $0) }
            }
        }
        var unique: [String] = []
        var shares: [Double] = []
        var groups: [Int] = []
        for t in lookups where !unique.contains(t.term) { unique.append(t.term); shares.append(t.share); groups.append(t.group) }
        var fetched = ["search/meta.json"]
        func fetch(_ shard: Int) {
            let path = "search/shards/\(shard).json"
            if !fetched.contains(path) { fetched.append(path) }
        }
        var postingLists: [[Int: Int]] = []
        for term in unique {
            if let s = shard(for: term) { fetch(s) }
            postingLists.append(postings(term) ?? [:])
            // Every word also matches as a prefix: the shards from its own to the one holding term + U+FFFF, at most 2.
            if !term.hasPrefix("#"), !StaticIndex.isCJK(Substring(term)), term.count >= 2,
               let from = shard(for: term), let to = shard(for: term + "\u{FFFF}"), to > from {
                fetch(from + 1)
            }
        }
        // AND of all lookups, scored as the page does (without the phrase bonus).
        let scoring = SearchScoring(weights: weights, k1: k1, b: b, avgText: avgText)
        var matches: [SearchScoring.Match] = []
        if let first = postingLists.first {
            for doc in first.keys where postingLists.allSatisfy({ $0[doc] != nil }) {
                var score = 0.0
                var titleHasAll = true
                var wordInTitle: [Int: Bool] = [:]
                var bonuses: [(group: Int, bonus: Double)] = []
                let length = doc < norms.count ? norms[doc] : avgText
                for ((list, share), group) in zip(zip(postingLists, shares), groups) {
                    let value = list[doc]!
                    let idf = SearchScoring.idf(documents: docs, containing: list.count)
                    score += share * scoring.termScore(value: value, textLength: length, idf: idf)
                    if share > 0 {
                        if value & 1 == 0 { titleHasAll = false }
                        wordInTitle[group] = (wordInTitle[group] ?? true) && value & 1 != 0
                        bonuses.append((group, share * scoring.titleBonus(idf: idf)))
                    }
                }
                for b in bonuses where wordInTitle[b.group] == true { score += b.bonus }
                matches.append(SearchScoring.Match(doc: doc, score: score, titleHasAll: titleHasAll))
            }
        }
        let top = matches.sorted(by: SearchScoring.precedes).prefix(topResults).map { ($0.doc, $0.score) }
        var chunks: [Int] = []
        for (doc, _) in top where !chunks.contains(doc / docChunk) { chunks.append(doc / docChunk) }
        for chunk in chunks.sorted() { fetched.append("search/docs-\(chunk).json") }
        let bytes = fetched.reduce(0) { $0 + (files[$1]?.count ?? 0) }
        return QueryCost(query: query, terms: unique, files: fetched, bytes: bytes, hits: matches.count)
    }
}

let defaultQueries = ["Swift", "URLSession", "非同期処理", "JSONDecoder decode", "データ 保存", "パフォーマンス改善", "SwiftUI 通知", "tag:Swift 通知"]

func benchSearch(_ args: Arguments) {
    let site = buildSite(args.site)
    let searchFiles = site.files.filter { $0.path.hasPrefix("search/") }
    guard !searchFiles.isEmpty else {
        say("search: this build writes no search/ folder; skipped")
        emit(.object([("bench", .string("search")), ("skipped", .string("no search index in the build output"))]))
        return
    }
    let total = searchFiles.reduce(0) { $0 + $1.bytes.count }
    guard let index = StaticIndex(files: site.files) else {
        say("search: search/meta.json is missing or not in the blog-search format this bench reads; only the size is reported")
        emit(.object([("bench", .string("search")), ("index_bytes", .int(total)), ("index_files", .int(searchFiles.count)),
                      ("skipped", .string("unknown index format"))]))
        return
    }
    let queries = args.queries.isEmpty ? defaultQueries : args.queries
    let costs = queries.map { index.cost(of: $0) }
    let shardCount = index.shardFirsts.count
    let metaBytes = index.files["search/meta.json"]?.count ?? 0
    say(String(format: "search: %d posts, index %.2f MB in %d files (meta.json %.1f KB, %d shards)",
               index.docs, Double(total) / 1e6, searchFiles.count, Double(metaBytes) / 1e3, shardCount))
    for c in costs {
        say(String(format: "  %-22@ %5d hits  %2d files  %8.1f KB fetched", c.query as NSString, c.hits, c.files.count, Double(c.bytes) / 1e3))
    }
    // Index build times: analysis (tokenizing every post, all cores), the merge into files (a full
    // build, all cores) and a `blog serve`-style update after appending a line to one post.
    let documents = site.model.posts.map { post in
        SearchDocument(id: post.id, title: post.title, url: "/posts/\(post.slug)/", date: post.date.iso8601, tags: post.tags,
                       headings: post.content.headings.map(\.text), body: post.content.plainText, code: post.content.codeText,
                       summary: post.summary)
    }
    var analyzed: [AnalyzedDocument] = []
    // Wall time on all cores, and the process CPU time of the same passes (steadier on a busy machine).
    var analyzeCPU: [Double] = []
    let analyzeTime = medianTime(passes: args.passes) {
        let cpu = processCPUSeconds()
        analyzed = SearchIndexBuilder.analyzeAll(documents)
        analyzeCPU.append(processCPUSeconds() - cpu)
    }
    analyzeCPU.sort()
    let analyzeCPUTime = analyzeCPU[analyzeCPU.count / 2]
    var steps = ""
    let mergeTime = medianTime(passes: args.passes) {
        let state = SearchIndexState()
        _ = state.update(analyzed)
        steps = state.lastTimings.map { String(format: "%@ %.0f", $0.step, $0.seconds * 1000) }.joined(separator: ", ")
    }
    var updateTime = 0.0
    if !documents.isEmpty {
        let state = SearchIndexState()
        _ = state.update(analyzed)
        var edited = analyzed
        var times: [Double] = []
        for pass in 0..<max(3, args.passes) {
            var doc = documents[documents.count / 2]
            doc.body += "\n追記 \(pass): ベンチマークの編集です。"
            edited[documents.count / 2] = SearchIndexBuilder.analyze(doc)
            let started = monotonicSeconds()
            _ = state.update(edited)
            times.append(monotonicSeconds() - started)
        }
        updateTime = times.sorted()[times.count / 2]
    }
    say(String(format: "search: analyze %.0f ms (CPU %.0f ms), merge into files %.0f ms (%d cores), one-post update %.1f ms",
               analyzeTime * 1000, analyzeCPUTime * 1000, mergeTime * 1000, ProcessInfo.processInfo.activeProcessorCount, updateTime * 1000))
    say("  merge steps (ms): " + steps)
    emit(.object([
        ("bench", .string("search")), ("posts", .int(index.docs)), ("index_bytes", .int(total)), ("index_files", .int(searchFiles.count)),
        ("analyze_s", .number(analyzeTime)), ("analyze_cpu_s", .number(analyzeCPUTime)), ("merge_s", .number(mergeTime)), ("update_s", .number(updateTime)),
        ("meta_bytes", .int(metaBytes)), ("shards", .int(shardCount)),
        ("queries", .array(costs.map { c in
            .object([("query", .string(c.query)), ("terms", .array(c.terms.map { .string($0) })), ("hits", .int(c.hits)),
                     ("files", .array(c.files.map { .string($0) })), ("bytes", .int(c.bytes))])
        })),
    ]))
}

// MARK: - http

/// Requests per second of `blog serve`'s server (in memory, loopback, 4 client threads) for a small
/// file and for the home page.
func benchHTTP(_ args: Arguments) {
    let site = buildSite(args.site)
    var files: [String: [UInt8]] = [:]
    for file in site.files { files[file.path] = file.bytes }
    let store = SiteStore()
    store.publish(SiteSnapshot(files: files))
    let server: PreviewServer
    do {
        server = try PreviewServer(options: ServerOptions(port: 0), store: store)
        try server.start()
    } catch {
        fail("server: \(error)")
    }
    defer { server.stop() }
    var rows: [(String, BenchmarkResult, Int)] = []
    for path in ["/robots.txt", "/"] {
        _ = HTTPBenchmark.run(port: server.port, path: path, connections: 4, duration: 0.3)
        let result = HTTPBenchmark.run(port: server.port, path: path, connections: 4, duration: 2.0)
        let size = files[path == "/" ? "index.html" : String(path.dropFirst())]?.count ?? 0
        rows.append((path, result, size))
        say(String(format: "    http %-12@ %6d B  %8.0f requests/s  (%d requests, %d failed, 4 connections, keep-alive)",
                   path as NSString, size, result.requestsPerSecond, result.requests, result.failures))
    }
    emit(.object([("bench", .string("http")),
                  ("results", .array(rows.map { row in
                      .object([("path", .string(row.0)), ("bytes", .int(row.2)), ("requests_per_s", .number(row.1.requestsPerSecond)),
                               ("requests", .int(row.1.requests)), ("failures", .int(row.1.failures))])
                  }))]))
}

// MARK: - files

/// The file system's share of a build: makes the folders and files of an already built site again
/// in NEW_DIR (same tree, same sizes, zero bytes), the way blog's writer does: the folders parents
/// first on one thread, then the files on all cores (`openat`, `write`, `close`). No Markdown, no
/// templates: what this takes is the floor under `blog build`'s render phase on that file system.
func benchFiles(_ args: Arguments) {
    let source = args.site.path
    let target = URL(fileURLWithPath: args.extra[0]).standardizedFileURL.path
    var directories: [String] = []
    var files: [(path: String, size: Int)] = []
    guard let walker = FileManager.default.enumerator(atPath: source) else { fail("cannot read \(source)") }
    while let relative = walker.nextObject() as? String {
        var info = stat()
        guard lstat(source + "/" + relative, &info) == 0 else { fail("cannot stat \(relative) in \(source)") }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: directories.append(relative)
        case S_IFREG: files.append((relative, Int(info.st_size)))
        default: break
        }
    }
    guard !files.isEmpty else { fail("\(source) holds no files: give a built site") }
    directories.sort { $0.utf8.count < $1.utf8.count }
    guard mkdir(target, 0o755) == 0 else { fail("cannot create \(target): \(String(cString: strerror(errno)))") }
    let zeros = [UInt8](repeating: 0, count: files.map(\.size).max() ?? 0)
    func usage() -> (user: Double, system: Double) {
        var r = rusage()
        #if canImport(Glibc)
        getrusage(RUSAGE_SELF.rawValue, &r)
        #else
        getrusage(RUSAGE_SELF, &r)
        #endif
        func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return (s(r.ru_utime), s(r.ru_stime))
    }
    let root = open(target, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard root >= 0 else { fail("cannot open \(target)") }
    defer { close(root) }
    let cpu0 = usage(), start = monotonicSeconds()
    for directory in directories where mkdirat(root, directory, 0o755) != 0 {
        fail("cannot create \(directory): \(String(cString: strerror(errno)))")
    }
    let foldersDone = monotonicSeconds()
    let failures = Mutex()
    var failed = 0
    zeros.withUnsafeBytes { buffer in
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let file = files[index]
            let fd = openat(root, file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            var ok = fd >= 0
            var offset = 0
            while ok && offset < file.size {
                let count = write(fd, buffer.baseAddress! + offset, file.size - offset)
                if count <= 0 { ok = false } else { offset += count }
            }
            if fd >= 0 && close(fd) != 0 { ok = false }
            if !ok { failures.withLock { failed += 1 } }
        }
    }
    let end = monotonicSeconds(), cpu1 = usage()
    if failed > 0 { fail("\(failed) files could not be written under \(target)") }
    let bytes = files.reduce(0) { $0 + $1.size }
    say(String(format: "files: %d folders in %.3f s (one thread), %d files (%.1f MB) in %.3f s (%d cores); %.3f s in all, CPU %.2f s user + %.2f s system",
               directories.count, foldersDone - start, files.count, Double(bytes) / 1e6, end - foldersDone,
               ProcessInfo.processInfo.activeProcessorCount, end - start, cpu1.user - cpu0.user, cpu1.system - cpu0.system))
    emit(.object([
        ("bench", .string("files")), ("folders", .int(directories.count)), ("files", .int(files.count)), ("bytes", .int(bytes)),
        ("folders_s", .number(foldersDone - start)), ("files_s", .number(end - foldersDone)), ("wall_s", .number(end - start)),
        ("user_s", .number(cpu1.user - cpu0.user)), ("sys_s", .number(cpu1.system - cpu0.system)),
    ]))
}

// MARK: - memory

/// What fresh memory costs on this machine: maps MB (default 512) of anonymous memory, with huge
/// pages asked for as blog's malloc asks for them, and writes one byte in each 4 KB page: the
/// kernel finds and zeroes every page on the way. Three rounds in one process: the first takes
/// memory the system has had free for a while; the next two take the memory the round before just
/// gave back. In the first round a second mapping of the same size, with huge pages refused, is
/// touched the same way while the first is still mapped (so it cannot reuse that memory): what a
/// 4 KB page costs, which blog uses instead where it is cheaper (`HugePages`). A `memset` over
/// memory already mapped is the bandwidth for comparison. Under a hypervisor that takes a guest's
/// free memory back (free page reporting, ballooning), the first round pays for the host to hand
/// the memory over again (docs/benchmarks.md, "Ninth round" and "Twenty-second round").
#if os(Linux)
func benchMemory(_ argv: [String]) {
    let usage = "usage: blog-bench memory [MB]   (default 512)"
    if argv.contains("-h") || argv.contains("--help") { say(usage); exit(0) }
    guard argv.count <= 1, let megabytes = argv.first.map({ Int($0) }) ?? 512, megabytes > 0, megabytes <= 1 << 20 else { fail(usage, code: 64) }
    let size = megabytes << 20, huge = 2 << 20
    /// A mapping of `size` bytes aligned to 2 MB inside one of `size + huge` (so that every huge
    /// page the kernel can give lies inside the range), with huge pages asked for or refused.
    func map(hugePages: Bool) -> (mapped: UnsafeMutableRawPointer, base: UnsafeMutablePointer<UInt8>, advised: Bool) {
        guard let mapped = mmap(nil, size + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), mapped != MAP_FAILED else {
            fail("cannot map \(megabytes) MB: \(String(cString: strerror(errno)))")
        }
        let start = (Int(bitPattern: mapped) + huge - 1) & ~(huge - 1)
        let base = UnsafeMutablePointer<UInt8>(bitPattern: start)!
        return (mapped, base, madvise(base, size, hugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) == 0)
    }
    /// Seconds to write one byte in each 4 KB page.
    func touch(_ base: UnsafeMutablePointer<UInt8>) -> Double {
        let t0 = monotonicSeconds()
        var offset = 0
        while offset < size {
            base[offset] = 1
            offset += 4096
        }
        return monotonicSeconds() - t0
    }
    var touched: [Double] = []
    var small = 0.0
    var fill = 0.0
    var advised = false
    for round in 0..<3 {
        let region = map(hugePages: true)
        advised = region.advised
        touched.append(touch(region.base))
        if round == 0 {
            let other = map(hugePages: false)
            small = touch(other.base)
            munmap(other.mapped, size + huge)
        }
        let t1 = monotonicSeconds()
        memset(region.base, 2, size)
        fill = monotonicSeconds() - t1
        munmap(region.mapped, size + huge)
    }
    let perMB = { (seconds: Double) in 1000 * seconds / Double(megabytes) }
    let reused = touched[1...].min()!
    say(String(format: "memory: %d MB, huge pages %@: first touch %.3f s (%.2f ms/MB), touched again after unmapping %.3f s (%.2f ms/MB); first touch in 4 KB pages %.3f s (%.2f ms/MB); memset of mapped memory %.3f s (%.2f ms/MB)",
               megabytes, advised ? "asked for" : "not available", touched[0], perMB(touched[0]), reused, perMB(reused),
               small, perMB(small), fill, perMB(fill)))
    emit(.object([
        ("bench", .string("memory")), ("megabytes", .int(megabytes)), ("huge_pages_advised", .bool(advised)),
        ("first_touch_s", .number(touched[0])), ("reused_touch_s", .number(reused)), ("small_first_touch_s", .number(small)),
        ("memset_s", .number(fill)),
        ("first_touch_ms_per_mb", .number(perMB(touched[0]))), ("reused_touch_ms_per_mb", .number(perMB(reused))),
        ("small_first_touch_ms_per_mb", .number(perMB(small))), ("memset_ms_per_mb", .number(perMB(fill))),
    ]))
}
#endif

/// `blog-bench math CORPUS.tex`: the TeX-to-MathML converter's throughput on a file of formulas
/// (one a line, `%` lines skipped), each converted as display math; the median of --passes runs.
func benchMath(_ args: Arguments) {
    guard let text = try? String(contentsOf: args.site, encoding: .utf8) else { fail("cannot read \(args.site.path)") }
    let formulas = text.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasPrefix("%") }
    guard !formulas.isEmpty else { fail("no formulas in \(args.site.path)") }
    var converted = 0
    var outputBytes = 0
    for tex in formulas {
        let r = MathRenderer.render(tex: tex, display: true)
        if let html = r.mathML { converted += 1; outputBytes += html.utf8.count }
    }
    // enough rounds that one pass takes a measurable time
    let rounds = max(1, 20_000 / formulas.count)
    var sink = 0
    let seconds = medianTime(passes: args.passes) {
        for _ in 0..<rounds { for tex in formulas { sink &+= MathRenderer.render(tex: tex, display: true).mathML?.utf8.count ?? 0 } }
    }
    let total = Double(rounds * formulas.count)
    let inputBytes = formulas.reduce(0) { $0 + $1.utf8.count }
    say(String(format: "math: %d formulas (%d converted) x %d rounds: %.0f formulas/s, %.2f MB/s of TeX, %.1f µs each",
               formulas.count, converted, rounds, total / seconds, Double(inputBytes * rounds) / seconds / 1e6, seconds / total * 1e6))
    emit(.object([
        ("benchmark", .string("math")), ("formulas", .number(Double(formulas.count))), ("converted", .number(Double(converted))),
        ("formulas_per_second", .number((total / seconds).rounded())), ("output_bytes", .number(Double(outputBytes))),
        ("sink", .number(Double(sink & 1))),
    ]))
}

// MARK: - main

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
