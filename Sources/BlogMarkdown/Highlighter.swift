import BlogCore
/// Server-side syntax highlighting on bytes, with small table-driven lexers.
///
/// Output is the escaped code with `<span class="hl-CLASS">…</span>` around tokens. Removing the
/// tags and unescaping `&amp;` `&lt;` `&gt;` `&quot;` gives back the input exactly, byte for byte.
///
/// Token classes (see HIGHLIGHT.md):
/// - `kw` keyword · `ty` type / class name · `str` string or character literal · `num` number
/// - `com` comment · `fn` function name at a call or definition · `attr` attribute, annotation,
///   decorator, JSON/YAML key, HTML attribute name, CSS property, command-line option
/// - `op` operator · `pre` preprocessor directive, `#if`, document markers, diff file headers
/// - `lit` literal constant (`true`, `nil`, `None`, Ruby symbols, HTML entities)
/// - `tag` HTML/XML tag, CSS element selector · `var` variable (`$x`, `@ivar`, `${…}`, YAML anchors)
/// - `add` / `del` / `hunk` diff added, removed and hunk-header lines · `prompt` shell prompt in `console`
public enum SyntaxHighlighter {
    /// The canonical name for a fence language (aliases resolved, lowercase), or nil if there is no lexer.
    public static func canonicalLanguage(_ name: String) -> String? {
        Language.named(name)?.name
    }

    /// The language for a file name (`app.rb`, `Podfile`, `main.swift`), or nil.
    public static func language(forFileName name: String) -> String? {
        Language.forFileName(name)?.name
    }

    /// Highlights `code`; an unknown language gives the escaped plain text.
    public static func highlight(_ code: String, language: String) -> String {
        var out: [UInt8] = []
        var bytes = Array(code.utf8)
        bytes.withUnsafeBufferPointer { buffer in
            if let lang = Language.named(language) {
                highlight(buffer, lang, into: &out)
            } else {
                appendEscaped(&out, buffer)
            }
        }
        bytes.removeAll()
        return String(decoding: out, as: UTF8.self)
    }

    static func highlight(_ code: UnsafeBufferPointer<UInt8>, _ language: Language, into out: inout [UInt8]) {
        var buffer = ByteBuffer(capacity: code.count * 2 + 64)
        defer { buffer.deallocate() }
        highlight(code, language, into: &buffer)
        out.append(contentsOf: buffer.bytes)
    }

    /// Highlights straight into an output buffer.
    static func highlight(_ code: UnsafeBufferPointer<UInt8>, _ language: Language, into out: inout ByteBuffer) {
        // The emitter writes through a copy of `out` (its storage may move as it grows); the copy
        // replaces `out` when done.
        var emitter = Emitter(code: code, into: out)
        defer { out = emitter.out }
        switch language.lexer {
        case .generic(let spec): lexGeneric(&emitter, 0, code.count, spec)
        case .console: lexConsole(&emitter)
        case .diff(let inner): lexDiff(&emitter, inner)
        case .yaml: lexYAML(&emitter)
        case .markup: lexMarkup(&emitter, 0, code.count)
        case .css: lexCSS(&emitter, 0, code.count)
        }
    }
}

// MARK: - languages

struct Language: Sendable {
    // indirect: a Language (copied for every code block) then holds one reference instead of all of a Spec's arrays
    indirect enum Lexer: Sendable {
        case generic(Spec)
        case console
        case diff(Spec?)
        case yaml
        case markup
        case css
    }
    let name: String
    let lexer: Lexer

    static let table: [String: Language] = {
        var t: [String: Language] = [:]
        func add(_ name: String, _ lexer: Lexer, _ aliases: [String]) {
            let lang = Language(name: name, lexer: lexer)
            t[name] = lang
            for a in aliases { t[a] = lang }
        }
        add("swift", .generic(Specs.swift), [])
        add("objective-c", .generic(Specs.objc), ["objc", "objectivec", "obj-c", "objective-c++", "objc++", "m", "mm"])
        add("c", .generic(Specs.c), ["h"])
        add("cpp", .generic(Specs.cpp), ["c++", "cc", "cxx", "hpp", "hh"])
        add("kotlin", .generic(Specs.kotlin), ["kt", "kts"])
        add("java", .generic(Specs.java), [])
        add("javascript", .generic(Specs.javascript), ["js", "jsx", "mjs", "cjs", "node"])
        add("typescript", .generic(Specs.typescript), ["ts", "tsx"])
        add("json", .generic(Specs.json), ["jsonc", "json5"])
        add("yaml", .yaml, ["yml"])
        add("ruby", .generic(Specs.ruby), ["rb", "podfile", "gemfile", "fastfile", "rake", "rakefile", "dangerfile"])
        add("python", .generic(Specs.python), ["py", "python3", "py3"])
        add("bash", .generic(Specs.shell), ["sh", "shell", "zsh", "fish", "ksh", "shellscript"])
        add("console", .console, ["terminal", "shell-session", "shellsession", "sh-session", "command", "cmd"])
        add("dart", .generic(Specs.dart), [])
        add("php", .generic(Specs.php), [])
        add("html", .markup, ["htm", "xhtml", "vue", "erb"])
        add("xml", .markup, ["plist", "svg", "xib", "storyboard", "xsl", "rss", "atom"])
        add("css", .css, ["scss", "less"])
        add("sql", .generic(Specs.sql), ["mysql", "postgresql", "postgres", "sqlite", "plsql"])
        add("go", .generic(Specs.go), ["golang"])
        add("diff", .diff(nil), ["patch"])
        return t
    }()

    static func named(_ raw: String) -> Language? {
        let name = raw.lowercased()
        if let lang = table[name] { return lang }
        if name.hasPrefix("diff_") || name.hasPrefix("diff-") {
            let innerName = String(name.dropFirst(5))
            guard let inner = table[innerName] else { return Language(name: "diff", lexer: .diff(nil)) }
            if case .generic(let spec) = inner.lexer {
                return Language(name: "diff_" + inner.name, lexer: .diff(spec))
            }
            return Language(name: "diff_" + inner.name, lexer: .diff(nil))
        }
        return nil
    }

    static let fileNames: [String: String] = [
        "podfile": "ruby", "gemfile": "ruby", "fastfile": "ruby", "rakefile": "ruby", "dangerfile": "ruby",
        "appfile": "ruby", "brewfile": "ruby", "vagrantfile": "ruby", ".bashrc": "bash", ".zshrc": "bash",
        ".bash_profile": "bash", ".profile": "bash",
    ]
    static let extensions: [String: String] = [
        "swift": "swift", "m": "objective-c", "mm": "objective-c", "h": "c", "c": "c", "cpp": "cpp", "cc": "cpp",
        "hpp": "cpp", "kt": "kotlin", "kts": "kotlin", "java": "java", "js": "javascript", "mjs": "javascript",
        "cjs": "javascript", "jsx": "javascript", "ts": "typescript", "tsx": "typescript", "json": "json",
        "yml": "yaml", "yaml": "yaml", "rb": "ruby", "py": "python", "sh": "bash", "bash": "bash", "zsh": "bash",
        "dart": "dart", "php": "php", "html": "html", "htm": "html", "xml": "xml", "plist": "xml", "svg": "xml",
        "xib": "xml", "storyboard": "xml", "css": "css", "scss": "css", "sql": "sql", "go": "go", "diff": "diff",
        "patch": "diff", "podspec": "ruby", "gradle": "kotlin", "vue": "html",
    ]

    // The same tables keyed by packed lowercase bytes, for info strings (no String work per code block).
    private static func byKey(_ names: [String: Language]) -> [WordSet.Key: Language] {
        var t: [WordSet.Key: Language] = [:]
        for (name, lang) in names {
            let bytes = Array(name.utf8)
            if let k = bytes.withUnsafeBufferPointer({ WordSet.key($0, 0, $0.count, true) }) { t[k] = lang }
        }
        return t
    }
    private static let tableByKey = byKey(table)
    private static let fileNamesByKey = byKey(fileNames.mapValues { table[$0]! })
    private static let extensionsByKey = byKey(extensions.mapValues { table[$0]! })

    /// `named(_:)` on bytes: ASCII names are looked up directly; anything else goes through `String`.
    static func named(bytes: UnsafeBufferPointer<UInt8>) -> Language? {
        guard !bytes.isEmpty else { return nil }
        if bytes.allSatisfy({ $0 < 0x80 }) {
            if let k = WordSet.key(bytes, 0, bytes.count, true), let lang = tableByKey[k] { return lang }
            guard bytes.count >= 5, bytes[0].lowerASCII == UInt8(ascii: "d"), bytes[1].lowerASCII == UInt8(ascii: "i"),
                  bytes[2].lowerASCII == UInt8(ascii: "f"), bytes[3].lowerASCII == UInt8(ascii: "f"),
                  bytes[4] == UInt8(ascii: "_") || bytes[4] == UInt8(ascii: "-") else { return nil }
        }
        return named(String(decoding: bytes, as: UTF8.self))
    }

    /// `fileNames[word.lowercased()] != nil` for an ASCII word.
    static func fileNameKnown(bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let k = WordSet.key(bytes, 0, bytes.count, true) else { return false }
        return fileNamesByKey[k] != nil
    }

    /// `forFileName(_:)` for an ASCII name, on bytes.
    static func forFileName(bytes: UnsafeBufferPointer<UInt8>) -> Language? {
        guard let lastByte = bytes.last, lastByte != UInt8(ascii: "/") else {
            return forFileName(String(decoding: bytes, as: UTF8.self))
        }
        var baseStart = bytes.count
        while baseStart > 0 && bytes[baseStart - 1] != UInt8(ascii: "/") { baseStart -= 1 }
        let base = UnsafeBufferPointer(rebasing: bytes[baseStart...])
        if let k = WordSet.key(base, 0, base.count, true), let lang = fileNamesByKey[k] { return lang }
        guard let dot = base.lastIndex(of: UInt8(ascii: ".")), dot != 0 || base.count > 1 else { return nil }
        guard let k = WordSet.key(base, dot + 1, base.count, true) else { return nil }
        return extensionsByKey[k]
    }

    static func forFileName(_ raw: String) -> Language? {
        let base = raw.split(separator: "/").last.map(String.init)?.lowercased() ?? raw.lowercased()
        if let name = fileNames[base] { return table[name] }
        guard let dot = base.lastIndex(of: "."), dot != base.startIndex || base.count > 1 else { return nil }
        let ext = String(base[base.index(after: dot)...])
        return extensions[ext].flatMap { table[$0] }
    }
}

/// A set of short ASCII words, looked up from bytes without allocating or hashing through `Hasher`:
/// an open-addressed table of packed keys with a cheap multiplicative hash (the lexers look up every
/// identifier, so this is on the hot path).
struct WordSet: Sendable {
    struct Key: Hashable, Sendable { var lo: UInt64; var hi: UInt64; var len: Int }
    private var slots: [Key] = []
    private var mask = 0
    let caseInsensitive: Bool

    init(_ words: String, caseInsensitive: Bool = false) {
        self.caseInsensitive = caseInsensitive
        var keys: [Key] = []
        for w in words.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let bytes = Array(w.utf8)
            bytes.withUnsafeBufferPointer { if let k = WordSet.key($0, 0, $0.count, caseInsensitive), !keys.contains(k) { keys.append(k) } }
        }
        guard !keys.isEmpty else { return }
        var size = 8
        while size < keys.count * 4 { size *= 2 }
        mask = size - 1
        slots = Array(repeating: Key(lo: 0, hi: 0, len: 0), count: size)
        for k in keys {
            var h = WordSet.hash(k) & mask
            while slots[h].len != 0 { h = (h + 1) & mask }
            slots[h] = k
        }
    }

    @inline(__always) static func hash(_ k: Key) -> Int {
        Int(truncatingIfNeeded: mixBits(k.lo ^ (k.hi &* 0x9E37_79B9_7F4A_7C15) ^ UInt64(k.len)) >> 40)
    }

    @inline(__always) static func key(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int, _ fold: Bool) -> Key? {
        let len = to - from
        guard len > 0 && len <= 16 else { return nil }
        var lo: UInt64 = 0, hi: UInt64 = 0
        if from + 16 <= b.count {
            // Two unaligned little-endian loads, masked to the word (no per-byte loop).
            let raw = UnsafeRawPointer(b.baseAddress! + from)
            lo = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            hi = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
            if len < 8 {
                lo &= (1 << (8 * UInt64(len))) &- 1
                hi = 0
            } else if len < 16 {
                hi &= (1 << (8 * UInt64(len - 8))) &- 1
            }
        } else {
            for k in 0..<len {
                let c = UInt64(b[from + k])
                if k < 8 { lo |= c << (8 * UInt64(k)) } else { hi |= c << (8 * UInt64(k - 8)) }
            }
        }
        if fold {
            lo = foldASCII(lo)
            hi = foldASCII(hi)
        }
        return Key(lo: lo, hi: hi, len: len)
    }

    /// ASCII `A`…`Z` to lowercase in all eight bytes at once; other bytes (and zero padding) unchanged.
    @inline(__always) static func foldASCII(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let low7 = x & ~high
        let atLeastA = low7 &+ ones &* (0x80 - 0x41)   // high bit set where (byte & 0x7F) >= 0x41
        let aboveZ = low7 &+ ones &* (0x80 - 0x5B)     // high bit set where (byte & 0x7F) >= 0x5B
        let upper = atLeastA & ~aboveZ & ~x & high
        return x | (upper >> 2)
    }

    @inline(__always) func contains(_ b: UnsafeBufferPointer<UInt8>, _ from: Int, _ to: Int) -> Bool {
        guard mask != 0, let k = WordSet.key(b, from, to, caseInsensitive) else { return false }
        return contains(key: k)
    }

    /// Lookup with a key already built (folded if this set is case-insensitive).
    @inline(__always) func contains(key k: Key) -> Bool {
        guard mask != 0 else { return false }
        return slots.withUnsafeBufferPointer { table in
            var h = WordSet.hash(k) & mask
            while true {
                let s = table[h]
                if s.len == 0 { return false }
                if s.lo == k.lo && s.hi == k.hi && s.len == k.len { return true }
                h = (h + 1) & mask
            }
        }
    }

    /// The keys of the set.
    var allKeys: [Key] { slots.filter { $0.len != 0 } }

    /// Lookup with both forms of a word's key at hand.
    @inline(__always) func contains(exact: Key, folded: Key) -> Bool {
        contains(key: caseInsensitive ? folded : exact)
    }
}

/// The keyword, literal and type sets of a language in one table (one lookup per identifier
/// instead of three), for languages whose sets all match case exactly.
struct WordClasses: Sendable {
    struct Slot: Sendable { var key: WordSet.Key; var cls: UInt8 }
    /// 0 = none, 1 = keyword, 2 = literal, 3 = type.
    static let keyword: UInt8 = 1, literal: UInt8 = 2, type: UInt8 = 3
    private var slots: [Slot] = []
    private var mask = 0

    init() {}

    /// Keywords win over literals, literals over types (the order the lexer asks in).
    init(keywords: WordSet, literals: WordSet, types: WordSet) {
        var entries: [(WordSet.Key, UInt8)] = []
        func add(_ keys: [WordSet.Key], _ cls: UInt8) {
            for k in keys where !entries.contains(where: { $0.0 == k }) { entries.append((k, cls)) }
        }
        add(keywords.allKeys, WordClasses.keyword)
        add(literals.allKeys, WordClasses.literal)
        add(types.allKeys, WordClasses.type)
        guard !entries.isEmpty else { return }
        var size = 8
        while size < entries.count * 4 { size *= 2 }
        mask = size - 1
        slots = Array(repeating: Slot(key: WordSet.Key(lo: 0, hi: 0, len: 0), cls: 0), count: size)
        for (k, cls) in entries {
            var h = WordSet.hash(k) & mask
            while slots[h].key.len != 0 { h = (h + 1) & mask }
            slots[h] = Slot(key: k, cls: cls)
        }
    }

    @inline(__always) func lookup(_ k: WordSet.Key) -> UInt8 {
        guard mask != 0 else { return 0 }
        return slots.withUnsafeBufferPointer { table in
            var h = WordSet.hash(k) & mask
            while true {
                let s = table[h]
                if s.key.len == 0 { return 0 }
                if s.key.lo == k.lo && s.key.hi == k.hi && s.key.len == k.len { return s.cls }
                h = (h + 1) & mask
            }
        }
    }
}

/// What the generic lexer knows about one language.
struct Spec: Sendable {
    var keywords = WordSet("")
    var types = WordSet("")
    var literals = WordSet("")
    var lineComments: [[UInt8]] = []
    var blockComment: (open: [UInt8], close: [UInt8])? = nil
    var nestedComments = false
    var quotes: [UInt8] = [UInt8(ascii: "\""), UInt8(ascii: "'")]
    var multilineQuotes: [UInt8] = []
    var tripleQuotes = false
    var hashPreprocessor = false
    var hashDirectives = false
    var atAnnotations = false
    var atStrings = false
    var atVariables = false
    var dollarVariables = false
    var capitalizedTypes = true
    var functionCalls = true
    var hashCommentAtWordStart = false
    var jsonKeys = false
    var symbols = false
    var dashOptions = false
    var phpTags = false
    var anchors = false
    var operators = true

    /// Whether any word set of the language ignores case (PHP, SQL): then words need a folded key too.
    var anyCaseInsensitive: Bool { keywords.caseInsensitive || literals.caseInsensitive || types.caseInsensitive }

    /// What `lexGeneric` does with each byte value (`ByteClass`), filled in by `prepared()`.
    var byteClass: [UInt8] = []
    /// `anyCaseInsensitive`, stored (filled in by `prepared()`).
    var foldWords = false
    /// The three word sets in one table when none ignores case (filled in by `prepared()`).
    var words = WordClasses()

    /// The byte classes of `lexGeneric`'s fast path. A byte that may start a comment, string,
    /// directive, variable, annotation, symbol or anchor in any language, or a number after `.`,
    /// is `slow`: it takes the full sequence of checks.
    enum ByteClass {
        static let other: UInt8 = 0, newline: UInt8 = 1, space: UInt8 = 2, identStart: UInt8 = 3, digit: UInt8 = 4,
                   op: UInt8 = 5, slow: UInt8 = 6, dot: UInt8 = 7
    }

    /// This spec with its byte table (every spec the lexers use goes through here once).
    func prepared() -> Spec {
        var s = self
        var table = [UInt8](repeating: ByteClass.other, count: 256)
        for b in 0..<256 {
            let byte = UInt8(b)
            if byte == 0x0A { table[b] = ByteClass.newline }
            else if byte == 0x20 || byte == 0x09 || byte == 0x0D { table[b] = ByteClass.space }
            else if byte.isDigit { table[b] = ByteClass.digit }
            else if byte.isASCIILetter || byte == UInt8(ascii: "_") || byte >= 0x80 { table[b] = ByteClass.identStart }
            else if operators && isOperatorByte(byte) { table[b] = ByteClass.op }
        }
        // Bytes whose special meaning this language switches on (otherwise an operator or other byte).
        func slow(_ bytes: String, if on: Bool) { if on { for b in bytes.utf8 { table[Int(b)] = ByteClass.slow } } }
        slow("#", if: hashPreprocessor || hashDirectives)
        slow("<?", if: phpTags)
        slow("\"'", if: tripleQuotes)
        slow("@", if: atStrings || atVariables || atAnnotations)
        slow("$", if: dollarVariables)
        slow(":", if: symbols)
        slow("&*", if: anchors)
        slow("-", if: dashOptions)
        table[Int(UInt8(ascii: "."))] = ByteClass.dot
        for lc in lineComments where !lc.isEmpty { table[Int(lc[0])] = ByteClass.slow }
        if let bc = blockComment, !bc.open.isEmpty { table[Int(bc.open[0])] = ByteClass.slow }
        for q in quotes + multilineQuotes { table[Int(q)] = ByteClass.slow }
        // The bytes HTML escapes are never `other` (skipped as plain on the fast path): `lexGeneric`
        // then knows which plain runs it may copy without escaping.
        for b in [0x22, 0x26, 0x3C, 0x3E] where table[b] == ByteClass.other { table[b] = ByteClass.slow }
        s.byteClass = table
        s.foldWords = anyCaseInsensitive
        if !anyCaseInsensitive { s.words = WordClasses(keywords: keywords, literals: literals, types: types) }
        return s
    }
}

enum Specs {
    static let cKeywords = "auto break case char const continue default do double else enum extern float for goto if inline int long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while _Bool _Complex bool"
    static let c = Spec(keywords: WordSet(cKeywords), types: WordSet("size_t ssize_t int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t FILE uintptr_t intptr_t"),
                        literals: WordSet("NULL true false"), lineComments: [Array("//".utf8)],
                        blockComment: (Array("/*".utf8), Array("*/".utf8)), hashPreprocessor: true, capitalizedTypes: false).prepared()
    static let cpp = Spec(keywords: WordSet(cKeywords + " class namespace template typename public private protected virtual override final new delete this using try catch throw operator friend explicit constexpr noexcept nullptr auto decltype mutable static_cast dynamic_cast reinterpret_cast const_cast"),
                          types: WordSet("string vector map set size_t std unique_ptr shared_ptr"), literals: WordSet("NULL true false nullptr"),
                          lineComments: [Array("//".utf8)], blockComment: (Array("/*".utf8), Array("*/".utf8)), hashPreprocessor: true).prepared()
    static let objc = Spec(keywords: WordSet(cKeywords + " self super nil Nil YES NO id instancetype SEL IMP BOOL in out inout bycopy byref oneway nonatomic atomic strong weak assign copy retain readonly readwrite nullable nonnull __weak __strong __block __kindof"),
                           types: WordSet("NSString NSInteger NSUInteger CGFloat NSObject"), literals: WordSet("nil Nil YES NO NULL true false"),
                           lineComments: [Array("//".utf8)], blockComment: (Array("/*".utf8), Array("*/".utf8)),
                           hashPreprocessor: true, atAnnotations: true, atStrings: true).prepared()
    static let swift = Spec(keywords: WordSet("associatedtype class deinit enum extension fileprivate func import init inout internal let open operator private precedencegroup protocol public rethrows static struct subscript typealias var break case catch continue default defer do else fallthrough for guard if in repeat return throw switch where while as is try throws async await actor some any self Self super convenience dynamic final lazy mutating nonmutating optional override required unowned weak get set willSet didSet nonisolated isolated consume borrowing consuming macro package"),
                            types: WordSet("Int Int8 Int16 Int32 Int64 UInt UInt8 UInt16 UInt32 UInt64 Double Float String Character Bool Void Array Dictionary Set Optional Any AnyObject Never Error"),
                            literals: WordSet("true false nil"), lineComments: [Array("//".utf8)],
                            blockComment: (Array("/*".utf8), Array("*/".utf8)), nestedComments: true, quotes: [UInt8(ascii: "\"")],
                            tripleQuotes: true, hashDirectives: true, atAnnotations: true, dollarVariables: true).prepared()
    static let kotlin = Spec(keywords: WordSet("as break class continue do else for fun if in interface is object package return super this throw try typealias typeof val var when while by catch constructor delegate dynamic field file finally get import init param property receiver set setparam where actual abstract annotation companion const crossinline data enum expect external final infix inline inner internal lateinit noinline open operator out override private protected public reified sealed suspend tailrec vararg value"),
                             literals: WordSet("true false null"), lineComments: [Array("//".utf8)],
                             blockComment: (Array("/*".utf8), Array("*/".utf8)), nestedComments: true, tripleQuotes: true, atAnnotations: true).prepared()
    static let java = Spec(keywords: WordSet("abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while var record sealed permits yield"),
                           literals: WordSet("true false null"), lineComments: [Array("//".utf8)],
                           blockComment: (Array("/*".utf8), Array("*/".utf8)), atAnnotations: true).prepared()
    static let jsKeywords = "break case catch class const continue debugger default delete do else export extends finally for function if import in instanceof let new return super switch this throw try typeof var void while with yield async await of static get set from as"
    static let javascript = Spec(keywords: WordSet(jsKeywords), literals: WordSet("true false null undefined NaN Infinity"),
                                 lineComments: [Array("//".utf8)], blockComment: (Array("/*".utf8), Array("*/".utf8)),
                                 multilineQuotes: [UInt8(ascii: "`")], atAnnotations: true).prepared()
    static let typescript = Spec(keywords: WordSet(jsKeywords + " interface type enum implements private protected public readonly declare namespace module abstract keyof infer is asserts satisfies override"),
                                 types: WordSet("string number boolean any unknown never void object symbol bigint"),
                                 literals: WordSet("true false null undefined NaN Infinity"),
                                 lineComments: [Array("//".utf8)], blockComment: (Array("/*".utf8), Array("*/".utf8)),
                                 multilineQuotes: [UInt8(ascii: "`")], atAnnotations: true).prepared()
    static let json = Spec(literals: WordSet("true false null"), lineComments: [Array("//".utf8)],
                           blockComment: (Array("/*".utf8), Array("*/".utf8)), quotes: [UInt8(ascii: "\"")],
                           capitalizedTypes: false, functionCalls: false, jsonKeys: true).prepared()
    static let ruby = Spec(keywords: WordSet("BEGIN END alias and begin break case class def defined? do else elsif end ensure for if in module next not or redo rescue retry return super then undef unless until when while yield require require_relative include extend attr_accessor attr_reader attr_writer private protected public lambda proc raise puts target use_frameworks! platform pod source"),
                           literals: WordSet("true false nil self __FILE__ __LINE__"), lineComments: [Array("#".utf8)],
                           multilineQuotes: [UInt8(ascii: "`")], atVariables: true, dollarVariables: true, symbols: true).prepared()
    static let python = Spec(keywords: WordSet("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case print"),
                             types: WordSet("int float str bool list dict set tuple bytes object type"),
                             literals: WordSet("True False None self cls"), lineComments: [Array("#".utf8)], tripleQuotes: true, atAnnotations: true).prepared()
    static let shell = Spec(keywords: WordSet("if then else elif fi for while until do done case esac in function select return exit local export readonly declare unset source alias time"),
                            lineComments: [Array("#".utf8)], multilineQuotes: [UInt8(ascii: "`")], dollarVariables: true,
                            capitalizedTypes: false, functionCalls: false, hashCommentAtWordStart: true, dashOptions: true).prepared()
    static let dart = Spec(keywords: WordSet("abstract as assert async await break case catch class const continue covariant default deferred do dynamic else enum export extends extension external factory final finally for get hide if implements import in interface is late library mixin new on operator part required rethrow return set show static super switch sync this throw try typedef var void while with yield sealed base"),
                           types: WordSet("int double num bool String List Map Set Future Stream Object dynamic"),
                           literals: WordSet("true false null"), lineComments: [Array("//".utf8)],
                           blockComment: (Array("/*".utf8), Array("*/".utf8)), tripleQuotes: true, atAnnotations: true).prepared()
    static let php = Spec(keywords: WordSet("abstract and array as break callable case catch class clone const continue declare default do echo else elseif empty enddeclare endfor endforeach endif endswitch endwhile extends final finally fn for foreach function global goto if implements include include_once instanceof insteadof interface isset list match namespace new or print private protected public readonly require require_once return static switch throw trait try unset use var while xor yield", caseInsensitive: true),
                          literals: WordSet("true false null TRUE FALSE NULL"), lineComments: [Array("//".utf8), Array("#".utf8)],
                          blockComment: (Array("/*".utf8), Array("*/".utf8)), dollarVariables: true, phpTags: true).prepared()
    static let sql = Spec(keywords: WordSet("select from where and or not insert into values update set delete create table drop alter add column index primary key foreign references unique default join inner left right outer full cross on as group by order having limit offset distinct union all case when then else end is in between like exists begin commit rollback transaction view trigger procedure function returns return declare if database schema grant revoke with asc desc auto_increment constraint check cascade", caseInsensitive: true),
                          types: WordSet("int integer bigint smallint tinyint varchar char text date datetime timestamp boolean decimal numeric float real double serial blob json", caseInsensitive: true),
                          literals: WordSet("null true false", caseInsensitive: true), lineComments: [Array("--".utf8)],
                          blockComment: (Array("/*".utf8), Array("*/".utf8)), multilineQuotes: [UInt8(ascii: "`")], capitalizedTypes: false).prepared()
    static let go = Spec(keywords: WordSet("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var"),
                         types: WordSet("bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr any"),
                         literals: WordSet("true false nil iota"), lineComments: [Array("//".utf8)],
                         blockComment: (Array("/*".utf8), Array("*/".utf8)), multilineQuotes: [UInt8(ascii: "`")], capitalizedTypes: false).prepared()
    static let yamlValue = Spec(literals: WordSet("true false null yes no on off True False Null Yes No TRUE FALSE NULL ~"),
                                lineComments: [Array("#".utf8)], capitalizedTypes: false, functionCalls: false,
                                hashCommentAtWordStart: true, anchors: true, operators: false).prepared()
}

// MARK: - output

/// The highlighter's output: the caller's `ByteBuffer`, written through directly (appending to an
/// Array per token was a large share of highlighting time).
struct Emitter {
    var out: ByteBuffer
    let code: UnsafeBufferPointer<UInt8>

    init(code: UnsafeBufferPointer<UInt8>, into out: ByteBuffer) {
        self.code = code
        self.out = out
        self.out.reserve(code.count * 2 + 64)
    }

    /// The bytes written so far.
    @inline(__always) var count: Int {
        get { out.count }
        set { out.count = newValue }
    }

    /// The buffer's storage (capacity for `reserve`d bytes beyond `count`).
    @inline(__always) var base: UnsafeMutablePointer<UInt8> { out.base }

    @inline(__always) mutating func reserve(_ extra: Int) { out.reserve(extra) }


    /// `code[from..<to]` escaped. Tokens are short: the bytes are written one by one into capacity
    /// reserved for the worst case (`&quot;`, six bytes each), with no copy calls.
    @inline(__always) mutating func plain(_ from: Int, _ to: Int) {
        guard to > from else { return }
        reserve(6 * (to - from))
        count = escape(from, to, at: count)
    }

    /// `plain`, or when the lexer knows the run holds no `"` `&` `<` `>` (`clean`), the bytes copied
    /// as they are, eight at a time, since escaping byte by byte is most of the cost of plain code.
    @inline(__always) mutating func plain(_ from: Int, _ to: Int, clean: Bool) {
        guard clean else { return plain(from, to) }
        let length = to - from
        guard length > 0 else { return }
        reserve(length + 8)
        let dst = UnsafeMutableRawPointer(base + count)
        let src = UnsafeRawPointer(code.baseAddress! + from)
        var k = 0
        // whole words while eight more bytes of code follow (the last store may write up to seven
        // bytes past the run, inside the room reserved; the next write overwrites them)
        if from + length + 8 <= code.count {
            while k < length { dst.storeBytes(of: src.loadUnaligned(fromByteOffset: k, as: UInt64.self), toByteOffset: k, as: UInt64.self); k += 8 }
        } else {
            while k < length { dst.storeBytes(of: src.load(fromByteOffset: k, as: UInt8.self), toByteOffset: k, as: UInt8.self); k += 1 }
        }
        count += length
    }

    /// Writes the escaped bytes at `at` (capacity already reserved) and returns the new end.
    @inline(__always) private func escape(_ from: Int, _ to: Int, at: Int) -> Int {
        let src = code.baseAddress!
        let dst = base
        var w = at
        var i = from
        while i < to {
            let b = src[i]
            // `"` `&` `<` `>` are the only bytes below 64 with their bit set: one test for the rest
            if b >= 64 || (0x5000_0044_0000_0000 as UInt64) >> UInt64(b) & 1 == 0 { dst[w] = b; w += 1; i += 1; continue }
            switch b {
            case 0x26: // &amp;
                dst[w] = 0x26; dst[w + 1] = 0x61; dst[w + 2] = 0x6D; dst[w + 3] = 0x70; dst[w + 4] = 0x3B; w += 5
            case 0x3C: // &lt;
                dst[w] = 0x26; dst[w + 1] = 0x6C; dst[w + 2] = 0x74; dst[w + 3] = 0x3B; w += 4
            case 0x3E: // &gt;
                dst[w] = 0x26; dst[w + 1] = 0x67; dst[w + 2] = 0x74; dst[w + 3] = 0x3B; w += 4
            case 0x22: // &quot;
                dst[w] = 0x26; dst[w + 1] = 0x71; dst[w + 2] = 0x75; dst[w + 3] = 0x6F; dst[w + 4] = 0x74; dst[w + 5] = 0x3B; w += 6
            default:
                dst[w] = b; w += 1
            }
            i += 1
        }
        return w
    }

    @inline(__always) mutating func open(_ cls: StaticString) {
        let n = cls.utf8CodeUnitCount
        reserve(18 + n) // one capacity check for the whole tag
        writeOpen(cls, n, at: count)
        count += 18 + n
    }

    /// `<span class="hl-CLASS">` at `at` (capacity already reserved).
    @inline(__always) private func writeOpen(_ cls: StaticString, _ n: Int, at: Int) {
        let p = base + at
        UnsafeMutableRawPointer(p).storeBytes(of: (0x6C63_206E_6170_733C as UInt64).littleEndian, as: UInt64.self) // "<span cl"
        UnsafeMutableRawPointer(p + 8).storeBytes(of: (0x2D6C_6822_3D73_7361 as UInt64).littleEndian, as: UInt64.self) // "ass=\"hl-"
        let name = cls.utf8Start
        for k in 0..<n { p[16 + k] = name[k] }
        p[16 + n] = UInt8(ascii: "\"")
        p[17 + n] = UInt8(ascii: ">")
    }

    @inline(__always) mutating func close() {
        reserve(7)
        writeClose(at: count)
        count += 7
    }

    /// `</span>` at `at` (capacity already reserved).
    @inline(__always) private func writeClose(at: Int) {
        let p = base + at
        p[0] = UInt8(ascii: "<"); p[1] = UInt8(ascii: "/"); p[2] = UInt8(ascii: "s"); p[3] = UInt8(ascii: "p")
        p[4] = UInt8(ascii: "a"); p[5] = UInt8(ascii: "n"); p[6] = UInt8(ascii: ">")
    }

    /// A token with no byte to escape (identifiers, numbers) in its span: copied as it is.
    @inline(__always) mutating func spanVerbatim(_ cls: StaticString, _ from: Int, _ to: Int) {
        let n = cls.utf8CodeUnitCount
        let length = to - from
        reserve(25 + n + length + 8)
        writeOpen(cls, n, at: count)
        let dst = base + count + 18 + n
        let src = code.baseAddress! + from
        if length <= 8 && from + 8 <= code.count {
            // one load and store (the closing tag below overwrites the bytes past the token)
            UnsafeMutableRawPointer(dst).storeBytes(of: UnsafeRawPointer(src).loadUnaligned(as: UInt64.self), as: UInt64.self)
        } else {
            for k in 0..<length { dst[k] = src[k] }
        }
        writeClose(at: count + 18 + n + length)
        count += 25 + n + length
    }

    /// One token in its span: a single capacity check, then direct writes.
    @inline(__always) mutating func span(_ cls: StaticString, _ from: Int, _ to: Int) {
        guard to > from else { return }
        let n = cls.utf8CodeUnitCount
        reserve(25 + n + 6 * (to - from))
        writeOpen(cls, n, at: count)
        let w = escape(from, to, at: count + 18 + n)
        writeClose(at: w)
        count = w + 7
    }
}

