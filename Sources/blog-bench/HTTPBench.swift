import BlogServer
import BlogSite
import Foundation

/// Requests per second of `blog serve`'s server (in memory, loopback, 4 client threads) for a small
/// file and for the home page.
func benchHTTP(_ args: Arguments) {
    let site = buildSite(args.site)
    var files: [String: [UInt8]] = [:]
    for file in site.files { files[file.path] = file.bytes }
    let store = SiteStore()
    store.publish(SiteSnapshot(files: files))
    let server: PreviewServer
    do {
        server = try PreviewServer(options: ServerOptions(port: 0), store: store)
        try server.start()
    } catch {
        fail("server: \(error)")
    }
    defer { server.stop() }
    var rows: [(String, BenchmarkResult, Int)] = []
    for path in ["/robots.txt", "/"] {
        _ = HTTPBenchmark.run(port: server.port, path: path, connections: 4, duration: 0.3)
        let result = HTTPBenchmark.run(port: server.port, path: path, connections: 4, duration: 2.0)
        let size = files[path == "/" ? "index.html" : String(path.dropFirst())]?.count ?? 0
        rows.append((path, result, size))
        say(String(format: "    http %-12@ %6d B  %8.0f requests/s  (%d requests, %d failed, 4 connections, keep-alive)",
                   path as NSString, size, result.requestsPerSecond, result.requests, result.failures))
    }
    emit(.object([("bench", .string("http")),
                  ("results", .array(rows.map { row in
                      .object([("path", .string(row.0)), ("bytes", .int(row.2)), ("requests_per_s", .number(row.1.requestsPerSecond)),
                               ("requests", .int(row.1.requests)), ("failures", .int(row.1.failures))])
                  }))]))
}
