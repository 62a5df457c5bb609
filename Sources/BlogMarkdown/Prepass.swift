import CCmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A light pass over source lines for the Qiita constructs cmark cannot see as blocks.
// It never adds a line, and removes only the body lines of fenced code blocks (the fence bypass
// below), whose count it records, so every cmark line number maps back to the original text.
//
// - `:::note info` / `:::` lines become one-line HTML comments `<!--\u{E000}note info-->` /
//   `<!--\u{E000}end-->` (a plain or unknown-type `:::` block opens with `<!--\u{E000}plain-->`):
//   an HTML block of type 2 interrupts a paragraph and ends on its line, so each
//   marker is its own block in the tree, and the transform wraps the blocks between them.
// - `[^label]: text` (a footnote definition, which cmark would take as a link reference definition)
//   becomes `+   \u{E001}label\u{E001}text`: a list item, so that the lines indented under it (more
//   paragraphs, code, lists) are part of it as in GFM; the transform recognises the marker, takes the
//   item's blocks as the footnote and drops the item.
// - `$math$` on a line becomes a code span `` `\u{E002}math\u{E002}` `` so that cmark keeps the content
//   verbatim (no emphasis, no backslash escapes). Code spans, link destinations and tags are skipped.
//   `$$math$$` on one line becomes `` `\u{E003}math\u{E003}` `` the same way (display math).
// - A `$$` line, the lines up to the next `$$` line and that line (display math, as on Qiita) become a
//   fenced ```` ~~~math ```` block, which the code block pass writes like ```` ```math ````.
// - The body lines of a fenced code block at the top level are taken out of the text cmark parses
//   (the fence bypass below): cmark then parses an empty code block, and the body is put back as its
//   literal. This pass therefore does remove lines; `originalLine` maps cmark's lines back.
// Private-use markers U+E000…U+E003 already present in the input are replaced by U+FFFD first.
// Where a marker lands in a literal that is not ours (HTML, code blocks), `restoreMarkers` undoes it.
//
// Fence bypass. cmark scans every byte of a code block's body line by line and copies it twice (a
// large share of a technical archive's bytes are in fences), so the bodies are left out of the text
// it parses rather than blanked (much of cmark's cost is per line). A body is left out only when
// that provably gives the same tree:
// - the pass sees the opening fence at column 0 (no container can hold such a line except an HTML
//   block or another code block) and closes it on a line that cmark also takes as the closing fence:
//   at most three spaces, the same character, at least as long, then only spaces and tabs. Every
//   line cmark could close the block on is a closing line for this pass too (the pass takes any
//   indentation), so cmark sees no closing fence among the body lines either;
// - the document has no `\r` (cmark ends lines there too), the block no NUL (cmark rewrites it), and
//   the opening run is shorter than 256 (cmark keeps the fence length in a byte);
// - after the parse, the document has a code block with an empty literal starting at that very line
//   (`restoreFenceBodies`). cmark's block structure is decided line by line from the lines before:
//   those are the same in both texts (the earlier blocks were checked the same way, and the body of
//   a top-level fenced block changes nothing but its literal), so cmark opened the same top-level
//   fenced block on that line in the original text too, and closed it on the same closing line.
//   If any block fails the check (an HTML block holding the fence, a closing line this pass got
//   wrong, ...), the document is parsed again without the bypass.
// The body is the original (sanitized) bytes between the fence lines, what cmark keeps for a fence
// without indentation; a body running to the end of the text without a newline gets one, as cmark
// adds it.

let noteMarkerPrefix: [UInt8] = Array("<!--\u{E000}".utf8)
let footnoteMarker: [UInt8] = [0xEE, 0x80, 0x81] // U+E001
/// Written before the footnote marker: the definition is a list item (see above) whose content
/// starts four columns in, so that its blocks are indented by four spaces as in GFM.
let footnoteItemPrefix: [UInt8] = Array("+   ".utf8)
let mathMarker: [UInt8] = [0xEE, 0x80, 0x82] // U+E002
let displayMathMarker: [UInt8] = [0xEE, 0x80, 0x83] // U+E003

struct Prepass {
    /// The text cmark parses, or nil when it is the original text unchanged (most documents: they are
    /// then parsed in place, with no copy).
    var bytes: [UInt8]?
    /// Original text of each line turned into a note marker (1-based line number).
    /// (in line order: a list, as there is one per marker and they are looked up only when unmatched,
    /// so a dictionary's insertions would cost more than its lookups save)
    var noteLines: [(line: Int, text: [UInt8])] = []

    /// The original text of note marker line `line`.
    func noteLine(_ line: Int) -> [UInt8]? {
        noteLines.first(where: { $0.line == line })?.text
    }
    var sawNotes = false
    var sawFootnotes = false
    var sawMath = false
    /// Where each line starts in the text cmark parses (`bytes`, or the original), and its end if the
    /// text ends with a newline: the table pass reads source lines by these.
    var lineStarts: [Int] = []
    /// Whether the text cmark parses may hold a marker (U+E000…U+E003) of ours: only when the line
    /// pass changed something (markers in the original are replaced by U+FFFD first).
    var insertedMarkers = false

    /// A code block whose body lines were left out of the text cmark parses (see the fence bypass above).
    struct BypassedFence {
        /// The opening fence's line in the text cmark parses.
        var line: Int32
        /// Where the body starts in `fenceBodies` (it ends with a newline, then a NUL).
        var bodyStart: Int
        /// The number of lines left out.
        var lines: Int32
    }
    /// In line order.
    var bypassedFences: [BypassedFence] = []
    /// The bodies of `bypassedFences`, each followed by a NUL (cmark takes a C string).
    var fenceBodies: [UInt8] = []

    /// The original line of line `line` of the text cmark parsed (they differ after a bypassed fence).
    func originalLine(_ line: Int32) -> Int32 {
        var result = line
        for fence in bypassedFences {
            guard fence.line < line else { break }
            result += fence.lines
        }
        return result
    }

    /// `bypassFences`: leave the bodies of top-level fenced code blocks out (off for the second parse
    /// after a failed check, and in tests comparing both).
    static func run(_ original: UnsafeBufferPointer<UInt8>, bypassFences: Bool = true) -> Prepass {
        // Replacing a marker (3 bytes) by U+FFFD (3 bytes) keeps every offset, so it is done up front
        // on the whole text and the line pass below never has to sanitize.
        guard let copy = sanitized(original) else { return run(original, original, sanitizedCopy: nil, bypassFences: bypassFences) }
        return copy.withUnsafeBufferPointer { run(original, $0, sanitizedCopy: copy, bypassFences: bypassFences) }
    }

    /// The line pass over `src` (`original` or its sanitized copy, which is kept if nothing else changes).
    private static func run(_ original: UnsafeBufferPointer<UInt8>, _ s: UnsafeBufferPointer<UInt8>, sanitizedCopy: [UInt8]?,
                            bypassFences: Bool) -> Prepass {
        var result = Prepass()
        // The output is built lazily: `out` holds the text up to `flushed`; bytes between `flushed`
        // and the current position are still those of `src`. Most documents change nothing at all
        // and are handed to cmark without a copy.
        var out: [UInt8] = []
        var flushed = 0
        let n = s.count
        result.lineStarts.reserveCapacity(n / 24 + 16) // typical lines are longer: no regrowth
        var endsWithNewline = n == 0 || s[n - 1] == 0x0A
        do {
            func flush(_ upTo: Int) {
                if out.isEmpty { out.reserveCapacity(n + 64) }
                if upTo > flushed { out.append(contentsOf: UnsafeBufferPointer(rebasing: s[flushed..<upTo])) }
                flushed = upTo
            }
            let hasDollar = n > 0 && memchr(s.baseAddress!, Int32(UInt8(ascii: "$")), n) != nil
            var fenceChar: UInt8 = 0
            var fenceLen = 0
            /// Inside a `$$` block: the index of its closing line's start, and the fence written for it.
            var mathBlockEnd = -1
            var mathFence: [UInt8] = []
            var noteDepth = 0
            /// Inside a raw HTML block that runs to an end marker (`<pre>`, a comment, …): the markers
            /// that end it. Its lines are cmark's raw HTML, kept as written (a `:::` there is text).
            var htmlBlockEnd: [[UInt8]]?
            /// The line number in the text cmark parses (bypassed body lines are not counted).
            var lineNumber = 0
            // Fence bypass (see above): the fence being tracked may be left out from `bodyStart` on,
            // whose line would be entry `bodyLineIndex` of `lineStarts`.
            let bypass = bypassFences
            /// Whether the text has a `\r` (checked at the first body left out): cmark ends lines
            /// there too, so its line numbers would not be those counted here.
            var hasCR: Bool?
            var bypassCandidate = false
            var bodyStart = 0
            var bodyLineIndex = 0
            var openLine = 0
            var openStart = 0
            /// Leaves `s[bodyStart..<upTo]` (whole lines) out of the text and records it as a body.
            @discardableResult func leaveOutBody(upTo: Int, closingLineEnd: Int) -> Bool {
                let lines = result.lineStarts.count - bodyLineIndex
                guard upTo > bodyStart else { return false }
                if hasCR == nil { hasCR = memchr(s.baseAddress!, 0x0D, n) != nil }
                // (a NUL only in this block's lines matters: cmark replaces it, in the literal too)
                guard hasCR == false, memchr(s.baseAddress! + openStart, 0, closingLineEnd - openStart) == nil else { return false }
                if result.fenceBodies.isEmpty { result.fenceBodies.reserveCapacity(n - bodyStart + 64) }
                flush(bodyStart)
                flushed = upTo
                result.lineStarts.removeSubrange(bodyLineIndex..<(bodyLineIndex + lines))
                lineNumber -= lines
                let bodyOffset = result.fenceBodies.count
                result.fenceBodies.append(contentsOf: UnsafeBufferPointer(rebasing: s[bodyStart..<upTo]))
                if s[upTo - 1] != 0x0A { result.fenceBodies.append(0x0A) }
                result.bypassedFences.append(BypassedFence(line: Int32(openLine), bodyStart: bodyOffset, lines: Int32(lines)))
                result.fenceBodies.append(0)
                return true
            }
            var start = 0
            while start < n {
                lineNumber += 1
                // the bytes before `flushed` are in `out`, those from it on still come from `s`
                result.lineStarts.append(out.count + start - flushed)
                let end: Int
                if let p = memchr(s.baseAddress! + start, 0x0A, n - start) {
                    end = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - s.baseAddress!
                } else {
                    end = n
                }
                let lineEnd = end < n ? end + 1 : end // includes the newline
                var contentEnd = end
                if contentEnd > start && s[contentEnd - 1] == 0x0D { contentEnd -= 1 }
                defer { start = lineEnd }

                var i = start
                while i < contentEnd && s[i].isSpaceOrTab { i += 1 }
                let indent = i - start
                // Display math: the closing `$$` line of a block found below; the lines before it are kept.
                if mathBlockEnd >= 0 {
                    guard start == mathBlockEnd else { continue }
                    flush(i)
                    out.append(contentsOf: mathFence)
                    flushed = contentEnd
                    mathBlockEnd = -1
                    continue
                }
                if fenceChar == 0 && Prepass.followRawHTMLBlock(s, i, contentEnd, indent: indent, state: &htmlBlockEnd) { continue }
                if fenceChar == 0, hasDollar, indent <= 3, isDollarsLine(s, i, contentEnd),
                   let close = closingDollarsLine(s, after: lineEnd) {
                    // `$$` … `$$` -> `~~~math` … `~~~`, longer than any `~` run that starts a line inside
                    mathFence = [UInt8](repeating: UInt8(ascii: "~"), count: max(2, close.longestTildes) + 1)
                    flush(i)
                    out.append(contentsOf: mathFence)
                    out.append(contentsOf: Array("math".utf8))
                    flushed = contentEnd
                    mathBlockEnd = close.start
                    result.sawMath = true
                    continue
                }

                // Fence tracking (any indentation, so fences in list items count too).
                switch Prepass.fenceLine(s, i, contentEnd, open: fenceChar, length: fenceLen) {
                case .opens(let c, let run):
                    fenceChar = c
                    fenceLen = run
                    bypassCandidate = bypass && indent == 0 && run < 256 && lineEnd < n
                    if bypassCandidate {
                        openStart = start
                        bodyStart = lineEnd
                        bodyLineIndex = result.lineStarts.count
                        openLine = lineNumber
                    }
                    continue
                case .closes:
                    fenceChar = 0
                    // cmark closes the block here too only with at most three spaces before the run
                    if bypassCandidate && indent <= 3 && !s[start..<i].contains(0x09) {
                        // this line's entry, made before it was known that the body goes
                        result.lineStarts.removeLast()
                        leaveOutBody(upTo: start, closingLineEnd: lineEnd)
                        result.lineStarts.append(out.count + start - flushed)
                    }
                    bypassCandidate = false
                    continue
                case .neither:
                    break
                }
                if fenceChar != 0 { continue }
                let line = s[i..<contentEnd]
                if indent <= 3 && i < contentEnd && s[i] == 0x3A && line.starts(with: [0x3A, 0x3A, 0x3A]) { // ":::"
                    let rest = line.dropFirst(3)
                    let trimmed = rest.drop(while: { $0.isSpaceOrTab })
                    if trimmed.isEmpty {
                        // a bare `:::` closes the open block, or opens a plain one
                        result.noteLines.append((lineNumber, Array(original[start..<contentEnd])))
                        flush(start)
                        out.append(contentsOf: noteMarkerPrefix)
                        if noteDepth > 0 {
                            noteDepth -= 1
                            out.append(static: "end-->")
                        } else {
                            noteDepth += 1
                            out.append(static: "plain-->")
                        }
                        flushed = contentEnd
                        result.sawNotes = true
                        continue
                    } else if rest.starts(with: "note".utf8) {
                        let words = rest.dropFirst(4)
                        if words.isEmpty || words.first!.isSpaceOrTab {
                            let word = words.drop(while: { $0.isSpaceOrTab }).prefix(while: { !$0.isSpaceOrTab })
                            noteDepth += 1
                            result.noteLines.append((lineNumber, Array(original[start..<contentEnd])))
                            flush(start)
                            out.append(contentsOf: noteMarkerPrefix)
                            // (bytes compared and static strings appended: no String per marker)
                            if word.elementsEqual("warn".utf8) {
                                out.append(static: "note warn-->")
                            } else if word.elementsEqual("alert".utf8) {
                                out.append(static: "note alert-->")
                            } else {
                                out.append(static: "note info-->")
                            }
                            flushed = contentEnd
                            result.sawNotes = true
                            continue
                        }
                    }
                    // `:::details`, `:::anything`: a plain block, as Qiita shows an unknown type
                    noteDepth += 1
                    result.noteLines.append((lineNumber, Array(original[start..<contentEnd])))
                    flush(start)
                    out.append(contentsOf: noteMarkerPrefix)
                    out.append(static: "plain-->")
                    flushed = contentEnd
                    result.sawNotes = true
                    continue
                }
                var from = i
                if indent <= 3, i < contentEnd, s[i] == UInt8(ascii: "["), let label = footnoteLabel(original[i..<contentEnd]) {
                    flush(i)
                    out.append(contentsOf: footnoteItemPrefix)
                    out.append(contentsOf: footnoteMarker)
                    out.append(contentsOf: label.label)
                    out.append(contentsOf: footnoteMarker)
                    from = label.end
                    while from < contentEnd && s[from].isSpaceOrTab { from += 1 }
                    flushed = from
                    result.sawFootnotes = true
                }
                if hasDollar, memchr(s.baseAddress! + from, Int32(UInt8(ascii: "$")), contentEnd - from) != nil,
                   convertMath(s, from, contentEnd, into: &out, flushed: &flushed) {
                    result.sawMath = true
                }
            }
            // a fence still open runs to the end of the text (the opening line ends with a newline)
            if fenceChar != 0 && bypassCandidate {
                if leaveOutBody(upTo: n, closingLineEnd: n) { endsWithNewline = true }
            }
        }
        if endsWithNewline { result.lineStarts.append(out.count + n - flushed) }
        if out.isEmpty && flushed == 0 {
            result.bytes = sanitizedCopy
        } else {
            // (a left-out body writes no marker)
            result.insertedMarkers = result.sawMath || result.sawNotes || result.sawFootnotes
            out.append(contentsOf: UnsafeBufferPointer(rebasing: s[flushed...]))
            result.bytes = out
        }
        return result
    }

    /// `src` with our private-use markers replaced by U+FFFD (same length); nil if it has none.
    static func sanitized(_ src: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard !src.isEmpty, memchr(src.baseAddress!, 0xEE, src.count) != nil else { return nil }
        var copy = Array(src)
        var k = 0
        let n = copy.count
        while k + 2 < n {
            if copy[k] == 0xEE && copy[k + 1] == 0x80 && copy[k + 2] >= 0x80 && copy[k + 2] <= 0x83 {
                copy[k] = 0xEF; copy[k + 1] = 0xBF; copy[k + 2] = 0xBD
                k += 3
                continue
            }
            k += 1
        }
        return copy
    }

    /// Whether `src[from..<to]` (from the first non-blank byte of a line) is `$$` and blanks.
    static func isDollarsLine(_ src: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        guard to - from >= 2, src[from] == UInt8(ascii: "$"), src[from + 1] == UInt8(ascii: "$") else { return false }
        var k = from + 2
        while k < to && src[k].isSpaceOrTab { k += 1 }
        return k == to
    }

    /// The next line after `offset` that is `$$` (up to three spaces of indentation): its start, and
    /// the longest run of `~` that starts a line before it (the fence must be longer). Nil when a
    /// blank line or the end comes first (display math has no blank lines; the `$$` is then left as
    /// text).
    static func closingDollarsLine(_ src: UnsafeBufferPointer<UInt8>, after offset: Int) -> (start: Int, longestTildes: Int)? {
        let n = src.count
        var start = offset
        var longestTildes = 0
        while start < n {
            var end = n
            if let p = memchr(src.baseAddress! + start, 0x0A, n - start) {
                end = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - src.baseAddress!
            }
            var contentEnd = end
            if contentEnd > start && src[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            var i = start
            while i < contentEnd && src[i].isSpaceOrTab { i += 1 }
            if i == contentEnd { return nil }
            if i - start <= 3 && isDollarsLine(src, i, contentEnd) { return (start, longestTildes) }
            var run = 0
            while i + run < contentEnd && src[i + run] == UInt8(ascii: "~") { run += 1 }
            longestTildes = max(longestTildes, run)
            start = end + 1
        }
        return nil
    }

    /// `[^label]:` at the start of `line`: the label and the index after the colon.
    static func footnoteLabel(_ line: Slice<UnsafeBufferPointer<UInt8>>) -> (label: Slice<UnsafeBufferPointer<UInt8>>, end: Int)? {
        guard line.count >= 5, line[line.startIndex] == UInt8(ascii: "["), line[line.startIndex + 1] == UInt8(ascii: "^") else { return nil }
        var k = line.startIndex + 2
        while k < line.endIndex && line[k] != UInt8(ascii: "]") {
            let b = line[k]
            if b.isWhitespace || b == UInt8(ascii: "[") || b == UInt8(ascii: "\\") || b == 0xEE { return nil }
            k += 1
        }
        guard k > line.startIndex + 2, k + 1 < line.endIndex, line[k + 1] == UInt8(ascii: ":") else { return nil }
        return (line[(line.startIndex + 2)..<k], k + 2)
    }

    /// Rewrites `$…$` spans of one line (between `from` and `to`) as marked code spans. Returns true if any.
    /// `out` holds the text up to `flushed`; the bytes before each rewritten span are copied first.
    static func convertMath(_ src: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int,
                            into out: inout [UInt8], flushed: inout Int) -> Bool {
        var converted = false
        var i = from
        func flush(_ upTo: Int) {
            if out.isEmpty { out.reserveCapacity(src.count + 64) }
            if upTo > flushed { out.append(contentsOf: UnsafeBufferPointer(rebasing: src[flushed..<upTo])) }
            flushed = upTo
        }
        while i < to {
            let b = src[i]
            switch b {
            case UInt8(ascii: "\\"):
                i += 2
            case UInt8(ascii: "`"):
                var j = i
                while j < to && src[j] == b { j += 1 }
                let run = j - i
                // find a closing run of the same length on this line
                var m = j
                var closed = -1
                while m < to {
                    if src[m] == b {
                        var e = m
                        while e < to && src[e] == b { e += 1 }
                        if e - m == run { closed = e; break }
                        m = e
                    } else { m += 1 }
                }
                i = closed >= 0 ? closed : j
            case UInt8(ascii: "]") where i + 1 < to && src[i + 1] == UInt8(ascii: "("):
                var j = i + 2
                var depth = 1
                while j < to && depth > 0 {
                    if src[j] == UInt8(ascii: "(") { depth += 1 } else if src[j] == UInt8(ascii: ")") { depth -= 1 }
                    j += 1
                }
                i = j
            case UInt8(ascii: "<") where i + 1 < to && (src[i + 1].isASCIILetter || src[i + 1] == UInt8(ascii: "/") || src[i + 1] == UInt8(ascii: "!")):
                var j = i + 1
                while j < to && src[j] != UInt8(ascii: ">") { j += 1 }
                i = j < to ? j + 1 : i + 1
            case UInt8(ascii: "$") where i + 1 < to && src[i + 1] == UInt8(ascii: "`"):
                // Qiita's `$`…`$`: the backticks (any run, closed by the same run and a `$`) delimit the math
                var r = i + 1
                while r < to && src[r] == UInt8(ascii: "`") { r += 1 }
                let run = r - (i + 1)
                var m = r
                var close = -1
                while m < to {
                    guard src[m] == UInt8(ascii: "`") else { m += 1; continue }
                    var e = m
                    while e < to && src[e] == UInt8(ascii: "`") { e += 1 }
                    if e - m == run && e < to && src[e] == UInt8(ascii: "$") { close = m; break }
                    m = e
                }
                // not closed: the backticks are an ordinary code span, seen by the case for them
                guard close > r else { i += 1; continue }
                flush(i)
                appendMathSpan(src[r..<close], marker: mathMarker, into: &out)
                converted = true
                i = close + run + 1
                flushed = i
            case UInt8(ascii: "$") where i + 1 < to && src[i + 1] == UInt8(ascii: "$"):
                // `$$…$$` on one line: display math, kept verbatim like `$…$`
                var j = i + 2
                var close = -1
                while j + 1 < to {
                    if src[j] == UInt8(ascii: "\\") { j += 2; continue }
                    if src[j] == UInt8(ascii: "$") && src[j + 1] == UInt8(ascii: "$") { close = j; break }
                    j += 1
                }
                guard close > i + 2 else { i += 2; continue }
                flush(i)
                appendMathSpan(src[(i + 2)..<close], marker: displayMathMarker, into: &out)
                converted = true
                i = close + 2
                flushed = i
            case UInt8(ascii: "$"):
                guard i + 1 < to, !src[i + 1].isWhitespace else { i += 1; continue }
                var j = i + 1
                var close = -1
                while j < to {
                    if src[j] == UInt8(ascii: "\\") { j += 2; continue }
                    if src[j] == UInt8(ascii: "$") {
                        let prevSpace = src[j - 1].isWhitespace
                        let nextDigit = j + 1 < to && src[j + 1].isDigit
                        if !prevSpace && !nextDigit { close = j }
                        break
                    }
                    j += 1
                }
                guard close > i + 1 else { i += 1; continue }
                flush(i)
                appendMathSpan(src[(i + 1)..<close], marker: mathMarker, into: &out)
                converted = true
                i = close + 1
                flushed = i
            default:
                i += 1
            }
        }
        return converted
    }
}

/// `content` as a code span that cmark keeps verbatim, between two `marker`s.
private func appendMathSpan(_ content: Slice<UnsafeBufferPointer<UInt8>>, marker: [UInt8], into out: inout [UInt8]) {
    var longest = 0, current = 0
    for c in content { if c == UInt8(ascii: "`") { current += 1; longest = max(longest, current) } else { current = 0 } }
    let ticks = [UInt8](repeating: UInt8(ascii: "`"), count: longest + 1)
    out.append(contentsOf: ticks)
    out.append(contentsOf: marker)
    out.append(contentsOf: UnsafeBufferPointer(rebasing: content))
    out.append(contentsOf: marker)
    out.append(contentsOf: ticks)
}

/// Undoes pre-pass markers inside a literal that cmark kept verbatim (HTML, code blocks, stray text).
func restoreMarkers(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
    guard let base = bytes.baseAddress, memchr(base, 0xEE, bytes.count) != nil else { return nil }
    var out: [UInt8] = []
    out.reserveCapacity(bytes.count)
    var changed = false
    var i = 0
    var skipTicks = 0
    let n = bytes.count
    var inMath = false
    while i < n {
        let b = bytes[i]
        if b == 0xEE && i + 2 < n && bytes[i + 1] == 0x80 {
            if bytes[i + 2] == 0x82 || bytes[i + 2] == 0x83 {
                changed = true
                let dollars: [UInt8] = bytes[i + 2] == 0x83 ? [0x24, 0x24] : [0x24]
                if !inMath {
                    var ticks = 0
                    while let last = out.last, last == UInt8(ascii: "`") { out.removeLast(); ticks += 1 }
                    skipTicks = ticks
                    out.append(contentsOf: dollars)
                    inMath = true
                    i += 3
                } else {
                    out.append(contentsOf: dollars)
                    inMath = false
                    i += 3
                    var t = 0
                    while t < skipTicks && i < n && bytes[i] == UInt8(ascii: "`") { i += 1; t += 1 }
                }
                continue
            }
            if bytes[i + 2] == 0x81 {
                // (+   )\u{E001}label\u{E001} -> [^label]:
                changed = true
                let prefix = footnoteItemPrefix.count
                if out.count >= prefix && out[(out.count - prefix)...].elementsEqual(footnoteItemPrefix) {
                    let before = out.count - prefix - 1
                    if before < 0 || out[before] == 0x0A || out[before].isSpaceOrTab { out.removeLast(prefix) }
                }
                var j = i + 3
                while j + 2 < n && !(bytes[j] == 0xEE && bytes[j + 1] == 0x80 && bytes[j + 2] == 0x81) { j += 1 }
                out.append(contentsOf: Array("[^".utf8))
                if j + 2 < n {
                    out.append(contentsOf: bytes[(i + 3)..<j])
                    out.append(contentsOf: Array("]: ".utf8))
                    i = j + 3
                } else {
                    i += 3
                }
                continue
            }
            if bytes[i + 2] == 0x80 { changed = true; i += 3; continue }
        }
        out.append(b)
        i += 1
    }
    return changed ? out : nil
}

extension Prepass {
    /// Checks that cmark parsed each bypassed fence as the pass expected (an empty code block at the
    /// top level, starting on the fence's line: see the fence bypass above) and gives each its body
    /// as literal. False when one is not there: the text must then be parsed without the bypass.
    func restoreFenceBodies(_ doc: Node) -> Bool {
        guard !bypassedFences.isEmpty else { return true }
        var next = 0
        var child = cmark_node_first_child(doc)
        while let node = child, next < bypassedFences.count {
            let line = cmark_node_get_start_line(node)
            let fence = bypassedFences[next]
            if line > fence.line { return false } // no block starts on the fence's line
            if line == fence.line {
                // (a fence line at column 0 cannot start an indented code block)
                guard cmark_node_get_type(node) == CMARK_NODE_CODE_BLOCK, literalBytes(node).isEmpty else { return false }
                fenceBodies.withUnsafeBufferPointer { bodies in
                    // The body is followed by a NUL in `fenceBodies`, and cmark copies it.
                    let body = UnsafeRawPointer(bodies.baseAddress! + fence.bodyStart).assumingMemoryBound(to: CChar.self)
                    _ = cmark_node_set_literal(node, body)
                }
                next += 1
            }
            child = cmark_node_next(node)
        }
        return next == bypassedFences.count
    }
}

extension Prepass {
    /// A line start where a document may be cut into sections (see `MarkdownRenderer.renderSectioned`).
    struct Cut {
        /// The offset of the line in the text.
        var offset: Int
        /// The number of lines before it.
        var linesBefore: Int
    }

    enum FenceLine {
        case opens(UInt8, Int)
        case closes
        case neither
    }

    /// What the line `s[i..<contentEnd]` (`i` after the indentation) does to fenced code, given the
    /// open fence's character (0: none) and length: opens one (its character and run), closes it,
    /// or neither.
    static func fenceLine(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ contentEnd: Int, open fenceChar: UInt8, length fenceLen: Int) -> FenceLine {
        guard i < contentEnd && (s[i] == UInt8(ascii: "`") || s[i] == UInt8(ascii: "~")) else { return .neither }
        let c = s[i]
        var j = i
        while j < contentEnd && s[j] == c { j += 1 }
        let run = j - i
        guard run >= 3 else { return .neither }
        if fenceChar == 0 {
            if c != UInt8(ascii: "`") || !s[j..<contentEnd].contains(UInt8(ascii: "`")) { return .opens(c, run) }
        } else if c == fenceChar && run >= fenceLen && s[j..<contentEnd].allSatisfy({ $0.isSpaceOrTab }) {
            return .closes
        }
        return .neither
    }

    /// The end markers of CommonMark's raw HTML blocks of types 1 to 5, which run until a line
    /// holds one (blank lines included).
    private static let anyPreEnd: [[UInt8]] = ["</pre>", "</script>", "</style>", "</textarea>"].map { Array($0.utf8) }
    private static let preNames: [[UInt8]] = ["pre", "script", "style", "textarea"].map { Array($0.utf8) }

    /// Follows raw HTML blocks of types 1 to 5 (`<pre>`, `<script>`, `<style>`, `<textarea>`,
    /// comments, `<?…?>`, `<!X…>`, CDATA) line by line: true when the line `s[i..<contentEnd]`
    /// (`i` after the indentation) opens, continues or closes one, so that the pass leaves it as
    /// written. `state` holds the open block's end markers.
    static func followRawHTMLBlock(_ s: UnsafeBufferPointer<UInt8>, _ i: Int, _ contentEnd: Int, indent: Int,
                                   state: inout [[UInt8]]?) -> Bool {
        if let ends = state {
            if ends.contains(where: { lineHolds(s, i, contentEnd, $0) }) { state = nil }
            return true
        }
        guard indent <= 3, contentEnd - i >= 2, s[i] == UInt8(ascii: "<") else { return false }
        let ends: [[UInt8]]
        var searchFrom = i
        let rest = s[(i + 1)..<contentEnd]
        if rest.starts(with: "!--".utf8) {
            ends = [Array("-->".utf8)]
            searchFrom = i + 4
        } else if rest.starts(with: "?".utf8) {
            ends = [Array("?>".utf8)]
            searchFrom = i + 2
        } else if rest.starts(with: "![CDATA[".utf8) {
            ends = [Array("]]>".utf8)]
            searchFrom = i + 9
        } else if rest.count >= 2 && rest.first == UInt8(ascii: "!") && rest[rest.startIndex + 1].isASCIILetter {
            ends = [Array(">".utf8)]
            searchFrom = i + 2
        } else if let name = preNames.first(where: { startsIgnoringCase(s, i + 1, contentEnd, $0) }) {
            let after = i + 1 + name.count
            guard after == contentEnd || s[after] == UInt8(ascii: ">") || s[after].isSpaceOrTab else { return false }
            ends = anyPreEnd
        } else {
            return false
        }
        if !ends.contains(where: { lineHolds(s, searchFrom, contentEnd, $0) }) { state = ends }
        return true
    }

    /// Whether `s[from..<to]` holds `marker`, ASCII letters compared ignoring case.
    private static func lineHolds(_ s: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ marker: [UInt8]) -> Bool {
        var k = from
        while k + marker.count <= to {
            if startsIgnoringCase(s, k, to, marker) { return true }
            k += 1
        }
        return false
    }

    private static func startsIgnoringCase(_ s: UnsafeBufferPointer<UInt8>, _ at: Int, _ to: Int, _ lowercase: [UInt8]) -> Bool {
        guard at + lowercase.count <= to else { return false }
        for (k, c) in lowercase.enumerated() {
            let b = s[at + k]
            if b != c && !(b >= 0x41 && b <= 0x5A && b | 0x20 == c) { return false }
        }
        return true
    }

    /// Line starts at least `spacing` bytes apart where the pass above is in its initial state (no
    /// fence, `$$` block or `:::` block open) and the line before is blank: the pass gives the lines
    /// from there on the same output alone as within the whole text, since it looks ahead only up to
    /// a blank line. The state follows `run`'s line loop step by step; whether cmark's blocks are
    /// closed there too is checked by the renderer. The line itself is not blank.
    static func sectionCuts(_ s: UnsafeBufferPointer<UInt8>, spacing: Int) -> [Cut] {
        var cuts: [Cut] = []
        let n = s.count
        guard let base = s.baseAddress else { return cuts }
        let hasDollar = memchr(base, Int32(UInt8(ascii: "$")), n) != nil
        var fenceChar: UInt8 = 0
        var fenceLen = 0
        var mathBlockEnd = -1
        var noteDepth = 0
        var htmlBlockEnd: [[UInt8]]?
        var previousBlank = false
        var lastCut = 0
        var line = 0
        var start = 0
        while start < n {
            let end: Int
            if let p = memchr(base + start, 0x0A, n - start) {
                end = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base
            } else {
                end = n
            }
            let lineEnd = end < n ? end + 1 : end
            var contentEnd = end
            if contentEnd > start && s[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { start = lineEnd; line += 1 }
            var i = start
            while i < contentEnd && s[i].isSpaceOrTab { i += 1 }
            let indent = i - start
            let blank = i == contentEnd
            if !blank && previousBlank && fenceChar == 0 && mathBlockEnd < 0 && noteDepth == 0 && htmlBlockEnd == nil
                && start - lastCut >= spacing {
                cuts.append(Cut(offset: start, linesBefore: line))
                lastCut = start
            }
            previousBlank = blank
            if mathBlockEnd >= 0 {
                if start == mathBlockEnd { mathBlockEnd = -1 }
                continue
            }
            if fenceChar == 0 && followRawHTMLBlock(s, i, contentEnd, indent: indent, state: &htmlBlockEnd) { continue }
            if fenceChar == 0, hasDollar, indent <= 3, isDollarsLine(s, i, contentEnd), let close = closingDollarsLine(s, after: lineEnd) {
                mathBlockEnd = close.start
                continue
            }
            switch fenceLine(s, i, contentEnd, open: fenceChar, length: fenceLen) {
            case .opens(let c, let run):
                fenceChar = c
                fenceLen = run
                continue
            case .closes:
                fenceChar = 0
                continue
            case .neither:
                break
            }
            if fenceChar != 0 { continue }
            let content = s[i..<contentEnd]
            if indent <= 3 && i < contentEnd && s[i] == 0x3A && content.starts(with: [0x3A, 0x3A, 0x3A]) {
                let trimmed = content.dropFirst(3).drop(while: { $0.isSpaceOrTab })
                if trimmed.isEmpty && noteDepth > 0 { noteDepth -= 1 } else { noteDepth += 1 }
            }
        }
        return cuts
    }
}
