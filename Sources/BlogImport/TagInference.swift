/// Infers tags for articles that carry none (text dumps) from their titles.
///
/// 1. Bracketed prefixes: `【Swift5】`, `[iOS]`, `［Xcode］`, several in a row; a prefix holding
///    `/`, `／`, `,`, `、` or `・` gives one tag per part (`【Swift/iOS】` → Swift, iOS).
/// 2. Known tag names appearing anywhere in the title as whole ASCII words, case-insensitively
///    (`SwiftUIでListを使う` finds SwiftUI but not Swift). The known list's spelling wins.
/// 3. With a body (text dumps): known names the body uses at least twice or imports
///    (`import UIKit`), the languages of its code blocks, and tools its code shows (`pod '…'` →
///    CocoaPods), most used first, up to Qiita's five tags.
/// 4. If nothing is found, the fallback tag (default `memo`), so every article has a tag.
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
        tags(forTitle: title, body: "", codeLanguages: [], extraTags: [])
    }

    /// Qiita allows five tags on an article.
    public static let maximumTags = 5

    /// Tags that code blocks' languages and contents imply.
    static let languageTags: [String: String] = ["swift": "Swift", "javascript": "JavaScript", "typescript": "TypeScript",
                                                 "kotlin": "Kotlin", "objective-c": "Objective-C"]
    static let codeSignals: [(pattern: String, tag: String)] = [
        ("pod '", "CocoaPods"), ("pod install", "CocoaPods"), ("import Cocoa", "macOS"), ("import AppKit", "AppKit"),
        (".xcodeproj", "Xcode"), (".xcworkspace", "Xcode"), ("firebase-functions", "Firebase"), ("import Firebase", "Firebase"),
    ]

    /// Tags from the title, then from the body (see the type's comment), then `extraTags`.
    public func tags(forTitle title: String, body: String, codeLanguages: [String], extraTags: [String]) -> [String] {
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
        for tag in extraTags { add(tag) }
        if !body.isEmpty {
            var counts: [String: Int] = [:]
            var order: [String] = []
            func count(_ name: String, _ weight: Int) {
                if counts[name] == nil { order.append(name) }
                counts[name, default: 0] += weight
            }
            for name in knownTags {
                let uses = TagInference.wordOccurrences(of: name, in: body)
                if uses > 0 { count(name, body.contains("import " + name) ? uses + 2 : uses) }
            }
            // The main language's tag comes from the code itself (one block is evidence enough).
            for language in codeLanguages { if let tag = TagInference.languageTags[language] { count(tag, 2) } }
            for signal in TagInference.codeSignals where body.contains(signal.pattern) { count(signal.tag, 2) }
            let ranked = order.filter { counts[$0]! >= 2 }.sorted { counts[$0]! != counts[$1]! ? counts[$0]! > counts[$1]! : order.firstIndex(of: $0)! < order.firstIndex(of: $1)! }
            for name in ranked where tags.count < TagInference.maximumTags { add(name) }
        }
        if tags.isEmpty { add(fallbackTag) }
        return tags
    }

    /// How often `name` occurs in `text` as a whole ASCII word, case-insensitively.
    static func wordOccurrences(of name: String, in text: String) -> Int {
        let haystack = Array(text.lowercased().utf8)
        let needle = Array(name.lowercased().utf8)
        guard !needle.isEmpty, needle.count <= haystack.count else { return 0 }
        var uses = 0
        var start = 0
        while start + needle.count <= haystack.count {
            if haystack[start] == needle[0], haystack[start..<start + needle.count].elementsEqual(needle) {
                let before = start == 0 ? nil : haystack[start - 1]
                let after = start + needle.count < haystack.count ? haystack[start + needle.count] : nil
                if (before.map { !Slugs.isASCIIAlphanumeric($0) } ?? true) && (after.map { !Slugs.isASCIIAlphanumeric($0) } ?? true) {
                    uses += 1
                    start += needle.count
                    continue
                }
            }
            start += 1
        }
        return uses
    }
}

import Foundation
