/// How the preview server listens and behaves.
public struct ServerOptions: Sendable {
    /// TCP port; 0 picks a free ephemeral port (read it back from `PreviewServer.port`).
    public var port: Int
    /// Address to bind: `127.0.0.1` (default), `::1`, `localhost`, `0.0.0.0`, `::`, or any literal
    /// IPv4/IPv6 address (brackets allowed). Binding beyond loopback prints a warning.
    public var bind: String
    /// Inject the live-reload script into HTML and serve `/__blog/events`, `/__blog/status`.
    public var liveReload: Bool
    /// Seconds of inactivity after which a connection is closed (libmicrohttpd's own timer).
    public var connectionTimeout: Int
    /// Maximum number of simultaneous connections.
    public var connectionLimit: Int
    /// Maximum number of simultaneous connections from one IP address (0 = no limit).
    public var perIPLimit: Int
    /// The site's base path (`/` or e.g. `/archive/`); files are served below it.
    public var basePath: String
    /// Extra host names accepted in the `Host` header (besides localhost, 127.0.0.1, [::1],
    /// *.localhost and the bind address).
    public var allowedHosts: [String]
    /// Seconds between keep-alive comments on live-reload streams.
    public var keepAliveInterval: Double
    /// Live-reload streams open at once at most (more get 503; each holds a connection).
    public var liveReloadLimit: Int
    /// Seconds a connection may take to send a request's headers before it is closed.
    public var headerTimeout: Double

    public init(port: Int = 8080,
                bind: String = "127.0.0.1",
                liveReload: Bool = true,
                connectionTimeout: Int = 30,
                connectionLimit: Int = 1024,
                perIPLimit: Int = 512,
                basePath: String = "/",
                allowedHosts: [String] = [],
                keepAliveInterval: Double = 15,
                liveReloadLimit: Int = 64,
                headerTimeout: Double = 10) {
        self.port = port
        self.bind = bind
        self.liveReload = liveReload
        self.connectionTimeout = connectionTimeout
        self.connectionLimit = connectionLimit
        self.perIPLimit = perIPLimit
        self.basePath = basePath
        self.allowedHosts = allowedHosts
        self.keepAliveInterval = keepAliveInterval
        self.liveReloadLimit = liveReloadLimit
        self.headerTimeout = headerTimeout
    }
}

/// A problem starting the server, with a message meant for the user.
public struct ServerError: Error, Equatable, CustomStringConvertible {
    public var message: String
    /// Another program holds the port (a caller that chose no port may try the next one).
    public var isPortInUse: Bool
    public init(_ message: String, isPortInUse: Bool = false) {
        self.message = message
        self.isPortInUse = isPortInUse
    }
    public var description: String { message }
}
