import BlogContent
import BlogMarkdown
import CCmark
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
