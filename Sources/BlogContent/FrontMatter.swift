import BlogCore
import BlogYAML
import Foundation

/// A file split into its YAML front matter and its Markdown body.
public struct SplitDocument: Sendable {
    /// The YAML text between the `---` lines (nil when the file has no front matter).
    public var yaml: String?
    /// Line number (1-based) of the first YAML line in the file.
    public var yamlFirstLine: Int
    public var body: String
    /// Line number (1-based) of the first body line in the file.
    public var bodyFirstLine: Int

    /// Splits at line-anchored `---` fences: the first line must be `---` and the front matter ends at
    /// the next line that is `---` or `...` (trailing spaces allowed). A `---` elsewhere is Markdown.
    public static func split(_ text: String, path: String) throws -> SplitDocument {
        let head = try splitHead(text, path: path)
        guard head.bodyOffset > 0 else {
            return SplitDocument(yaml: head.yaml, yamlFirstLine: head.yamlFirstLine, body: text, bodyFirstLine: head.bodyFirstLine)
        }
        let utf8 = text.utf8
        let body = String(text[utf8.index(utf8.startIndex, offsetBy: head.bodyOffset)...])
        return SplitDocument(yaml: head.yaml, yamlFirstLine: head.yamlFirstLine, body: body, bodyFirstLine: head.bodyFirstLine)
    }

    /// `split` without making the body: the YAML and the UTF-8 offset in `text` where the body
    /// starts (0 when there is no front matter). The loader renders the body straight from the
    /// file's text, which saves copying nearly every byte of every file once more.
    public static func splitHead(_ text: String, path: String) throws -> (yaml: String?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int) {
        var text = text
        return try text.withUTF8 { try splitHead(utf8: $0, path: path) }
    }

    /// `splitHead(_:path:)` of a file's bytes, which must be valid UTF-8 (`SourceText.readUTF8`).
    public static func splitHead(utf8 bytes: UnsafeBufferPointer<UInt8>, path: String) throws -> (yaml: String?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int) {
        let head = try splitRanges(utf8: bytes, path: path)
        let yaml = head.yaml.map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
        return (yaml: yaml, yamlFirstLine: head.yamlFirstLine, bodyOffset: head.bodyOffset, bodyFirstLine: head.bodyFirstLine)
    }

    /// `splitHead(utf8:path:)` with the YAML as a range of `bytes` (the loader parses it from there,
    /// no String made).
    public static func splitRanges(utf8 bytes: UnsafeBufferPointer<UInt8>, path: String) throws -> (yaml: Range<Int>?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int) {
        // The text is valid UTF-8 and the fences are whole ASCII lines, so the parts are cut at
        // UTF-8 offsets without decoding or validating again.
        let cut: (yaml: Range<Int>, body: Int, bodyLine: Int)? = try {
            let count = bytes.count
            /// End of the line starting at `start` (index of its `\n`, or `count`).
            func lineEnd(_ start: Int) -> Int {
                guard start < count else { return count }
                return bytes.baseAddress.map { base in
                    memchr(base + start, 0x0A, count - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base } ?? count
                } ?? count
            }
            /// Whether bytes[start..<end] is `---` (or `...` when allowed) followed only by spaces or tabs.
            func isFence(_ start: Int, _ end: Int, allowDots: Bool) -> Bool {
                guard end - start >= 3 else { return false }
                let c = bytes[start]
                guard c == UInt8(ascii: "-") || (allowDots && c == UInt8(ascii: ".")) else { return false }
                guard bytes[start + 1] == c && bytes[start + 2] == c else { return false }
                var i = start + 3
                while i < end {
                    if bytes[i] != 0x20 && bytes[i] != 0x09 { return false }
                    i += 1
                }
                return true
            }
            let firstEnd = lineEnd(0)
            guard isFence(0, firstEnd, allowDots: false) else { return nil }
            var line = 2
            var start = firstEnd + 1
            while start <= count {
                let end = lineEnd(start)
                if isFence(start, end, allowDots: true) {
                    let yamlEnd = max(firstEnd + 1, start - 1)
                    return (min(firstEnd + 1, yamlEnd)..<yamlEnd, min(end + 1, count), line + 1)
                }
                if end >= count { break }
                start = end + 1
                line += 1
            }
            throw Diagnostic.error("the front matter starting here is not closed by a '---' line", at: SourceLocation(file: path, line: 1, column: 1))
        }()
        guard let cut else {
            return (yaml: nil, yamlFirstLine: 1, bodyOffset: 0, bodyFirstLine: 1)
        }
        return (yaml: cut.yaml, yamlFirstLine: 2, bodyOffset: cut.body, bodyFirstLine: cut.bodyLine)
    }
}

/// What a post's front matter says for themes only: the build itself does not use these.
public struct PostMeta: Sendable, Hashable {
    /// The picture of the post's social card: a URL, a root path (`/img/a.png`) or a path under the site.
    public var image: String?
    /// The post's page on Qiita, from an import.
    public var qiitaURL: String?
    public var likesCount: Int?

    public init(image: String? = nil, qiitaURL: String? = nil, likesCount: Int? = nil) {
        self.image = image
        self.qiitaURL = qiitaURL
        self.likesCount = likesCount
    }
}

/// Front matter, typed. Qiita's keys are accepted beside ours.
public struct FrontMatter: Sendable {
    public var title: String?
    public var date: PostDate?
    public var updated: PostDate?
    public var tags: [String] = []
    public var draft = false
    public var slug: String?
    public var description: String?
    public var id: String?
    /// Line of each key, for error messages later in the pipeline.
    public var keyLines: [String: Int] = [:]
    /// `Tag.key` of each tag, in the same order.
    public var tagKeys: [String] = []
    /// `image` (or `cover`), `qiita_url`, `likes_count`.
    public var meta = PostMeta()

    /// The most tags a post may have (Qiita allows 5).
    public static let maxTags = 50
    /// The longest title, description and tag name (in characters) a post may have: each is
    /// repeated on every list, tag page and feed the post is in (50 tags: over a hundred copies),
    /// so an unbounded one would multiply the output. A slug, an id and a tag also name a folder,
    /// so they are at most `maxSegmentBytes` bytes of UTF-8 too.
    public static let maxTitleCharacters = 300
    public static let maxDescriptionCharacters = 1_000
    public static let maxTagCharacters = 50
    public static let maxSegmentBytes = 200

    /// A slug or id that makes one URL segment: not empty, no `/` or `\\`, no leading `.`, no
    /// control characters.
    static func isPathSegment(_ s: String) -> Bool {
        !s.isEmpty && !s.contains("/") && !s.hasPrefix(".") && !s.contains("\\")
            && !s.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
    }

    static let knownKeys: Set<String> = [
        "title", "date", "created_at", "updated", "updated_at", "tags", "draft", "private", "slug", "description", "id",
        "image", "cover", "qiita_url", "likes_count",
        // Tolerated keys from qiita-cli and the importers.
        "organization_url_name", "slide", "ignorePublish", "layout", "author",
    ]

    /// Parses and checks the front matter of one file. Problems are collected into `diagnostics`.
    public static func parse(_ yaml: String, firstLine: Int, path: String, zone: TimeZone,
                             diagnostics: inout [Diagnostic]) -> FrontMatter {
        var yaml = yaml
        return yaml.withUTF8 { parse(utf8: $0, firstLine: firstLine, path: path, zone: zone, diagnostics: &diagnostics) }
    }

    /// `parse(_:firstLine:path:zone:diagnostics:)` of the front matter's UTF-8 bytes.
    public static func parse(utf8 yaml: UnsafeBufferPointer<UInt8>, firstLine: Int, path: String, zone: TimeZone,
                             diagnostics: inout [Diagnostic]) -> FrontMatter {
        var result = FrontMatter()
        func at(_ value: YAMLValue) -> SourceLocation {
            SourceLocation(file: path, line: value.line + firstLine - 1, column: value.column)
        }
        let root: YAMLValue
        do {
            root = try YAML.parse(utf8: yaml)
        } catch let error as YAMLError {
            diagnostics.append(.error("invalid front matter: \(error.message)",
                                      at: SourceLocation(file: path, line: error.line + firstLine - 1, column: error.column)))
            return result
        } catch {
            diagnostics.append(.error("invalid front matter: \(error)", at: SourceLocation(file: path, line: firstLine)))
            return result
        }
        if root.isNull { return result }
        guard let pairs = root.mapping else {
            diagnostics.append(.error("front matter must be a mapping of keys to values", at: at(root)))
            return result
        }
        for duplicate in root.duplicateKeys {
            diagnostics.append(.warning("'\(duplicate.key)' is given twice, on lines \(duplicate.first.line + firstLine - 1) and \(duplicate.again.line + firstLine - 1); the second is used",
                                        at: SourceLocation(file: path, line: duplicate.again.line + firstLine - 1, column: duplicate.again.column)))
        }
        // One allocation for the key lines instead of regrowing the dictionary for the 3rd, 5th... key.
        result.keyLines = Dictionary(minimumCapacity: pairs.count)
        var createdAt: PostDate?
        var updatedAt: PostDate?
        var isPrivate = false
        func text(_ value: YAMLValue, _ key: String) -> String? {
            if value.isNull { return nil }
            guard let scalar = value.scalar else {
                diagnostics.append(.error("'\(key)' must be text, not \(value.typeName)", at: at(value)))
                return nil
            }
            return scalar
        }
        func date(_ value: YAMLValue, _ key: String) -> PostDate? {
            guard let scalar = text(value, key), !scalar.isEmpty else { return nil }
            do {
                return try DateParser.parse(scalar, zone: zone)
            } catch let failure as DateParser.Failure {
                diagnostics.append(.error("invalid date in '\(key)': \(failure.message) (use ISO 8601, e.g. 2020-02-06T10:00:00+09:00)", at: at(value)))
            } catch {}
            return nil
        }
        /// `text` at most `limit` characters long; a longer one is an error.
        func bounded(_ value: YAMLValue, _ key: String, _ limit: Int) -> String? {
            guard let s = text(value, key) else { return nil }
            let count = s.count
            guard count <= limit else {
                diagnostics.append(.error("'\(key)' is \(count) characters long; at most \(limit) are allowed, since it is repeated on every page and feed that lists the post", at: at(value)))
                return nil
            }
            return s
        }
        /// A slug or id: one path segment, at most `maxSegmentBytes` bytes (an empty id is no id).
        func segment(_ value: YAMLValue, _ key: String, emptyMeansNone: Bool = false) -> String? {
            guard let s = text(value, key), !(emptyMeansNone && s.isEmpty) else { return nil }
            guard FrontMatter.isPathSegment(s) else {
                diagnostics.append(.error("'\(key)' must be one path segment without '/' or a leading '.', not '\(s)'", at: at(value)))
                return nil
            }
            guard s.utf8.count <= FrontMatter.maxSegmentBytes else {
                diagnostics.append(.error("'\(key)' is \(s.utf8.count) bytes long; at most \(FrontMatter.maxSegmentBytes) are allowed (it names a folder)", at: at(value)))
                return nil
            }
            return s
        }
        func flag(_ value: YAMLValue, _ key: String) -> Bool {
            if value.isNull { return false }
            guard let b = value.bool else {
                diagnostics.append(.error("'\(key)' must be true or false", at: at(value)))
                return false
            }
            return b
        }
        for pair in pairs {
            guard let key = pair.key.scalar else {
                diagnostics.append(.error("front matter keys must be text", at: at(pair.key)))
                continue
            }
            result.keyLines[key] = pair.key.line + firstLine - 1
            let value = pair.value
            switch key {
            case "title": result.title = bounded(value, key, FrontMatter.maxTitleCharacters)
            case "date": result.date = date(value, key)
            case "created_at": createdAt = date(value, key)
            case "updated": result.updated = date(value, key)
            case "updated_at": updatedAt = date(value, key)
            case "draft": result.draft = flag(value, key)
            case "private": isPrivate = flag(value, key)
            case "slug":
                result.slug = segment(value, key)
            case "description": result.description = bounded(value, key, FrontMatter.maxDescriptionCharacters)
            // The URL falls back to the id when there is no slug: the same rule as a slug's.
            case "id": result.id = segment(value, key, emptyMeansNone: true)
            case "tags":
                (result.tags, result.tagKeys) = tags(value, at: at, diagnostics: &diagnostics)
                // Each tag puts the post on a tag page and in a feed, and the post's page lists its
                // tags on each of those: output grows with the square of the count, so it is capped.
                if result.tags.count > FrontMatter.maxTags {
                    diagnostics.append(.error("a post may have at most \(FrontMatter.maxTags) tags, this one has \(result.tags.count)", at: at(pair.key)))
                    result.tags = []
                    result.tagKeys = []
                }
            // `image` wins over `cover` whichever comes first: both name the social card's picture.
            case "image": result.meta.image = text(value, key).flatMap { $0.isBlank ? nil : $0 }
            case "cover": if result.keyLines["image"] == nil { result.meta.image = text(value, key).flatMap { $0.isBlank ? nil : $0 } }
            case "qiita_url": result.meta.qiitaURL = text(value, key).flatMap { $0.isBlank ? nil : $0 }
            case "likes_count":
                if value.isNull { break }
                if let count = value.int, count >= 0 {
                    result.meta.likesCount = count
                } else {
                    diagnostics.append(.error("'likes_count' must be a whole number of 0 or more", at: at(value)))
                }
            default:
                if !knownKeys.contains(key) {
                    diagnostics.append(.warning("unknown front matter key '\(key)' (ignored)", at: at(pair.key)))
                }
            }
        }
        if result.date == nil { result.date = createdAt ?? updatedAt }
        if result.updated == nil { result.updated = updatedAt }
        result.draft = result.draft || isPrivate
        return result
    }

    /// `tags` as a YAML list, or a string separated by spaces or commas. Qiita's `{name, versions}` items too.
    static func tags(_ value: YAMLValue, at: (YAMLValue) -> SourceLocation, diagnostics: inout [Diagnostic]) -> (names: [String], keys: [String]) {
        var names: [String] = []
        if value.isNull { return ([], []) }
        func tooLong(_ name: String, _ place: YAMLValue) -> Bool {
            let count = name.count, bytes = name.utf8.count
            if count > FrontMatter.maxTagCharacters {
                diagnostics.append(.error("a tag is \(count) characters long; at most \(FrontMatter.maxTagCharacters) are allowed, since it is repeated on every page and feed that lists the post", at: at(place)))
            } else if bytes > FrontMatter.maxSegmentBytes {
                diagnostics.append(.error("a tag is \(bytes) bytes long; at most \(FrontMatter.maxSegmentBytes) are allowed (it names a folder)", at: at(place)))
            } else {
                return false
            }
            return true
        }
        if let scalar = value.scalar {
            names = scalar.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "　" || $0 == "\t" }).map(String.init)
            names.removeAll { tooLong($0, value) }
        } else if let items = value.sequence {
            names.reserveCapacity(items.count)
            for item in items {
                if let scalar = item.scalar {
                    let trimmed = scalar.trimmingBlanks
                    if !trimmed.isEmpty && !tooLong(trimmed, item) { names.append(trimmed) }
                } else if let name = item["name"]?.scalar {
                    if !tooLong(name, item) { names.append(name) }
                } else {
                    diagnostics.append(.error("each tag must be text, not \(item.typeName)", at: at(item)))
                }
            }
        } else {
            diagnostics.append(.error("'tags' must be a list or a text, not \(value.typeName)", at: at(value)))
        }
        // The first of the names with one key stays. A post has a handful of tags: comparing
        // with the keys so far costs less than hashing each into a Set (which long lists still use).
        if names.count > 16 {
            var seen = Set<String>()
            var keys: [String] = []
            let kept = names.filter { name in
                let key = Tag.key(for: name)
                guard seen.insert(key).inserted else { return false }
                keys.append(key)
                return true
            }
            return (kept, keys)
        }
        var keys: [String] = []
        keys.reserveCapacity(names.count)
        var kept: [String] = []
        kept.reserveCapacity(names.count)
        for name in names {
            let key = Tag.key(for: name)
            if !keys.contains(key) {
                keys.append(key)
                kept.append(name)
            }
        }
        return (kept, keys)
    }
}
