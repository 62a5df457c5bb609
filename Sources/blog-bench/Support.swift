// What every subcommand shares: messages, clocks, the JSON line and the argument parser.
import BlogContent
import BlogCore
import BlogSite
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data(("blog-bench: " + message + "\n").utf8))
    exit(code)
}

func say(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// CPU time of the calling thread (not counting time the machine gave to other jobs).
func threadCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// CPU time of the whole process (all threads), user + system.
func processCPUSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// Runs `body` `passes` times and returns the median duration in seconds.
func medianTime(passes: Int, _ body: () throws -> Void) rethrows -> Double {
    var samples: [Double] = []
    for _ in 0..<max(1, passes) {
        let start = monotonicSeconds()
        try body()
        samples.append(monotonicSeconds() - start)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// A tiny JSON value for the machine-readable line (keys keep insertion order).
indirect enum JSON {
    case number(Double)
    case int(Int)
    case string(String)
    case bool(Bool)
    case array([JSON])
    case object([(String, JSON)])
    case null

    /// The value through BlogCore's writer (only `<` of the markup characters escaped: it is read
    /// by scripts, not inlined in pages).
    var text: String {
        var writer = JSONWriter(escaping: .lessThan)
        write(into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func write(into writer: inout JSONWriter) {
        switch self {
        case .number(let d): writer.value(json: d.isFinite ? String(format: "%.6g", d) : "null")
        case .int(let i): writer.int(i)
        case .bool(let b): writer.bool(b)
        case .null: writer.null()
        case .string(let s): writer.string(s)
        case .array(let items):
            writer.beginArray()
            for item in items { item.write(into: &writer) }
            writer.endArray()
        case .object(let pairs):
            writer.beginObject()
            for (key, value) in pairs {
                writer.key(key)
                value.write(into: &writer)
            }
            writer.endObject()
        }
    }
}

func emit(_ value: JSON) {
    print(value.text)
}

struct Arguments {
    var command: String
    var site: URL
    var passes = 3
    var queries: [String] = []
    /// Positionals after SITE_DIR (only `markdown-dump` takes one: the output file).
    var extra: [String] = []

    init(_ argv: [String]) {
        let usage = "usage: blog-bench <markdown|templates|search|http|watch> SITE_DIR [--passes N] [--query Q]...\n"
            + "       blog-bench markdown-dump SITE_DIR OUT_FILE\n       blog-bench files BUILT_SITE NEW_DIR\n"
            + "       blog-bench memory [MB]\n       blog-bench math CORPUS.tex [--passes N]"
        var positionals: [String] = []
        var i = 0
        while i < argv.count {
            let a = argv[i]
            switch a {
            case "--passes":
                i += 1
                guard i < argv.count, let n = Int(argv[i]), n > 0 else { fail("--passes needs a positive number\n" + usage, code: 64) }
                passes = n
            case "--query":
                i += 1
                guard i < argv.count else { fail("--query needs a value\n" + usage, code: 64) }
                queries.append(argv[i])
            case "-h", "--help":
                say(usage)
                exit(0)
            default:
                if a.hasPrefix("-") { fail("unknown option \(a)\n" + usage, code: 64) }
                positionals.append(a)
            }
            i += 1
        }
        guard positionals.count == 2 || (positionals.count == 3 && ["markdown-dump", "files"].contains(positionals.first)) else { fail(usage, code: 64) }
        command = positionals[0]
        site = URL(fileURLWithPath: positionals[1]).standardizedFileURL
        extra = Array(positionals.dropFirst(2))
    }
}

func loadConfig(_ site: URL) -> SiteConfig {
    do {
        return try SiteConfig.load(siteDirectory: site, console: nil)
    } catch {
        fail("cannot read \(site.path)/blog.yml: \(error)")
    }
}

func buildSite(_ site: URL) -> BuiltSite {
    do {
        return try SiteBuilder.build(BuildOptions(siteDirectory: site), console: nil)
    } catch let list as DiagnosticList {
        fail("the site does not build: \(list)")
    } catch {
        fail("the site does not build: \(error)")
    }
}
