import BlogCore
import CCmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The Qiita dialect as transforms on cmark's tree. One instance per `render` call (not shared).
final class Transformer {
    let options: MarkdownOptions
    let parseFlags: Int32
    /// The bytes cmark parsed (after the pre-pass), alive for the whole `render` call.
    let source: UnsafeBufferPointer<UInt8>
    /// `source` as an array, for the passes that work on array slices (made when first needed).
    lazy var sourceArray: [UInt8] = Array(source)
    let prepass: Prepass?
    var lineStarts: [Int] = []

    var headings: [Heading] = []
    /// Ids `headingPass` made for the `<hN>` tags of raw HTML blocks, for `rawHTMLPass` to write.
    var rawHeadingIDs: [Node: [[UInt8]]] = [:]
    /// Links alone in their paragraph (`splitText`), for `buildCards`.
    var cardLinks: [Node] = []
    var usedSlugs = SlugTable()
    /// Code block text (block pass), then inline code (`renderHTML`); the caller deallocates it.
    var codeText = ByteBuffer(capacity: 256)
    /// Filled by `renderHTML`; the caller deallocates it.
    var plainText = ByteBuffer(capacity: 0)
    var links: [MarkdownLink] = []
    /// Whether the HTML may hold an `<img>`: an image was written or raw HTML passed (so that a
    /// caller looking for the first image can skip the many documents with none).
    var mayHaveImages = false
    /// Formulas that stayed TeX, each problem once.
    var mathProblems: [MathProblem] = []
    // Lines of nodes that cmark did not place in this document (table cells, split text) and the
    // table-cell flag live in each node's cmark user data (no hashing of node pointers):
    // bit 0 = has a line override (line in bits 8...), other bits = the flags below.
    static let cellFlag = 2, inlineSeenFlag = 4, cjkSeenFlag = 8, directTableFlag = 16, inlineSeenAgainFlag = 32, trustedHTMLFlag = 64, codeBlockFlag = 128
    /// On a paragraph that is one display-math block (`$$…$$` alone): written without `<p>`.
    /// (Paragraphs never carry a line override, so this bit is free on them.)
    static let unwrappedParagraphFlag = 256
    /// On text nodes (which carry none of the flags above): `collectNodes` scanned the literal, and
    /// what it holds (`scanText`), so that `splitText` does not scan it again.
    static let textScannedFlag = 2, textStarFlag = 4, textTildeFlag = 8, textInterestingFlag = 16
    var unwrappedParagraphs = false
    /// Tables written as one HTML block: their cells (source bytes) and column count, for `collect`.
    /// (index in the table node's user data bits 8..., with `directTableFlag`; `renderHTML` writes them)
    var directTables: [DirectTable] = []
    /// Code blocks written by `CodeBlockRenderer`: the code block node keeps its place in the tree
    /// with `codeBlockFlag` and the index of its entry here in user data bits 8..., and `renderHTML`
    /// writes (and highlights) it straight into the output.
    var codeBlocks: [(plan: CodeBlockRenderer.SharedPlan, restored: [UInt8]?)] = []


    // (user data read and written in the node itself when the layout probe passed, to save a call
    // for each access)
    @inline(__always) func setLineOverride(_ node: Node, _ line: Int32) {
        let old = userData(node, direct: direct)
        setUserData(node, (Int(line) << 8) | 1 | (old & 0xFE), direct: direct)
    }

    @inline(__always) func line(of node: Node) -> Int32 {
        let value = userData(node, direct: direct)
        return value & 1 != 0 ? Int32(truncatingIfNeeded: value >> 8) : cmark_node_get_start_line(node)
    }

    /// A line of the text cmark parsed as a line of the original (the pre-pass may leave code block
    /// bodies out: see Prepass.swift).
    @inline(__always) func originalLine(_ line: Int32) -> Int32 {
        guard let prepass, !prepass.bypassedFences.isEmpty else { return line + lineBase }
        return prepass.originalLine(line) + lineBase
    }

    /// Lines of the document before the text parsed (a section of a large document: see
    /// `MarkdownRenderer.renderSectioned`).
    var lineBase: Int32 = 0
    /// Whether `renderHTML` appends the plain text to `plainText` as it is (a section continuing the
    /// text of the ones before) instead of starting a buffer of its own.
    var carriesText = false
    /// Set by `groupNotes`: a note marker at the top level was left open, which a marker after
    /// this text could close (so the text cannot be a section of its own).
    var openNoteAtTop = false

    @inline(__always) func setFlag(_ node: Node, _ flag: Int) {
        setUserData(node, userData(node, direct: direct) | flag, direct: direct)
    }

    @inline(__always) func clearFlag(_ node: Node, _ flag: Int) {
        setUserData(node, userData(node, direct: direct) & ~flag, direct: direct)
    }

    @inline(__always) func hasFlag(_ node: Node, _ flag: Int) -> Bool {
        userData(node, direct: direct) & flag != 0
    }

    var footnoteDefs: [String: Node] = [:]
    var footnoteDefOrder: [String] = []
    var duplicateDefinitions: [Node] = []
    var footnoteOrder: [String] = []
    var footnoteRefs: [String: Int] = [:]

    /// `directTreeWalk`, read once.
    let direct = directTreeWalk
    /// Whether the pre-pass wrote any marker into the text (math, notes, footnotes): when not, no
    /// literal can hold one and `restoreMarkers` (a scan of every code span, code block and raw HTML
    /// literal) is skipped.
    let markers: Bool

    init(options: MarkdownOptions, parseFlags: Int32, source: UnsafeBufferPointer<UInt8>, prepass: Prepass?) {
        self.options = options
        self.parseFlags = parseFlags
        self.source = source
        self.prepass = prepass
        markers = prepass?.insertedMarkers ?? true
    }

    func run(_ doc: Node) {
        let qiita = options.qiitaExtensions
        if qiita {
            if prepass?.sawNotes == true { groupNotes(doc) }
            if prepass?.sawFootnotes == true { findFootnoteDefinitions(doc) }
            buildTables(doc)
        }
        // One walk finds the nodes of every later pass (they neither free nor create the nodes the
        // others look for, except the CJK repair, after which the inline containers are found again).
        var found = collectNodes(doc, qiita: qiita)
        if qiita {
            if !found.cjk.isEmpty {
                repairCJKStrong(found.cjk)
                found.inline = inlineContainers(doc)
            }
            for container in found.inline { processInlines(container) }
            if !cardLinks.isEmpty { buildCards() }
            taskLists(found.items)
        }
        blockPass(found)
        if qiita && !footnoteDefs.isEmpty { buildFootnotes(doc) }
    }

    // MARK: - source lines

    /// A source line (1-based) without its line ending.
    func sourceLine(_ line: Int) -> ArraySlice<UInt8> {
        let range = sourceLineRange(line)
        return sourceArray[range.start..<range.end]
    }

    func makeLineStarts() {
        guard lineStarts.isEmpty else { return }
        if let found = prepass?.lineStarts, !found.isEmpty {
            // the pre-pass went through the lines already
            lineStarts = found
            assert(found == Transformer.scanLineStarts(source), "the pre-pass's line starts are wrong")
            return
        }
        lineStarts = Transformer.scanLineStarts(source)
    }

    static func scanLineStarts(_ source: UnsafeBufferPointer<UInt8>) -> [Int] {
        // built in a local (appending to the stored property checked exclusivity on every line)
        var starts: [Int] = [0]
        starts.reserveCapacity(source.count / 24 + 16) // typical lines are longer: no regrowth
        if let base = source.baseAddress {
            var k = 0
            while k < source.count, let p = memchr(base + k, 0x0A, source.count - k) {
                k = UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self) - base + 1
                starts.append(k)
            }
        }
        return starts
    }

    /// `sourceLine` as a byte range.
    func sourceLineRange(_ line: Int) -> ByteRange {
        makeLineStarts()
        guard line >= 1 && line <= lineStarts.count else { return ByteRange(start: 0, end: 0) }
        let start = lineStarts[line - 1]
        var end = line < lineStarts.count ? lineStarts[line] - 1 : source.count
        if end > start && source[end - 1] == 0x0D { end -= 1 }
        return ByteRange(start: start, end: max(start, end))
    }

    /// Whether a custom node's HTML was valid UTF-8 (set by `renderHTML`).
    var payloadsValid = true

    // MARK: - headings, code blocks, raw HTML

    func blockPass(_ found: Found) {
        headingPass(found.headings)
        codeBlockPass(found.codeBlocks)
        rawHTMLPass(found.htmlNodes)
    }
}
