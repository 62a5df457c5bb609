import Dispatch
#if canImport(Glibc)
import Glibc
#endif

/// Runs a handler on a queue (not in a signal handler, so it may lock, allocate and touch files)
/// when the process gets one of `signals`, instead of the default action. `cancel` puts the
/// default action back.
final class SignalTrap {
    private let signals: [Int32]
    private var sources: [DispatchSourceSignal] = []

    init(_ signals: [Int32], queue: DispatchQueue = .global(), handler: @escaping @Sendable (Int32) -> Void) {
        self.signals = signals
        for number in signals {
            // The signal must not kill the process before the dispatch source sees it.
            signal(number, SIG_IGN)
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
