import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import BlogCore
import CMicroHTTPD

/// The live preview HTTP server: serves the `SiteStore`'s current snapshot from memory on
/// libmicrohttpd's own thread (epoll), and streams live-reload events.
public final class PreviewServer: @unchecked Sendable {
    public let options: ServerOptions
    /// The port actually bound (useful with `port: 0`).
    public let port: Int
    /// `http://127.0.0.1:8080/` (with the base path).
    public let url: String

    private let store: SiteStore
    private let console: Console?
    private let lock = Mutex(())
    private var socket: ListenSocket?
    private var daemon: OpaquePointer?
    private var core: ServerCore?
    private var coreRef: Unmanaged<ServerCore>?
    private var observerToken: Int?
    private var watchThread: NativeThread?
    private let watchStop = WakePipe()

    /// Binds the listening socket right away, so a taken port fails here with
    /// `ServerError("port 8080 is already in use (try --port N)")`. Call `start()` to serve.
    public init(options: ServerOptions = ServerOptions(), store: SiteStore, console: Console? = nil) throws {
        var basePath = options.basePath
        if !basePath.hasPrefix("/") { basePath = "/" + basePath }
        if !basePath.hasSuffix("/") { basePath += "/" }
        var normalized = options
        normalized.basePath = basePath
        self.options = normalized
        self.store = store
        self.console = console
        let socket = try ListenSocket.open(bind: options.bind, port: options.port)
        self.socket = socket
        self.port = socket.port
        let displayHost = socket.isWildcard ? (socket.isIPv6 ? "[::1]" : "127.0.0.1") : socket.hostForURL
        self.url = "http://\(displayHost):\(socket.port)\(basePath)"
        if !socket.isLoopback {
            console?.report(.warning("the preview server listens on \(socket.hostForURL):\(socket.port), "
                + "which other machines can reach; use --bind 127.0.0.1 to keep it private"))
        }
    }

    deinit {
        stop()
        if let socket, daemon == nil { close(socket.fd) }
    }

    /// Starts libmicrohttpd's thread. Throws `ServerError` when libmicrohttpd refuses to start.
    public func start() throws {
        try lock.withLock { _ in
            guard daemon == nil else { return }
            guard let socket else { throw ServerError("the server was stopped; create a new one") }
            var hosts = options.allowedHosts
            if !socket.isWildcard {
                hosts.append(socket.hostForURL)
            } else {
                hosts += localInterfaceAddresses()
            }
            let core = ServerCore(options: options, store: store, hosts: HostAllowlist(extra: hosts))
            let ref = Unmanaged.passRetained(core)

            // epoll exists only on Linux; elsewhere libmicrohttpd picks what the system has.
            #if os(Linux) && !BLOG_PORTABLE
            let polling = MHD_USE_EPOLL.rawValue
            #else
            let polling = MHD_USE_AUTO.rawValue
            #endif
            var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | polling | MHD_ALLOW_SUSPEND_RESUME.rawValue
            if socket.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            let unescape: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer?, UnsafeMutablePointer<CChar>?) -> Int = { _, _, text in
                // Keep the path raw: ServerCore decodes it exactly once, with its own rules.
                guard let text else { return 0 }
                return strlen(text)
            }
            var arguments: [CVarArg] = [
                MHD_OPTION.LISTEN_SOCKET.rawValue, socket.fd,
                MHD_OPTION.CONNECTION_TIMEOUT.rawValue, UInt32(max(0, options.connectionTimeout)),
                MHD_OPTION.UNESCAPE_CALLBACK.rawValue, unsafeBitCast(unescape, to: Int.self), Int(0),
            ]
            if options.connectionLimit > 0 {
                arguments += [MHD_OPTION.CONNECTION_LIMIT.rawValue, UInt32(options.connectionLimit)]
            }
            if options.perIPLimit > 0 {
                arguments += [MHD_OPTION.PER_IP_CONNECTION_LIMIT.rawValue, UInt32(options.perIPLimit)]
            }
            let notifyConnection: MHD_NotifyConnectionCallback = { cls, connection, _, toe in
                guard let cls, let connection else { return }
                let watch = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().watch
                // MHD_CONNECTION_NOTIFY_STARTED is 0, CLOSED 1
                if toe.rawValue == 0 { watch.opened(connection) } else { watch.closed(connection) }
            }
            let requestEnded: MHD_RequestCompletedCallback = { cls, connection, _, _ in
                guard let cls, let connection else { return }
                Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().watch.requestEnded(connection)
            }
            // The request target as libmicrohttpd found it in the request line, before it splits the
            // query: a C string, so a raw NUL would cut the path short and serve what precedes it.
            typealias URILog = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer?
            let uriLog: URILog = { _, uri, _ in
                guard let uri else { return nil }
                return requestTargetIsCut(uri) ? ServerCore.badRequestLine : nil
            }
            arguments += [MHD_OPTION.URI_LOG_CALLBACK.rawValue, unsafeBitCast(uriLog, to: Int.self), Int(0)]
            let coreAddress = Int(bitPattern: ref.toOpaque())
            arguments += [MHD_OPTION.NOTIFY_CONNECTION.rawValue, unsafeBitCast(notifyConnection, to: Int.self), coreAddress,
                          MHD_OPTION.NOTIFY_COMPLETED.rawValue, unsafeBitCast(requestEnded, to: Int.self), coreAddress]
            arguments.append(MHD_OPTION.END.rawValue)

            let started: OpaquePointer? = withVaList(arguments) { list in
                MHD_start_daemon_va(flags, 0, nil, nil, { cls, connection, url, method, _, _, uploadSize, requestState in
                    guard let cls, let connection else { return .NO }
                    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                    return core.handle(connection, url: url, method: method, uploadSize: uploadSize, state: requestState)
                }, ref.toOpaque(), list)
            }
            guard let started else {
                ref.release()
                throw ServerError("could not start the HTTP server on \(socket.hostForURL):\(socket.port)")
            }
            daemon = started
            self.core = core
            coreRef = ref
            observerToken = store.addObserver { [weak core] event in core?.storeChanged(event) }
            let interval = max(0.05, options.keepAliveInterval)
            let stop = watchStop
            let watch = core.watch
            core.hub.registered = { [weak watch] in watch?.wake.signal() }
            watchThread = NativeThread { [hub = core.hub] in
                watch.run(hub: hub, keepAlive: interval, stop: stop)
            }
        }
    }

    /// Ends live-reload streams, stops libmicrohttpd (closing the socket) and waits for its thread.
    /// Safe to call more than once, and from any thread.
    public func stop() {
        lock.withLock { _ in
            if let token = observerToken { store.removeObserver(token); observerToken = nil }
            if let thread = watchThread {
                watchStop.signal()
                thread.join()
                watchThread = nil
            }
            guard let daemon else { return }
            core?.hub.closeAll()
            MHD_stop_daemon(daemon) // also closes the listening socket we handed over
            self.daemon = nil
            socket = nil
            coreRef?.release()
            coreRef = nil
            core = nil
        }
    }

    /// Number of open live-reload streams (for tests and status output).
    public var liveReloadClientCount: Int { lock.withLock { _ in core?.hub.count ?? 0 } }
}

/// One prepared file of a snapshot: a reusable libmicrohttpd response with its headers.
final class PreparedFile {
    let response: OpaquePointer
    let etag: String
    let contentType: String

    init?(bytes: [UInt8], contentType: String) {
        let buffer = malloc(max(1, bytes.count))!
        let etag = bytes.withUnsafeBytes { raw -> String in
            if let base = raw.baseAddress { buffer.copyMemory(from: base, byteCount: raw.count) }
            return strongETag(raw)
        }
        guard let response = MHD_create_response_from_buffer(bytes.count, buffer, .RESPMEM_MUST_FREE) else {
            free(buffer)
            return nil
        }
        self.response = response
        self.etag = etag
        self.contentType = contentType
        MHD_add_response_header(response, "Content-Type", contentType)
        MHD_add_response_header(response, "ETag", etag)
        addCommonHeaders(response)
    }

    deinit {
        MHD_destroy_response(response) // libmicrohttpd frees it after the last connection using it
    }
}

func addCommonHeaders(_ response: OpaquePointer) {
    MHD_add_response_header(response, "Cache-Control", "no-cache")
    MHD_add_response_header(response, "X-Content-Type-Options", "nosniff")
}

/// A snapshot plus lazily prepared responses.
final class PreparedSite {
    let snapshot: SiteSnapshot
    let injectLiveReload: Bool
    private let lock = Mutex(())
    private var cache: [String: PreparedFile] = [:]

    init(snapshot: SiteSnapshot, injectLiveReload: Bool) {
        self.snapshot = snapshot
        self.injectLiveReload = injectLiveReload
    }

    func has(_ path: String) -> Bool { snapshot.files[path] != nil }

    func file(_ path: String) -> PreparedFile? {
        lock.withLock { _ in
            if let hit = cache[path] { return hit }
            guard let bytes = snapshot.files[path] else { return nil }
            let type = contentType(forPath: path)
            let body = injectLiveReload && type.hasPrefix("text/html") ? BlogServer.injectLiveReload(into: bytes) : bytes
            let prepared = PreparedFile(bytes: body, contentType: type)
            cache[path] = prepared
            return prepared
        }
    }
}

/// Everything libmicrohttpd's thread needs; the daemon holds it retained until stop.
final class ServerCore {
    let options: ServerOptions
    let store: SiteStore
    let hosts: HostAllowlist
    let baseSegments: [String]
    /// The request state of a request line holding a NUL (answered 400).
    static let badRequestLine = UnsafeMutableRawPointer(bitPattern: 2)
    let hub: LiveReloadHub
    let watch: ConnectionWatch
    private let lock = Mutex(())
    private var site: PreparedSite
    private let scriptFile: PreparedFile?

    init(options: ServerOptions, store: SiteStore, hosts: HostAllowlist) {
        self.options = options
        self.store = store
        self.hosts = hosts
        hub = LiveReloadHub(limit: options.liveReloadLimit)
        watch = ConnectionWatch(headerTimeout: options.headerTimeout)
        baseSegments = options.basePath.split(separator: "/").map(String.init)
        site = PreparedSite(snapshot: store.snapshot, injectLiveReload: options.liveReload)
        scriptFile = PreparedFile(bytes: Array(liveReloadScript.utf8), contentType: "text/javascript; charset=utf-8")
    }

    private var currentSite: PreparedSite {
        let latest = store.snapshot
        return lock.withLock { _ in
            if site.snapshot.generation != latest.generation {
                site = PreparedSite(snapshot: latest, injectLiveReload: options.liveReload)
            }
            return site
        }
    }

    /// Store observer: runs after the new snapshot is visible, so a reloading page gets new content.
    func storeChanged(_ event: SiteStoreEvent) {
        guard options.liveReload else { return }
        switch event {
        case let .published(generation, changedPaths):
            let prefix = options.basePath
            let truncated = changedPaths.count > 500
            let data = JSON.object { json in
                json.field("generation", generation)
                json.field("paths", strings: truncated ? [] : changedPaths.map { prefix + $0 })
                if truncated { json.key("truncated"); json.bool(true) }
            }
            hub.broadcast(sseEvent("reload", data: data))
        case let .errorsChanged(lines):
            hub.broadcast(errorStateEvent(lines))
        }
    }

    // MARK: request handling (libmicrohttpd's thread)

    /// libmicrohttpd calls this at least twice per request: once when the headers are in, then
    /// with any body data, then once more with none. Answering on the first call makes it close the
    /// connection, so good requests are answered on the last call (keep-alive works) while refused
    /// ones (bad Host, other methods) are answered at once and the connection is closed.
    func handle(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method rawMethod: UnsafePointer<CChar>?,
                uploadSize: UnsafeMutablePointer<Int>?, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) -> MHD_Result {
        let method = rawMethod.map { String(cString: $0) } ?? ""
        if state?.pointee == ServerCore.badRequestLine || (state?.pointee == nil && methodIsCut(rawMethod, url)) {
            state?.pointee = nil
            return sendText(connection, 400, "400 Bad Request\n")
        }
        let firstCall = state?.pointee == nil
        if firstCall {
            watch.headersArrived(connection)
            guard hosts.allows(header(connection, "Host")) else {
                return sendText(connection, 403, "403 Forbidden: this preview server only answers to localhost\n")
            }
            guard method == "GET" || method == "HEAD" else {
                return sendText(connection, 405, "405 Method Not Allowed\n", headers: [("Allow", "GET, HEAD")])
            }
            state?.pointee = UnsafeMutableRawPointer(bitPattern: 1)
            return .YES
        }
        if let uploadSize, uploadSize.pointee != 0 {
            uploadSize.pointee = 0 // a GET with a body: ignore the body
            return .YES
        }
        let raw: [UInt8] = url.map { pointer in
            Array(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
        } ?? []
        let path: RequestPath
        do {
            path = try RequestPath.parse(raw)
        } catch RequestPath.Rejection.notFound {
            return sendNotFound(connection, currentSite)
        } catch {
            return sendText(connection, 400, "400 Bad Request\n")
        }

        if options.liveReload, path.segments.first == "__blog" {
            return handleLiveReload(connection, path: path, isHead: method == "HEAD")
        }

        let site = currentSite
        guard path.segments.starts(with: baseSegments) else {
            if path.segments.isEmpty { return redirect(connection, to: options.basePath, status: 302) }
            return sendNotFound(connection, site)
        }
        let rest = path.segments.dropFirst(baseSegments.count)
        if rest.isEmpty && !path.trailingSlash {
            return redirect(connection, to: options.basePath, status: 301)
        }
        var key = rest.joined(separator: "/")
        if path.trailingSlash { key = key.isEmpty ? "index.html" : key + "/index.html" }
        if let file = site.file(key) {
            if let condition = header(connection, "If-None-Match"), ifNoneMatchMatches(condition, etag: file.etag) {
                return sendNotModified(connection, file)
            }
            return MHD_queue_response(connection, 200, file.response)
        }
        if !path.trailingSlash, site.has(key + "/index.html") {
            let location = "/" + path.segments.map(percentEncodeSegment).joined(separator: "/") + "/"
            return redirect(connection, to: location, status: 301)
        }
        return sendNotFound(connection, site)
    }

    private func handleLiveReload(_ connection: OpaquePointer, path: RequestPath, isHead: Bool) -> MHD_Result {
        switch path.segments.count == 2 && !path.trailingSlash ? path.segments[1] : "" {
        case "livereload.js":
            guard let scriptFile else { return sendText(connection, 500, "500 Internal Server Error\n") }
            return MHD_queue_response(connection, 200, scriptFile.response)
        case "status":
            let body = JSON.object { json in
                json.field("generation", store.generation)
                json.field("errors", strings: store.errors)
            } + "\n"
            return send(connection, 200, Array(body.utf8), contentType: "application/json; charset=utf-8")
        case "events":
            let streamHeaders = [("X-Accel-Buffering", "no")]
            if isHead {
                return send(connection, 200, [], contentType: "text/event-stream; charset=utf-8", headers: streamHeaders)
            }
            let initial = "retry: 1000\n\n" + errorStateEvent(store.errors)
            let client = SSEClient(connection: connection, fd: watch.socket(of: connection), hub: hub, initial: Array(initial.utf8))
            guard hub.register(client) else { return sendText(connection, 503, "503 Service Unavailable\n") }
            let reader: MHD_ContentReaderCallback = { cls, _, buffer, max in
                guard let cls, let buffer else { return -2 }
                return Unmanaged<SSEClient>.fromOpaque(cls).takeUnretainedValue().read(into: buffer, max: max)
            }
            let release: MHD_ContentReaderFreeCallback = { cls in
                guard let cls else { return }
                let client = Unmanaged<SSEClient>.fromOpaque(cls).takeRetainedValue()
                client.hub.unregister(client)
            }
            let ref = Unmanaged.passRetained(client)
            guard let response = MHD_create_response_from_callback(UInt64.max, 4096, reader, ref.toOpaque(), release) else {
                ref.release()
                hub.unregister(client)
                return sendText(connection, 500, "500 Internal Server Error\n")
            }
            MHD_add_response_header(response, "Content-Type", "text/event-stream; charset=utf-8")
            MHD_add_response_header(response, "X-Accel-Buffering", "no")
            addCommonHeaders(response)
            let result = MHD_queue_response(connection, 200, response)
            MHD_destroy_response(response)
            return result
        default:
            return sendNotFound(connection, currentSite)
        }
    }

    private func sendNotFound(_ connection: OpaquePointer, _ site: PreparedSite) -> MHD_Result {
        if let page = site.file("404.html") {
            return MHD_queue_response(connection, 404, page.response)
        }
        if options.liveReload && site.snapshot.files.isEmpty {
            // Nothing built yet (or the first build failed): a page that shows errors and reloads.
            let html = "<!doctype html><html><head><meta charset=\"utf-8\"><title>Waiting for a build</title></head>"
                + "<body><p>404 Not Found — waiting for a successful build.</p>\(liveReloadScriptTag)</body></html>\n"
            return send(connection, 404, Array(html.utf8), contentType: "text/html; charset=utf-8")
        }
        return sendText(connection, 404, "404 Not Found\n")
    }

    private func sendNotModified(_ connection: OpaquePointer, _ file: PreparedFile) -> MHD_Result {
        guard let response = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT) else { return .NO }
        MHD_add_response_header(response, "ETag", file.etag)
        addCommonHeaders(response)
        let result = MHD_queue_response(connection, 304, response)
        MHD_destroy_response(response)
        return result
    }

    private func redirect(_ connection: OpaquePointer, to location: String, status: UInt32) -> MHD_Result {
        send(connection, status, Array("Moved to \(location)\n".utf8), contentType: "text/plain; charset=utf-8",
             headers: [("Location", location)])
    }

    private func sendText(_ connection: OpaquePointer, _ status: UInt32, _ text: String,
                          headers: [(String, String)] = []) -> MHD_Result {
        send(connection, status, Array(text.utf8), contentType: "text/plain; charset=utf-8", headers: headers)
    }

    private func send(_ connection: OpaquePointer, _ status: UInt32, _ body: [UInt8], contentType: String,
                      headers: [(String, String)] = []) -> MHD_Result {
        let response: OpaquePointer? = body.withUnsafeBytes { raw in
            MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let response else { return .NO }
        MHD_add_response_header(response, "Content-Type", contentType)
        addCommonHeaders(response)
        for (name, value) in headers { MHD_add_response_header(response, name, value) }
        let result = MHD_queue_response(connection, status, response)
        MHD_destroy_response(response)
        return result
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }
}

/// True when the request target given to the URI log callback ends at a NUL of the request
/// itself: libmicrohttpd ends the target with a NUL where the version began, so the bytes after
/// the target's end must be the version (`HTTP/`).
func requestTargetIsCut(_ uri: UnsafePointer<CChar>) -> Bool {
    let after = UnsafeRawPointer(uri + strlen(uri) + 1).assumingMemoryBound(to: UInt8.self)
    for (k, byte) in "HTTP/".utf8.enumerated() where after[k] != byte { return true }
    return false
}

/// True when the method ends at a NUL of the request line: libmicrohttpd put its own NUL where
/// the space after the method was, and only spaces may lie between it and the target.
func methodIsCut(_ method: UnsafePointer<CChar>?, _ url: UnsafePointer<CChar>?) -> Bool {
    guard let method, let url else { return false }
    var p = UnsafeRawPointer(method + strlen(method) + 1)
    let target = UnsafeRawPointer(url)
    guard p <= target else { return false } // not the request line's layout: nothing to judge
    while p < target {
        if p.load(as: UInt8.self) != 0x20 { return true }
        p += 1
    }
    return false
}

/// Percent-encodes one path segment for a `Location` header.
func percentEncodeSegment(_ segment: String) -> String {
    // Segments never hold `/` (an encoded one is refused when the path is parsed).
    Slug.percentEncodePath(segment)
}
