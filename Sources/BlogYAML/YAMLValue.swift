import BlogCore
import CYaml

/// A YAML node with the place it starts in the source (1-based line and column).
public struct YAMLValue: Sendable, Equatable {
    /// Not `indirect`: the collections' arrays already box their elements, and a boxed kind
    /// cost a heap object per node (front matter is parsed for every post).
    public enum Kind: Sendable, Equatable {
        /// A scalar and whether it was quoted (a quoted scalar is always a string).
        case scalar(String, quoted: Bool)
        case sequence([YAMLValue])
        /// Key/value pairs in document order.
        case mapping([YAMLPair])
    }

    public var kind: Kind
    public var line: Int
    public var column: Int

    public init(_ kind: Kind, line: Int = 0, column: Int = 0) {
        self.kind = kind
        self.line = line
        self.column = column
    }

    /// The scalar's text, or nil for collections.
    public var scalar: String? {
        if case .scalar(let text, _) = kind { return text }
        return nil
    }

    /// True for a plain (unquoted) `null`, `~` or empty scalar.
    public var isNull: Bool {
        if case .scalar(let text, let quoted) = kind, !quoted {
            return text.isEmpty || text == "~" || text == "null" || text == "Null" || text == "NULL"
        }
        return false
    }

    /// YAML 1.1/1.2 booleans for plain scalars.
    public var bool: Bool? {
        guard case .scalar(let text, let quoted) = kind, !quoted else { return nil }
        switch text {
        case "true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON": return true
        case "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF": return false
        default: return nil
        }
    }

    public var int: Int? {
        guard case .scalar(let text, let quoted) = kind, !quoted else { return nil }
        return Int(text)
    }

    public var sequence: [YAMLValue]? {
        if case .sequence(let items) = kind { return items }
        return nil
    }

    public var mapping: [YAMLPair]? {
        if case .mapping(let pairs) = kind { return pairs }
        return nil
    }

    /// The value for a string key of a mapping.
    public subscript(key: String) -> YAMLValue? {
        mapping?.first { $0.key.scalar == key }?.value
    }

    /// A short name of the node's type, for error messages.
    public var typeName: String {
        switch kind {
        case .scalar: return "a scalar"
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        }
    }
}

public struct YAMLPair: Sendable, Equatable {
    public var key: YAMLValue
    public var value: YAMLValue

    public init(key: YAMLValue, value: YAMLValue) {
        self.key = key
        self.value = value
    }
}

/// A YAML syntax error with its place (1-based).
public struct YAMLError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public var line: Int
    public var column: Int

    public init(message: String, line: Int, column: Int) {
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column): \(message)" }
}

public enum YAML {
    /// Parses a single YAML document. An empty document gives an empty mapping.
    /// Aliases are resolved; anchors are scoped to the document.
    public static func parse(_ text: String) throws -> YAMLValue {
        var text = text
        return try text.withUTF8 { try parse(utf8: $0) }
    }

    /// `parse(_:)` of UTF-8 bytes (a file's front matter, cut from its bytes without making a String).
    public static func parse(utf8 buffer: UnsafeBufferPointer<UInt8>) throws -> YAMLValue {
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else {
            throw YAMLError(message: "could not initialise the YAML parser", line: 1, column: 1)
        }
        defer { yaml_parser_delete(&parser) }
        // libyaml reads from the pointer during parsing only; the buffer outlives this call.
        var empty: UInt8 = 0
        return try withUnsafePointer(to: &empty) { fallback -> YAMLValue in
            yaml_parser_set_input_string(&parser, buffer.baseAddress ?? fallback, buffer.count)
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            var reader = EventReader(parser: &parser)
            return try reader.document()
        }
    }
}

private struct EventReader {
    var parser: UnsafeMutablePointer<yaml_parser_t>
    var anchors: [String: YAMLValue] = [:]

    init(parser: UnsafeMutablePointer<yaml_parser_t>) {
        self.parser = parser
    }

    /// One parsed event, copied out of libyaml's structures.
    enum Event {
        case streamStart, streamEnd, documentStart, documentEnd
        case alias(anchor: String)
        case scalar(value: String, anchor: String?, quoted: Bool)
        case sequenceStart(anchor: String?)
        case sequenceEnd
        case mappingStart(anchor: String?)
        case mappingEnd
    }

    mutating func next() throws -> (Event, line: Int, column: Int) {
        var event = yaml_event_t()
        guard yaml_parser_parse(parser, &event) == 1 else {
            let problem = parser.pointee.problem.map { String(cString: $0) } ?? "invalid YAML"
            var mark = parser.pointee.problem_mark
            if mark.line == 0 && mark.column == 0 && parser.pointee.context_mark.line > 0 {
                mark = parser.pointee.context_mark
            }
            var message = problem
            if let context = parser.pointee.context {
                message = "\(problem) \(String(cString: context))"
            }
            throw YAMLError(message: message, line: Int(mark.line) + 1, column: Int(mark.column) + 1)
        }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line) + 1
        let column = Int(event.start_mark.column) + 1
        func string(_ pointer: UnsafeMutablePointer<yaml_char_t>?) -> String? {
            guard let pointer else { return nil }
            return String(cString: pointer)
        }
        let result: Event
        switch event.type {
        case YAML_STREAM_START_EVENT: result = .streamStart
        case YAML_STREAM_END_EVENT: result = .streamEnd
        case YAML_DOCUMENT_START_EVENT: result = .documentStart
        case YAML_DOCUMENT_END_EVENT: result = .documentEnd
        case YAML_ALIAS_EVENT: result = .alias(anchor: string(event.data.alias.anchor) ?? "")
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value: String
            if let pointer = scalar.value {
                value = String(decoding: UnsafeBufferPointer(start: pointer, count: scalar.length), as: UTF8.self)
            } else {
                value = ""
            }
            let quoted = scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE || scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE
                || scalar.style == YAML_LITERAL_SCALAR_STYLE || scalar.style == YAML_FOLDED_SCALAR_STYLE
            result = .scalar(value: value, anchor: string(scalar.anchor), quoted: quoted)
        case YAML_SEQUENCE_START_EVENT: result = .sequenceStart(anchor: string(event.data.sequence_start.anchor))
        case YAML_SEQUENCE_END_EVENT: result = .sequenceEnd
        case YAML_MAPPING_START_EVENT: result = .mappingStart(anchor: string(event.data.mapping_start.anchor))
        case YAML_MAPPING_END_EVENT: result = .mappingEnd
        default: result = .streamEnd
        }
        return (result, line, column)
    }

    mutating func document() throws -> YAMLValue {
        var root: YAMLValue?
        loop: while true {
            let (event, line, column) = try next()
            switch event {
            case .streamStart, .documentEnd: continue
            case .documentStart:
                if root != nil {
                    throw YAMLError(message: "only one YAML document is allowed here", line: line, column: column)
                }
            case .streamEnd: break loop
            default:
                if root != nil {
                    throw YAMLError(message: "only one YAML document is allowed here", line: line, column: column)
                }
                root = try node(startingWith: event, line: line, column: column, depth: 0)
            }
        }
        return root ?? YAMLValue(.mapping([]), line: 1, column: 1)
    }

    mutating func node(startingWith event: Event, line: Int, column: Int, depth: Int) throws -> YAMLValue {
        if depth > 256 {
            throw YAMLError(message: "nesting is too deep", line: line, column: column)
        }
        switch event {
        case .scalar(let value, let anchor, let quoted):
            let result = YAMLValue(.scalar(value, quoted: quoted), line: line, column: column)
            if let anchor { anchors[anchor] = result }
            return result
        case .alias(let anchor):
            guard var target = anchors[anchor] else {
                throw YAMLError(message: "unknown alias '*\(anchor)'", line: line, column: column)
            }
            target.line = line
            target.column = column
            return target
        case .sequenceStart(let anchor):
            var items: [YAMLValue] = []
            while true {
                let (inner, innerLine, innerColumn) = try next()
                if case .sequenceEnd = inner { break }
                items.append(try node(startingWith: inner, line: innerLine, column: innerColumn, depth: depth + 1))
            }
            let result = YAMLValue(.sequence(items), line: line, column: column)
            if let anchor { anchors[anchor] = result }
            return result
        case .mappingStart(let anchor):
            var pairs: [YAMLPair] = []
            while true {
                let (keyEvent, keyLine, keyColumn) = try next()
                if case .mappingEnd = keyEvent { break }
                let key = try node(startingWith: keyEvent, line: keyLine, column: keyColumn, depth: depth + 1)
                let (valueEvent, valueLine, valueColumn) = try next()
                let value = try node(startingWith: valueEvent, line: valueLine, column: valueColumn, depth: depth + 1)
                pairs.append(YAMLPair(key: key, value: value))
            }
            let result = YAMLValue(.mapping(pairs), line: line, column: column)
            if let anchor { anchors[anchor] = result }
            return result
        default:
            throw YAMLError(message: "unexpected YAML event", line: line, column: column)
        }
    }
}
