import BlogContent
import BlogCore
import BlogImport
import Foundation

/// The flags of `blog import qiita` (fetching from the API) and `--images`, turned into options.
enum ImportQiitaOptions {
    static let options: [OptionSpec] = [
        .value("user", "NAME", "qiita: fetch this user's public articles."),
        .flag("mine", "qiita: fetch the token owner's articles, private ones included (as drafts)."),
        .value("token-file", "FILE", "qiita: read the access token (read_qiita scope) from FILE instead of QIITA_TOKEN."),
        .value("api-base", "URL", "qiita: the API root (default https://qiita.com/api/v2; Qiita Team: https://TEAM.qiita.com/api/v2)."),
        .flag("no-wait", "qiita: stop instead of waiting when the rate limit needs a long wait."),
        .flag("images", "Download images on Qiita's image hosts into static/images/qiita/ (default for qiita)."),
        .flag("no-images", "qiita: leave images where they are."),
        .value("max-image-size", "MB", "Largest image downloaded, in megabytes (default 20)."),
    ]

    static let qiitaOnly = ["user", "mine", "token-file", "api-base", "no-wait", "no-images"]

    /// The client options and query of `blog import qiita`.
    static func client(_ arguments: ParsedArguments, context: CommandContext, command: String) throws -> (QiitaClientOptions, QiitaItemsQuery) {
        let query: QiitaItemsQuery
        switch (arguments.value("user"), arguments.flag("mine")) {
        case (let name?, false):
            guard QiitaClient.isValidUserName(name) else {
                throw UsageError("invalid --user '\(name)': a Qiita user name has letters, digits, '_' and '-' only", command: command)
            }
            query = .user(name)
        case (nil, true): query = .mine
        case (_?, true): throw UsageError("give either --user NAME or --mine, not both", command: command)
        case (nil, false): throw UsageError("'import qiita' needs --user NAME (public articles) or --mine (yours, with a token)", command: command)
        }
        var options = QiitaClientOptions(noWait: arguments.flag("no-wait"))
        if let base = arguments.value("api-base") {
            guard let url = URL(string: base), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
                  url.host != nil, url.query == nil else {
                throw UsageError("invalid --api-base '\(base)': expected an http(s) URL such as https://qiita.com/api/v2", command: command)
            }
            options.apiBase = url
        }
        options.token = try token(arguments, context: context, command: command)
        if query == .mine && options.token == nil {
            throw UsageError("--mine needs an access token: set QIITA_TOKEN or use --token-file FILE (read_qiita scope)", command: command)
        }
        if options.token != nil, options.apiBase.scheme?.lowercased() == "http", !isLoopback(options.apiBase.host ?? "") {
            throw UsageError("refusing to send the access token over plain http to \(options.apiBase.host ?? ""); use an https --api-base", command: command)
        }
        return (options, query)
    }

    /// From `--token-file` (its first line), else `QIITA_TOKEN`; nil when neither. Never echoed.
    static func token(_ arguments: ParsedArguments, context: CommandContext, command: String) throws -> String? {
        let raw: String
        if let file = arguments.value("token-file") {
            let path = context.resolve(file).path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Diagnostic.error("cannot read the token file", at: SourceLocation(file: file))
            }
            raw = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            if raw.trimmingCharacters(in: .whitespaces).isEmpty {
                throw Diagnostic.error("the token file is empty", at: SourceLocation(file: file))
            }
        } else if let value = context.environment["QIITA_TOKEN"], !value.isEmpty {
            raw = value
        } else {
            return nil
        }
        let token = raw.trimmingCharacters(in: .whitespaces)
        guard token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw Diagnostic.error("the access token has characters a token cannot have (spaces, control or non-ASCII characters)",
                                   at: SourceLocation(file: arguments.value("token-file") ?? "QIITA_TOKEN"))
        }
        return token
    }

    /// Ctrl-C while images download: their staging folder goes too, so nothing is left half-written.
    static func removeStagingOnInterrupt(_ staticDirectory: String) -> SignalTrap {
        SignalTrap([SIGINT, SIGTERM]) { number in
            StagingLock.closeAndRemove(in: staticDirectory)
            _exit(128 + number)
        }
    }

        static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    /// `--images` options, or nil when images stay remote (the default except for `qiita`).
    static func images(_ arguments: ParsedArguments, format: String, config: SiteConfig, site: URL, command: String) throws -> ImageImportOptions? {
        if arguments.flag("images") && arguments.flag("no-images") {
            throw UsageError("give either --images or --no-images", command: command)
        }
        let wanted = format == "qiita" ? !arguments.flag("no-images") : arguments.flag("images")
        var maxBytes = 20 * 1024 * 1024
        if let text = arguments.value("max-image-size") {
            guard let megabytes = Double(text), megabytes > 0, megabytes <= 1024 else {
                throw UsageError("invalid --max-image-size '\(text)': a number of megabytes, such as 20", command: command)
            }
            maxBytes = Int(megabytes * 1024 * 1024)
        }
        guard wanted else { return nil }
        return ImageImportOptions(staticDirectory: site.appendingPathComponent("static").path,
                                  hosts: ImageHosts(extra: config.importImageHosts), maxBytes: maxBytes)
    }
}
