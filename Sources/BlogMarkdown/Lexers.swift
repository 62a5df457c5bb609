// The lexers behind SyntaxHighlighter. Each works on a byte range of `e.code` and writes every byte
// of that range exactly once, either plain (escaped) or inside one span, so highlighting never
// changes the text.

@inline(__always) private func isIdentStart(_ b: UInt8) -> Bool { b.isASCIILetter || b == UInt8(ascii: "_") || b >= 0x80 }
@inline(__always) private func isIdentChar(_ b: UInt8) -> Bool { b.isASCIIAlnum || b == UInt8(ascii: "_") || b >= 0x80 }
@inline(__always) private func isOperator(_ b: UInt8) -> Bool { isOperatorByte(b) }
@inline(__always) func isOperatorByte(_ b: UInt8) -> Bool {
    switch b {
    case UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "/"), UInt8(ascii: "%"), UInt8(ascii: "="),
         UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "!"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "^"),
         UInt8(ascii: "~"), UInt8(ascii: "?"), UInt8(ascii: ":"):
        return true
    default: return false
    }
}

@inline(__always) private func matches(_ c: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int, _ p: [UInt8]) -> Bool {
    guard i + p.count <= end else { return false }
    for k in 0..<p.count where c[i + k] != p[k] { return false }
    return true
}

@inline(__always) private func lineEnd(_ c: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Int {
    var j = i
    while j < end && c[j] != 0x0A { j += 1 }
    return j
}

/// End of a quoted string starting at `i` (the quote); backslash escapes; stops at a newline unless multiline.
@inline(__always) private func stringEnd(_ c: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int, _ q: UInt8, multiline: Bool) -> Int {
    var j = i + 1
    while j < end {
        let b = c[j]
        if b == UInt8(ascii: "\\") { j += 2; continue }
        if b == q { return j + 1 }
        if b == 0x0A && !multiline { return j }
        j += 1
    }
    return end
}

private func numberEnd(_ c: UnsafeBufferPointer<UInt8>, _ i: Int, _ end: Int) -> Int {
    var j = i
    while j < end {
        let b = c[j]
        if isIdentChar(b) && b < 0x80 { j += 1; continue }
        if b == UInt8(ascii: ".") && j + 1 < end && c[j + 1].isDigit { j += 1; continue }
        if (b == UInt8(ascii: "+") || b == UInt8(ascii: "-")) && j > i && (c[j - 1] == UInt8(ascii: "e") || c[j - 1] == UInt8(ascii: "E"))
            && !(j - i >= 2 && (c[i + 1] == UInt8(ascii: "x") || c[i + 1] == UInt8(ascii: "X"))) { j += 1; continue }
        break
    }
    return j
}

// The runs the fast path skips, walked with one pointer, since indexing `c` keeps three induction
// variables in the loop.

/// The end of the identifier characters of `c[from..<end]`.
@inline(__always) private func identEnd(_ c: UnsafeBufferPointer<UInt8>, _ from: Int, _ end: Int, _ ident: UnsafeBufferPointer<Bool>) -> Int {
    let base = c.baseAddress.unsafelyUnwrapped, table = ident.baseAddress.unsafelyUnwrapped
    var p = base + from
    let e = base + end
    while p < e && table[Int(p.pointee)] { p += 1 }
    return p - base
}

/// The end of the run of spaces of `c[from..<end]`.
@inline(__always) private func spacesEnd(_ c: UnsafeBufferPointer<UInt8>, _ from: Int, _ end: Int) -> Int {
    let base = c.baseAddress.unsafelyUnwrapped
    var p = base + from
    let e = base + end
    while p < e && p.pointee == 0x20 { p += 1 }
    return p - base
}

/// `isIdentChar` as a table (ASCII letters, digits, `_`, every byte from 0x80).
private let identCharTable: [Bool] = (0..<256).map { isIdentChar(UInt8($0)) }

func lexGeneric(_ e: inout Emitter, _ start: Int, _ end: Int, _ s: Spec) {
    guard !s.byteClass.isEmpty else { return lexGeneric(&e, start, end, s.prepared()) } // a spec not from `Specs`
    s.byteClass.withUnsafeBufferPointer { classes in
        identCharTable.withUnsafeBufferPointer { ident in lexGeneric(&e, start, end, s, classes, ident) }
    }
}

private func lexGeneric(_ e: inout Emitter, _ start: Int, _ end: Int, _ s: Spec,
                        _ classTable: UnsafeBufferPointer<UInt8>, _ ident: UnsafeBufferPointer<Bool>) {
    let c = e.code
    var i = start
    var plainStart = start
    var atLineStart = true
    // Whether the plain bytes since `plainStart` may hold a `"`, `&`, `<` or `>`. Only the slow path
    // lets one through (`Spec.prepared` never classes them `other`), so most runs are copied as
    // they are instead of escaped byte by byte.
    var plainDirty = false
    let fold = s.foldWords
    while i < end {
        let b = c[i]
        // Fast path: the byte's class says which of the checks below can apply.
        switch classTable[Int(b)] {
        // (indentation: a run of spaces in one go)
        case Spec.ByteClass.space: i = spacesEnd(c, i + 1, end); continue
        case Spec.ByteClass.newline: atLineStart = true; i = spacesEnd(c, i + 1, end); continue
        case Spec.ByteClass.other: atLineStart = false; i += 1; continue
        case Spec.ByteClass.identStart:
            atLineStart = false
            var j = identEnd(c, i + 1, end, ident)
            if s.symbols && j < end && (c[j] == UInt8(ascii: "?") || c[j] == UInt8(ascii: "!")) && s.keywords.contains(c, i, j + 1) { j += 1 }
            let exact = WordSet.key(c, i, j, false)
            let cls: StaticString
            if !fold {
                var wordClass: UInt8 = 0 // (an `exact.map { … }` closure here was not inlined)
                if let exact { wordClass = s.words.lookup(exact) }
                switch wordClass {
                case WordClasses.keyword: cls = "kw"
                case WordClasses.literal: cls = "lit"
                case WordClasses.type: cls = "ty"
                default:
                    if s.capitalizedTypes && b >= 0x41 && b <= 0x5A {
                        cls = "ty"
                    } else if s.functionCalls {
                        var k = j
                        while k < end && c[k].isSpaceOrTab { k += 1 }
                        if k < end && c[k] == UInt8(ascii: "(") { cls = "fn" } else { i = j; continue }
                    } else {
                        i = j; continue
                    }
                }
                e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
                e.spanVerbatim(cls, i, j)
                i = j
                plainStart = j
                continue
            }
            let folded = WordSet.key(c, i, j, true)
            if let exact, let folded, s.keywords.contains(exact: exact, folded: folded) {
                cls = "kw"
            } else if let exact, let folded, s.literals.contains(exact: exact, folded: folded) {
                cls = "lit"
            } else if let exact, let folded, s.types.contains(exact: exact, folded: folded) {
                cls = "ty"
            } else if s.capitalizedTypes && b >= 0x41 && b <= 0x5A {
                cls = "ty"
            } else if s.functionCalls {
                var k = j
                while k < end && c[k].isSpaceOrTab { k += 1 }
                if k < end && c[k] == UInt8(ascii: "(") { cls = "fn" } else { i = j; continue }
            } else {
                i = j; continue
            }
            e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
            e.spanVerbatim(cls, i, j) // letters, digits, `_`, `?`, `!` and non-ASCII: nothing to escape
            i = j
            plainStart = j
            continue
        case Spec.ByteClass.digit:
            atLineStart = false
            let tokenEnd = numberEnd(c, i, end)
            if tokenEnd < end && ident[Int(c[tokenEnd])] { // e.g. 3rd, 1password: not a number
                var j = tokenEnd
                while j < end && ident[Int(c[j])] { j += 1 }
                i = j
                continue
            }
            e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
            e.spanVerbatim("num", i, tokenEnd) // ASCII alphanumerics, `.`, `+`, `-`
            i = tokenEnd
            plainStart = i
            continue
        case Spec.ByteClass.dot:
            // a number like `.5`, or a byte with no token of its own
            atLineStart = false
            if i + 1 < end && c[i + 1].isDigit && (i == start || !ident[Int(c[i - 1])]) {
                let tokenEnd = numberEnd(c, i, end)
                if tokenEnd < end && ident[Int(c[tokenEnd])] {
                    var j = tokenEnd
                    while j < end && ident[Int(c[j])] { j += 1 }
                    i = j
                    continue
                }
                e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
                e.spanVerbatim("num", i, tokenEnd)
                i = tokenEnd
                plainStart = i
                continue
            }
            i += 1
            continue
        case Spec.ByteClass.op:
            atLineStart = false
            var j = i + 1
            while j < end && isOperator(c[j]) && !(c[j] == UInt8(ascii: "/") && j + 1 < end && (c[j + 1] == UInt8(ascii: "/") || c[j + 1] == UInt8(ascii: "*"))) { j += 1 }
            e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
            e.span("op", i, j)
            i = j
            plainStart = i
            continue
        default:
            break
        }
        let wasLineStart = atLineStart
        atLineStart = false
        var tokenEnd = -1
        var cls: StaticString = "kw"

        // comments
        if !s.lineComments.isEmpty {
            for lc in s.lineComments where c[i] == lc[0] && matches(c, i, end, lc) {
                if s.hashCommentAtWordStart && i > start && !c[i - 1].isWhitespace { continue }
                tokenEnd = lineEnd(c, i, end); cls = "com"; break
            }
        }
        if tokenEnd < 0, let bc = s.blockComment, b == bc.open[0], matches(c, i, end, bc.open) {
            var depth = 1
            var j = i + bc.open.count
            while j < end {
                if matches(c, j, end, bc.close) { depth -= 1; j += bc.close.count; if depth == 0 || !s.nestedComments { break }; continue }
                if s.nestedComments && matches(c, j, end, bc.open) { depth += 1; j += bc.open.count; continue }
                j += 1
            }
            tokenEnd = min(j, end); cls = "com"
        }
        if tokenEnd < 0 {
            switch b {
            case UInt8(ascii: "#") where s.hashPreprocessor && wasLineStart:
                var j = i
                while true {
                    j = lineEnd(c, j, end)
                    if j < end && j > i && c[j - 1] == UInt8(ascii: "\\") { j += 1; continue }
                    break
                }
                tokenEnd = j; cls = "pre"
            case UInt8(ascii: "#") where s.hashDirectives && i + 1 < end && c[i + 1].isASCIILetter:
                var j = i + 1
                while j < end && isIdentChar(c[j]) { j += 1 }
                tokenEnd = j; cls = "pre"
            case UInt8(ascii: "<") where s.phpTags && matches(c, i, end, Array("<?php".utf8)):
                tokenEnd = i + 5; cls = "pre"
            case UInt8(ascii: "?") where s.phpTags && i + 1 < end && c[i + 1] == UInt8(ascii: ">"):
                tokenEnd = i + 2; cls = "pre"
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"):
                if s.tripleQuotes && b != UInt8(ascii: "`") && i + 2 < end && c[i + 1] == b && c[i + 2] == b {
                    var j = i + 3
                    while j < end {
                        if c[j] == UInt8(ascii: "\\") { j += 2; continue }
                        if j + 2 < end && c[j] == b && c[j + 1] == b && c[j + 2] == b { j += 3; break }
                        j += 1
                    }
                    tokenEnd = min(j, end); cls = "str"
                } else if s.multilineQuotes.contains(b) {
                    tokenEnd = min(stringEnd(c, i, end, b, multiline: true), end); cls = "str"
                } else if s.quotes.contains(b) {
                    tokenEnd = min(stringEnd(c, i, end, b, multiline: false), end); cls = "str"
                    if s.jsonKeys {
                        var k = tokenEnd
                        while k < end && c[k].isSpaceOrTab { k += 1 }
                        if k < end && c[k] == UInt8(ascii: ":") { cls = "attr" }
                    }
                }
            case UInt8(ascii: "@"):
                if s.atStrings && i + 1 < end && c[i + 1] == UInt8(ascii: "\"") {
                    tokenEnd = min(stringEnd(c, i + 1, end, UInt8(ascii: "\""), multiline: false), end); cls = "str"
                } else if s.atVariables && i + 1 < end && (isIdentStart(c[i + 1]) || c[i + 1] == UInt8(ascii: "@")) {
                    var j = i + 1
                    if c[j] == UInt8(ascii: "@") { j += 1 }
                    while j < end && isIdentChar(c[j]) { j += 1 }
                    tokenEnd = j; cls = "var"
                } else if s.atAnnotations && i + 1 < end && isIdentStart(c[i + 1]) {
                    var j = i + 1
                    while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: ".")) { j += 1 }
                    tokenEnd = j; cls = "attr"
                }
            case UInt8(ascii: "$") where s.dollarVariables:
                if i + 1 < end && c[i + 1] == UInt8(ascii: "{") {
                    var j = i + 2
                    while j < end && c[j] != UInt8(ascii: "}") && c[j] != 0x0A { j += 1 }
                    tokenEnd = j < end && c[j] == UInt8(ascii: "}") ? j + 1 : j; cls = "var"
                } else if i + 1 < end && (isIdentChar(c[i + 1]) || c[i + 1] == UInt8(ascii: "?") || c[i + 1] == UInt8(ascii: "@")
                                          || c[i + 1] == UInt8(ascii: "#") || c[i + 1] == UInt8(ascii: "!") || c[i + 1] == UInt8(ascii: "*")) {
                    var j = i + 1
                    if isIdentChar(c[j]) { while j < end && isIdentChar(c[j]) && c[j] < 0x80 { j += 1 } } else { j += 1 }
                    tokenEnd = j; cls = "var"
                }
            case UInt8(ascii: ":") where s.symbols && i + 1 < end && isIdentStart(c[i + 1]) && c[i + 1] < 0x80
                && (i == start || (c[i - 1] != UInt8(ascii: ":") && !isIdentChar(c[i - 1]))):
                var j = i + 1
                while j < end && isIdentChar(c[j]) && c[j] < 0x80 { j += 1 }
                if j < end && (c[j] == UInt8(ascii: "?") || c[j] == UInt8(ascii: "!")) { j += 1 }
                tokenEnd = j; cls = "lit"
            case UInt8(ascii: "&") where s.anchors && i + 1 < end && isIdentChar(c[i + 1]) && (i == start || c[i - 1].isWhitespace),
                 UInt8(ascii: "*") where s.anchors && i + 1 < end && isIdentChar(c[i + 1]) && (i == start || c[i - 1].isWhitespace):
                var j = i + 1
                while j < end && !c[j].isWhitespace { j += 1 }
                tokenEnd = j; cls = "var"
            case UInt8(ascii: "-") where s.dashOptions && i + 1 < end && (c[i + 1].isASCIILetter || c[i + 1] == UInt8(ascii: "-"))
                && (i == start || c[i - 1].isWhitespace):
                var j = i + 1
                while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) && c[j] < 0x80 { j += 1 }
                tokenEnd = j; cls = "attr"
            default:
                break
            }
        }
        if tokenEnd < 0 {
            if b.isDigit || (b == UInt8(ascii: ".") && i + 1 < end && c[i + 1].isDigit && (i == start || !isIdentChar(c[i - 1]))) {
                tokenEnd = numberEnd(c, i, end); cls = "num"
                if tokenEnd < end && isIdentChar(c[tokenEnd]) { // e.g. 3rd, 1password: not a number
                    var j = tokenEnd
                    while j < end && isIdentChar(c[j]) { j += 1 }
                    tokenEnd = -1
                    i = j
                    continue
                }
            } else if isIdentStart(b) {
                var j = i + 1
                while j < end && isIdentChar(c[j]) { j += 1 }
                // Ruby/Swift: `defined?`, `pod!` style names are looked up with the mark
                if s.symbols && j < end && (c[j] == UInt8(ascii: "?") || c[j] == UInt8(ascii: "!")) && s.keywords.contains(c, i, j + 1) { j += 1 }
                // one key per word (folded only when some set of the language ignores case)
                let exact = WordSet.key(c, i, j, false)
                let folded = s.anyCaseInsensitive ? WordSet.key(c, i, j, true) : exact
                if let exact, let folded, s.keywords.contains(exact: exact, folded: folded) {
                    cls = "kw"; tokenEnd = j
                } else if let exact, let folded, s.literals.contains(exact: exact, folded: folded) {
                    cls = "lit"; tokenEnd = j
                } else if let exact, let folded, s.types.contains(exact: exact, folded: folded) {
                    cls = "ty"; tokenEnd = j
                } else if s.capitalizedTypes && b >= 0x41 && b <= 0x5A {
                    cls = "ty"; tokenEnd = j
                } else if s.functionCalls {
                    var k = j
                    while k < end && c[k].isSpaceOrTab { k += 1 }
                    if k < end && c[k] == UInt8(ascii: "(") { cls = "fn"; tokenEnd = j } else { i = j; continue }
                } else {
                    i = j; continue
                }
            } else if s.operators && isOperator(b) {
                var j = i + 1
                while j < end && isOperator(c[j]) && !(c[j] == UInt8(ascii: "/") && j + 1 < end && (c[j + 1] == UInt8(ascii: "/") || c[j + 1] == UInt8(ascii: "*"))) { j += 1 }
                tokenEnd = j; cls = "op"
            } else {
                if b == 0x22 || b == 0x26 || b == 0x3C || b == 0x3E { plainDirty = true }
                i += 1
                continue
            }
        }
        e.plain(plainStart, i, clean: !plainDirty); plainDirty = false
        e.span(cls, i, tokenEnd)
        // a comment or string may have ended with a newline inside
        if tokenEnd > i && c[tokenEnd - 1] == 0x0A { atLineStart = true }
        i = tokenEnd
        plainStart = i
    }
    e.plain(plainStart, end, clean: !plainDirty)
}

/// `console`: prompt lines (`$ `, `% `, `# `) are a prompt plus a shell command; other lines are output.
func lexConsole(_ e: inout Emitter) {
    let c = e.code
    var i = 0
    while i < c.count {
        let end = lineEnd(c, i, c.count)
        var k = i
        while k < end && c[k].isSpaceOrTab { k += 1 }
        if k < end && (c[k] == UInt8(ascii: "$") || c[k] == UInt8(ascii: "%") || c[k] == UInt8(ascii: "#") || c[k] == UInt8(ascii: ">"))
            && (k + 1 == end || c[k + 1] == 0x20) {
            let promptEnd = min(k + 2, end)
            e.plain(i, k)
            e.span("prompt", k, promptEnd)
            lexGeneric(&e, promptEnd, end, Specs.shell)
        } else {
            e.plain(i, end)
        }
        if end < c.count { e.plain(end, end + 1) }
        i = end + 1
    }
}

/// `diff` and `diff_LANG`: each line is an added, removed, hunk or context line; with LANG the
/// rest of every line is highlighted (line by line) as that language.
func lexDiff(_ e: inout Emitter, _ inner: Spec?) {
    let c = e.code
    var i = 0
    var sawHunk = false
    while i < c.count {
        let end = lineEnd(c, i, c.count)
        let first: UInt8 = i < end ? c[i] : 0
        let nextStart = end < c.count ? end + 1 : end
        func isHeader() -> Bool {
            if sawHunk { return false }
            if matches(c, i, end, Array("diff ".utf8)) || matches(c, i, end, Array("index ".utf8)) { return true }
            if matches(c, i, end, Array("+++ ".utf8)) { return true }
            if matches(c, i, end, Array("--- ".utf8)) { return matches(c, nextStart, c.count, Array("+++ ".utf8)) }
            return false
        }
        if isHeader() {
            e.span("pre", i, end)
        } else if first == UInt8(ascii: "@") && matches(c, i, end, Array("@@".utf8)) {
            sawHunk = true
            e.span("hunk", i, end)
        } else if first == UInt8(ascii: "+") || first == UInt8(ascii: "-") || first == UInt8(ascii: ">") || first == UInt8(ascii: "<") {
            let cls: StaticString = (first == UInt8(ascii: "+") || first == UInt8(ascii: ">")) ? "add" : "del"
            if let spec = inner {
                e.open(cls)
                e.plain(i, i + 1)
                lexGeneric(&e, i + 1, end, spec)
                e.close()
            } else {
                e.span(cls, i, end)
            }
        } else if let spec = inner, first == 0x20 {
            e.plain(i, i + 1)
            lexGeneric(&e, i + 1, end, spec)
        } else if let spec = inner {
            lexGeneric(&e, i, end, spec)
        } else {
            e.plain(i, end)
        }
        if end < c.count { e.plain(end, end + 1) }
        i = end + 1
    }
}

/// YAML, line by line: document markers, `key:` (attr), `- ` items, then scalar values.
func lexYAML(_ e: inout Emitter) {
    let c = e.code
    var i = 0
    while i < c.count {
        let end = lineEnd(c, i, c.count)
        var k = i
        while k < end && c[k].isSpaceOrTab { k += 1 }
        e.plain(i, k)
        if k == i && (matches(c, k, end, Array("---".utf8)) || matches(c, k, end, Array("...".utf8))) {
            e.span("pre", k, k + 3)
            k += 3
        }
        while k + 1 <= end && c[k] == UInt8(ascii: "-") && (k + 1 == end || c[k + 1] == 0x20) {
            e.span("op", k, k + 1)
            k += 1
            let s = k
            while k < end && c[k].isSpaceOrTab { k += 1 }
            e.plain(s, k)
        }
        // key?
        if k < end && c[k] != UInt8(ascii: "#") && c[k] != UInt8(ascii: "{") && c[k] != UInt8(ascii: "[") {
            var j = k
            var keyEnd = -1
            if c[k] == UInt8(ascii: "\"") || c[k] == UInt8(ascii: "'") {
                let q = stringEnd(c, k, end, c[k], multiline: false)
                if q < end && c[q] == UInt8(ascii: ":") && (q + 1 == end || c[q + 1].isSpaceOrTab) { keyEnd = q }
            } else {
                while j < end {
                    if c[j] == UInt8(ascii: ":") && (j + 1 == end || c[j + 1].isSpaceOrTab || c[j + 1] == 0x0D) { keyEnd = j; break }
                    if c[j] == UInt8(ascii: "#") && j > k && c[j - 1].isSpaceOrTab { break }
                    j += 1
                }
            }
            if keyEnd > k {
                e.span("attr", k, keyEnd)
                e.span("op", keyEnd, keyEnd + 1)
                k = keyEnd + 1
            }
        }
        lexGeneric(&e, k, end, Specs.yamlValue)
        if end < c.count { e.plain(end, end + 1) }
        i = end + 1
    }
}

/// HTML and XML: comments, doctype / processing instructions, tags with attributes, entities;
/// `<script>` and `<style>` bodies are highlighted as JavaScript and CSS.
func lexMarkup(_ e: inout Emitter, _ start: Int, _ end: Int) {
    let c = e.code
    var i = start
    var plainStart = start
    while i < end {
        let b = c[i]
        if b == UInt8(ascii: "&") {
            var j = i + 1
            while j < end && j - i < 32 && (c[j].isASCIIAlnum || c[j] == UInt8(ascii: "#")) { j += 1 }
            if j < end && c[j] == UInt8(ascii: ";") && j > i + 1 {
                e.plain(plainStart, i)
                e.span("lit", i, j + 1)
                i = j + 1; plainStart = i; continue
            }
            i += 1; continue
        }
        guard b == UInt8(ascii: "<"), i + 1 < end else { i += 1; continue }
        let n = c[i + 1]
        if matches(c, i, end, Array("<!--".utf8)) {
            var j = i + 4
            while j < end && !matches(c, j, end, Array("-->".utf8)) { j += 1 }
            j = min(j + 3, end)
            e.plain(plainStart, i); e.span("com", i, j); i = j; plainStart = i; continue
        }
        if n == UInt8(ascii: "!") || n == UInt8(ascii: "?") {
            var j = i + 2
            while j < end && c[j] != UInt8(ascii: ">") { j += 1 }
            j = min(j + 1, end)
            e.plain(plainStart, i); e.span("pre", i, j); i = j; plainStart = i; continue
        }
        guard n.isASCIILetter || n == UInt8(ascii: "/") else { i += 1; continue }
        e.plain(plainStart, i)
        var j = i + 1
        if c[j] == UInt8(ascii: "/") { j += 1 }
        let nameStart = j
        while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-") || c[j] == UInt8(ascii: ":") || c[j] == UInt8(ascii: ".")) { j += 1 }
        let name = String(decoding: c[nameStart..<j].map { $0.lowerASCII }, as: UTF8.self)
        let closing = n == UInt8(ascii: "/")
        e.span("tag", i, j)
        // attributes
        var k = j
        var selfClosing = false
        while k < end {
            let a = c[k]
            if a == UInt8(ascii: ">") { e.span("tag", k, k + 1); k += 1; break }
            if a == UInt8(ascii: "/") && k + 1 < end && c[k + 1] == UInt8(ascii: ">") { e.span("tag", k, k + 2); k += 2; selfClosing = true; break }
            if a.isWhitespace { var m = k; while m < end && c[m].isWhitespace { m += 1 }; e.plain(k, m); k = m; continue }
            if a == UInt8(ascii: "=") { e.span("op", k, k + 1); k += 1; continue }
            if a == UInt8(ascii: "\"") || a == UInt8(ascii: "'") {
                var m = k + 1
                while m < end && c[m] != a { m += 1 }
                m = min(m + 1, end)
                e.span("str", k, m); k = m; continue
            }
            if a == UInt8(ascii: "<") { break }
            var m = k
            while m < end && !c[m].isWhitespace && c[m] != UInt8(ascii: "=") && c[m] != UInt8(ascii: ">") && c[m] != UInt8(ascii: "<")
                && !(c[m] == UInt8(ascii: "/") && m + 1 < end && c[m + 1] == UInt8(ascii: ">")) { m += 1 }
            if m == k { m += 1 }
            let prevIsEquals = k > j && c[k - 1] == UInt8(ascii: "=")
            e.span(prevIsEquals ? "str" : "attr", k, m)
            k = m
        }
        i = k
        plainStart = i
        if !closing && !selfClosing && (name == "script" || name == "style") {
            var m = i
            let close = Array("</\(name)".utf8)
            while m < end {
                if c[m] == UInt8(ascii: "<") && m + close.count <= end {
                    var same = true
                    for q in 0..<close.count where c[m + q].lowerASCII != close[q] { same = false; break }
                    if same { break }
                }
                m += 1
            }
            if name == "script" { lexGeneric(&e, i, m, Specs.javascript) } else { lexCSS(&e, i, m) }
            i = m
            plainStart = i
        }
    }
    e.plain(plainStart, end)
}

/// CSS (and SCSS-ish): comments, strings, at-rules, selectors, properties, numbers with units, colours.
func lexCSS(_ e: inout Emitter, _ start: Int, _ end: Int) {
    let c = e.code
    var i = start
    var plainStart = start
    var depth = 0
    var expectProperty = false
    while i < end {
        let b = c[i]
        var tokenEnd = -1
        var cls: StaticString = "kw"
        if b == UInt8(ascii: "/") && i + 1 < end && c[i + 1] == UInt8(ascii: "*") {
            var j = i + 2
            while j < end && !matches(c, j, end, Array("*/".utf8)) { j += 1 }
            tokenEnd = min(j + 2, end); cls = "com"
        } else if b == UInt8(ascii: "\"") || b == UInt8(ascii: "'") {
            tokenEnd = min(stringEnd(c, i, end, b, multiline: false), end); cls = "str"
        } else if b == UInt8(ascii: "@") || (b == UInt8(ascii: "!") && i + 1 < end && c[i + 1].isASCIILetter) {
            var j = i + 1
            while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) { j += 1 }
            tokenEnd = j; cls = "kw"
        } else if b == UInt8(ascii: "{") {
            depth += 1; expectProperty = true; i += 1; continue
        } else if b == UInt8(ascii: "}") {
            depth = max(0, depth - 1); expectProperty = depth > 0; i += 1; continue
        } else if b == UInt8(ascii: ";") {
            expectProperty = depth > 0; i += 1; continue
        } else if b == UInt8(ascii: "#") && i + 1 < end && isIdentChar(c[i + 1]) {
            var j = i + 1
            while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) { j += 1 }
            tokenEnd = j; cls = (depth > 0 && !expectProperty) ? "num" : "ty"
        } else if b == UInt8(ascii: ".") && depth == 0 && i + 1 < end && isIdentStart(c[i + 1]) {
            var j = i + 1
            while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) { j += 1 }
            tokenEnd = j; cls = "ty"
        } else if b.isDigit || (b == UInt8(ascii: ".") && i + 1 < end && c[i + 1].isDigit) || (b == UInt8(ascii: "-") && i + 1 < end && c[i + 1].isDigit) {
            var j = i + 1
            while j < end && (c[j].isASCIIAlnum || c[j] == UInt8(ascii: ".") || c[j] == UInt8(ascii: "%")) { j += 1 }
            tokenEnd = j; cls = "num"
        } else if isIdentStart(b) || (b == UInt8(ascii: "-") && i + 1 < end && (isIdentStart(c[i + 1]) || c[i + 1] == UInt8(ascii: "-"))) {
            var j = i + 1
            while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) { j += 1 }
            if depth > 0 && expectProperty {
                var k = j
                while k < end && c[k].isSpaceOrTab { k += 1 }
                if k < end && c[k] == UInt8(ascii: ":") { tokenEnd = j; cls = "attr"; expectProperty = false }
                else { tokenEnd = j; cls = "tag" } // nested selector
            } else if depth == 0 {
                tokenEnd = j; cls = "tag"
            } else {
                var k = j
                while k < end && c[k].isSpaceOrTab { k += 1 }
                if k < end && c[k] == UInt8(ascii: "(") { tokenEnd = j; cls = "fn" } else { i = j; continue }
            }
        } else if b == UInt8(ascii: ":") && depth == 0 {
            var j = i + 1
            if j < end && c[j] == UInt8(ascii: ":") { j += 1 }
            while j < end && (isIdentChar(c[j]) || c[j] == UInt8(ascii: "-")) { j += 1 }
            tokenEnd = j; cls = "attr"
        } else {
            i += 1; continue
        }
        e.plain(plainStart, i)
        e.span(cls, i, tokenEnd)
        i = tokenEnd
        plainStart = i
    }
    e.plain(plainStart, end)
}
