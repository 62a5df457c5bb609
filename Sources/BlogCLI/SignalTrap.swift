import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler on a queue (not in a signal handler, so it may lock, allocate and touch files)
/// when the process gets one of `signals`, instead of the default action. A signal the process
/// was started with ignored (SIGHUP under `nohup`, SIGINT for a background job of a script) stays
/// ignored. `cancel` puts the default action back.
final class SignalTrap {
    private var signals: [Int32] = []
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32], queue: DispatchQueue = .global(), handler: @escaping @Sendable (Int32) -> Void) {
        for number in signals {
            // The signal must not kill the process before the dispatch source sees it.
            let previous = signal(number, SIG_IGN)
            if unsafeBitCast(previous, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) { continue }
            self.signals.append(number)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { handler(number) }
            source.resume()
            sources.append(source)
        }
    }

    func cancel() {
        sources.forEach { $0.cancel() }
        sources = []
        for number in signals { signal(number, SIG_DFL) }
    }

    deinit { cancel() }
}
