/// A key given twice in one mapping: YAML says keys are unique, libyaml keeps both, and a reader
/// that takes the first (or the last) silently drops the other.
public struct YAMLDuplicateKey: Sendable, Equatable {
    public var key: String
    /// Where the key first appears, and where it appears again.
    public var first: (line: Int, column: Int)
    public var again: (line: Int, column: Int)

    public static func == (a: YAMLDuplicateKey, b: YAMLDuplicateKey) -> Bool {
        a.key == b.key && a.first == b.first && a.again == b.again
    }
}

extension YAMLValue {
    /// Every key that appears a second (third…) time in a mapping of this value, at any depth,
    /// in document order.
    public var duplicateKeys: [YAMLDuplicateKey] {
        var found: [YAMLDuplicateKey] = []
        collectDuplicates(into: &found)
        return found
    }

    private func collectDuplicates(into found: inout [YAMLDuplicateKey]) {
        switch kind {
        case .mapping(let pairs):
            var firstOf: [String: YAMLValue] = [:]
            for (index, pair) in pairs.enumerated() {
                if let key = pair.key.scalar {
                    // Front matter has a handful of keys: comparing with the ones before costs less
                    // than hashing; a long mapping is hashed.
                    let earlier = pairs.count <= 16 ? pairs[..<index].first(where: { $0.key.scalar == key })?.key : firstOf[key]
                    if let earlier {
                        found.append(YAMLDuplicateKey(key: key, first: (earlier.line, earlier.column),
                                                      again: (pair.key.line, pair.key.column)))
                    } else if pairs.count > 16 {
                        firstOf[key] = pair.key
                    }
                }
                pair.value.collectDuplicates(into: &found)
            }
        case .sequence(let items):
            for item in items { item.collectDuplicates(into: &found) }
        default:
            break
        }
    }
}
