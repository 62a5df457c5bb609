// The bytes a render writes, before they are handed to the caller's array.

/// A growable byte buffer the renderer appends to: a pointer, a count and a capacity. Appending
/// a run of bytes is a capacity check and a `memcpy`; `Array.append(contentsOf:)` cost about 60
/// instructions per call, and a page makes hundreds of small appends. A plain struct: the owner
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
        (base + count).initialize(from: start, count: n)
        count += n
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
