import CCmark
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// A per-thread bump allocator for libcmark, so that one `render` call costs a few pointer bumps
// instead of a malloc and a free for every node, literal and buffer cmark makes (glibc's malloc and
// free were about a fifth of the dialect's time in `perf`).
//
// cmark takes its allocator as a `cmark_mem` of three C function pointers without a context, and
// every node remembers the allocator it was made with (its literal, URL and custom strings, and the
// iterators over it, use the same one). So the functions find the calling thread's arena through a
// pthread key, `render` makes every node of a document from it (`newNode`, `parseDocument`), and once
// the HTML, text and links are copied out the whole arena is reset at once: the document tree is
// never walked to be freed. A node-by-node `cmark_node_free` during the transforms costs nothing (the
// last allocation is even given back). A `render` nested inside another on the same thread (none
// today) uses cmark's default allocator and frees its tree the usual way.

/// The state of one thread's arena, in memory of its own (no reference counting on the hot path).
private struct ArenaState {
    /// The chunk kept between documents and its size.
    var first: UnsafeMutableRawPointer
    var firstSize: Int
    /// Chunks added while this document ran out of room, as a list linked through their first word.
    var extra: UnsafeMutableRawPointer?
    var extraBytes: Int
    /// The free room of the current chunk.
    var cursor: UnsafeMutableRawPointer
    var end: UnsafeMutableRawPointer
    /// The newest allocation (what `realloc` can grow in place and `free` can give back).
    var last: UnsafeMutableRawPointer?
    /// Renders in progress on this thread (only the outermost uses the arena).
    var depth: Int
    /// The allocator new nodes get now: the arena inside the outermost render, else nil (cmark's own).
    var active: UnsafeMutablePointer<cmark_mem>?
    /// This thread's arena allocator: its slot's (see `slotMems`), or `arenaMem`.
    var mem: UnsafeMutablePointer<cmark_mem>
    /// The slot this state holds, or -1.
    var slot: Int
}

/// Every block has a 16-byte header holding its usable size and its arena (so `realloc` and `free`
/// need no thread-local lookup); blocks and sizes are 16-aligned.
private let headerSize = 16
private let initialChunk = 256 << 10
/// The kept chunk grows to what the largest document needed, up to this.
private let maximumKeptChunk = 16 << 20

@inline(__always) private func roundUp(_ n: Int) -> Int { (n + 15) & ~15 }

/// Frees a thread's arena when the thread ends.
private func destroyState(_ raw: UnsafeMutableRawPointer?) {
    guard let raw else { return }
    let state = raw.assumingMemoryBound(to: ArenaState.self)
    releaseSlot(state.pointee.slot)
    var chunk = state.pointee.extra
    while let c = chunk { chunk = c.load(as: UnsafeMutableRawPointer?.self); free(c) }
    free(state.pointee.first)
    state.deinitialize(count: 1)
    state.deallocate()
}

// The thread's state sits behind a pthread key. The key and its once-token are plain integers with
// constant initial values, so reading them costs no lazy-global check (a `let` initialised by a
// closure would call `swift_once` on every allocation); `CmarkArena.begin` creates the key.
@exclusivity(unchecked) nonisolated(unsafe) private var arenaKey: pthread_key_t = 0
@exclusivity(unchecked) nonisolated(unsafe) private var arenaKeyOnce: pthread_once_t = 0

private func createArenaKey() {
    precondition(pthread_key_create(&arenaKey, destroyState) == 0, "pthread_key_create failed")
}

@inline(__always) private func currentState() -> UnsafeMutablePointer<ArenaState> {
    if let raw = pthread_getspecific(arenaKey) { return raw.assumingMemoryBound(to: ArenaState.self) }
    return makeState()
}

@inline(never) private func makeState() -> UnsafeMutablePointer<ArenaState> {
    guard let first = malloc(initialChunk) else { fatalError("out of memory") }
    let state = UnsafeMutablePointer<ArenaState>.allocate(capacity: 1)
    state.initialize(to: ArenaState(first: first, firstSize: initialChunk, extra: nil, extraBytes: 0,
                                    cursor: first, end: first + initialChunk, last: nil, depth: 0, active: nil,
                                    mem: arenaMem, slot: -1))
    claimSlot(state)
    pthread_setspecific(arenaKey, state)
    return state
}

// cmark's allocator functions take no context, so `arenaCalloc` and a `realloc` of nothing find the
// thread's arena through the pthread key: about twenty instructions for each of the ~500 allocations
// of a document. The first threads to render instead get one of a few slots, each with allocator
// functions of its own that read the slot's state from a global (the same for the thread's life:
// the thread writes it before its first document and clears it when it ends). Threads beyond the
// slots use `arenaMem` and the key.
private let slotCount = 4
@exclusivity(unchecked) nonisolated(unsafe) private var slotState0: UnsafeMutablePointer<ArenaState>? = nil
@exclusivity(unchecked) nonisolated(unsafe) private var slotState1: UnsafeMutablePointer<ArenaState>? = nil
@exclusivity(unchecked) nonisolated(unsafe) private var slotState2: UnsafeMutablePointer<ArenaState>? = nil
@exclusivity(unchecked) nonisolated(unsafe) private var slotState3: UnsafeMutablePointer<ArenaState>? = nil

private func slotCalloc0(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? { zeroedBlock(slotState0.unsafelyUnwrapped, count, size) }
private func slotCalloc1(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? { zeroedBlock(slotState1.unsafelyUnwrapped, count, size) }
private func slotCalloc2(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? { zeroedBlock(slotState2.unsafelyUnwrapped, count, size) }
private func slotCalloc3(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? { zeroedBlock(slotState3.unsafelyUnwrapped, count, size) }
private func slotRealloc0(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? { resized(old, size) { slotState0.unsafelyUnwrapped } }
private func slotRealloc1(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? { resized(old, size) { slotState1.unsafelyUnwrapped } }
private func slotRealloc2(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? { resized(old, size) { slotState2.unsafelyUnwrapped } }
private func slotRealloc3(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? { resized(old, size) { slotState3.unsafelyUnwrapped } }

/// The slots' allocators (stable addresses for the life of the process).
nonisolated(unsafe) private let slotMems: [UnsafeMutablePointer<cmark_mem>] = {
    let functions: [(@convention(c) (Int, Int) -> UnsafeMutableRawPointer?, @convention(c) (UnsafeMutableRawPointer?, Int) -> UnsafeMutableRawPointer?)] =
        [(slotCalloc0, slotRealloc0), (slotCalloc1, slotRealloc1), (slotCalloc2, slotRealloc2), (slotCalloc3, slotRealloc3)]
    return functions.map { f in
        let mem = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
        mem.initialize(to: cmark_mem(calloc: f.0, realloc: f.1, free: arenaFree))
        return mem
    }
}()

/// Guards which slots are taken (only when a thread's state is made or destroyed).
nonisolated(unsafe) private let slotMutex: UnsafeMutablePointer<pthread_mutex_t> = {
    let m = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    m.initialize(to: pthread_mutex_t())
    pthread_mutex_init(m, nil)
    return m
}()

private func claimSlot(_ state: UnsafeMutablePointer<ArenaState>) {
    pthread_mutex_lock(slotMutex)
    defer { pthread_mutex_unlock(slotMutex) }
    let slot: Int
    if slotState0 == nil { slotState0 = state; slot = 0 }
    else if slotState1 == nil { slotState1 = state; slot = 1 }
    else if slotState2 == nil { slotState2 = state; slot = 2 }
    else if slotState3 == nil { slotState3 = state; slot = 3 }
    else { return }
    state.pointee.slot = slot
    state.pointee.mem = slotMems[slot]
}

private func releaseSlot(_ slot: Int) {
    guard slot >= 0 else { return }
    pthread_mutex_lock(slotMutex)
    defer { pthread_mutex_unlock(slotMutex) }
    switch slot {
    case 0: slotState0 = nil
    case 1: slotState1 = nil
    case 2: slotState2 = nil
    default: slotState3 = nil
    }
}

// The allocation functions' common paths make no call but tail calls (the rare new chunk, moved
// block and memset-zeroed block are functions of their own), so they need no saved registers and no
// stack frame of their own: that was a third of their instructions.

@inline(__always) private func arenaAllocate(_ state: UnsafeMutablePointer<ArenaState>, _ size: Int) -> UnsafeMutableRawPointer {
    let usable = roundUp(max(size, 1))
    let header = state.pointee.cursor
    guard state.pointee.end - header >= usable + headerSize else { return allocateInNewChunk(state, usable) }
    return place(state, header, usable)
}

/// A block of `usable` bytes whose header starts at `header` (room checked by the caller).
@inline(__always) private func place(_ state: UnsafeMutablePointer<ArenaState>, _ header: UnsafeMutableRawPointer,
                                     _ usable: Int) -> UnsafeMutableRawPointer {
    header.storeBytes(of: usable, as: Int.self)
    header.storeBytes(of: state, toByteOffset: 8, as: UnsafeMutablePointer<ArenaState>.self)
    let block = header + headerSize
    state.pointee.cursor = block + usable
    state.pointee.last = block
    return block
}

@inline(never) private func allocateInNewChunk(_ state: UnsafeMutablePointer<ArenaState>, _ usable: Int) -> UnsafeMutableRawPointer {
    addChunk(state, usable + headerSize)
    return place(state, state.pointee.cursor, usable)
}

/// `realloc` of a block that cannot grow in place: a new block with the old bytes.
@inline(never) private func moved(_ state: UnsafeMutablePointer<ArenaState>, _ old: UnsafeMutableRawPointer,
                                  _ oldSize: Int, _ usable: Int) -> UnsafeMutableRawPointer? {
    memcpy(arenaAllocate(state, usable), old, oldSize)
}

/// A chunk of its own for a block of `need` bytes and what follows; its first 16 bytes link it into
/// `extra`. (Out of line: the allocation functions' common path then needs no stack frame.)
@inline(never) private func addChunk(_ state: UnsafeMutablePointer<ArenaState>, _ need: Int) {
    let chunkSize = max(initialChunk, need + headerSize)
    guard let chunk = malloc(chunkSize) else { fatalError("out of memory") }
    chunk.storeBytes(of: state.pointee.extra, as: UnsafeMutableRawPointer?.self)
    state.pointee.extra = chunk
    state.pointee.extraBytes += chunkSize
    state.pointee.cursor = chunk + headerSize
    state.pointee.end = chunk + chunkSize
}

@inline(__always) private func blockSize(_ block: UnsafeMutableRawPointer) -> Int {
    (block - headerSize).load(as: Int.self)
}

private func arenaCalloc(_ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    zeroedBlock(currentState(), count, size)
}

@inline(__always) private func zeroedBlock(_ state: UnsafeMutablePointer<ArenaState>, _ count: Int, _ size: Int) -> UnsafeMutableRawPointer? {
    let (bytes, overflow) = count.multipliedReportingOverflow(by: size)
    guard !overflow else { fatalError("cmark asked for an impossible allocation") }
    let usable = roundUp(max(bytes, 1))
    let header = state.pointee.cursor
    // Blocks of up to 128 bytes (cmark's nodes are 104) are zeroed by eight 16-byte stores rather
    // than a call to memset, when the chunk has room for all of them: stores past the block fall in
    // the chunk's free room, which holds nothing.
    if bytes <= smallZeroed && state.pointee.end - header >= headerSize + smallZeroed {
        let block = place(state, header, usable)
        let zero = SIMD2<UInt64>()
        for k in stride(from: 0, to: smallZeroed, by: 16) { block.storeBytes(of: zero, toByteOffset: k, as: SIMD2<UInt64>.self) }
        return block
    }
    return zeroedLarge(state, usable, bytes)
}

/// `zeroedBlock` of more than `smallZeroed` bytes, or when the chunk is nearly full: zeroed by memset.
@inline(never) private func zeroedLarge(_ state: UnsafeMutablePointer<ArenaState>, _ usable: Int, _ bytes: Int) -> UnsafeMutableRawPointer? {
    let header = state.pointee.cursor
    let block = state.pointee.end - header >= usable + headerSize ? place(state, header, usable) : allocateInNewChunk(state, usable)
    return memset(block, 0, bytes)
}

private let smallZeroed = 128

private func arenaRealloc(_ old: UnsafeMutableRawPointer?, _ size: Int) -> UnsafeMutableRawPointer? {
    resized(old, size) { currentState() }
}

/// `realloc` on the arena; `threadState` gives the thread's arena for a new block.
@inline(__always) private func resized(_ old: UnsafeMutableRawPointer?, _ size: Int,
                                       _ threadState: () -> UnsafeMutablePointer<ArenaState>) -> UnsafeMutableRawPointer? {
    guard let old else { return arenaAllocate(threadState(), size) }
    let state = (old - headerSize).load(fromByteOffset: 8, as: UnsafeMutablePointer<ArenaState>.self)
    let oldSize = blockSize(old)
    if size <= oldSize { return old }
    let usable = roundUp(size)
    // The newest block grows in place while its chunk has room (cmark's growing buffers).
    guard old == state.pointee.last, state.pointee.end - old >= usable else { return moved(state, old, oldSize, usable) }
    (old - headerSize).storeBytes(of: usable, as: Int.self)
    state.pointee.cursor = old + usable
    return old
}

private func arenaFree(_ block: UnsafeMutableRawPointer?) {
    guard let block else { return }
    let state = (block - headerSize).load(fromByteOffset: 8, as: UnsafeMutablePointer<ArenaState>.self)
    if block == state.pointee.last {
        state.pointee.cursor = block - headerSize
        state.pointee.last = nil
    }
}

/// The allocator handed to cmark (a stable address for the life of the process).
nonisolated(unsafe) private let arenaMem: UnsafeMutablePointer<cmark_mem> = {
    let mem = UnsafeMutablePointer<cmark_mem>.allocate(capacity: 1)
    mem.initialize(to: cmark_mem(calloc: arenaCalloc, realloc: arenaRealloc, free: arenaFree))
    return mem
}()

/// The allocator of the document being rendered on this thread (set by `CmarkArena.begin`).
enum CmarkArena {
    /// Starts a document on this thread (its nodes get their allocator from `current`). Returns
    /// whether that is the arena (then `end` frees the whole tree; else the caller frees it with
    /// `cmark_node_free`).
    static func begin() -> Bool {
        // the key exists before anything reads it (cmark calls the allocator only inside a render)
        pthread_once(&arenaKeyOnce, createArenaKey)
        let state = currentState()
        state.pointee.depth += 1
        state.pointee.active = state.pointee.depth == 1 ? state.pointee.mem : nil
        return state.pointee.depth == 1
    }

    /// Ends the document `begin` started: every block of the arena is given back at once. No node,
    /// literal or iterator of that document may be used after this.
    static func end() {
        let state = currentState()
        state.pointee.depth -= 1
        state.pointee.active = state.pointee.depth == 1 ? state.pointee.mem : nil
        guard state.pointee.depth == 0 else { return }
        var chunk = state.pointee.extra
        while let c = chunk { chunk = c.load(as: UnsafeMutableRawPointer?.self); free(c) }
        if state.pointee.extraBytes > 0 && state.pointee.firstSize < maximumKeptChunk {
            // This document needed more: keep one chunk as large as what it used, for the next ones.
            let size = min(maximumKeptChunk, state.pointee.firstSize + state.pointee.extraBytes)
            free(state.pointee.first)
            guard let first = malloc(size) else { fatalError("out of memory") }
            state.pointee.first = first
            state.pointee.firstSize = size
        }
        state.pointee.extra = nil
        state.pointee.extraBytes = 0
        state.pointee.cursor = state.pointee.first
        state.pointee.end = state.pointee.first + state.pointee.firstSize
        state.pointee.last = nil
    }

    /// The allocator for nodes made now on this thread: the arena while a document renders.
    @inline(__always) static var current: UnsafeMutablePointer<cmark_mem> {
        pthread_once(&arenaKeyOnce, createArenaKey)
        return currentState().pointee.active ?? cmark_get_default_mem_allocator()
    }
}

/// A new node from the allocator of the document being rendered on this thread.
@inline(__always) func newNode(_ type: cmark_node_type) -> Node {
    guard let node = cmark_node_new_with_mem(type, CmarkArena.current) else { fatalError("cmark_node_new failed") }
    return node
}

/// Parses `bytes` with the allocator of the document being rendered on this thread.
func parseDocument(_ bytes: UnsafeBufferPointer<UInt8>, options: Int32) -> Node? {
    guard let parser = cmark_parser_new_with_mem(options, CmarkArena.current) else { return nil }
    defer { cmark_parser_free(parser) }
    if let base = bytes.baseAddress, bytes.count > 0 {
        base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { cmark_parser_feed(parser, $0, bytes.count) }
    }
    return cmark_parser_finish(parser)
}
