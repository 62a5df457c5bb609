import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs a handler on a queue (not in a signal handler, so it may lock, allocate and touch files)
/// when the process gets one of `signals`, instead of the default action. SIGHUP stays ignored
/// when the process was started with it ignored (`nohup`). SIGINT and SIGTERM are always caught:
/// a script's background job starts with SIGINT ignored, and `blog serve` run that way must still
/// stop on it (as the end-to-end tests do). `cancel` puts back what each signal did before.
final class SignalTrap {
    /// The signals caught, each with what it did before.
    private var signals: [(number: Int32, previous: (@convention(c) (Int32) -> Void)?)] = []
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32], queue: DispatchQueue = .global(), handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            // The signal must not kill the process before the dispatch source sees it.
            let previous = signal(number, SIG_IGN)
            if number == SIGHUP && unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            self.signals.append((number, previous))
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        sources = []
        for (number, previous) in signals { signal(number, previous) }
        signals = []
    }

    deinit { cancel() }
}
