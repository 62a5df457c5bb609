import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One HTTP answer, its body read whole (within the request's size limit).
public struct HTTPResponse: Sendable {
    public var url: URL
    public var status: Int
    /// Header names lowercased.
    public var headers: [String: String]
    public var body: Data

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request produced no usable response.
public enum HTTPFailure: Error, Sendable, CustomStringConvertible {
    /// The connection failed or timed out; `retryable` for timeouts and dropped connections.
    case transport(String, retryable: Bool)
    /// The body (or its announced length) went past the limit.
    case tooLarge(limit: Int)
    /// The response was refused by the caller's check (e.g. not an image).
    case refused(String)

    public var description: String {
        switch self {
        case .transport(let message, _): return message
        case .tooLarge(let limit): return "larger than the limit of \(HTTPSession.megabytes(limit))"
        case .refused(let reason): return reason
        }
    }
}

/// Synchronous GET requests over Foundation's URLSession (FoundationNetworking on Linux): callers
/// block on a semaphore, so several threads may fetch at once. Ephemeral: no cookies, no cache
/// on disk, so a token in a header is never stored. The body streams through a delegate that
/// stops at the size limit instead of buffering an oversized file.
public final class HTTPSession: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private final class Transfer {
        let limit: Int?
        let check: ((HTTPURLResponse) -> String?)?
        var response: HTTPURLResponse?
        var body = Data()
        var failure: HTTPFailure?
        let done = DispatchSemaphore(value: 0)

        init(limit: Int?, check: ((HTTPURLResponse) -> String?)?) {
            self.limit = limit
            self.check = check
        }
    }

    private var session: URLSession!
    private let lock = NSLock()
    private var transfers: [Int: Transfer] = [:]

    /// `timeout`: seconds without data before a request fails as timed out.
    public init(timeout: TimeInterval = 30, userAgent: String = "blog") {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieStorage = nil
        configuration.httpAdditionalHeaders = ["User-Agent": userAgent]
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// Fetches `request`. `limit` caps the body in bytes; `check` may refuse a response by its
    /// status and headers before the body is read (returns the reason).
    public func get(_ request: URLRequest, limit: Int? = nil, check: ((HTTPURLResponse) -> String?)? = nil) -> Result<HTTPResponse, HTTPFailure> {
        let transfer = Transfer(limit: limit, check: check)
        let task = session.dataTask(with: request)
        lock.withLock { transfers[task.taskIdentifier] = transfer }
        task.resume()
        transfer.done.wait()
        if let failure = transfer.failure { return .failure(failure) }
        guard let response = transfer.response else { return .failure(.transport("no response", retryable: true)) }
        var headers: [String: String] = [:]
        for (key, value) in response.allHeaderFields {
            if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
        }
        return .success(HTTPResponse(url: response.url ?? request.url!, status: response.statusCode, headers: headers, body: transfer.body))
    }

    private func transfer(_ task: URLSessionTask) -> Transfer? {
        lock.withLock { transfers[task.taskIdentifier] }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        guard let transfer = transfer(dataTask), let http = response as? HTTPURLResponse else {
            completionHandler(.cancel)
            return
        }
        transfer.response = http
        if let reason = transfer.check?(http) {
            transfer.failure = .refused(reason)
            completionHandler(.cancel)
            return
        }
        if let limit = transfer.limit, http.expectedContentLength > Int64(limit) {
            transfer.failure = .tooLarge(limit: limit)
            completionHandler(.cancel)
            return
        }
        completionHandler(.allow)
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(dataTask), transfer.failure == nil else { return }
        transfer.body.append(data)
        if let limit = transfer.limit, transfer.body.count > limit {
            transfer.failure = .tooLarge(limit: limit)
            transfer.body = Data()
            dataTask.cancel()
        }
    }

    /// A redirect to another host loses the Authorization header, so a token only goes where it was sent.
    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        var next = request
        if let original = task.originalRequest?.url, let target = request.url,
           HTTPSession.origin(original) != HTTPSession.origin(target) {
            next.setValue(nil, forHTTPHeaderField: "Authorization")
        }
        completionHandler(next)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let transfer = lock.withLock { transfers.removeValue(forKey: task.taskIdentifier) }
        guard let transfer else { return }
        if transfer.failure == nil, let error {
            let code = (error as? URLError)?.code
            let retryable = code == .timedOut || code == .networkConnectionLost || code == .cannotConnectToHost
                || code == .notConnectedToInternet || code == .dnsLookupFailed || code == .cannotFindHost
            let message = code == .timedOut ? "timed out" : (error as? URLError).map { HTTPSession.describe($0) } ?? "\(error)"
            transfer.failure = .transport(message, retryable: retryable)
        }
        transfer.done.signal()
    }

    static func describe(_ error: URLError) -> String {
        switch error.code {
        case .timedOut: return "timed out"
        case .cannotConnectToHost: return "could not connect"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "the connection was lost"
        case .notConnectedToInternet: return "not connected to the internet"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid:
            return "the secure connection failed"
        default: return error.localizedDescription
        }
    }

    /// `scheme://host:port`, lowercased.
    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MB" : "\(bytes) bytes"
    }

    /// Fetches with retries: a 5xx answer or a timeout or dropped connection is tried again up to
    /// `attempts` times in all, waiting `backoff`, then twice that, and so on.
    public func getRetrying(_ request: URLRequest, attempts: Int = 3, backoff: TimeInterval = 0.5, limit: Int? = nil,
                            check: ((HTTPURLResponse) -> String?)? = nil,
                            onRetry: ((String, TimeInterval) -> Void)? = nil) -> Result<HTTPResponse, HTTPFailure> {
        var delay = backoff
        var attempt = 1
        while true {
            let result = get(request, limit: limit, check: check)
            let reason: String?
            switch result {
            case .success(let response) where response.status >= 500: reason = "HTTP \(response.status)"
            case .failure(.transport(let message, retryable: true)): reason = message
            default: reason = nil
            }
            guard let reason, attempt < attempts else { return result }
            onRetry?(reason, delay)
            Thread.sleep(forTimeInterval: delay)
            delay *= 2
            attempt += 1
        }
    }
}
