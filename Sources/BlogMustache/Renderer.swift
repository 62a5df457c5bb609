// Tree walk that appends UTF-8 bytes. One Renderer per render call; the library is only read.

/// Appends `text` with `&`, `<`, `>`, `"` and `'` replaced by entities.
@inline(__always)
func appendEscaped(_ text: String, to out: inout OutputBuffer) {
    // Native strings are contiguous UTF-8: read in place, without a copy of the string.
    if text.utf8.withContiguousStorageIfAvailable({ appendEscaped($0, to: &out) }) != nil { return }
    // Not `var text = text; text.withUTF8`: that copy made the callers retain every string they
    // append, on the common path too.
    Array(text.utf8).withUnsafeBufferPointer { appendEscaped($0, to: &out) }
}

/// The lanes of `v` that hold one of the five escaped characters (all ones), as two words
/// (`any` may reduce lane by lane when not inlined). `&` (0x26) and `'` (0x27) are 0x27 with
/// bit 0 set, `<` (0x3C) and `>` (0x3E) are 0x3E with bit 1 set, `"` is 0x22. Zero never
/// matches.
@inline(__always)
func escapeCandidates(_ v: SIMD16<UInt8>) -> (UInt64, UInt64) {
    let ones = SIMD16<UInt8>(repeating: 1), twos = SIMD16<UInt8>(repeating: 2)
    let apostrophe = SIMD16<UInt8>(repeating: 0x27), greater = SIMD16<UInt8>(repeating: 0x3E), quote = SIMD16<UInt8>(repeating: 0x22)
    return unsafeBitCast((v | ones) .== apostrophe .| (v | twos) .== greater .| v .== quote, to: (UInt64, UInt64).self)
}

/// Sixteen bytes at a time: whether a byte may be one of the five escaped characters
/// (`escapeCandidates`), then the entities for the ones that are.
func appendEscaped(_ buffer: UnsafeBufferPointer<UInt8>, to out: inout OutputBuffer) {
    guard let base = buffer.baseAddress else { return }
    var runStart = 0
    var i = 0
    let n = buffer.count
    while i < n {
        let v: SIMD16<UInt8>
        if i + 16 <= n {
            v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD16<UInt8>.self)
        } else {
            // The last 1-15 bytes, tested the same way in a zero-padded copy (zero never
            // matches), because most interpolated strings are shorter than 16 bytes and checking
            // their bytes one by one would dominate this function.
            var tail = SIMD16<UInt8>(repeating: 0)
            withUnsafeMutableBytes(of: &tail) { OutputBuffer.copyShort(base + i, to: $0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n - i) }
            v = tail
        }
        let lanes = escapeCandidates(v)
        if lanes.0 | lanes.1 == 0 {
            i += 16
            continue
        }
        // The first lane that may be special (a matching lane is all ones; lane 0 is the low
        // byte of the first word on little-endian machines).
        i += lanes.0 != 0 ? lanes.0.trailingZeroBitCount >> 3 : 8 + lanes.1.trailingZeroBitCount >> 3
        let entity: StaticString
        switch base[i] {
        case UInt8(ascii: "&"): entity = "&amp;"
        case UInt8(ascii: "<"): entity = "&lt;"
        case UInt8(ascii: ">"): entity = "&gt;"
        case UInt8(ascii: "\""): entity = "&quot;"
        case UInt8(ascii: "'"): entity = "&#39;"
        default:
            // Not reached: `escapeCandidates` is exact (`=` and `?` give 0x3F, not 0x3E). Kept
            // so that a lane it reported by mistake would only be skipped.
            i += 1
            continue
        }
        if runStart < i { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: i - runStart)) }
        entity.withUTF8Buffer { out.append(contentsOf: $0) }
        i += 1
        runStart = i
    }
    if runStart < n { out.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: n - runStart)) }
}

/// Appends `value` in decimal, the bytes `String(value)` holds (digits need no escaping),
/// without making the String through `description`, since every page shows integers (reading
/// times, page numbers, years).
func appendDecimal(_ value: Int, to out: inout OutputBuffer) {
    var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
    withUnsafeMutableBytes(of: &digits) { raw in
        let end = raw.count
        let bytes = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var k = end
        var rest = value.magnitude
        repeat {
            k -= 1
            bytes[k] = UInt8(truncatingIfNeeded: rest % 10) &+ UInt8(ascii: "0")
            rest /= 10
        } while rest != 0
        if value < 0 {
            k -= 1
            bytes[k] = UInt8(ascii: "-")
        }
        out.append(bytes + k, count: end - k)
    }
}

@inline(__always)
func appendRaw(_ text: String, to out: inout OutputBuffer) {
    // One copy of the contiguous UTF-8 (a post's HTML runs to kilobytes): appending `text.utf8`
    // as a sequence goes byte by byte.
    if text.utf8.withContiguousStorageIfAvailable({ out.append(contentsOf: $0) }) != nil { return }
    out.append(contentsOf: text.utf8)
}

struct Renderer {
    let library: TemplateLibrary
    /// The context stack: where each frame's value is stored, in the caller's context (which
    /// outlives the render) or inside a value it holds. Values are immutable while a template
    /// renders, so a section pushes the address of its value instead of a copy (a copy retained
    /// the payload and released it again, for every section and every list item).
    /// `frameCount` frames in memory of the renderer's own (freed by `deallocate()`): an array's
    /// append and removeLast checked its buffer's uniqueness, twice for each section rendered.
    private(set) var frames: UnsafeMutablePointer<UnsafePointer<MustacheValue>>
    private(set) var frameCount = 0
    private var frameCapacity = 16
    /// The indentation written at the start of each template line (standalone partials and
    /// block arguments add to it): bytes `indentStart..<indentEnd` of memory of the renderer's
    /// own. Changes are undone in reverse order (`saveIndent`/`restoreIndent`), and only bytes
    /// at `indentEnd` and past it are written, so every saved window stays intact. As an array,
    /// each include retained the caller's indentation and the node's, and `saved + own`
    /// allocated a new array.
    private var indentBuffer: UnsafeMutablePointer<UInt8>
    private var indentCapacity = 64
    private var indentStart = 0
    private var indentEnd = 0
    /// The parent tags being rendered, outermost first: their block arguments (outermost wins).
    /// Unretained: a tag's template holds it for longer than the tag renders.
    var overrides: [Unmanaged<ParentNode>] = []
    var depth = 0
    /// The lane whose lookup hints this render reads and writes (see `Name.hints`), or -1: none.
    let lane: Int

    static let maxDepth = 200

    /// `context` must stay valid (and unchanged) while the renderer is used.
    init(library: TemplateLibrary, context: UnsafePointer<MustacheValue>, lane: Int = -1) {
        self.library = library
        self.frames = .allocate(capacity: frameCapacity)
        self.indentBuffer = .allocate(capacity: indentCapacity)
        self.lane = lane
        push(context)
    }

    /// Frees the context stack; the renderer is not used after.
    func deallocate() {
        frames.deallocate()
        indentBuffer.deallocate()
    }

    private var indent: UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: indentBuffer + indentStart, count: indentEnd - indentStart)
    }

    private var hasIndent: Bool { indentEnd != indentStart }

    private typealias IndentMark = (start: Int, end: Int)

    private func saveIndent() -> IndentMark { (indentStart, indentEnd) }

    private mutating func restoreIndent(_ mark: IndentMark) {
        indentStart = mark.start
        indentEnd = mark.end
    }

    /// No indentation (a partial tag inside a line, a lambda's template).
    private mutating func clearIndent() { indentStart = indentEnd }

    /// Appends `more` to the indentation.
    private mutating func extendIndent(_ more: [UInt8]) {
        more.withUnsafeBufferPointer { more in
            guard let source = more.baseAddress else { return }
            if indentEnd + more.count > indentCapacity {
                let capacity = max(indentCapacity * 2, indentEnd + more.count)
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
                bigger.initialize(from: indentBuffer, count: indentEnd)
                indentBuffer.deallocate()
                indentBuffer = bigger
                indentCapacity = capacity
            }
            (indentBuffer + indentEnd).initialize(from: source, count: more.count)
            indentEnd += more.count
        }
    }

    @inline(__always)
    private mutating func push(_ frame: UnsafePointer<MustacheValue>) {
        if frameCount == frameCapacity { growFrames() }
        frames[frameCount] = frame
        frameCount += 1
    }

    @inline(__always)
    private mutating func pop() { frameCount -= 1 }

    @inline(never)
    private mutating func growFrames() {
        let bigger = UnsafeMutablePointer<UnsafePointer<MustacheValue>>.allocate(capacity: frameCapacity * 2)
        bigger.moveInitialize(from: frames, count: frameCount)
        frames.deallocate()
        frames = bigger
        frameCapacity *= 2
    }

    // MARK: Lookup

    /// The value `name` resolves to, copied (for sections, which push it on the stack).
    func lookup(_ name: Name) -> MustacheValue? {
        lookupAddress(name)?.pointee
    }

    /// Where the value `name` resolves to is stored: a frame of the context stack or inside an object one
    /// holds, read without copying (a copy of a value retains its payload). Valid for the whole
    /// render (the values are not changed while it runs).
    func lookupAddress(_ name: Name) -> UnsafePointer<MustacheValue>? {
        if lane >= 0 { return hintedLookupAddress(name, hints: name.hints(lane: lane)) }
        return withFrames { base, count -> UnsafePointer<MustacheValue>? in
            guard count > 0 else { return nil }
            if name.isImplicit { return base[count - 1] }
            let first = name.first
            let firstHash = name.firstHash
            var i = count - 1
            while i >= 0 {
                if let found = base[i].pointee.memberAddress(first, hash: firstHash) {
                    let parts = name.parts
                    if parts.count == 1 { return found }
                    let hashes = name.hashes
                    var current = found
                    var k = 1
                    while k < parts.count {
                        guard let next = current.pointee.memberAddress(parts[k], hash: hashes[k]) else { return nil }
                        current = next
                        k += 1
                    }
                    return current
                }
                i -= 1
            }
            return nil
        }
    }

    /// `lookupAddress` with a hint per part (`Name.hints`): the same frames are searched in the
    /// same order, and a hint is only a first guess, checked like any entry; it spares scanning
    /// object entries (`post.related` is its 19th). A copy of `lookupAddress`'s walk rather than
    /// one walk with an optional hint, because the shared version pays a branch and the hint's
    /// address per member and the hinted path is no longer specialised.
    private func hintedLookupAddress(_ name: Name, hints: UnsafeMutablePointer<Int32>) -> UnsafePointer<MustacheValue>? {
        withFrames { base, count -> UnsafePointer<MustacheValue>? in
            guard count > 0 else { return nil }
            if name.isImplicit { return base[count - 1] }
            let first = name.first
            let firstHash = name.firstHash
            var i = count - 1
            while i >= 0 {
                if let found = base[i].pointee.memberAddress(first, hash: firstHash, hint: hints) {
                    let parts = name.parts
                    if parts.count == 1 { return found }
                    let hashes = name.hashes
                    var current = found
                    var k = 1
                    while k < parts.count {
                        guard let next = current.pointee.memberAddress(parts[k], hash: hashes[k], hint: hints + k) else { return nil }
                        current = next
                        k += 1
                    }
                    return current
                }
                i -= 1
            }
            return nil
        }
    }

    /// The walks above as closures over (frames, count), as they were over the array's buffer.
    @inline(__always)
    private func withFrames<R>(_ body: (UnsafeMutablePointer<UnsafePointer<MustacheValue>>, Int) -> R) -> R {
        body(frames, frameCount)
    }

    // MARK: Nodes

    /// Renders `ops` (a body's `Op` list; its owner keeps the nodes alive for the whole call).
    mutating func render(_ list: OpList, _ info: SourceInfo, into out: inout OutputBuffer, skipFirstLineStart: Bool = false) throws {
        let ops = list.buffer
        var first = skipFirstLineStart
        var index = 0
        while index < ops.count {
            defer { index += 1 }
            switch ops[index] {
            case .text(let ref):
                unowned(unsafe) let text = ref.takeUnretainedValue()
                let bytes = text.byteBuffer
                let lineStarts = text.lineStartBuffer
                if !hasIndent || lineStarts.isEmpty {
                    out.append(contentsOf: bytes)
                } else {
                    var from = 0
                    for start in lineStarts {
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from..<start]))
                        if !(first && start == 0) { out.append(contentsOf: indent) }
                        from = start
                    }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from...]))
                }
            case .variable(let ref):
                unowned(unsafe) let variable = ref.takeUnretainedValue()
                guard let address = variable.nameRef._withUnsafeGuaranteedRef({ lookupAddress($0) }) else { break }
                // The value is read in place; a lambda is copied out before it renders (and may
                // change the stack).
                if !appendInterpolated(address, escaped: variable.escaped, into: &out), case .lambda(let lambda) = address.pointee {
                    try interpolate(lambda, escaped: variable.escaped, info, variable.offset, into: &out)
                }
            case .section(let ref):
                // Passed as a guaranteed reference: an `unowned(unsafe)` one is retained for the
                // call, and the nodes are shared by every page on every core.
                try ref._withUnsafeGuaranteedRef { try renderSection($0, info, into: &out) }
            case .partial(let ref):
                try ref._withUnsafeGuaranteedRef { try renderPartial($0, info, into: &out) }
            case .parent(let ref):
                try ref._withUnsafeGuaranteedRef { try renderParent($0, info, into: &out) }
            case .block(let ref):
                try ref._withUnsafeGuaranteedRef { try renderBlock($0, into: &out) }
            }
            first = false
        }
    }

    /// Appends the value at `address` unless it is a lambda (false). A function of its own, so the
    /// string is read where it is stored: inside `render` the optimizer copied the value out, a
    /// retain and a release of its string for every tag, and the list-item views and site strings
    /// every page shows are retained by every core in turn, which contends on their counts.
    @inline(never)
    private func appendInterpolated(_ address: UnsafePointer<MustacheValue>, escaped: Bool, into out: inout OutputBuffer) -> Bool {
        // Strings are read in place, without a retain (the context outlives the render; see
        // `utf8InPlace(at:)`): longer ones from their storage, short ones from two words.
        if let text = MustacheValue.utf8InPlace(at: address) {
            if let stored = text.stored {
                if escaped && !Renderer.needsNoEntity(stored) { appendEscaped(stored, to: &out) } else { out.append(contentsOf: stored) }
            } else {
                var words = (text.short.0.littleEndian, text.short.1.littleEndian)
                // Most short strings need no entity: then their words are stored as they are.
                let candidates = escaped ? escapeCandidates(unsafeBitCast(words, to: SIMD16<UInt8>.self)) : (0, 0)
                if candidates.0 | candidates.1 == 0 {
                    out.appendShort(text.short, count: text.count)
                    return true
                }
                withUnsafeBytes(of: &words) { raw in
                    let bytes = UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: text.count)
                    if escaped { appendEscaped(bytes, to: &out) } else { out.append(contentsOf: bytes) }
                }
            }
            return true
        }
        switch address.pointee {
        case .string(let s):
            if escaped { appendEscaped(s, to: &out) } else { appendRaw(s, to: &out) }
        case .lambda:
            return false
        case .int(let value):
            appendDecimal(value, to: &out)
        default:
            let s = address.pointee.interpolationText
            if escaped { appendEscaped(s, to: &out) } else { appendRaw(s, to: &out) }
        }
        return true
    }

    /// Whether a string of 16-32 bytes (`bytes`, at least 16) is known to need no entity: its
    /// first and last sixteen bytes (overlapping) hold none of the five characters. Most titles,
    /// dates and URLs are that long; they are then appended without `appendEscaped`'s call and
    /// loop. False for longer strings and for any candidate (`escapeCandidates`).
    @inline(__always)
    static func needsNoEntity(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = bytes.count
        guard n <= 32, let base = bytes.baseAddress else { return false }
        let raw = UnsafeRawPointer(base)
        let head = escapeCandidates(raw.loadUnaligned(as: SIMD16<UInt8>.self))
        let tail = escapeCandidates(raw.loadUnaligned(fromByteOffset: n - 16, as: SIMD16<UInt8>.self))
        return head.0 | head.1 | tail.0 | tail.1 == 0
    }

    private mutating func renderSection(_ section: SectionNode, _ info: SourceInfo, into out: inout OutputBuffer) throws {
        // Read in place: a value the section pushes goes on the stack as its address.
        guard let address = lookupAddress(section.name) else {
            if section.inverted { try render(section.ops, info, into: &out) }
            return
        }
        if section.inverted {
            if case .lambda = address.pointee { return }
            if !address.pointee.isTruthy { try render(section.ops, info, into: &out) }
            return
        }
        switch address.pointee {
        case .null, .bool(false):
            return
        case .string(let s) where s.isEmpty:
            return
        case .array:
            // Each item is pushed where it is stored, in the list's own buffer, read unretained
            // (see `storedElements(at:)`).
            guard let items = MustacheValue.storedElements(at: address), let first = items.baseAddress else { return }
            for k in 0..<items.count {
                push(first + k)
                defer { pop() }
                try render(section.ops, info, into: &out)
            }
        case .lambda(let lambda):
            switch lambda.kind {
            case .section(let body):
                try renderTemplateText(body(section.raw), delimiters: section.delimiters, info, section.offset, into: &out)
            case .interpolation(let body):
                try renderTemplateText(body(), delimiters: section.delimiters, info, section.offset, into: &out)
            case .rendered(let body):
                var inner = OutputBuffer(capacity: 1024)
                defer { inner.deallocate() }
                try render(section.ops, info, into: &inner)
                appendRaw(body(String(decoding: inner.bytes, as: UTF8.self)), to: &out)
            }
        default:
            push(address)
            defer { pop() }
            try render(section.ops, info, into: &out)
        }
    }

    private mutating func interpolate(_ lambda: MustacheLambda, escaped: Bool, _ info: SourceInfo, _ offset: Int, into out: inout OutputBuffer) throws {
        var result = OutputBuffer(capacity: 256)
        defer { result.deallocate() }
        switch lambda.kind {
        case .interpolation(let body):
            try renderTemplateText(body(), delimiters: .standard, info, offset, into: &result)
        case .section(let body):
            try renderTemplateText(body(""), delimiters: .standard, info, offset, into: &result)
        case .rendered(let body):
            appendRaw(body(""), to: &result)
        }
        if escaped {
            appendEscaped(result.bytes, to: &out)
        } else {
            out.append(contentsOf: result.bytes)
        }
    }

    /// Renders text a lambda returned as a template in the current context.
    private mutating func renderTemplateText(_ text: String, delimiters: Delimiters, _ info: SourceInfo, _ offset: Int, into out: inout OutputBuffer) throws {
        let bytes = Array(text.utf8)
        // Fast path: nothing that could be a tag.
        if !contains(bytes, delimiters.open) {
            out.append(contentsOf: bytes)
            return
        }
        let (line, column) = info.position(of: offset)
        let lambdaInfo = SourceInfo(name: info.name, path: "\(info.path):\(line):\(column) (lambda result)", bytes: bytes)
        let template = try Parser.parse(lambdaInfo, delimiters: delimiters)
        if library.strictPartials {
            for reference in template.references where !library.has(reference.name) {
                throw lambdaInfo.error(at: reference.offset, "\(reference.isParent ? "parent template" : "partial") '\(reference.name)' not found")
            }
        }
        let saved = saveIndent()
        clearIndent()
        defer { restoreIndent(saved) }
        try enter(lambdaInfo, offset: 0)
        defer { depth -= 1 }
        // The ops do not retain their nodes: the template must outlive the walk.
        try withExtendedLifetime(template) { try render(template.ops, lambdaInfo, into: &out) }
    }

    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var i = 0
        while i <= haystack.count - needle.count {
            if haystack[i] == first {
                var k = 1
                while k < needle.count && haystack[i + k] == needle[k] { k += 1 }
                if k == needle.count { return true }
            }
            i += 1
        }
        return false
    }

    // MARK: Partials, parents, blocks

    private mutating func enter(_ info: SourceInfo, offset: Int) throws {
        depth += 1
        if depth > Renderer.maxDepth {
            depth -= 1
            throw info.error(at: offset, "templates nested more than \(Renderer.maxDepth) levels deep (recursive partial or block?)")
        }
    }

    /// The template a partial/parent tag names; nil renders nothing (a dynamic name that is not
    /// in the context, or a missing template when not strict).
    private func resolve(_ ref: TemplateRef, isParent: Bool, _ info: SourceInfo, _ offset: Int) throws -> Template? {
        let name: String
        switch ref {
        case .fixed(let fixed):
            name = fixed
        case .dynamic(let path):
            guard let value = lookup(path) else { return nil }
            name = value.interpolationText
            if name.isEmpty { return nil }
        }
        if let template = library.templates[name] { return template }
        if library.strictPartials {
            throw info.error(at: offset, "\(isParent ? "parent template" : "partial") '\(name)' not found")
        }
        return nil
    }

    /// A partial tag. A linked target is passed on unretained (`PartialNode.target`): the
    /// library holds its templates for as long as their nodes render, and a retain of a template
    /// every page renders is an atomic on a line both cores use.
    private mutating func renderPartial(_ partial: PartialNode, _ info: SourceInfo, into out: inout OutputBuffer) throws {
        if let target = partial.target {
            try target._withUnsafeGuaranteedRef { try include($0, indent: partial.indent, info, partial.offset, into: &out) }
        } else if let template = try resolve(partial.ref, isParent: false, info, partial.offset) {
            try include(template, indent: partial.indent, info, partial.offset, into: &out)
        }
    }

    /// A parent tag: its block arguments apply while its template renders.
    private mutating func renderParent(_ parent: ParentNode, _ info: SourceInfo, into out: inout OutputBuffer) throws {
        overrides.append(.passUnretained(parent))
        defer { overrides.removeLast() }
        if let target = parent.target {
            try target._withUnsafeGuaranteedRef { try include($0, indent: parent.indent, info, parent.offset, into: &out) }
        } else if let template = try resolve(parent.ref, isParent: true, info, parent.offset) {
            try include(template, indent: parent.indent, info, parent.offset, into: &out)
        }
    }

    private mutating func include(_ template: Template, indent own: [UInt8]?, _ info: SourceInfo, _ offset: Int, into out: inout OutputBuffer) throws {
        try enter(info, offset: offset)
        defer { depth -= 1 }
        let saved = saveIndent()
        if let own {
            if !own.isEmpty { extendIndent(own) }
        } else {
            clearIndent()
        }
        defer { restoreIndent(saved) }
        try render(template.ops, template.info, into: &out)
    }

    /// The argument for the block `site` of the outermost parent tag that has one.
    private func argument(for site: Block) -> Unmanaged<Block>? {
        for frame in overrides {
            if let block = frame._withUnsafeGuaranteedRef({ $0.argument(named: site.name, hash: site.nameHash) }) { return block }
        }
        return nil
    }

    private mutating func renderBlock(_ site: Block, into out: inout OutputBuffer) throws {
        guard let argument = argument(for: site) else {
            if site.ownsLineStart {
                out.append(contentsOf: indent)
                out.append(contentsOf: site.siteIndent)
            }
            try render(site.bodyOps, site.source, into: &out)
            return
        }
        try argument._withUnsafeGuaranteedRef { try renderArgument($0, at: site, into: &out) }
    }

    /// The argument a parent tag gives for the block `site`, in place of the block's body.
    private mutating func renderArgument(_ argument: Block, at site: Block, into out: inout OutputBuffer) throws {
        try enter(argument.source, offset: 0)
        defer { depth -= 1 }
        let atLineStart = site.standalone || site.ownsLineStart
        let saved = saveIndent()
        defer { restoreIndent(saved) }
        if argument.bodyStartsLine {
            if !site.intrinsic.isEmpty { extendIndent(site.intrinsic) }
            try render(argument.dedentedOps, argument.source, into: &out, skipFirstLineStart: !atLineStart)
        } else {
            if atLineStart {
                out.append(contentsOf: indent)
                out.append(contentsOf: site.intrinsic)
            }
            if !site.intrinsic.isEmpty { extendIndent(site.intrinsic) }
            try render(argument.dedentedOps, argument.source, into: &out)
        }
    }
}
