import BlogCore
import Foundation

/// Whose items `blog import qiita` fetches.
public enum QiitaItemsQuery: Sendable, Equatable {
    /// A user's public items: `GET /users/:user_id/items`.
    case user(String)
    /// The token owner's items, private ones included: `GET /authenticated_user/items`.
    case mine
}

/// How to talk to Qiita's API (or Qiita Team's, or a compatible server).
public struct QiitaClientOptions: Sendable {
    /// The API root, e.g. `https://qiita.com/api/v2`.
    public var apiBase: URL
    /// An access token (read scope). Sent only in the Authorization header, never shown.
    public var token: String?
    /// Stop instead of waiting when the rate limit needs a wait longer than `longWait`.
    public var noWait: Bool
    /// Seconds of rate-limit wait that `noWait` refuses.
    public var longWait: TimeInterval
    /// Attempts for a request answered with 5xx or timed out, and the first wait between them.
    public var attempts: Int
    public var backoff: TimeInterval
    public var timeout: Int
    public var perPage: Int

    public static let defaultAPIBase = URL(string: "https://qiita.com/api/v2")!

    public init(apiBase: URL = QiitaClientOptions.defaultAPIBase, token: String? = nil, noWait: Bool = false,
                longWait: TimeInterval = 10, attempts: Int = 3, backoff: TimeInterval = 0.5, timeout: Int = 30,
                perPage: Int = 100) {
        self.apiBase = apiBase
        self.token = token
        self.noWait = noWait
        self.longWait = longWait
        self.attempts = attempts
        self.backoff = backoff
        self.timeout = timeout
        self.perPage = perPage
    }
}

/// Fetches every item of a query page by page (following `Link: rel="next"`, progress against
/// `Total-Count`), honouring the rate limit, and converts them with `QiitaAPIImporter` — the
/// same conversion as `blog import qiita-api`. A failure anywhere gives an error and no articles,
/// so nothing is written.
public struct QiitaClient: Sendable {
    public var options: QiitaClientOptions

    public init(options: QiitaClientOptions) {
        self.options = options
    }

    /// A Qiita user id: letters, digits, `_` and `-` (as in `https://qiita.com/NAME`).
    public static func isValidUserName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || $0 == "_" || $0 == "-"
        }
    }

    /// The first page's URL.
    public func firstPage(_ query: QiitaItemsQuery) -> URL {
        var base = options.apiBase.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        switch query {
        case .user(let name): return URL(string: "\(base)/users/\(name)/items?page=1&per_page=\(options.perPage)")!
        case .mine: return URL(string: "\(base)/authenticated_user/items?page=1&per_page=\(options.perPage)")!
        }
    }

    struct Stop: Error {
        var diagnostic: Diagnostic
    }

    /// Fetches and converts every item. Progress and waits are told on `console`'s error stream.
    public func fetch(_ query: QiitaItemsQuery, console: Console) -> ImportResult {
        let session = HTTPSession(timeout: options.timeout, userAgent: "blog (static site generator; import qiita)")
        var result = ImportResult()
        var url: URL? = firstPage(query)
        var visited = Set<String>()
        var fetchedItems = 0
        var total: Int?
        do {
            while let page = url {
                guard visited.insert(page.absoluteString).inserted else {
                    throw Stop(diagnostic: .error("the server's Link header leads back to a page already fetched", at: SourceLocation(file: page.absoluteString)))
                }
                let response = try fetchPage(page, query: query, session: session, console: console)
                let text: InputText
                do {
                    text = try InputText(path: page.absoluteString, bytes: [UInt8](response.body))
                } catch let diagnostic as Diagnostic {
                    throw Stop(diagnostic: diagnostic)
                }
                let converted = QiitaAPIImporter().importSource(text)
                result.merge(converted)
                if converted.hasErrors { return ImportResult(diagnostics: result.diagnostics) }
                fetchedItems += converted.articles.count
                if let count = response.header("Total-Count").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) { total = count }
                console.printError("fetched \(fetchedItems)" + (total.map { " of \($0)" } ?? "") + " items")
                url = try nextPage(response, current: page)
                if url != nil { try waitForRateLimit(response, before: url!, console: console) }
            }
        } catch let stop as Stop {
            return ImportResult(diagnostics: result.diagnostics.filter { $0.severity != .error } + [stop.diagnostic])
        } catch {
            return ImportResult(diagnostics: [.error("\(error)")])
        }
        if let total, total != fetchedItems {
            result.diagnostics.append(.warning("the server announced \(total) items (Total-Count) but \(fetchedItems) were fetched; items may have changed meanwhile",
                                               at: SourceLocation(file: firstPage(query).absoluteString)))
        }
        return result
    }

    /// One page: retried on 5xx and timeouts, waited on when rate-limited, stopped on other errors.
    func fetchPage(_ url: URL, query: QiitaItemsQuery, session: HTTPSession, console: Console) throws -> HTTPResponse {
        var headers = ["Accept": "application/json"]
        if let token = options.token { headers["Authorization"] = "Bearer \(token)" }
        let location = SourceLocation(file: url.absoluteString)
        var rateWaits = 0
        while true {
            let result = session.getRetrying(url, headers: headers, attempts: options.attempts, backoff: options.backoff, limit: 64 * 1024 * 1024,
                                             onRetry: { reason, delay in
                console.printError("\(url.absoluteString): \(reason); trying again in \(QiitaClient.seconds(delay))")
            })
            let response: HTTPResponse
            switch result {
            case .failure(let failure):
                throw Stop(diagnostic: .error("cannot fetch: \(redact(failure.description))", at: location))
            case .success(let value):
                response = value
            }
            // Qiita answers a used-up rate limit with 403 (type rate_limit_exceeded); others use 429.
            if response.status == 429 || (response.status == 403 && (response.header("Rate-Remaining") == "0" || errorType(response) == "rate_limit_exceeded")) {
                rateWaits += 1
                guard rateWaits <= 3 else {
                    throw Stop(diagnostic: .error("still rate-limited (HTTP \(response.status)) after waiting \(rateWaits - 1) times; try again later", at: location))
                }
                try wait(for: response, location: location, console: console)
                continue
            }
            switch response.status {
            case 200..<300:
                return response
            case 401:
                let what = options.token == nil
                    ? "this server needs an access token: set QIITA_TOKEN or use --token-file (a token with the read_qiita scope)"
                    : "the access token was refused: check that QIITA_TOKEN (or the --token-file) holds a valid token with the read_qiita scope"
                throw Stop(diagnostic: .error("HTTP 401 Unauthorized: \(what)\(serverMessage(response))", at: location))
            case 403:
                throw Stop(diagnostic: .error("HTTP 403 Forbidden: the token may not read these items; check its scope (read_qiita, or read_qiita_team on Qiita Team)\(serverMessage(response))", at: location))
            case 404:
                let what: String
                switch query {
                case .user(let name): what = "no user '\(name)' at \(options.apiBase.absoluteString); check the user name (the NAME in https://qiita.com/NAME) and --api-base"
                case .mine: what = "check --api-base (\(options.apiBase.absoluteString)): it should end in /api/v2"
                }
                throw Stop(diagnostic: .error("HTTP 404 Not Found: \(what)\(serverMessage(response))", at: location))
            default:
                throw Stop(diagnostic: .error("HTTP \(response.status)\(serverMessage(response))", at: location))
            }
        }
    }

    /// Before the next page: when no requests remain in this rate-limit window, waits for its reset.
    func waitForRateLimit(_ response: HTTPResponse, before next: URL, console: Console) throws {
        guard let remaining = response.header("Rate-Remaining").flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }), remaining <= 0 else { return }
        try wait(for: response, location: SourceLocation(file: next.absoluteString), console: console)
    }

    /// Waits until `Rate-Reset` (Unix seconds), or `Retry-After` seconds, or a minute when neither
    /// is given; with `noWait`, a long wait stops the import instead.
    func wait(for response: HTTPResponse, location: SourceLocation, console: Console) throws {
        let now = Date().timeIntervalSince1970
        var delay: TimeInterval = 60
        var until: Date?
        if let reset = response.header("Rate-Reset").flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
            delay = reset - now
            until = Date(timeIntervalSince1970: reset)
        } else if let after = response.header("Retry-After").flatMap({ Double($0.trimmingCharacters(in: .whitespaces)) }) {
            delay = after
        }
        delay = min(max(delay.rounded(.up), 1), 3600)
        let when = until.map { " (at \(QiitaClient.clock($0)) UTC)" } ?? ""
        if options.noWait && delay > options.longWait {
            throw Stop(diagnostic: .error("Qiita's rate limit is used up; it resets in \(QiitaClient.seconds(delay))\(when). Nothing was written: run again after that, or without --no-wait to wait",
                                          at: location))
        }
        console.printError("rate limit reached: waiting \(QiitaClient.seconds(delay)) for it to reset\(when)")
        Thread.sleep(forTimeInterval: delay)
    }

    /// The `rel="next"` target of the Link header, resolved against the current page. It must stay
    /// on the API's origin, since the token goes with every request.
    func nextPage(_ response: HTTPResponse, current: URL) throws -> URL? {
        guard let header = response.header("Link"), let target = QiitaClient.linkTarget(header, rel: "next") else { return nil }
        guard let next = URL(string: target, relativeTo: current)?.absoluteURL else {
            throw Stop(diagnostic: .error("the Link header's next page is not a URL: \(target)", at: SourceLocation(file: current.absoluteString)))
        }
        guard HTTPSession.origin(next) == HTTPSession.origin(options.apiBase) else {
            throw Stop(diagnostic: .error("the Link header points away from \(options.apiBase.absoluteString) (to \(next.absoluteString)); not followed",
                                          at: SourceLocation(file: current.absoluteString)))
        }
        return next
    }

    /// `<url>; rel="next", <url>; rel="last"` → the url whose rel list holds `rel`.
    static func linkTarget(_ header: String, rel: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = String(rest[rest.index(after: open)..<close])
            let afterTarget = rest[rest.index(after: close)...]
            let end = afterTarget.firstIndex(of: "<") ?? afterTarget.endIndex
            let parameters = afterTarget[..<end]
            for parameter in parameters.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
                let values = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\"")).lowercased().split(separator: " ")
                if values.contains(Substring(rel)) { return target }
            }
            rest = afterTarget[end...]
        }
        return nil
    }

    /// Qiita's JSON error `message`, when there is one (the token blanked out should it echo it).
    func serverMessage(_ response: HTTPResponse) -> String {
        guard let node = try? JSONParser.parse([UInt8](response.body)), let message = node.member("message")?.stringValue,
              !message.isEmpty else { return "" }
        return " (the server said: \(redact(String(message.prefix(200)))))"
    }

    /// Qiita's JSON error `type`, when there is one.
    func errorType(_ response: HTTPResponse) -> String? {
        (try? JSONParser.parse([UInt8](response.body)))?.member("type")?.stringValue
    }

    func redact(_ text: String) -> String {
        guard let token = options.token, !token.isEmpty else { return text }
        return text.replacingOccurrences(of: token, with: "[token]")
    }

    static func seconds(_ value: TimeInterval) -> String {
        if value < 1 { return String(format: "%.1f s", value) }
        let whole = Int(value.rounded(.up))
        return whole < 120 ? "\(whole) s" : "\(whole / 60) min \(whole % 60) s"
    }

    static func clock(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970) % 86400
        return String(format: "%02d:%02d:%02d", seconds / 3600, seconds % 3600 / 60, seconds % 60)
    }
}
