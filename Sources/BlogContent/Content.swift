import BlogCore
import BlogMarkdown
import Foundation

public enum Tag {
    /// The identity of a tag: `Swift`, `swift` and `ＳＷＩＦＴ` are one tag.
    public static func key(for name: String) -> String {
        if name.utf8.allSatisfy({ $0 < 0x80 }) { return name.lowercased() }
        return name.precomposedStringWithCompatibilityMapping.lowercased()
    }

    /// The URL segment of a tag: its key with separators and URL-special characters folded to `-`.
    /// Japanese tags keep their characters (links percent-encode them).
    public static func slug(for name: String) -> String {
        var result = ""
        for scalar in key(for: name).unicodeScalars {
            switch scalar {
            case " ", "\t", "/", "\\", "?", "#", "%", "&", "\"", "'", "<", ">", ":", "|", "*", "　":
                if !result.hasSuffix("-") { result.append("-") }
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        while result.hasPrefix(".") || result.hasPrefix("-") { result.removeFirst() }
        while result.hasSuffix("-") { result.removeLast() }
        return result.isEmpty ? "tag-\(String(fnv1a64(name.utf8) & 0xffff_ffff, radix: 16))" : result
    }
}

/// A blog post from `content/posts/`.
public struct Post: Sendable {
    /// Path relative to the site folder, e.g. `content/posts/2020-02-06-hello.md`.
    public var sourcePath: String
    public var title: String
    public var date: PostDate
    public var updated: PostDate?
    public var tags: [String]
    public var draft: Bool
    /// The URL segment: `/posts/<slug>/`.
    public var slug: String
    public var description: String?
    /// Stable identifier: the front matter `id`, else the slug.
    public var id: String
    public var content: RenderedMarkdown
    /// Line in the file where the Markdown body starts.
    public var bodyFirstLine: Int
    /// Line of each front matter key.
    public var keyLines: [String: Int]

    /// A short plain-text summary: the description, else the start of the text (computed once, at load).
    public var summary: String = ""
    /// Minutes to read (computed once, at load).
    public var readingMinutes: Int = 1
    /// `Tag.key` of each tag, in the same order (computed once, at load).
    public var tagKeys: [String] = []

    public init(sourcePath: String, title: String, date: PostDate, updated: PostDate?, tags: [String], draft: Bool,
                slug: String, description: String?, id: String, content: RenderedMarkdown, bodyFirstLine: Int, keyLines: [String: Int]) {
        self.sourcePath = sourcePath
        self.title = title
        self.date = date
        self.updated = updated
        self.tags = tags
        self.draft = draft
        self.slug = slug
        self.description = description
        self.id = id
        self.content = content
        self.bodyFirstLine = bodyFirstLine
        self.keyLines = keyLines
        if let description, !description.isEmpty {
            summary = description
        } else {
            summary = Post.excerpt(content.plainText, limit: 140)
        }
        readingMinutes = Post.readingMinutes(content.plainText)
        tagKeys = tags.map(Tag.key(for:))
    }

    /// The first `limit` characters (Unicode scalars) of text with whitespace folded, with an ellipsis when cut.
    public static func excerpt(_ text: String, limit: Int) -> String {
        var result = String.UnicodeScalarView()
        var count = 0
        var lastWasSpace = true
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "\r" || scalar == "\u{3000}" || (scalar.value > 0x7F && scalar.properties.isWhitespace) {
                if !lastWasSpace {
                    result.append(" ")
                    count += 1
                }
                lastWasSpace = true
            } else {
                // Combining marks stay with their base character.
                if count >= limit && !(scalar.value > 0x7F && scalar.properties.generalCategory == .nonspacingMark) {
                    var cut = String(result)
                    while cut.hasSuffix(" ") { cut.removeLast() }
                    return cut + "…"
                }
                result.append(scalar)
                count += 1
                lastWasSpace = false
            }
        }
        var text = String(result)
        while text.hasSuffix(" ") { text.removeLast() }
        return text
    }

    /// Minutes to read: Japanese counted by characters (500 a minute), other text by words (200 a minute).
    public static func readingMinutes(_ text: String) -> Int {
        var cjk = 0
        var words = 0
        var inWord = false
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v < 0x80 {
                let isWordByte = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A)
                if isWordByte && !inWord { words += 1 }
                inWord = isWordByte
            } else if (0x3040...0x30FF).contains(v) || (0x3400...0x9FFF).contains(v) || (0xAC00...0xD7AF).contains(v) || (0xF900...0xFAFF).contains(v) {
                cjk += 1
                inWord = false
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                if !inWord { words += 1 }
                inWord = true
            } else {
                inWord = false
            }
        }
        let minutes = Double(cjk) / 500.0 + Double(words) / 200.0
        return max(1, Int(minutes.rounded()))
    }
}

/// A standalone page: any Markdown file under `content/` outside `content/posts/`.
public struct Page: Sendable {
    public var sourcePath: String
    public var title: String
    /// URL path without slashes around it: `about`, `docs/setup`.
    public var path: String
    public var description: String?
    public var draft: Bool
    public var content: RenderedMarkdown
    public var bodyFirstLine: Int
}

/// Everything loaded from `content/`.
public struct ContentSet: Sendable {
    public var posts: [Post]
    public var pages: [Page]
    /// Warnings found while loading (errors are thrown).
    public var warnings: [Diagnostic]

    public init(posts: [Post], pages: [Page], warnings: [Diagnostic]) {
        self.posts = posts
        self.pages = pages
        self.warnings = warnings
    }
}
