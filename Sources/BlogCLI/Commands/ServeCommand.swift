import BlogContent
import BlogCore
import BlogServer
import BlogSite
import Foundation

enum ServeCommand: BlogCommand {
    static let name = "serve"
    static let abstract = "Preview the site with live reload: builds into memory and serves it over HTTP."
    static let discussion = """
    The output folder is not touched. Changes to content/, static/, themes/, layouts/ and blog.yml
    rebuild the site and reload open pages (a stylesheet-only change swaps the stylesheet). When a
    file is broken, the last good site keeps being served and every open page shows the error
    until it is fixed. Binds to 127.0.0.1 unless told otherwise. Stop with Ctrl-C.
    """
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
        .value("port", "N", short: "p", "Port to listen on (default: 8080, or the next free one when it is taken;\n0 picks any free port)."),
        .value("bind", "ADDR", "Address to bind (default: 127.0.0.1). Anything but loopback exposes\nthe preview to your network."),
        .flag("drafts", "Include drafts."),
        .flag("future", "Include posts dated in the future."),
        .value("base-url", "URL", "Serve under this URL's path instead of base_url's from blog.yml\n(the host is always the preview server's)."),
        .flag("no-reload", "Do not inject the live-reload script."),
        .flag("open", "Open the site in the default browser."),
        .flag("timings", "Print the time each phase of every rebuild took."),
        .flag("allow-outside-links", "Follow symbolic links that lead out of the site folder (refused\notherwise, so that a link cannot publish files from elsewhere)."),
        .flag("poll", "Notice file changes by checking every file a few times a second instead\nof the system's notifications (for network and container file systems)."),
    ]

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard arguments.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(arguments.positionals[0])'", command: name)
        }
        let console = context.console
        let source = context.resolve(arguments.value("source") ?? ".")
        try BuildCommand.checkSiteFolder(source)
        var port: Int?
        if let text = arguments.value("port") {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw UsageError("--port must be a number from 0 to 65535, not '\(text)'", command: name)
            }
            port = value
        }
        let bind = arguments.value("bind") ?? "127.0.0.1"
        // The base path comes from --base-url or blog.yml; a broken blog.yml still lets the server start.
        let basePath: String
        if let override = arguments.value("base-url") {
            guard let normalized = SiteConfig.normalizeBaseURL(override) else {
                throw UsageError("--base-url must be an absolute http(s) URL such as https://example.com/blog/, not '\(override)'", command: name)
            }
            var config = SiteConfig()
            config.baseURL = normalized
            basePath = config.basePath
        } else {
            basePath = (try? BlogContentConfig.basePath(source)) ?? "/"
        }
        let store = SiteStore()
        let server: PreviewServer
        do {
            server = try openServer(port: port, options: ServerOptions(port: port ?? defaultPort, bind: bind, liveReload: !arguments.flag("no-reload"),
                                                                       basePath: basePath),
                                    store: store, console: console)
        } catch let error as ServerError {
            throw Diagnostic.error(error.message)
        }
        let host = bind == "0.0.0.0" || bind == "::" ? "localhost" : (bind.contains(":") ? "[\(bind)]" : bind)
        let localBase = "http://\(host):\(server.port)\(basePath)"
        var buildOptions = BuildOptions(siteDirectory: source, includeDrafts: arguments.flag("drafts"),
                                        includeFuture: arguments.flag("future"), baseURL: localBase, hashAssetNames: false)
        buildOptions.allowOutsideLinks = arguments.flag("allow-outside-links")
        let builder = IncrementalBuilder(options: buildOptions)
        let showTimings = arguments.flag("timings")
        let roots = ["content", "static", "themes", "layouts", "blog.yml"].map { source.appendingPathComponent($0).path }
        let session = PreviewSession(watching: roots, store: store,
                                     watchMethod: arguments.flag("poll") ? .polling : .native, console: console) { changed in
            let result = try builder.rebuild(changed: changed)
            for warning in result.warnings { console.report(warning) }
            if showTimings {
                let phases = result.site.timings.map { String(format: "%@ %.1f ms", $0.phase, $0.seconds * 1000) }.joined(separator: ", ")
                console.printError("  \(phases); \(Wording.count(result.renderedPages, "page")) rendered")
            }
            return SiteSnapshot(files: result.files, changedPaths: result.changedPaths)
        }
        try session.start()
        try server.start()
        console.print("Serving \(source.path) at \(server.url) (Ctrl-C to stop)")
        if arguments.flag("open") { openBrowser(server.url, console: console) }

        // Wait for Ctrl-C or SIGTERM, then shut down cleanly.
        let done = DispatchSemaphore(value: 0)
        let trap = SignalTrap([SIGINT, SIGTERM]) { _ in done.signal() }
        done.wait()
        trap.cancel()
        console.printError("Stopping…")
        session.stop()
        server.stop()
        return ExitCode.success
    }

    static let defaultPort = 8080

    /// Binds `port` when one was asked for (taken is an error); else the default port or, when
    /// another program holds it, the next free one after it, saying which.
    static func openServer(port: Int?, options: ServerOptions, store: SiteStore, console: Console) throws -> PreviewServer {
        if port != nil { return try PreviewServer(options: options, store: store, console: console) }
        var options = options
        for candidate in defaultPort..<(defaultPort + 100) {
            options.port = candidate
            do {
                let server = try PreviewServer(options: options, store: store, console: console)
                if candidate != defaultPort {
                    console.report(Diagnostic(.note, "port \(defaultPort) is in use; serving on port \(candidate) instead (--port N chooses one)"))
                }
                return server
            } catch let error as ServerError where error.isPortInUse {
                continue
            }
        }
        options.port = 0
        let server = try PreviewServer(options: options, store: store, console: console)
        console.report(Diagnostic(.note, "ports \(defaultPort)–\(defaultPort + 99) are in use; serving on port \(server.port) instead"))
        return server
    }

    static func openBrowser(_ url: String, console: Console) {
        for opener in ["/usr/bin/xdg-open", "/usr/bin/open"] where FileManager.default.isExecutableFile(atPath: opener) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: opener)
            process.arguments = [url]
            if (try? process.run()) != nil { return }
        }
        console.printError("note: could not open a browser; visit \(url)")
    }
}
