import BlogCore
import Foundation

/// The image references of a Markdown body — `![alt](URL "title")` and `<img src="URL">` outside
/// fenced code, and the links around them (`[![alt](URL)](URL)`, `<a href>`), since Qiita's own
/// images link to themselves — found and rewritten by position, so everything else stays byte for byte.
public enum ImageLinks {
    /// One URL in the body: its UTF-8 byte range.
    public struct Reference: Sendable, Equatable {
        public var url: String
        public var range: Range<Int>
    }

    // An image's alt text may hold one level of brackets; the target may sit in <…>.
    private static let markdownImage = try! NSRegularExpression(
        pattern: #"!\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s<>()]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
    // A link, not an image's own brackets; its text may hold an image (one level of brackets).
    private static let markdownLink = try! NSRegularExpression(
        pattern: #"(?<!!)\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^\s<>()]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)"#)
    private static let htmlImage = try! NSRegularExpression(
        pattern: #"<(?:img|a)\b[^>]*?\b(?:src|href)\s*=\s*(?:"([^"]+)"|'([^']+)'|([^\s"'>]+))"#, options: [.caseInsensitive])

    /// Every image URL of `body`, in order.
    public static func references(in body: String) -> [Reference] {
        var found: [Reference] = []
        var lineStart = 0
        var fence: (character: UInt8, length: Int)?
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let bytes = Array(line.utf8)
            defer { lineStart += bytes.count + 1 }
            if let marker = fenceMarker(bytes) {
                if let open = fence {
                    if marker.character == open.character && marker.length >= open.length && marker.closes { fence = nil }
                } else {
                    fence = (marker.character, marker.length)
                }
                continue
            }
            if fence != nil || !line.contains("](") && !line.contains("<") { continue }
            let text = String(line)
            let whole = NSRange(text.startIndex..., in: text)
            for expression in [markdownImage, markdownLink, htmlImage] {
                for match in expression.matches(in: text, range: whole) {
                    for group in 1..<match.numberOfRanges {
                        let range = match.range(at: group)
                        guard range.location != NSNotFound, let swiftRange = Range(range, in: text) else { continue }
                        let start = text.utf8.distance(from: text.startIndex, to: swiftRange.lowerBound)
                        let length = text.utf8.distance(from: swiftRange.lowerBound, to: swiftRange.upperBound)
                        found.append(Reference(url: String(text[swiftRange]), range: (lineStart + start)..<(lineStart + start + length)))
                    }
                }
            }
        }
        return found.sorted { $0.range.lowerBound < $1.range.lowerBound }
    }

    /// A fence line: up to three spaces, then three or more backticks or tildes. Only a bare
    /// fence (nothing after it but spaces) closes one.
    static func fenceMarker(_ bytes: [UInt8]) -> (character: UInt8, length: Int, closes: Bool)? {
        var index = 0
        while index < bytes.count && index < 3 && bytes[index] == UInt8(ascii: " ") { index += 1 }
        guard index < bytes.count, bytes[index] == UInt8(ascii: "`") || bytes[index] == UInt8(ascii: "~") else { return nil }
        let character = bytes[index]
        var length = 0
        while index < bytes.count && bytes[index] == character { length += 1; index += 1 }
        guard length >= 3 else { return nil }
        let rest = bytes[index...]
        if character == UInt8(ascii: "`") && rest.contains(UInt8(ascii: "`")) { return nil }
        return (character, length, rest.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\r") })
    }

    /// `body` with the references whose URL is in `replacements` replaced by their new value.
    public static func rewrite(_ body: String, references: [Reference], replacements: [String: String]) -> String {
        var bytes = Array(body.utf8)
        for reference in references.reversed() {
            guard let replacement = replacements[reference.url] else { continue }
            bytes.replaceSubrange(reference.range, with: Array(replacement.utf8))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The hosts whose images are brought home: Qiita's upload hosts plus `import.image_hosts`.
/// An entry is a host (`images.example.com`, `127.0.0.1:8080`) or a host with a path prefix
/// (`s3-ap-northeast-1.amazonaws.com/qiita-image-store`).
public struct ImageHosts: Sendable {
    public static let qiita = [
        "qiita-image-store.s3.amazonaws.com",
        "qiita-image-store.s3.ap-northeast-1.amazonaws.com",
        "qiita-user-contents.imgix.net",
        "s3-ap-northeast-1.amazonaws.com/qiita-image-store",
        "s3.ap-northeast-1.amazonaws.com/qiita-image-store",
    ]

    public var entries: [String]

    public init(extra: [String] = []) {
        entries = (ImageHosts.qiita + extra).map { $0.lowercased() }
    }

    public func contains(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host?.lowercased() else { return false }
        let hostPort = url.port.map { "\(host):\($0)" } ?? host
        let path = url.path
        return entries.contains { entry in
            let parts = entry.split(separator: "/", maxSplits: 1)
            guard let first = parts.first, String(first) == host || String(first) == hostPort else { return false }
            guard parts.count == 2 else { return true }
            return path.hasPrefix("/" + parts[1] + "/")
        }
    }
}
