import BlogCore
import BlogMustache
import BlogSite
import Foundation

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
