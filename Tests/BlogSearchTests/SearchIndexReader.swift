import Foundation
import BlogSearch

/// Reads the index files back the way the page does (a second, independent implementation of
/// docs/search-index.md), so tests check the format rather than the builder's internals.
struct SearchIndexReader {
    struct Posting: Equatable {
        var doc: Int
        var mask: Int
        var textTF: Int
        var residues: Int
    }

    let files: [String: [UInt8]]
    let meta: [String: Any]
    /// (first term, byte size) per shard, in order.
    let shards: [(first: String, bytes: Int)]

    init(_ output: [(path: String, bytes: [UInt8])]) throws {
        var map: [String: [UInt8]] = [:]
        for file in output { map[file.path] = file.bytes }
        files = map
        guard let metaBytes = map["search/meta.json"],
              let meta = try JSONSerialization.jsonObject(with: Data(metaBytes)) as? [String: Any] else {
            throw NSError(domain: "reader", code: 1, userInfo: [NSLocalizedDescriptionKey: "no meta.json"])
        }
        self.meta = meta
        let list = meta["shards"] as? [String] ?? []
        shards = list.enumerated().map { ($0.element, map["search/shards/\($0.offset).json"]?.count ?? -1) }
    }

    var docCount: Int { (meta["docs"] as! NSNumber).intValue }
    var docChunk: Int { (meta["docChunk"] as! NSNumber).intValue }

    static func utf16Less(_ a: String, _ b: String) -> Bool {
        a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Index of the shard whose range holds `term`: the last shard whose first term is ≤ term.
    func shardIndex(for term: String) -> Int? {
        var lo = 0, hi = shards.count - 1, found: Int? = nil
        while lo <= hi {
            let mid = (lo + hi) / 2
            if !SearchIndexReader.utf16Less(term, shards[mid].first) { found = mid; lo = mid + 1 } else { hi = mid - 1 }
        }
        return found
    }

    func shardTerms(_ index: Int) throws -> [(String, String)] {
        let bytes = files["search/shards/\(index).json"]!
        let array = try JSONSerialization.jsonObject(with: Data(bytes)) as! [[String]]
        return array.map { ($0[0], $0[1]) }
    }

    func postings(of term: String) throws -> [Posting]? {
        guard let i = shardIndex(for: term) else { return nil }
        for (t, p) in try shardTerms(i) where t == term { return SearchIndexReader.decode(p) }
        return nil
    }

    static let alphabet: [Character: Int] = {
        var m: [Character: Int] = [:]
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".enumerated() { m[c] = i }
        return m
    }()

    static func decode(_ text: String) -> [Posting] {
        let digits = text.map { alphabet[$0]! }
        var i = 0
        func varint() -> Int {
            var value = 0, shift = 0
            while true {
                let d = digits[i]; i += 1
                value |= (d & 31) << shift
                shift += 5
                if d & 32 == 0 { return value }
            }
        }
        var out: [Posting] = []
        var doc = -1
        while i < digits.count {
            // head = gap·8 + kind; kind 0…5: once in the body at residue `kind`, 6: body only with a
            // count, 7: a full value (docs/search-index.md, format 2).
            let head = varint()
            let kind = head & 7
            doc += (head >> 3) + 1
            let value: Int, residues: Int
            if kind < 6 {
                value = 8; residues = 1 << kind
            } else {
                value = kind == 6 ? (varint() + 1) << 5 | 8 : varint()
                residues = digits[i]; i += 1
            }
            let mask = value & 31
            let tf = (mask & 0b11000) != 0 ? (value >> 5) + 1 : 0
            out.append(Posting(doc: doc, mask: mask, textTF: tf, residues: residues))
        }
        return out
    }

    func documentRecord(_ doc: Int) throws -> [Any] {
        let bytes = files["search/docs-\(doc / docChunk).json"]!
        let array = try JSONSerialization.jsonObject(with: Data(bytes)) as! [[Any]]
        return array[doc % docChunk]
    }
}
