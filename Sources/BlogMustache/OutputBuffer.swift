// The bytes a render writes, before they are handed to the caller's array.

/// A growable byte buffer the renderer appends to: a pointer, a count and a capacity. Appending
/// a run of bytes is a capacity check and a `memcpy`, since `Array.append(contentsOf:)` is dear
/// per call and a page makes hundreds of small appends. A plain struct: the owner
/// frees it with `deallocate()` (copies alias the same memory).
struct OutputBuffer {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// Whether `base` was allocated here (and is freed by `deallocate()`), or is memory lent by
    /// the caller (an array's uninitialized storage), until the first growth.
    private(set) var ownsMemory: Bool

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        ownsMemory = true
    }

    /// Writes into `storage` (not freed here) until it is full, then into memory of its own.
    init(lending storage: UnsafeMutableBufferPointer<UInt8>) {
        base = storage.baseAddress!
        capacity = storage.count
        ownsMemory = false
    }

    func deallocate() { if ownsMemory { base.deallocate() } }

    /// The bytes written so far (valid until the next append).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: count) }

    @inline(never)
    private mutating func grow(to needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let newBase = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        if ownsMemory { base.deallocate() }
        base = newBase
        capacity = newCapacity
        ownsMemory = true
    }

    @inline(__always)
    mutating func append(_ start: UnsafePointer<UInt8>, count n: Int) {
        if n <= 0 { return }
        if count + n > capacity { grow(to: count + n) }
        if n <= 32 {
            OutputBuffer.copyShort(start, to: base + count, count: n)
        } else {
            (base + count).initialize(from: start, count: n)
        }
        count += n
    }

    /// Copies 1-32 bytes with two loads and two stores that overlap in the middle, without
    /// reading or writing outside the `n` bytes. Most appends are short (the text between two
    /// tags, a date, a URL), and a `memcpy` call for each would cost more than the copy.
    @inline(__always)
    static func copyShort(_ source: UnsafePointer<UInt8>, to target: UnsafeMutablePointer<UInt8>, count n: Int) {
        let from = UnsafeRawPointer(source), to = UnsafeMutableRawPointer(target)
        if n >= 16 {
            let head = from.loadUnaligned(as: SIMD16<UInt8>.self)
            let tail = from.loadUnaligned(fromByteOffset: n - 16, as: SIMD16<UInt8>.self)
            to.storeBytes(of: head, as: SIMD16<UInt8>.self)
            to.storeBytes(of: tail, toByteOffset: n - 16, as: SIMD16<UInt8>.self)
        } else if n >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: n - 8, as: UInt64.self)
        } else if n >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: n - 4, as: UInt32.self)
        } else {
            // 1-3 bytes: the first, the middle and the last (some the same byte).
            target[0] = source[0]
            target[n >> 1] = source[n >> 1]
            target[n - 1] = source[n - 1]
        }
    }

    /// Appends the first `n` (0-15) bytes of `words` (little-endian): one 16-byte store when the
    /// capacity has room for all sixteen (the bytes past `n` land in unused capacity, and the next
    /// append writes over them), a short copy otherwise. For the short strings `{{name}}` reads
    /// as two words (`MustacheValue.utf8InPlace`).
    @inline(__always)
    mutating func appendShort(_ words: (UInt64, UInt64), count n: Int) {
        if count + 16 > capacity {
            appendShortNearEnd(words, count: n)
            return
        }
        let to = UnsafeMutableRawPointer(base + count)
        to.storeBytes(of: words.0.littleEndian, as: UInt64.self)
        to.storeBytes(of: words.1.littleEndian, toByteOffset: 8, as: UInt64.self)
        count += n
    }

    @inline(never)
    private mutating func appendShortNearEnd(_ words: (UInt64, UInt64), count n: Int) {
        var bytes = (words.0.littleEndian, words.1.littleEndian)
        withUnsafeBytes(of: &bytes) { append($0.baseAddress!.assumingMemoryBound(to: UInt8.self), count: n) }
    }

    @inline(__always)
    mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        guard let start = buffer.baseAddress else { return }
        append(start, count: buffer.count)
    }

    @inline(__always)
    mutating func append(contentsOf bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append(contentsOf: $0) }
    }

    mutating func append<S: Sequence>(contentsOf bytes: S) where S.Element == UInt8 {
        for byte in bytes { append(byte) }
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        if count + 1 > capacity { grow(to: count + 1) }
        base[count] = byte
        count += 1
    }
}
