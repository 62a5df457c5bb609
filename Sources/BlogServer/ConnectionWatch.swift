import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import BlogCore
import CMicroHTTPD

/// Watches what libmicrohttpd does not: connections that send their request headers too slowly
/// (it times out only silence, so a byte every few seconds held a connection for ever), and
/// live-reload streams whose browser went away (a suspended connection is not polled, so its
/// close went unnoticed until the next keep-alive). One thread polls the streams' sockets and
/// sends the keep-alives; libmicrohttpd's connection notifications keep the books.
final class ConnectionWatch: @unchecked Sendable {
    /// Seconds a connection may take to send a request's headers, counted from when it opened or
    /// finished its last request.
    let headerTimeout: Double
    private let lock = Mutex(())
    /// Connections waiting for request headers: their socket and since when.
    private var waiting: [OpaquePointer: (fd: Int32, since: Double)] = [:]
    private var sockets: [OpaquePointer: Int32] = [:]
    let wake = WakePipe()

    init(headerTimeout: Double) {
        self.headerTimeout = headerTimeout
    }

    // MARK: libmicrohttpd's thread

    func opened(_ connection: OpaquePointer) {
        let fd = Int32(blog_mhd_connection_fd(connection))
        lock.withLock { _ in
            sockets[connection] = fd
            waiting[connection] = (fd, monotonicNow())
        }
    }

    func headersArrived(_ connection: OpaquePointer) {
        _ = lock.withLock { _ in waiting.removeValue(forKey: connection) }
    }

    /// A request ended; a kept-alive connection waits for the next one's headers.
    func requestEnded(_ connection: OpaquePointer) {
        lock.withLock { _ in
            if let fd = sockets[connection] { waiting[connection] = (fd, monotonicNow()) }
        }
    }

    /// libmicrohttpd closes the socket only after this returns, so a socket found in the books
    /// under the lock is still this connection's.
    func closed(_ connection: OpaquePointer) {
        lock.withLock { _ in
            waiting[connection] = nil
            sockets[connection] = nil
        }
    }

    func socket(of connection: OpaquePointer) -> Int32 {
        lock.withLock { _ in sockets[connection] ?? -1 }
    }

    // MARK: the watching thread

    /// Shuts down the sockets of connections past the header deadline; libmicrohttpd then sees
    /// them end and closes them itself.
    func dropSlowHeaders(now: Double) {
        lock.withLock { _ in
            for (connection, entry) in waiting where now - entry.since > headerTimeout {
                shutdown(entry.fd, Int32(SHUT_RDWR))
                waiting[connection] = nil
            }
        }
    }

    /// Runs until `stop` is signalled: ends streams whose socket shows the browser closed it (or
    /// sent anything, which an event stream's browser never does), sends keep-alives every
    /// `keepAlive` seconds, and drops slow headers once a second.
    func run(hub: LiveReloadHub, keepAlive: Double, stop: WakePipe) {
        var nextKeepAlive = monotonicNow() + keepAlive
        while true {
            let streams = hub.sockets()
            var fds = [pollfd(fd: stop.readFD, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.readFD, events: Int16(POLLIN), revents: 0)]
            let closedOrSent = Int16(POLLIN) | 0x2000 // POLLRDHUP: the browser closed its side
            fds += streams.map { pollfd(fd: $0.fd, events: closedOrSent, revents: 0) }
            let now = monotonicNow()
            let timeout = max(0, min(1, nextKeepAlive - now))
            _ = poll(&fds, nfds_t(fds.count), Int32(timeout * 1000))
            if fds[0].revents != 0 { return }
            if fds[1].revents != 0 { wake.drain() }
            for (k, stream) in streams.enumerated() where fds[k + 2].revents != 0 {
                hub.end(stream.client)
            }
            let after = monotonicNow()
            if after >= nextKeepAlive {
                hub.broadcast(": keep-alive\n\n")
                nextKeepAlive = after + keepAlive
            }
            dropSlowHeaders(now: after)
        }
    }
}
