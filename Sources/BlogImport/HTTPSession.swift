import CCurl
import Foundation

/// One HTTP answer, its body read whole (within the request's size limit).
public struct HTTPResponse: Sendable {
    public var status: Int
    /// Header names lowercased (the last response's, after redirects).
    public var headers: [String: String]
    public var body: Data

    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// Why a request produced no usable response.
public enum HTTPFailure: Error, Sendable, CustomStringConvertible {
    /// The connection failed; `retryable` for timeouts and refused or dropped connections.
    case transport(String, retryable: Bool)
    /// The body (or its announced length) went past the limit.
    case tooLarge(limit: Int)
    /// A 200 answer that is not an image, when one was required.
    case notAnImage(contentType: String)

    public var description: String {
        switch self {
        case .transport(let message, _): return message
        case .tooLarge(let limit): return "larger than the limit of \(HTTPSession.megabytes(limit))"
        case .notAnImage(let type): return "not an image (Content-Type: \(type.isEmpty ? "none" : type))"
        }
    }
}

/// Synchronous GET requests through libcurl, loaded on the first request (`CCurl`), so the other
/// commands start without it. Foundation's URLSession would do the same work but, on Linux, links
/// libcurl and the libraries it needs into every start of the program. Nothing is cached or kept:
/// a token in a header exists only for the request. Several threads may fetch at once.
public struct HTTPSession: Sendable {
    public var timeout: Int
    public var userAgent: String

    /// `timeout`: seconds to connect, and seconds without data before a request fails.
    public init(timeout: Int = 30, userAgent: String = "blog") {
        self.timeout = timeout
        self.userAgent = userAgent
    }

    /// Fetches `url` with extra `headers`. `limit` caps the body in bytes; `requireImage` refuses a
    /// 200 answer whose Content-Type is not `image/*` before its body is read.
    public func get(_ url: URL, headers: [String: String] = [:], limit: Int? = nil, requireImage: Bool = false) -> Result<HTTPResponse, HTTPFailure> {
        let lines = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
        var response = blog_http_response()
        defer { blog_http_free(&response) }
        withCStrings(lines) { pointers in
            blog_http_get(url.absoluteString, pointers, Int32(lines.count), userAgent, timeout, Int64(limit ?? 0), requireImage ? 1 : 0, &response)
        }
        let message = withUnsafeBytes(of: response.message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        switch Int(response.outcome) {
        case Int(BLOG_HTTP_OK): break
        case Int(BLOG_HTTP_TOO_LARGE): return .failure(.tooLarge(limit: limit ?? 0))
        case Int(BLOG_HTTP_NOT_IMAGE): return .failure(.notAnImage(contentType: HTTPSession.mediaType(message)))
        case Int(BLOG_HTTP_RETRYABLE): return .failure(.transport(message, retryable: true))
        default: return .failure(.transport(message, retryable: false))
        }
        let body = response.body.map { Data(bytes: $0, count: response.body_length) } ?? Data()
        let headerText = response.headers.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: response.headers_length), as: UTF8.self) } ?? ""
        return .success(HTTPResponse(status: response.status, headers: HTTPSession.parseHeaders(headerText), body: body))
    }

    /// Fetches with retries: a 5xx answer or a timeout or failed connection is tried again up to
    /// `attempts` times in all, waiting `backoff`, then twice that, and so on.
    public func getRetrying(_ url: URL, headers: [String: String] = [:], attempts: Int = 3, backoff: TimeInterval = 0.5,
                            limit: Int? = nil, requireImage: Bool = false,
                            onRetry: ((String, TimeInterval) -> Void)? = nil) -> Result<HTTPResponse, HTTPFailure> {
        var delay = backoff
        var attempt = 1
        while true {
            let result = get(url, headers: headers, limit: limit, requireImage: requireImage)
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

    /// `Name: value` lines (after the status line) into a dictionary with lowercased names;
    /// a repeated header's values are joined with `, `.
    static func parseHeaders(_ text: String) -> [String: String] {
        var headers: [String: String] = [:]
        for line in text.split(whereSeparator: { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
        return headers
    }

    /// `image/png; charset=…` → `image/png`.
    static func mediaType(_ header: String?) -> String {
        (header ?? "").split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// `scheme://host:port`, lowercased.
    static func origin(_ url: URL) -> String {
        "\(url.scheme?.lowercased() ?? "")://\(url.host?.lowercased() ?? ""):\(url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80))"
    }

    static func megabytes(_ bytes: Int) -> String {
        bytes % (1024 * 1024) == 0 ? "\(bytes / (1024 * 1024)) MB" : "\(bytes) bytes"
    }
}

/// Calls `body` with a C array of C strings that live for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
