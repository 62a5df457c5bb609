// The data a template is rendered against.
import BlogCore

/// A value in a Mustache context: JSON-like data plus lambdas.
///
/// Truthiness (sections and inverted sections): `null`, `false`, the empty list and the
/// empty string are falsey; everything else (including `0` and every object) is truthy.
/// Lambdas are always truthy for inverted sections.
public enum MustacheValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([MustacheValue])
    case object(MustacheObject)
    case lambda(MustacheLambda)

    /// An object made from a dictionary (its keys sorted). Disfavoured, so that a literal
    /// `.object(["a": …])` builds the `MustacheObject` directly, in the literal's order, instead of
    /// a hashed dictionary whose keys are then sorted and copied.
    @_disfavoredOverload
    public static func object(_ dictionary: [String: MustacheValue]) -> MustacheValue {
        .object(MustacheObject(dictionary))
    }

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

    /// The member named `key` (hash `MustacheObject.hash(key)`) when this is an object: the
    /// renderer's lookup step, reading the value in place.
    @inlinable
    func member(_ key: String, hash: UInt64) -> MustacheValue? {
        guard case .object(let object) = self else { return nil }
        return object.value(forKey: key, hash: hash)
    }

    /// Where the member named `key` (hash `MustacheObject.hash(key)`) is stored when this is an
    /// object: the address of the value inside this object's storage, read without a copy. Valid
    /// while this value (and so its storage) is alive and not mutated.
    @inlinable
    func memberAddress(_ key: String, hash: UInt64) -> UnsafePointer<MustacheValue>? {
        guard case .object(let object) = self else { return nil }
        return object.valueAddress(forKey: key, hash: hash)
    }

    /// `memberAddress(_:hash:)`, trying the entry at `hint.pointee` first and storing where the
    /// member was found.
    @inlinable
    func memberAddress(_ key: String, hash: UInt64, hint: UnsafeMutablePointer<Int32>) -> UnsafePointer<MustacheValue>? {
        guard case .object(let object) = self else { return nil }
        return object.valueAddress(forKey: key, hash: hash, hint: hint)
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
    /// The UTF-8 of the string stored at `address`, read without a retain: a string of at least
    /// `MemoryLayout<String>.size` bytes as a pointer to its own storage (`stored`), a shorter
    /// one as its bytes in two little-endian words (`short`, zero past `count`). nil for other
    /// values (and for a string without contiguous UTF-8, which the caller copies).
    ///
    /// Why it is safe: a string that long cannot be a small (inline) string, so the buffer
    /// `withContiguousStorageIfAvailable` hands over is the string's own storage (heap or
    /// static), not a temporary copy; that storage lives as long as the string does. The caller
    /// must only use `stored` while the value at `address` is alive and unchanged: in the
    /// renderer, the context the caller of `renderBytes` owns, which outlives the render and is
    /// not mutated during it. A short string's bytes are copied out into the words (by loads
    /// only) before the closure returns.
    ///
    /// Why: binding `case .string(let s)` on a value read through a pointer retains the string
    /// for as long as bytes are appended (the compiler cannot see that the output's writes leave
    /// the value alone); here nothing is written while the string is borrowed, so the copy and
    /// its retain and release go. The list-item views and site strings are read by every core,
    /// and each retain and release moved their cache line from one core to the other.
    @inline(__always)
    static func utf8InPlace(at address: UnsafePointer<MustacheValue>) -> (stored: UnsafeBufferPointer<UInt8>?, short: (UInt64, UInt64), count: Int)? {
        guard case .string(let s) = address.pointee else { return nil }
        return s.utf8.withContiguousStorageIfAvailable { bytes in
            if bytes.count >= MemoryLayout<String>.size { return (bytes, (0, 0), bytes.count) }
            return (nil, MustacheValue.loadShort(bytes), bytes.count)
        }
    }

    /// The 0-15 bytes of `bytes` as two little-endian words (zero past the end), read with loads
    /// that stay inside the bytes (overlapping where the count is not a power of two).
    @inline(__always)
    static func loadShort(_ bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        let n = bytes.count
        guard n > 0, let p = bytes.baseAddress else { return (0, 0) }
        let raw = UnsafeRawPointer(p)
        if n >= 8 {
            let low = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
            // Bytes n-8..<n; byte 8 is at byte position 16-n of that word.
            let high = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self))
            return (low, n == 8 ? 0 : high >> UInt64((16 - n) * 8))
        }
        if n >= 4 {
            let head = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
            let tail = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)))
            return (head | tail << UInt64((n - 4) * 8), 0)
        }
        // 1-3 bytes: the first, the middle and the last (some the same byte).
        let middle = n >> 1
        return (UInt64(p[0]) | UInt64(p[middle]) << UInt64(middle * 8) | UInt64(p[n - 1]) << UInt64((n - 1) * 8), 0)
    }

    /// The items of the list stored at `address`, in the list's own buffer, without a retain;
    /// nil when the value is not a list. An `Array` of values (not of classes) always has native
    /// contiguous storage, so `withUnsafeBufferPointer` hands over that storage, not a temporary
    /// copy; it lives as long as the list does. As for `utf8InPlace(at:)`, the caller uses the
    /// items only while the value at `address` is alive and unchanged (the render's context).
    /// Why: a section over `post.tags` or `posts` bound the array, a retain and a release of a
    /// list the pages of both cores share.
    @inline(__always)
    static func storedElements(at address: UnsafePointer<MustacheValue>) -> UnsafeBufferPointer<MustacheValue>? {
        guard case .array(let items) = address.pointee else { return nil }
        return items.withUnsafeBufferPointer { $0 }
    }
}

extension MustacheValue {
    /// An equal value that shares no storage with this one: strings, lists and objects are copied
    /// into storage of their own, and a lambda is wrapped in a closure of its own. Renderers on
    /// different threads that each read their own copy never update the same reference counts
    /// (reading a shared string retains and releases it, and two cores taking turns at one count
    /// wait for each other's cache line).
    public func unshared() -> MustacheValue {
        switch self {
        case .null, .bool, .int, .double:
            return self
        case .string(let s):
            // A new buffer (`String(s)` would share the old one); small strings have none.
            return .string(String(decoding: Array(s.utf8), as: UTF8.self))
        case .array(let items):
            return .array(items.map { $0.unshared() })
        case .object(let object):
            var copy = MustacheObject()
            copy.entries = object.entries.map { MustacheObject.Entry(hash: $0.hash, key: $0.key, value: $0.value.unshared()) }
            return .object(copy)
        case .lambda(let lambda):
            switch lambda.kind {
            case .interpolation(let body): return .lambda(MustacheLambda { body() })
            case .section(let body): return .lambda(MustacheLambda(section: { body($0) }))
            case .rendered(let body): return .lambda(MustacheLambda(rendered: { body($0) }))
            }
        }
    }

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
        var object = MustacheObject()
        object.reserveCapacity(elements.count)
        for (key, value) in elements { object[key] = value }
        self = .object(object)
    }
}

/// The members of a Mustache object: view models are small objects read by name many times per
/// page, so the keys sit in an array with a 64-bit hash each (computed once; the parser computes
/// the hash of every name in a template once too), and a lookup is a scan of the hashes instead
/// of hashing the name with the dictionary's seeded hash on every lookup.
public struct MustacheObject: Sendable, ExpressibleByDictionaryLiteral {
    @usableFromInline
    struct Entry: Sendable {
        @usableFromInline var hash: UInt64
        @usableFromInline var key: String
        @usableFromInline var value: MustacheValue
    }

    /// One array (one allocation) of members in the order they were first set.
    @usableFromInline var entries: [Entry] = []

    public init() {}

    /// Later duplicate keys win.
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        entries.reserveCapacity(elements.count)
        for (key, value) in elements {
            let hash = MustacheObject.hash(key)
            if let index = index(of: key, hash: hash) {
                entries[index].value = value
            } else {
                entries.append(Entry(hash: hash, key: key, value: value))
            }
        }
    }

    public init(_ dictionary: [String: MustacheValue]) {
        entries.reserveCapacity(dictionary.count)
        // Sorted, so iteration order does not depend on the dictionary's seed.
        for key in dictionary.keys.sorted() { self[key] = dictionary[key] }
    }

    public mutating func reserveCapacity(_ count: Int) {
        entries.reserveCapacity(count)
    }

    /// Sets every member of `other` here (its values win), in `other`'s order, reusing the
    /// hashes it already holds.
    public mutating func merge(_ other: MustacheObject) {
        entries.reserveCapacity(entries.count + other.entries.count)
        for entry in other.entries {
            if let index = index(of: entry.key, hash: entry.hash) {
                entries[index].value = entry.value
            } else {
                entries.append(entry)
            }
        }
    }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// The members in the order they were first set.
    public var members: [(key: String, value: MustacheValue)] {
        entries.map { (key: $0.key, value: $0.value) }
    }

    /// BlogCore's FNV-1a over the key's UTF-8 bytes (read in place, small strings too).
    @inlinable
    public static func hash(_ key: String) -> UInt64 { fnv1a64(key) }

    @inlinable
    func index(of key: String, hash: UInt64) -> Int? {
        entries.withUnsafeBufferPointer { buffer in
            var i = 0
            while i < buffer.count {
                if buffer[i].hash == hash && buffer[i].key == key { return i }
                i += 1
            }
            return nil
        }
    }

    /// The address of the value of the member named `key` (hash `hash`) in this object's
    /// storage: valid while the object is alive and not mutated.
    @inlinable
    func valueAddress(forKey key: String, hash: UInt64) -> UnsafePointer<MustacheValue>? {
        entries.withUnsafeBufferPointer { buffer -> UnsafePointer<MustacheValue>? in
            var i = 0
            while i < buffer.count {
                if buffer[i].hash == hash && buffer[i].key == key {
                    return UnsafeRawPointer(buffer.baseAddress! + i)
                        .advanced(by: MemoryLayout<Entry>.offset(of: \Entry.value)!)
                        .assumingMemoryBound(to: MustacheValue.self)
                }
                i += 1
            }
            return nil
        }
    }

    /// `valueAddress(forKey:hash:)`, checking the entry at index `hint.pointee` first (most
    /// lookups then compare one entry instead of scanning, e.g. the 26 `lang` strings, kept in
    /// a dictionary's order); when the member is found elsewhere, its index is stored in `hint`.
    @inlinable
    func valueAddress(forKey key: String, hash: UInt64, hint: UnsafeMutablePointer<Int32>) -> UnsafePointer<MustacheValue>? {
        entries.withUnsafeBufferPointer { buffer -> UnsafePointer<MustacheValue>? in
            let n = buffer.count
            let guess = Int(hint.pointee)
            var found = -1
            if guess < n && buffer[guess].hash == hash && buffer[guess].key == key {
                found = guess
            } else {
                var i = 0
                while i < n {
                    if buffer[i].hash == hash && buffer[i].key == key { break }
                    i += 1
                }
                if i == n { return nil }
                hint.pointee = Int32(truncatingIfNeeded: i)
                found = i
            }
            return UnsafeRawPointer(buffer.baseAddress! + found)
                .advanced(by: MemoryLayout<Entry>.offset(of: \Entry.value)!)
                .assumingMemoryBound(to: MustacheValue.self)
        }
    }

    /// The member named `key` whose hash is `hash` (`MustacheObject.hash(key)`).
    @inlinable
    public func value(forKey key: String, hash: UInt64) -> MustacheValue? {
        index(of: key, hash: hash).map { entries[$0].value }
    }

    public subscript(key: String) -> MustacheValue? {
        get { value(forKey: key, hash: MustacheObject.hash(key)) }
        set {
            let hash = MustacheObject.hash(key)
            if let index = index(of: key, hash: hash) {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                }
            } else if let newValue {
                entries.append(Entry(hash: hash, key: key, value: newValue))
            }
        }
    }
}

/// A member name with its hash (`MustacheObject.hash`) computed once: view models set the same
/// names on every page, and hashing the name was a large part of setting a member (then a scan
/// for an earlier member of that name).
public struct MustacheKey: Sendable {
    public let name: String
    public let hash: UInt64

    public init(_ name: String) {
        self.name = name
        self.hash = MustacheObject.hash(name)
    }
}

extension MustacheObject {
    /// `self[key.name]`, without hashing the name.
    public subscript(key: MustacheKey) -> MustacheValue? {
        get { value(forKey: key.name, hash: key.hash) }
        set {
            if let index = index(of: key.name, hash: key.hash) {
                if let newValue {
                    entries[index].value = newValue
                } else {
                    entries.remove(at: index)
                }
            } else if let newValue {
                entries.append(Entry(hash: key.hash, key: key.name, value: newValue))
            }
        }
    }

    /// Adds a member the object does not hold yet (checked in debug builds), the same as
    /// `self[key] = value` then, without looking for an earlier one: for objects filled with
    /// fixed, distinct names.
    public mutating func append(new key: MustacheKey, _ value: MustacheValue) {
        assert(index(of: key.name, hash: key.hash) == nil, "duplicate member \(key.name)")
        entries.append(Entry(hash: key.hash, key: key.name, value: value))
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
