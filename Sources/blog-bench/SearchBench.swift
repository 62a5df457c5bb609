import BlogSearch
import BlogSite
import Foundation

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
              (object["version"] as? NSNumber)?.intValue == SearchIndexBuilder.formatVersion,
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
            // Format 2: head = gap·8 + kind; kind 0…5 is one occurrence in the body only (value 8),
            // 6 a body-only count then the residues, 7 a full value then the residues.
            let head = varint()
            let kind = head & 7
            doc += (head >> 3) + 1
            if kind < 6 {
                result[doc] = 8
            } else {
                result[doc] = kind == 6 ? (varint() + 1) << 5 | 8 : varint()
                i += 1  // position residues
            }
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
