import Dispatch

enum Parallel {
    /// `make(index)` for every index below `count`, on all cores in chunks of `chunk` (a single
    /// chunk runs on the calling thread); `initial` fills the array before the chunks write it.
    static func map<T>(_ count: Int, filling initial: T, chunk: Int = 256, _ make: (Int) -> T) -> [T] {
        var values = [T](repeating: initial, count: count)
        values.withUnsafeMutableBufferPointer { buffer in
            let out = buffer
            func run(_ part: Int) {
                for index in (part * chunk)..<min(count, (part + 1) * chunk) { out[index] = make(index) }
            }
            let parts = (count + chunk - 1) / chunk
            if parts <= 1 {
                if parts == 1 { run(0) }
            } else {
                DispatchQueue.concurrentPerform(iterations: parts, execute: run)
            }
        }
        return values
    }
}
