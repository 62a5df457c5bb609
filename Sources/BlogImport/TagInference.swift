/// Infers tags for articles that carry none (text dumps) from their titles.
///
/// 1. Bracketed prefixes: `【Swift5】`, `[iOS]`, `［Xcode］`, several in a row; a prefix holding
///    `/`, `／`, `,`, `、` or `・` gives one tag per part (`【Swift/iOS】` → Swift, iOS).
/// 2. Known tag names appearing anywhere in the title as whole ASCII words, case-insensitively
///    (`SwiftUIでListを使う` finds SwiftUI but not Swift). The known list's spelling wins.
/// 3. If nothing is found, the fallback tag (default `memo`), so every article has a tag.
public struct TagInference: Sendable {
    public static let defaultKnownTags: [String] = [
        "Swift", "SwiftUI", "iOS", "iPadOS", "macOS", "watchOS", "tvOS", "Xcode", "UIKit", "AppKit",
        "Combine", "CoreData", "SwiftData", "Firebase", "Realm", "RxSwift", "CocoaPods", "Carthage",
        "SwiftPM", "Objective-C", "Kotlin", "Android", "Flutter", "Dart", "Python", "Ruby", "Rails",
        "JavaScript", "TypeScript", "React", "Vue.js", "Node.js", "Rust", "Git", "GitHub",
        "Docker", "AWS", "Linux", "Unity", "Fastlane", "WidgetKit", "ARKit", "MapKit", "StoreKit",
    ]
    public static let defaultFallbackTag = "memo"

    public var knownTags: [String]
    public var fallbackTag: String

    public init(knownTags: [String] = TagInference.defaultKnownTags, fallbackTag: String = TagInference.defaultFallbackTag) {
        self.knownTags = knownTags
        self.fallbackTag = fallbackTag
    }

    /// Parses a known-tags file: one name a line; blank lines and lines starting with `#` are skipped.
    public static func parseKnownTags(_ text: String) -> [String] {
        text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    private static let pairs: [(Character, Character)] = [("【", "】"), ("[", "]"), ("［", "］")]

    /// Splits leading bracketed prefixes off a title: `"【Swift】[iOS] メモ"` → (["Swift", "iOS"], "メモ").
    public static func splitBracketPrefixes(_ title: String) -> (prefixes: [String], rest: String) {
        var prefixes: [String] = []
        var rest = Substring(title)
        while true {
            let trimmed = rest.drop(while: { $0.isWhitespace })
            guard let open = trimmed.first, let pair = pairs.first(where: { $0.0 == open }),
                  let close = trimmed.dropFirst().firstIndex(of: pair.1) else { break }
            let inner = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            if inner.trimmingCharacters(in: .whitespaces).isEmpty { break }
            prefixes.append(String(inner))
            rest = trimmed[trimmed.index(after: close)...]
        }
        return (prefixes, String(rest.drop(while: { $0.isWhitespace })))
    }

    public func tags(forTitle title: String) -> [String] {
        var tags: [String] = []
        var seen = Set<String>()
        func add(_ raw: String) {
            let name = raw.trimmingCharacters(in: .whitespaces)
            guard !name.isEmpty else { return }
            let canonical = knownTags.first { $0.lowercased() == name.lowercased() } ?? name
            if seen.insert(canonical.lowercased()).inserted { tags.append(canonical) }
        }
        let separators: Set<Character> = ["/", "／", ",", "，", "、", "・"]
        for prefix in TagInference.splitBracketPrefixes(title).prefixes {
            for part in prefix.split(whereSeparator: { separators.contains($0) }) { add(String(part)) }
        }
        // Known names as whole ASCII words, in order of appearance.
        let lowerTitle = Array(title.lowercased().utf8)
        var found: [(position: Int, name: String)] = []
        for name in knownTags {
            let needle = Array(name.lowercased().utf8)
            guard !needle.isEmpty, needle.count <= lowerTitle.count else { continue }
            var start = 0
            while start + needle.count <= lowerTitle.count {
                if lowerTitle[start..<start + needle.count].elementsEqual(needle) {
                    let before = start == 0 ? nil : lowerTitle[start - 1]
                    let after = start + needle.count < lowerTitle.count ? lowerTitle[start + needle.count] : nil
                    let boundaryBefore = before.map { !Slugs.isASCIIAlphanumeric($0) } ?? true
                    let boundaryAfter = after.map { !Slugs.isASCIIAlphanumeric($0) } ?? true
                    if boundaryBefore && boundaryAfter {
                        found.append((start, name))
                        break
                    }
                }
                start += 1
            }
        }
        for item in found.sorted(by: { $0.position < $1.position }) { add(item.name) }
        if tags.isEmpty { add(fallbackTag) }
        return tags
    }
}

import Foundation
