import BlogCore
import Synchronization

/// One template's text. `name` is what partial and parent tags use (`partials/head`);
/// `path` is only for error messages (`themes/x/templates/partials/head.mustache`).
public struct TemplateSource: Sendable {
    public var name: String
    public var text: String
    public var path: String

    public init(name: String, text: String, path: String) {
        self.name = name
        self.text = text
        self.path = path
    }
}

/// The right to use one set of lookup hints of a library's templates (see `Name.hints`): a
/// renderer that holds a lane remembers, for each tag, where in an object it found the name,
/// and tries there first on the next page. A lane is used by one thread at a time (the holder
/// must not render with it on two threads at once) and goes back to the library when released.
public final class RenderLane: @unchecked Sendable {
    /// How many lanes each library has (renders beyond that use no hints).
    static let count = 8

    let index: Int
    private let pool: LanePool

    fileprivate init(index: Int, pool: LanePool) {
        self.index = index
        self.pool = pool
    }

    deinit { pool.release(index) }
}

/// Which lanes of a library are taken: bit i for lane i, changed by compare-and-swap (claimed
/// once per worker and batch of pages, so a lock would do too; this keeps the module free of
/// Foundation).
final class LanePool: Sendable {
    private let taken = Atomic<UInt64>(0)

    fileprivate func claim() -> Int? {
        var current = taken.load(ordering: .relaxed)
        while true {
            let free = ~current & ((1 << UInt64(RenderLane.count)) - 1)
            guard free != 0 else { return nil }
            let index = free.trailingZeroBitCount
            let (exchanged, original) = taken.compareExchange(expected: current, desired: current | 1 << UInt64(index),
                                                              ordering: .acquiringAndReleasing)
            if exchanged { return index }
            current = original
        }
    }

    fileprivate func release(_ index: Int) {
        taken.bitwiseAnd(~(1 << UInt64(index)), ordering: .releasing)
    }
}

/// A set of named templates, parsed once up front. Immutable, so one library can render on
/// many threads at once.
public final class TemplateLibrary: Sendable {
    let templates: [String: Template]
    /// Missing partials and parents are errors (true), or render as nothing (false, the
    /// Mustache spec's behaviour).
    public let strictPartials: Bool
    private let lanes = LanePool()

    /// A lane of lookup hints for one thread's renders, or nil when all are taken.
    public func claimLane() -> RenderLane? {
        lanes.claim().map { RenderLane(index: $0, pool: lanes) }
    }

    /// Parses every source and, when `strictPartials`, checks that every partial and parent
    /// named by a fixed name exists. Throws the first problem (in source order).
    public init(_ sources: [TemplateSource], strictPartials: Bool = true) throws {
        var templates: [String: Template] = [:]
        templates.reserveCapacity(sources.count)
        var paths: [String: String] = [:]
        for source in sources {
            let info = SourceInfo(name: source.name, path: source.path, bytes: Array(source.text.utf8))
            if let earlier = paths[source.name] {
                throw MustacheError(at: SourceLocation(file: source.path),
                                    message: "duplicate template name '\(source.name)' (also \(earlier))")
            }
            paths[source.name] = source.path
            templates[source.name] = try Parser.parse(info)
        }
        if strictPartials {
            for source in sources {
                let template = templates[source.name]!
                for reference in template.references where templates[reference.name] == nil {
                    throw template.info.error(at: reference.offset,
                        "\(reference.isParent ? "parent template" : "partial") '\(reference.name)' not found")
                }
            }
        }
        for template in templates.values { linkTargets(template.nodes, templates) }
        self.templates = templates
        self.strictPartials = strictPartials
    }

    /// Every problem in `sources` rather than only the first: parse errors (one per template)
    /// and, when `strictPartials`, every missing partial or parent.
    public static func diagnose(_ sources: [TemplateSource], strictPartials: Bool = true) -> [MustacheError] {
        var errors: [MustacheError] = []
        var parsed: [Template] = []
        var names = Set<String>()
        for source in sources {
            if !names.insert(source.name).inserted {
                errors.append(MustacheError(at: SourceLocation(file: source.path),
                                            message: "duplicate template name '\(source.name)'"))
                continue
            }
            let info = SourceInfo(name: source.name, path: source.path, bytes: Array(source.text.utf8))
            do {
                parsed.append(try Parser.parse(info))
            } catch let error as MustacheError {
                errors.append(error)
            } catch {
                errors.append(MustacheError(at: SourceLocation(file: source.path), message: "\(error)"))
            }
        }
        if strictPartials {
            for template in parsed {
                for reference in template.references where !names.contains(reference.name) {
                    errors.append(template.info.error(at: reference.offset,
                        "\(reference.isParent ? "parent template" : "partial") '\(reference.name)' not found"))
                }
            }
        }
        return errors
    }

    /// Every name that rendering the template `name` can look up (as its dotted parts; `.` is
    /// left out): in its own tags and in those of every partial and parent it reaches, with their
    /// blocks and arguments. Nil when it can reach a template named at render time (`{{>*name}}`)
    /// or a missing one: what it reads is then not known before it renders.
    public func namesRead(by name: String) -> Set<[String]>? {
        var names = Set<[String]>()
        var visited = Set<String>()
        func visit(_ name: String) -> Bool {
            guard visited.insert(name).inserted else { return true }
            guard let template = templates[name] else { return false }
            return walk(template.nodes)
        }
        func reach(_ ref: TemplateRef) -> Bool {
            guard case .fixed(let target) = ref else { return false }
            return visit(target)
        }
        func walk(_ nodes: [Node]) -> Bool {
            for node in nodes {
                switch node {
                case .text:
                    continue
                case .variable(let variable):
                    if !variable.name.isImplicit { names.insert(variable.name.parts) }
                case .section(let section):
                    if !section.name.isImplicit { names.insert(section.name.parts) }
                    guard walk(section.body) else { return false }
                case .partial(let partial):
                    guard reach(partial.ref) else { return false }
                case .parent(let parent):
                    guard reach(parent.ref) else { return false }
                    for block in parent.blocks.values where !walk(block.body) { return false }
                case .block(let block):
                    guard walk(block.body) else { return false }
                }
            }
            return true
        }
        return visit(name) ? names : nil
    }

    /// Whether a template with this name exists.
    public func has(_ name: String) -> Bool {
        templates[name] != nil
    }

    /// The template names, sorted.
    public var names: [String] {
        templates.keys.sorted()
    }

    /// Renders the named template against `context`.
    public func render(_ name: String, _ context: MustacheValue) throws -> String {
        var buffer: [UInt8] = []
        try renderBytes(name, context, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Renders the named template, appending UTF-8 to `buffer`. On error the buffer may hold
    /// part of the output.
    public func renderBytes(_ name: String, _ context: MustacheValue, into buffer: inout [UInt8]) throws {
        if buffer.isEmpty {
            // The room the caller reserved is the size hint.
            buffer = try renderBytes(name, context, capacity: max(buffer.capacity, 16384))
        } else {
            buffer.append(contentsOf: try renderBytes(name, context, capacity: 16384))
        }
    }

    /// Renders the named template into a new array, written in place when the page fits in
    /// `capacity` bytes (a larger page is finished in a buffer of its own and copied once).
    /// `lane`: lookup hints to use (held by this thread only), or nil.
    public func renderBytes(_ name: String, _ context: MustacheValue, capacity: Int, lane: RenderLane? = nil) throws -> [UInt8] {
        guard let template = templates[name] else {
            throw MustacheError(at: SourceLocation(file: name), message: "no template named '\(name)'")
        }
        var overflow: OutputBuffer?
        var failure: Error?
        let size = max(capacity, 64)
        var bytes = [UInt8](unsafeUninitializedCapacity: size) { storage, initialized in
            var out = OutputBuffer(lending: UnsafeMutableBufferPointer(rebasing: storage[0..<size]))
            withUnsafePointer(to: context) { context in
                var renderer = Renderer(library: self, context: context, lane: lane?.index ?? -1)
                defer { renderer.deallocate() }
                do {
                    try renderer.render(template.ops, template.info, into: &out)
                } catch {
                    failure = error
                }
            }
            if out.ownsMemory {
                initialized = 0
                overflow = out
            } else {
                initialized = out.count
            }
        }
        if let overflow {
            // A new array of the exact size, the lent one let go first: appending to the lent one
            // would have grown it past the page (one more copy, twice the room).
            bytes = []
            bytes = Array(overflow.bytes)
            overflow.deallocate()
        }
        if let failure { throw failure }
        return bytes
    }
}
