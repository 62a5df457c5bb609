// The data a template is rendered against.

/// A value in a Mustache context: JSON-like data plus lambdas.
///
/// Truthiness (sections and inverted sections): `null`, `false`, the empty list and the
/// empty string are falsey; everything else (including `0` and every object) is truthy.
/// Lambdas are always truthy for inverted sections.
public indirect enum MustacheValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([MustacheValue])
    case object([String: MustacheValue])
    case lambda(MustacheLambda)

    /// Whether a section over this value renders (the spec's `!!data`).
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case .bool(let b): return b
        case .int, .double, .object, .lambda: return true
        case .string(let s): return !s.isEmpty
        case .array(let a): return !a.isEmpty
        }
    }

    /// The member of an object, or nil (for a missing key or a non-object).
    public subscript(key: String) -> MustacheValue? {
        if case .object(let dict) = self { return dict[key] }
        return nil
    }

    /// The text `{{value}}` produces (before escaping). Lists and objects produce nothing.
    public var interpolationText: String {
        switch self {
        case .null, .array, .object, .lambda: return ""
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return MustacheValue.format(d)
        case .string(let s): return s
        }
    }

    /// Integral doubles print without a fraction (`2.0` → `2`); others use Swift's
    /// shortest round-tripping form (`1.21` → `1.21`).
    static func format(_ d: Double) -> String {
        if d.isFinite, d == d.rounded(), abs(d) < 1e15 {
            return String(Int(d))
        }
        return d.description
    }
}

extension MustacheValue {
    /// Wraps an optional string: `nil` becomes `.null`.
    public init(_ string: String?) {
        if let string { self = .string(string) } else { self = .null }
    }

    /// A list of values.
    public init<S: Sequence>(list: S) where S.Element == MustacheValue {
        self = .array(Array(list))
    }
}

extension MustacheValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
}

extension MustacheValue: ExpressibleByStringInterpolation {}

extension MustacheValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension MustacheValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension MustacheValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension MustacheValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}

extension MustacheValue: ExpressibleByArrayLiteral {
    public init(arrayLiteral elements: MustacheValue...) { self = .array(elements) }
}

extension MustacheValue: ExpressibleByDictionaryLiteral {
    /// Later duplicate keys win.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        var dict: [String: MustacheValue] = [:]
        dict.reserveCapacity(elements.count)
        for (key, value) in elements { dict[key] = value }
        self = .object(dict)
    }
}

/// A Swift closure usable as a Mustache lambda.
///
/// - `MustacheLambda { "text" }` — an interpolation lambda: `{{name}}` calls it and renders the
///   returned text as a template (default delimiters) in the current context, then escapes the
///   result for `{{name}}` (not for `{{{name}}}` / `{{&name}}`). As a section it gets no text.
/// - `MustacheLambda(section: { raw in ... })` — a section lambda: `{{#name}}raw{{/name}}` passes
///   the unrendered section text; the returned text is rendered as a template with the
///   delimiters current at the section. Used for interpolation it receives "".
/// - `MustacheLambda(rendered: { html in ... })` — gets the section *rendered* in the current
///   context and returns final output, inserted as-is (not re-rendered). Cheap: no parsing.
///   Used for interpolation it receives "" and its result is escaped per tag.
public struct MustacheLambda: Sendable {
    public enum Kind: Sendable {
        case interpolation(@Sendable () -> String)
        case section(@Sendable (String) -> String)
        case rendered(@Sendable (String) -> String)
    }

    public let kind: Kind

    public init(_ body: @escaping @Sendable () -> String) {
        kind = .interpolation(body)
    }

    public init(section body: @escaping @Sendable (String) -> String) {
        kind = .section(body)
    }

    public init(rendered body: @escaping @Sendable (String) -> String) {
        kind = .rendered(body)
    }
}
