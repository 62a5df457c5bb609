/// A fast, deterministic 64-bit hash of file contents (8 bytes per step, four lanes), used only
/// to version the index files (`?v=` in the page's URLs).
enum FastHash {
    static func hash(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBytes { raw in
            let n = raw.count
            var a: UInt64 = 0x9E37_79B9_7F4A_7C15 ^ UInt64(n), b: UInt64 = 0xC2B2_AE3D_27D4_EB4F
            var c: UInt64 = 0x1656_67B1_9E37_79F9, d: UInt64 = 0x27D4_EB2F_1656_67C5
            var i = 0
            while i + 32 <= n {
                a = (a ^ raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                b = (b ^ raw.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                c = (c ^ raw.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
                d = (d ^ raw.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) &* 0xC4CE_B9FE_1A85_EC53
                a ^= a >> 29; b ^= b >> 31; c ^= c >> 29; d ^= d >> 31
                i += 32
            }
            var h = TermHash.mix(a ^ TermHash.mix(b ^ TermHash.mix(c ^ TermHash.mix(d))))
            while i < n {
                h = (h ^ UInt64(raw[i])) &* 0x100_0000_01B3
                i += 1
            }
            return TermHash.mix(h)
        }
    }

    struct Combiner {
        var value: UInt64 = 0x811C_9DC5
        mutating func add(_ hash: UInt64) { value = TermHash.mix(value ^ hash) }
        var hex: String {
            let s = String(UInt32(truncatingIfNeeded: value ^ (value >> 32)), radix: 16)
            return String(repeating: "0", count: 8 - s.count) + s
        }
    }
}
