import BlogCore

/// A JSON value with the byte offset where it starts, so errors about it can name `line:column`.
public struct JSONNode: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        case null
        case bool(Bool)
        /// The number's text as written (kept exact; convert with `intValue`/`doubleValue`).
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in document order (duplicate keys are kept; `member(_:)` returns the last).
        case object([(key: String, value: JSONNode)])

        public static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.null, .null): return true
            case let (.bool(a), .bool(b)): return a == b
            case let (.number(a), .number(b)): return a == b
            case let (.string(a), .string(b)): return a == b
            case let (.array(a), .array(b)): return a == b
            case let (.object(a), .object(b)):
                return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: return false
            }
        }
    }

    public var value: Value
    /// Byte offset of the value's first character in the input.
    public var offset: Int

    public init(_ value: Value, offset: Int) {
        self.value = value
        self.offset = offset
    }

    public func member(_ key: String) -> JSONNode? {
        guard case let .object(members) = value else { return nil }
        return members.last(where: { $0.key == key })?.value
    }

    public var stringValue: String? {
        if case let .string(text) = value { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case let .bool(flag) = value { return flag }
        return nil
    }

    public var intValue: Int? {
        if case let .number(text) = value { return Int(text) }
        return nil
    }

    public var doubleValue: Double? {
        if case let .number(text) = value { return Double(text) }
        return nil
    }

    public var arrayValue: [JSONNode]? {
        if case let .array(items) = value { return items }
        return nil
    }

    public var isNull: Bool { value == .null }

    /// A short name of the value's kind, for messages ("expected a string, found a number").
    public var kindName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON syntax error at a byte offset.
public struct JSONSyntaxError: Error, Sendable, Equatable {
    public var message: String
    public var offset: Int
}

/// A strict RFC 8259 parser over bytes. Reports the byte offset of the first error.
/// Input must already be valid UTF-8 (see `InputText`).
public struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private static let maxDepth = 512

    public static func parse(_ bytes: [UInt8]) throws -> JSONNode {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let node = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw JSONSyntaxError(message: "unexpected \(parser.describeCurrent()) after the end of the JSON value", offset: parser.index)
        }
        return node
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func describeCurrent() -> String {
        guard index < bytes.count else { return "end of input" }
        let byte = bytes[index]
        if byte >= 0x21 && byte < 0x7F { return "character '\(Character(Unicode.Scalar(byte)))'" }
        if byte < 0x20 { return String(format: "control character 0x%02X", byte) }
        return "character"
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws -> JSONNode {
        guard index < bytes.count else {
            throw JSONSyntaxError(message: "unexpected end of input, expected a value", offset: index)
        }
        let start = index
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return JSONNode(.string(try parseString()), offset: start)
        case UInt8(ascii: "t"): try expectLiteral("true"); return JSONNode(.bool(true), offset: start)
        case UInt8(ascii: "f"): try expectLiteral("false"); return JSONNode(.bool(false), offset: start)
        case UInt8(ascii: "n"): try expectLiteral("null"); return JSONNode(.null, offset: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default:
            throw JSONSyntaxError(message: "unexpected \(describeCurrent()), expected a value", offset: index)
        }
    }

    private mutating func expectLiteral(_ word: String) throws {
        for expected in word.utf8 {
            guard index < bytes.count, bytes[index] == expected else {
                throw JSONSyntaxError(message: "invalid literal, expected '\(word)'", offset: index)
            }
            index += 1
        }
    }

    private mutating func enter() throws {
        depth += 1
        if depth > JSONParser.maxDepth {
            throw JSONSyntaxError(message: "nesting deeper than \(JSONParser.maxDepth) levels", offset: index)
        }
    }

    private mutating func parseObject() throws -> JSONNode {
        let start = index
        try enter()
        index += 1
        var members: [(key: String, value: JSONNode)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return JSONNode(.object(members), offset: start)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count else {
                throw JSONSyntaxError(message: "unexpected end of input inside an object (opened here without '}')", offset: index)
            }
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw JSONSyntaxError(message: "unexpected \(describeCurrent()), expected a string key", offset: index)
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw JSONSyntaxError(message: "unexpected \(describeCurrent()), expected ':' after the key", offset: index)
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            members.append((key, value))
            skipWhitespace()
            guard index < bytes.count else {
                throw JSONSyntaxError(message: "unexpected end of input, expected ',' or '}'", offset: index)
            }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; break }
            throw JSONSyntaxError(message: "unexpected \(describeCurrent()), expected ',' or '}'", offset: index)
        }
        depth -= 1
        return JSONNode(.object(members), offset: start)
    }

    private mutating func parseArray() throws -> JSONNode {
        let start = index
        try enter()
        index += 1
        var items: [JSONNode] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return JSONNode(.array(items), offset: start)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else {
                throw JSONSyntaxError(message: "unexpected end of input, expected ',' or ']'", offset: index)
            }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; break }
            throw JSONSyntaxError(message: "unexpected \(describeCurrent()), expected ',' or ']'", offset: index)
        }
        depth -= 1
        return JSONNode(.array(items), offset: start)
    }

    private mutating func parseNumber() throws -> JSONNode {
        let start = index
        func digits() -> Int {
            let begin = index
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
            return index - begin
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else {
            throw JSONSyntaxError(message: "invalid number, expected a digit", offset: index)
        }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                throw JSONSyntaxError(message: "invalid number, leading zeros are not allowed", offset: index)
            }
        } else {
            _ = digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            if digits() == 0 { throw JSONSyntaxError(message: "invalid number, expected a digit after '.'", offset: index) }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            if digits() == 0 { throw JSONSyntaxError(message: "invalid number, expected a digit in the exponent", offset: index) }
        }
        return JSONNode(.number(String(decoding: bytes[start..<index], as: UTF8.self)), offset: start)
    }

    private mutating func parseHex4() throws -> UInt32 {
        guard index + 4 <= bytes.count else {
            throw JSONSyntaxError(message: "unexpected end of input in a \\u escape", offset: index)
        }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw JSONSyntaxError(message: "invalid \\u escape, expected 4 hex digits", offset: index)
            }
            value = value * 16 + digit
            index += 1
        }
        return value
    }

    private mutating func parseString() throws -> String {
        let start = index
        index += 1 // opening quote
        var out: [UInt8] = []
        var runStart = index
        while true {
            guard index < bytes.count else {
                throw JSONSyntaxError(message: "unterminated string (started here)", offset: start)
            }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                out.append(contentsOf: bytes[runStart..<index])
                index += 1
                return String(decoding: out, as: UTF8.self)
            }
            if byte < 0x20 {
                throw JSONSyntaxError(message: String(format: "control character 0x%02X in a string must be escaped", byte), offset: index)
            }
            if byte != UInt8(ascii: "\\") { index += 1; continue }
            out.append(contentsOf: bytes[runStart..<index])
            let escapeStart = index
            index += 1
            guard index < bytes.count else {
                throw JSONSyntaxError(message: "unterminated string (started here)", offset: start)
            }
            let escaped = bytes[index]
            index += 1
            switch escaped {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var code = try parseHex4()
                if code >= 0xD800 && code <= 0xDBFF {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                        throw JSONSyntaxError(message: "high surrogate \\u\(String(code, radix: 16, uppercase: true)) not followed by a low surrogate", offset: escapeStart)
                    }
                    index += 2
                    let low = try parseHex4()
                    guard low >= 0xDC00 && low <= 0xDFFF else {
                        throw JSONSyntaxError(message: "high surrogate not followed by a low surrogate", offset: escapeStart)
                    }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else if code >= 0xDC00 && code <= 0xDFFF {
                    throw JSONSyntaxError(message: "lone low surrogate \\u\(String(code, radix: 16, uppercase: true))", offset: escapeStart)
                }
                out.append(contentsOf: Array(String(Character(Unicode.Scalar(code)!)).utf8))
            default:
                throw JSONSyntaxError(message: "invalid escape sequence in a string", offset: escapeStart)
            }
            runStart = index
        }
    }
}
