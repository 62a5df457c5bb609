import BlogCore
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
    /// The bytes malloc holds in mappings of their own, one per block (malloc_info's
    /// `<total type="mmap" count=… size=…/>`).
    private func mappedBytes() throws -> Int {
        var buffer: UnsafeMutablePointer<CChar>?
        var length = 0
        let stream = try XCTUnwrap(open_memstream(&buffer, &length))
        XCTAssertEqual(mallocInfo(0, stream), 0)
        fclose(stream)
        let text = String(cString: try XCTUnwrap(buffer))
        free(buffer)
        let line = try XCTUnwrap(text.split(separator: "\n").first { $0.contains("<total type=\"mmap\"") })
        let size = try XCTUnwrap(line.split(separator: " ").first { $0.hasPrefix("size=") })
        return try XCTUnwrap(Int(size.dropFirst("size=\"".count).prefix { $0.isNumber }))
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
