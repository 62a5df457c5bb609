import BlogCore
import BlogMarkdown
import Foundation

public enum Tag {
    /// The identity of a tag: `Swift`, `swift` and `ＳＷＩＦＴ` are one tag.
    public static func key(for name: String) -> String {
        plainKey(name) ?? name.precomposedStringWithCompatibilityMapping.lowercased()
    }

    /// The key of a name of ASCII, kana and common kanji (nearly every tag), folded here:
    /// `lowercased()` and NFKC are far dearer for every tag of every post. The name itself when it has no
    /// capitals; nil when it has other characters.
    static func plainKey(_ name: String) -> String? {
        var copy = name
        return copy.withUTF8 { bytes -> String? in
            let n = bytes.count
            var capitals = 0
            var i = 0
            while i < n {
                let byte = bytes[i]
                if byte < 0x80 {
                    if byte &- 0x41 < 26 { capitals &+= 1 }
                    i &+= 1
                    continue
                }
                // Hiragana, katakana, ー and the CJK ideographs U+4E00–U+9FFF have no case, and
                // NFKC keeps them (none is a combining mark, so none composes with a neighbour).
                guard byte &- 0xE3 < 7, i &+ 2 < n else { return nil }
                let v = UInt32(byte & 0x0F) << 12 | UInt32(bytes[i &+ 1] & 0x3F) << 6 | UInt32(bytes[i &+ 2] & 0x3F)
                guard (0x3041...0x3096).contains(v) || (0x30A1...0x30FA).contains(v) || v == 0x30FC || (0x4E00...0x9FFF).contains(v) else {
                    return nil
                }
                i &+= 3
            }
            if capitals == 0 { return name }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: n) { folded in
                for k in 0..<n {
                    let byte = bytes[k]
                    folded[k] = byte &- 0x41 < 26 ? byte | 0x20 : byte
                }
                return String(decoding: folded, as: UTF8.self)
            }
        }
    }

    /// The URL segment of a tag: its key with separators and URL-special characters folded to `-`.
    /// Japanese tags keep their characters (links percent-encode them).
    public static func slug(for name: String) -> String {
        var result = ""
        for scalar in key(for: name).unicodeScalars {
            switch scalar {
            case " ", "\t", "/", "\\", "?", "#", "%", "&", "\"", "'", "<", ">", ":", "|", "*", "　":
                if !result.hasSuffix("-") { result.append("-") }
            // Bidi controls would make the URL read differently from what it is.
            case "\u{061C}", "\u{200E}", "\u{200F}", "\u{202A}"..."\u{202E}", "\u{2066}"..."\u{2069}":
                continue
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F { continue }
                result.unicodeScalars.append(scalar)
            }
        }
        while result.hasPrefix(".") || result.hasPrefix("-") { result.removeFirst() }
        while result.hasSuffix("-") || result.hasSuffix(".") { result.removeLast() }
        if result.isEmpty { return "tag-\(String(fnv1a64(name.utf8) & 0xffff_ffff, radix: 16))" }
        return isWindowsReserved(result) ? result + "-tag" : result
    }

    /// Names Windows cannot create as files or folders (`con`, `nul`, `com1`…, also with an
    /// extension): a site checked out or unpacked there would lose the tag's page.
    static func isWindowsReserved(_ slug: String) -> Bool {
        let base = slug.split(separator: ".", maxSplits: 1).first.map(String.init) ?? slug
        switch base.lowercased() {
        case "con", "prn", "aux", "nul": return true
        default:
            let lowered = base.lowercased()
            guard lowered.count == 4, lowered.hasPrefix("com") || lowered.hasPrefix("lpt") else { return false }
            return ("1"..."9").contains(lowered.suffix(1))
        }
    }
}

/// A blog post from `content/posts/`.
///
/// A value type whose fields live in one shared box that is copied only when a copy is changed:
/// the build passes posts around a lot (sorting, models, caches), and a plain struct of this size
/// cost a retain and a release per field on every copy.
public struct Post: Sendable {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        @usableFromInline var sourcePath: String
        @usableFromInline var title: String
        @usableFromInline var date: PostDate
        @usableFromInline var updated: PostDate?
        @usableFromInline var tags: [String]
        @usableFromInline var draft: Bool
        @usableFromInline var slug: String
        @usableFromInline var description: String?
        @usableFromInline var id: String
        @usableFromInline var content: RenderedMarkdown
        @usableFromInline var bodyFirstLine: Int
        @usableFromInline var keyLines: [String: Int]
        @usableFromInline var summary: String
        @usableFromInline var readingMinutes: Int
        @usableFromInline var tagKeys: [String]
        @usableFromInline var meta = PostMeta()

        init(sourcePath: String, title: String, date: PostDate, updated: PostDate?, tags: [String], draft: Bool, slug: String, description: String?, id: String, content: RenderedMarkdown, bodyFirstLine: Int, keyLines: [String: Int], summary: String, readingMinutes: Int, tagKeys: [String]) {
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
            self.summary = summary
            self.readingMinutes = readingMinutes
            self.tagKeys = tagKeys
        }

        func copy() -> Storage {
            let copied = Storage(sourcePath: sourcePath, title: title, date: date, updated: updated, tags: tags, draft: draft, slug: slug, description: description, id: id, content: content, bodyFirstLine: bodyFirstLine, keyLines: keyLines, summary: summary, readingMinutes: readingMinutes, tagKeys: tagKeys)
            copied.meta = meta
            return copied
        }
    }

    @usableFromInline var storage: Storage

    @usableFromInline mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
    }

    /// Path relative to the site folder, e.g. `content/posts/2020-02-06-hello.md`.
    public var sourcePath: String {
        @inlinable get { storage.sourcePath }
        @inlinable set { makeUnique(); storage.sourcePath = newValue }
        @inlinable _modify { makeUnique(); yield &storage.sourcePath }
    }
    public var title: String {
        @inlinable get { storage.title }
        @inlinable set { makeUnique(); storage.title = newValue }
        @inlinable _modify { makeUnique(); yield &storage.title }
    }
    public var date: PostDate {
        @inlinable get { storage.date }
        @inlinable set { makeUnique(); storage.date = newValue }
        @inlinable _modify { makeUnique(); yield &storage.date }
    }
    public var updated: PostDate? {
        @inlinable get { storage.updated }
        @inlinable set { makeUnique(); storage.updated = newValue }
        @inlinable _modify { makeUnique(); yield &storage.updated }
    }
    public var tags: [String] {
        @inlinable get { storage.tags }
        @inlinable set { makeUnique(); storage.tags = newValue }
        @inlinable _modify { makeUnique(); yield &storage.tags }
    }
    public var draft: Bool {
        @inlinable get { storage.draft }
        @inlinable set { makeUnique(); storage.draft = newValue }
        @inlinable _modify { makeUnique(); yield &storage.draft }
    }
    /// The URL segment: `/posts/<slug>/`.
    public var slug: String {
        @inlinable get { storage.slug }
        @inlinable set { makeUnique(); storage.slug = newValue }
        @inlinable _modify { makeUnique(); yield &storage.slug }
    }
    public var description: String? {
        @inlinable get { storage.description }
        @inlinable set { makeUnique(); storage.description = newValue }
        @inlinable _modify { makeUnique(); yield &storage.description }
    }
    /// Stable identifier: the front matter `id`, else the slug.
    public var id: String {
        @inlinable get { storage.id }
        @inlinable set { makeUnique(); storage.id = newValue }
        @inlinable _modify { makeUnique(); yield &storage.id }
    }
    public var content: RenderedMarkdown {
        @inlinable get { storage.content }
        @inlinable set { makeUnique(); storage.content = newValue }
        @inlinable _modify { makeUnique(); yield &storage.content }
    }
    /// Line in the file where the Markdown body starts.
    public var bodyFirstLine: Int {
        @inlinable get { storage.bodyFirstLine }
        @inlinable set { makeUnique(); storage.bodyFirstLine = newValue }
        @inlinable _modify { makeUnique(); yield &storage.bodyFirstLine }
    }
    /// Line of each front matter key.
    public var keyLines: [String: Int] {
        @inlinable get { storage.keyLines }
        @inlinable set { makeUnique(); storage.keyLines = newValue }
        @inlinable _modify { makeUnique(); yield &storage.keyLines }
    }
    /// A short plain-text summary: the description, else the start of the text (computed once, at load).
    public var summary: String {
        @inlinable get { storage.summary }
        @inlinable set { makeUnique(); storage.summary = newValue }
        @inlinable _modify { makeUnique(); yield &storage.summary }
    }
    /// Minutes to read (computed once, at load).
    public var readingMinutes: Int {
        @inlinable get { storage.readingMinutes }
        @inlinable set { makeUnique(); storage.readingMinutes = newValue }
        @inlinable _modify { makeUnique(); yield &storage.readingMinutes }
    }
    /// `Tag.key` of each tag, in the same order (computed once, at load).
    public var tagKeys: [String] {
        @inlinable get { storage.tagKeys }
        @inlinable set { makeUnique(); storage.tagKeys = newValue }
        @inlinable _modify { makeUnique(); yield &storage.tagKeys }
    }

    /// Front matter a theme may show but the build does not use (see `PostMeta`).
    public var meta: PostMeta {
        @inlinable get { storage.meta }
        @inlinable set { makeUnique(); storage.meta = newValue }
    }

    public init(sourcePath: String, title: String, date: PostDate, updated: PostDate?, tags: [String], draft: Bool,
                slug: String, description: String?, id: String, content: RenderedMarkdown, bodyFirstLine: Int, keyLines: [String: Int]) {
        self.init(sourcePath: sourcePath, title: title, date: date, updated: updated, tags: tags, draft: draft, slug: slug,
                  description: description, id: id, content: content, bodyFirstLine: bodyFirstLine, keyLines: keyLines,
                  tagKeys: tags.map(Tag.key(for:)))
    }

    /// With the tags' keys known already (front matter computes them to drop duplicate tags).
    init(sourcePath: String, title: String, date: PostDate, updated: PostDate?, tags: [String], draft: Bool,
         slug: String, description: String?, id: String, content: RenderedMarkdown, bodyFirstLine: Int, keyLines: [String: Int],
         tagKeys: [String]) {
        assert(tagKeys == tags.map(Tag.key(for:)), "tag keys do not match the tags")
        storage = Storage(sourcePath: sourcePath, title: title, date: date, updated: updated, tags: tags, draft: draft,
                          slug: slug, description: description, id: id, content: content, bodyFirstLine: bodyFirstLine,
                          keyLines: keyLines, summary: Post.summary(description: description, content: content),
                          readingMinutes: Post.readingMinutes(content.plainText), tagKeys: tagKeys)
    }

    /// Gives a post loaded without its body (`ContentLoader.loadFiles(_:deferringPostBodies:)`) its
    /// rendered body, with the summary and the reading time made from it, as `init` makes them.
    public mutating func setContent(_ content: RenderedMarkdown) {
        makeUnique()
        storage.summary = Post.summary(description: storage.description, content: content)
        storage.readingMinutes = Post.readingMinutes(content.plainText)
        storage.content = content
    }

    /// The description when there is one, else the start of the paragraphs' text.
    static func summary(description: String?, content: RenderedMarkdown) -> String {
        if let description, !description.isEmpty { return description }
        // A few characters over the limit, so that `excerpt` sees the text was cut.
        return Post.excerpt(Post.paragraphText(content.html, limit: 150), limit: 140)
    }

    /// The first `limit` characters (Unicode scalars) of text with whitespace folded, with an ellipsis when cut.
    public static func excerpt(_ text: String, limit: Int) -> String {
        var text = text
        return text.withUTF8 { bytes -> String in
            guard bytes.count > 0 else { return "" }
            // The result is written straight into one buffer, since appending each character to an
            // array costs far more per character. `limit` characters of at most four bytes and the
            // ellipsis fit in a small one on the stack; only a long run of combining marks at the cut
            // needs more, and folding never lengthens the text, so its own length always suffices.
            let small = min(bytes.count, 4 * max(limit, 0) + 64) + 3
            if let result = withUnsafeTemporaryAllocation(of: UInt8.self, capacity: small, { excerpt(bytes, limit: limit, into: $0) }) {
                return result
            }
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 3) { excerpt(bytes, limit: limit, into: $0) ?? "" }
        }
    }

    /// `excerpt(_:limit:)` of valid UTF-8 written into `buffer`; nil when it does not fit.
    private static func excerpt(_ bytes: UnsafeBufferPointer<UInt8>, limit: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> String? {
        guard let p = bytes.baseAddress, let out = buffer.baseAddress else { return nil }
        let n = bytes.count
        // Room for the ellipsis is kept.
        let room = buffer.count - 3
        var length = 0
        var count = 0
        var lastWasSpace = true
        var i = 0
        while i < n {
            // Kanji, kana (not the combining (han)dakuten U+3099 and U+309A, E3 82 99 and 9A) and
            // ASCII other than white space: no space and no mark, so copied as they are.
            let b = p[i]
            let plain: Int
            if b &- 0xE4 < 6 || (b == 0xE3 && p[i &+ 1] &- 0x81 < 3 && !(p[i &+ 1] == 0x82 && p[i &+ 2] &- 0x99 < 2)) {
                plain = 3
            } else if b &- 0x21 < 0x5F {
                plain = 1
            } else {
                plain = 0
            }
            if plain != 0 {
                if count >= limit { return finishExcerpt(out, length, ellipsis: true) }
                guard length &+ plain <= room else { return nil }
                out[length] = b
                if plain == 3 {
                    out[length &+ 1] = p[i &+ 1]
                    out[length &+ 2] = p[i &+ 2]
                }
                length &+= plain
                count &+= 1
                lastWasSpace = false
                i &+= plain
                continue
            }
            let (scalar, size) = ScalarTable.decode(bytes, i)
            if scalar == 0x20 || scalar == 0x0A || scalar == 0x09 || scalar == 0x0D || (scalar > 0x7F && ScalarTable.isWhitespace(scalar)) {
                if !lastWasSpace {
                    guard length < room else { return nil }
                    out[length] = 0x20
                    length += 1
                    count += 1
                }
                lastWasSpace = true
            } else {
                // Combining marks stay with their base character.
                if count >= limit && !(scalar > 0x7F && ScalarTable.isNonspacingMark(scalar)) {
                    return finishExcerpt(out, length, ellipsis: true)
                }
                guard length + size <= room else { return nil }
                if i + 4 <= n {
                    // Four bytes moved at once: the room kept for the ellipsis covers the overhang,
                    // and bytes past `length` are never part of the result.
                    UnsafeMutableRawPointer(out + length).storeBytes(of: UnsafeRawPointer(p + i).loadUnaligned(as: UInt32.self), as: UInt32.self)
                } else {
                    for k in 0..<size { out[length + k] = p[i + k] }
                }
                length += size
                count += 1
                lastWasSpace = false
            }
            i += size
        }
        return finishExcerpt(out, length, ellipsis: false)
    }

    /// The excerpt's String from the `length` bytes written at `out`: a trailing space dropped,
    /// the ellipsis added when cut. (Not a nested function: one capturing `length` kept it in
    /// memory through the whole loop.)
    private static func finishExcerpt(_ out: UnsafeMutablePointer<UInt8>, _ written: Int, ellipsis: Bool) -> String {
        var length = written
        if length > 0 && out[length - 1] == 0x20 { length -= 1 }
        if ellipsis {
            // U+2026 HORIZONTAL ELLIPSIS
            out[length] = 0xE2
            out[length + 1] = 0x80
            out[length + 2] = 0xA6
            length += 3
        }
        guard length > 0 else { return "" }
        // Whole scalars of a String, ASCII spaces and the ellipsis: valid UTF-8, copied without
        // validating again, which `String(decoding:)` would do byte by byte.
        let result = UnsafeBufferPointer(start: out, count: length)
        assert(String(validating: result, as: UTF8.self) != nil, "excerpt produced invalid UTF-8")
        return SourceText.stringFromValidUTF8(result) ?? ""
    }

    /// Minutes to read: Japanese counted by characters (500 a minute), other text by words (200 a minute).
    public static func readingMinutes(_ text: String) -> Int {
        let (cjk, words) = readingCounts(text)
        let minutes = Double(cjk) / 500.0 + Double(words) / 200.0
        return max(1, Int(minutes.rounded()))
    }

    /// The Japanese characters and the words of `readingMinutes`.
    static func readingCounts(_ text: String) -> (cjk: Int, words: Int) {
        var text = text
        return text.withUTF8 { bytes -> (Int, Int) in
            guard let p = bytes.baseAddress else { return (0, 0) }
            // Counted in locals of the closure (captured ones were kept in memory, a store per character).
            var cjk = 0
            var words = 0
            let n = bytes.count
            let raw = UnsafeRawPointer(p)
            // Bit b of the pair: ASCII byte b (0x00–0x3F, 0x40–0x7F) is a word byte, [0-9A-Za-z].
            let asciiWordLow: UInt64 = 0x03FF_0000_0000_0000
            let asciiWordHigh: UInt64 = 0x07FF_FFFE_07FF_FFFE
            // Bit k: U+3000 + k is a word character (々〆〇, the Hangzhou numerals, the kana repeat
            // marks, 〸〹〺〻〼), as `ScalarTable.isWordCharacter` says.
            let punctuationWord: UInt64 = 0x1F3E_03FE_0000_00E0
            let kanjiLow = SIMD16<UInt8>(repeating: 0xE4), six = SIMD16<UInt8>(repeating: 6)
            let kanaLead = SIMD16<UInt8>(repeating: 0xE3), kanaLow = SIMD16<UInt8>(repeating: 0x81), three = SIMD16<UInt8>(repeating: 3)
            // 1 when the previous character is a word character.
            var inWord = 0
            var i = 0
            // Where sixteen-byte steps may be tried again (see below).
            var retry = 1
            // The text is a String, so valid UTF-8: a lead byte's continuation bytes are there.
            while i < n {
                // Sixteen bytes a step while every character is ASCII, kana, kanji or Japanese
                // punctuation that is no word character: there the counts need no character
                // boundaries (a kana or kanji is counted at its lead byte; a word starts at an
                // ASCII letter or digit after a byte that is none, and every byte of the others is
                // none). Entered where byte i - 1 tells whether a word goes on: not after a word
                // character outside ASCII. The checks look two bytes on, so they stop 18 bytes short.
                if i >= retry && i &+ 18 <= n && (inWord == 0 || p[i &- 1] < 0x80) {
                    let start = i
                    let stepped = readingSteps(raw, from: i, count: n)
                    cjk &+= stepped.cjk
                    words &+= stepped.words
                    i = stepped.end
                    if i &+ 18 > n {
                        // Stopped near the end: the rest of a character cut there was counted.
                        while i < n && p[i] & 0xC0 == 0x80 { i &+= 1 }
                    } else if i == start {
                        // Stopped at once, by a character left to the loop below: tried again
                        // 16 bytes on, so text in other scripts costs one try per 16 bytes.
                        retry = i &+ 16
                    }
                    let last = p[i &- 1]
                    inWord = last &- 0x30 < 10 || (last | 0x20) &- 0x61 < 26 ? 1 : 0
                }
                let b = p[i]
                // Kanji (U+4000–U+9FFF: lead bytes E4–E9) and kana (U+3040–U+30FF: E3 81–E3 83)
                // are counted from their first bytes, a whole run of them at once: only how far
                // the run reaches is counted (most Japanese text is such runs).
                if b &- 0xE4 < 6 || (b == 0xE3 && p[i &+ 1] &- 0x81 < 3) {
                    inWord = 0
                    // Five characters a 16-byte load while they are all kana or kanji: their
                    // first bytes are lanes 0, 3, 6, 9 and 12 (valid UTF-8, and each one before is
                    // three bytes long); the load one byte on gives each its second byte.
                    var ended = false
                    while i &+ 17 <= n {
                        let v = raw.loadUnaligned(fromByteOffset: i, as: SIMD16<UInt8>.self)
                        let next = raw.loadUnaligned(fromByteOffset: i &+ 1, as: SIMD16<UInt8>.self)
                        let counted = ((v &- kanjiLow) .< six) .| ((v .== kanaLead) .& ((next &- kanaLow) .< three))
                        // The lanes as two words, 0xFF where a byte starts kana or kanji.
                        let lanes = unsafeBitCast(counted, to: (UInt64, UInt64).self)
                        let missing = (~lanes.0 & 0x00FF_0000_FF00_00FF, ~lanes.1 & 0x0000_00FF_0000_FF00)
                        if missing.0 | missing.1 == 0 {
                            cjk &+= 5
                            i &+= 15
                            continue
                        }
                        // The first lead that is not ends the run: lane 0, 3 or 6 of the first word
                        // (bit 0, 24 or 48), or lane 9 or 12 (bit 8 or 32 of the second); `&* 11 &>> 8`
                        // divides these by 24.
                        let before = missing.0 != 0 ? (missing.0.trailingZeroBitCount &* 11) &>> 8 : 3 &+ (missing.1.trailingZeroBitCount &* 11) &>> 8
                        cjk &+= before
                        i &+= 3 &* before
                        ended = true
                        break
                    }
                    if ended { continue }
                    // The last bytes of the text, one character at a time.
                    while i < n && (p[i] &- 0xE4 < 6 || (p[i] == 0xE3 && p[i &+ 1] &- 0x81 < 3)) {
                        cjk &+= 1
                        i &+= 3
                    }
                    continue
                }
                if b < 0x80 {
                    if i &+ 8 <= n {
                        // Up to eight ASCII bytes at once: all eight, or those before the first byte
                        // that is not ASCII (byte 0 is). The top bit of each byte says whether it is a
                        // word byte, [0-9] or [A-Za-z]: an ASCII byte plus these constants carries into
                        // no neighbour, and a carry out of a later byte reaches only later ones, which
                        // are masked off. A word starts at a word byte after a byte that is not.
                        let w = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                        let nonASCII = w & 0x8080_8080_8080_8080
                        let ascii = nonASCII == 0 ? 8 : nonASCII.trailingZeroBitCount &>> 3
                        let kept: UInt64 = nonASCII == 0 ? UInt64.max : (1 &<< UInt64(ascii &* 8)) &- 1
                        let digit = (w &+ 0x5050_5050_5050_5050) & ~(w &+ 0x4646_4646_4646_4646)
                        let folded = w | 0x2020_2020_2020_2020
                        let letter = (folded &+ 0x1F1F_1F1F_1F1F_1F1F) & ~(folded &+ 0x0505_0505_0505_0505)
                        let word = (digit | letter) & 0x8080_8080_8080_8080 & kept
                        let starts = word & ~(word &<< 8 | UInt64(inWord) &<< 7)
                        // At most one bit a byte: a multiply sums the bytes (no POPCNT on baseline x86-64).
                        words &+= Int(truncatingIfNeeded: ((starts &>> 7) &* 0x0101_0101_0101_0101) &>> 56)
                        inWord = Int(truncatingIfNeeded: (word &>> UInt64(ascii &* 8 &- 1)) & 1)
                        i &+= ascii
                        continue
                    }
                    let isWordByte = Int(truncatingIfNeeded: (b < 0x40 ? asciiWordLow : asciiWordHigh) &>> UInt64(b & 0x3F)) & 1
                    words &+= isWordByte & (inWord ^ 1)
                    inWord = isWordByte
                    i &+= 1
                    continue
                }
                if b == 0xE3 && p[i &+ 1] == 0x80 {
                    // Japanese punctuation (U+3000–U+303F: 、。「」 in every sentence), from its last byte.
                    let isWord = Int(truncatingIfNeeded: punctuationWord &>> UInt64(p[i &+ 2] & 0x3F)) & 1
                    words &+= isWord & (inWord ^ 1)
                    inWord = isWord
                    i &+= 3
                    continue
                }
                let (v, length) = ScalarTable.decode(bytes, i)
                i += length
                if (0x3040...0x30FF).contains(v) || (0x3400...0x9FFF).contains(v) || (0xAC00...0xD7AF).contains(v) || (0xF900...0xFAFF).contains(v) {
                    cjk += 1
                    inWord = 0
                } else if ScalarTable.isWordCharacter(v) {
                    words += inWord ^ 1
                    inWord = 1
                } else {
                    inWord = 0
                }
            }
            return (cjk, words)
        }
    }

    /// `readingMinutes`' sixteen-byte steps from `start` (after its first byte, not after a word
    /// character outside ASCII): the kana and kanji and the words started, up to `end`, the first
    /// character the steps do not take (anything but ASCII, kana U+3040–U+30FF, kanji
    /// U+4000–U+9FFF and the punctuation of U+3000–U+303F that is no word character, all of
    /// them lead bytes E3–E9) or the first step that would read past `count`. `end` may be inside
    /// a character when the steps ran to the end; that character was counted.
    ///
    /// A step of kana and kanji alone stays cheap, since the punctuation's third bytes and the
    /// words are looked at only in steps that have punctuation or ASCII.
    @inline(__always)
    static func readingSteps(_ raw: UnsafeRawPointer, from start: Int, count n: Int) -> (end: Int, cjk: Int, words: Int) {
        typealias Bytes = SIMD16<UInt8>
        typealias Mask = SIMDMask<SIMD16<Int8>>
        @inline(__always) func any(_ mask: Mask) -> Bool {
            let lanes = unsafeBitCast(mask, to: (UInt64, UInt64).self)
            return lanes.0 | lanes.1 != 0
        }
        @inline(__always) func lanes(_ mask: Mask) -> Bytes { unsafeBitCast(mask, to: Bytes.self) }
        /// ASCII letters and digits (no byte from 80 up passes either test).
        @inline(__always) func wordBytes(_ v: Bytes) -> Mask {
            ((v &- Bytes(repeating: 0x30)) .< Bytes(repeating: 10)) .| (((v | Bytes(repeating: 0x20)) &- Bytes(repeating: 0x61)) .< Bytes(repeating: 26))
        }
        /// Where a word starts: a letter or digit after a byte that is none.
        @inline(__always) func wordStarts(_ v: Bytes, at i: Int) -> Mask {
            wordBytes(v) .& .!wordBytes(raw.loadUnaligned(fromByteOffset: i &- 1, as: Bytes.self))
        }
        // Lane counts, added to in each step (a mask lane is 0xFF, so subtracting it adds one) and
        // summed every 255 steps at most, before a lane could wrap.
        var cjk = 0, words = 0
        var i = start
        while i &+ 18 <= n {
            var cjkLanes = Bytes(), startLanes = Bytes()
            let last = min(n &- 18, i &+ 254 &* 16)
            var stopped = false
            while i <= last {
                let v = raw.loadUnaligned(fromByteOffset: i, as: Bytes.self)
                let next = raw.loadUnaligned(fromByteOffset: i &+ 1, as: Bytes.self)
                // E3–E9 lead kana (E3 81–E3 83), kanji and punctuation (E3 80); other lead bytes
                // (C0 and up) are left to the loop, and so are E3 84 and on (U+3100–U+3FFF).
                let fromE3 = v &- Bytes(repeating: 0xE3)
                var counted = fromE3 .< Bytes(repeating: 7)
                let outside = (v .> Bytes(repeating: 0xBF)) .& .!counted
                let notKana = (fromE3 .== Bytes()) .& .!((next &- Bytes(repeating: 0x81)) .< Bytes(repeating: 3))
                let ascii = unsafeBitCast(v, to: SIMD16<Int8>.self) .>= SIMD16<Int8>()
                // Kana and kanji alone: one test.
                if any(outside .| notKana .| ascii) {
                    if any(outside .| notKana) {
                        // Punctuation is taken when it is no word character: third byte 80–84 or
                        // 88–A0 (、。「」【】〜 and the like; 85–87, A1–A9, B1–B5 and B8–BC are
                        // word characters).
                        let third = raw.loadUnaligned(fromByteOffset: i &+ 2, as: Bytes.self)
                        let plain = ((third &- Bytes(repeating: 0x80)) .< Bytes(repeating: 5)) .| ((third &- Bytes(repeating: 0x88)) .< Bytes(repeating: 0x19))
                        let bad = outside .| (notKana .& .!((next .== Bytes(repeating: 0x80)) .& plain))
                        counted = counted .& .!notKana
                        if any(bad) {
                            // Only the lanes before the first character not taken (which starts there).
                            let badLanes = unsafeBitCast(bad, to: (UInt64, UInt64).self)
                            let first = badLanes.0 != 0 ? badLanes.0.trailingZeroBitCount &>> 3 : 8 &+ badLanes.1.trailingZeroBitCount &>> 3
                            let before = laneIndex .< Bytes(repeating: UInt8(truncatingIfNeeded: first))
                            cjkLanes &-= lanes(counted .& before)
                            startLanes &-= lanes(wordStarts(v, at: i) .& before)
                            i &+= first
                            stopped = true
                            break
                        }
                    }
                    if any(ascii) { startLanes &-= lanes(wordStarts(v, at: i)) }
                }
                cjkLanes &-= lanes(counted)
                i &+= 16
            }
            cjk &+= laneSum(cjkLanes)
            words &+= laneSum(startLanes)
            if stopped { break }
        }
        return (i, cjk, words)
    }

    /// 0, 1, … 15 (stored once: a literal in the function was built lane by lane on every call).
    private static let laneIndex: SIMD16<UInt8> = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]

    /// The sum of the sixteen lanes.
    @inline(__always)
    static func laneSum(_ lanes: SIMD16<UInt8>) -> Int {
        let words = unsafeBitCast(lanes, to: (UInt64, UInt64).self)
        let bytes: UInt64 = 0x00FF_00FF_00FF_00FF
        // Four 16-bit sums of four lanes each (at most 1,020), then those summed by a multiply.
        let pairs = (words.0 & bytes) &+ ((words.0 &>> 8) & bytes) &+ (words.1 & bytes) &+ ((words.1 &>> 8) & bytes)
        return Int(truncatingIfNeeded: (pairs &* 0x0001_0001_0001_0001) &>> 48)
    }

}

/// Unicode properties the summaries and reading times ask of characters outside ASCII. The
/// standard library's property lookups cost far more than the rest of the loop, so the block of
/// Japanese punctuation (U+3000–U+303F: 、。「」 and friends, in every Japanese sentence) is
/// answered from its few ranges here; everything else asks the standard library. A test compares
/// both against the standard library on random text.
enum ScalarTable {
    @inline(__always)
    static func isCJKPunctuation(_ v: UInt32) -> Bool { v >= 0x3000 && v <= 0x303F }

    /// Kana and the CJK ideographs: letters, never white space; the only marks are the combining
    /// (han)dakuten U+3099 and U+309A.
    @inline(__always)
    static func isKanaOrKanji(_ v: UInt32) -> Bool { (v >= 0x3040 && v <= 0x30FF) || (v >= 0x3400 && v <= 0x9FFF) }

    static func isWordCharacter(_ v: UInt32) -> Bool {
        if isCJKPunctuation(v) {
            // 々〆〇, the Hangzhou numerals, the kana repeat marks, 〸〹〺〻〼.
            return (0x3005...0x3007).contains(v) || (0x3021...0x3029).contains(v) || (0x3031...0x3035).contains(v) || (0x3038...0x303C).contains(v)
        }
        guard let scalar = Unicode.Scalar(v) else { return false }
        return scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    static func isWhitespace(_ v: UInt32) -> Bool {
        if isCJKPunctuation(v) { return v == 0x3000 }
        if isKanaOrKanji(v) { return false }
        return Unicode.Scalar(v)?.properties.isWhitespace ?? false
    }

    static func isNonspacingMark(_ v: UInt32) -> Bool {
        if isCJKPunctuation(v) { return (0x302A...0x302D).contains(v) }
        if isKanaOrKanji(v) { return v == 0x3099 || v == 0x309A }
        return Unicode.Scalar(v)?.properties.generalCategory == .nonspacingMark
    }

    /// The scalar at `i` of valid UTF-8 and its length in bytes.
    @inline(__always)
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, _ i: Int) -> (UInt32, Int) {
        let b = bytes[i]
        if b < 0x80 { return (UInt32(b), 1) }
        if b < 0xE0 { return (UInt32(b & 0x1F) << 6 | UInt32(bytes[i + 1] & 0x3F), 2) }
        if b < 0xF0 { return (UInt32(b & 0x0F) << 12 | UInt32(bytes[i + 1] & 0x3F) << 6 | UInt32(bytes[i + 2] & 0x3F), 3) }
        return (UInt32(b & 0x07) << 18 | UInt32(bytes[i + 1] & 0x3F) << 12 | UInt32(bytes[i + 2] & 0x3F) << 6 | UInt32(bytes[i + 3] & 0x3F), 4)
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
