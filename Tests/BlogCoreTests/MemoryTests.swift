import BlogCore
import Foundation
import XCTest
#if canImport(Glibc)
import Glibc

// malloc.h is not part of the Glibc module.
@_silgen_name("malloc_info")
private func mallocInfo(_ options: Int32, _ stream: UnsafeMutablePointer<FILE>) -> Int32
@_silgen_name("mallopt")
private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

final class MemoryTests: XCTestCase {
    func testTunesOnlyTheBuildCommandWithoutTheUsersTunables() {
        XCTAssertTrue(Memory.shouldTune(command: "build", environmentTunables: nil))
        // What the huge-pages restart sets is not the user's.
        XCTAssertTrue(Memory.shouldTune(command: "build", environmentTunables: HugePages.tunable))
        // The user's tunables win, an empty value too (valgrind runs use it).
        XCTAssertFalse(Memory.shouldTune(command: "build", environmentTunables: ""))
        XCTAssertFalse(Memory.shouldTune(command: "build", environmentTunables: "glibc.malloc.top_pad=0"))
        // `serve` lives on after its first build; the others build no site.
        for command in ["serve", "new", "check", "import", "--help", nil] as [String?] {
            XCTAssertFalse(Memory.shouldTune(command: command, environmentTunables: nil))
        }
    }

    #if canImport(Glibc)
    /// What malloc_info says, as text (XML).
    private func mallocInfoText() throws -> String {
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        let stream = try XCTUnwrap(open_memstream(&buffer, &length))
        XCTAssertEqual(mallocInfo(0, stream), 0)
        fclose(stream)
        defer { free(buffer) }
        return String(cString: try XCTUnwrap(buffer))
    }

    /// The bytes malloc holds in mappings of their own, one per block (malloc_info's
    /// `<total type="mmap" count=… size=…/>`).
    private func mappedBytes() throws -> Int {
        let line = try XCTUnwrap(try mallocInfoText().split(separator: "\n").first { $0.contains("<total type=\"mmap\"") })
        let size = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("size=") })
        return try XCTUnwrap(Int(size.dropFirst("size=\"".count).prefix { $0.isNumber }))
    }

    /// malloc's arenas, as malloc_info lists them (`<heap nr="…">`, one per arena).
    private func arenaCount() throws -> Int {
        try mallocInfoText().components(separatedBy: "<heap nr=").count - 1
    }

    private static let arenaChildVariable = "BLOG_TEST_ARENA_CHILD"

    /// Run by `testTuningKeepsMallocToOneArenaPerCore` in a process of its own, since glibc fixes
    /// its arena limit once a process has made nine arenas (this test process may have): with
    /// the variable "tuned", the tuning comes before any thread, as in `blog`'s main. Eight
    /// threads then allocate at once and stay until the arenas are counted, which is printed.
    func testArenaCountChild() throws {
        guard let mode = getenv(MemoryTests.arenaChildVariable).map({ String(cString: $0) }) else {
            throw XCTSkip("run by testTuningKeepsMallocToOneArenaPerCore in a process of its own")
        }
        // Counted after the tuning: the test process's own threads may make an arena meanwhile.
        if mode == "tuned" { XCTAssertTrue(Memory.tuneForBuild(cores: 2)) }
        let before = try arenaCount()
        let threads = 8
        let allocated = DispatchGroup(), counted = DispatchSemaphore(value: 0)
        for _ in 0..<threads {
            allocated.enter()
            Thread.detachNewThread {
                let block = malloc(4096)!
                memset(block, 1, 4096)
                allocated.leave()
                counted.wait()
                free(block)
            }
        }
        allocated.wait()
        let arenas = try arenaCount()
        for _ in 0..<threads { counted.signal() }
        print("arenas: \(before) \(arenas)")
    }

    func testTuningKeepsMallocToOneArenaPerCore() throws {
        func child(_ mode: String) throws -> (before: Int, after: Int) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            process.arguments = ["BlogCoreTests.MemoryTests/testArenaCountChild"]
            process.environment = ProcessInfo.processInfo.environment.merging([MemoryTests.arenaChildVariable: mode]) { $1 }
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, output)
            let line = try XCTUnwrap(output.split(separator: "\n").first { $0.hasPrefix("arenas: ") }, output)
            let counts = line.dropFirst("arenas: ".count).split(separator: " ").compactMap { Int($0) }
            XCTAssertEqual(counts.count, 2, output)
            return (try XCTUnwrap(counts.first), try XCTUnwrap(counts.last))
        }
        // Untuned, eight threads allocating at once get arenas of their own: the count can tell.
        let untuned = try child("untuned")
        XCTAssertGreaterThan(untuned.after, max(untuned.before, 2))
        // Tuned, they share the arenas there were, or two.
        let tuned = try child("tuned")
        XCTAssertLessThanOrEqual(tuned.after, max(tuned.before, 2))
    }

    func testAfterTuningABlockOfMegabytesComesFromTheHeap() throws {
        // M_MMAP_THRESHOLD at glibc's starting value, 128 KB (fixed: a free of a mapped block no
        // longer raises it), before and after; M_TOP_PAD back to its default (128 KB) after.
        let defaultThreshold: Int32 = 128 << 10
        XCTAssertEqual(mallopt(-3, defaultThreshold), 1)
        defer {
            _ = mallopt(-3, defaultThreshold)
            _ = mallopt(-2, 128 << 10)
        }
        let size = 24 << 20
        // Untuned, a block this size is mapped only when no free room in the heap can take it
        // (earlier tests may have left some): blocks are taken and held until one is mapped.
        var held: [UnsafeMutableRawPointer] = []
        defer { for pointer in held { free(pointer) } }
        var mapped: UnsafeMutableRawPointer?
        for _ in 0..<64 where mapped == nil {
            let before = try mappedBytes()
            let pointer = try XCTUnwrap(malloc(size))
            if try mappedBytes() - before >= size { mapped = pointer } else { held.append(pointer) }
        }
        free(try XCTUnwrap(mapped, "the untuned malloc never mapped a 24 MB block: the test proves nothing"))

        XCTAssertTrue(Memory.tuneForBuild())
        let mappedAfterTuning = try mappedBytes()
        let block = try XCTUnwrap(malloc(size))
        XCTAssertEqual(try mappedBytes(), mappedAfterTuning, "a 24 MB block got a mapping of its own")
        free(block)
    }
    #endif
}
