import BlogContent
import BlogMarkdown
import Foundation

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
