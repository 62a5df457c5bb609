import XCTest
import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class ReadAheadTests: XCTestCase {
    /// A fresh temporary folder (with a trailing `/`) and `count` file names in it; every fifth
    /// file is missing (the hints skip it).
    private func makeFiles(_ count: Int) throws -> (root: String, names: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let names = try (0..<count).map { index in
            let name = "post-\(index).md"
            if index % 5 != 4 { try Data("# \(index)\n".utf8).write(to: folder.appendingPathComponent(name)) }
            return name
        }
        return (folder.path + "/", names)
    }

    /// Waits (up to 10 s) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            if Date() > deadline { return false }
            usleep(1_000)
        }
        return true
    }

    func testNoHintsUntilAFileIsMissed() throws {
        let files = try makeFiles(100)
        let readAhead = ReadAhead(root: files.root, paths: files.names, window: 4, minimumCount: 10)
        defer { readAhead.stop() }
        readAhead.reached(50)
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 0, "files in the page cache need no hints")
    }

    func testHintsStartAfterTheMissAndStayWithinTheWindow() throws {
        let files = try makeFiles(100)
        let readAhead = ReadAhead(root: files.root, paths: files.names, window: 4, minimumCount: 10)
        defer { readAhead.stop() }
        // A loader missed file 0: files 1...4.
        readAhead.missed(at: 0)
        XCTAssertTrue(eventually { readAhead.hintedCount == 4 }, "hinted \(readAhead.hintedCount)")
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 4)
        // A loader at file 9: up to file 13. An earlier file, or a second miss, changes nothing.
        readAhead.reached(9)
        readAhead.reached(2)
        readAhead.missed(at: 3)
        XCTAssertTrue(eventually { readAhead.hintedCount == 13 }, "hinted \(readAhead.hintedCount)")
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 13)
        // The last file reached: every file after the first, missing ones included, once.
        readAhead.reached(99)
        XCTAssertTrue(eventually { readAhead.hintedCount == 99 }, "hinted \(readAhead.hintedCount)")
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 99)
    }

    func testStopEndsTheHintsWhileTheyWait() throws {
        let files = try makeFiles(100)
        let readAhead = ReadAhead(root: files.root, paths: files.names, window: 8, minimumCount: 10)
        readAhead.missed(at: 0)
        XCTAssertTrue(eventually { readAhead.hintedCount == 8 })
        readAhead.stop()
        readAhead.reached(99)
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 8, "no hint after stop")
        readAhead.stop() // a second stop returns at once
    }

    func testNoHintsAfterStopOrForFewFiles() throws {
        let files = try makeFiles(100)
        let stopped = ReadAhead(root: files.root, paths: files.names, window: 4, minimumCount: 10)
        stopped.stop()
        stopped.missed(at: 0)
        let few = ReadAhead(root: files.root, paths: Array(files.names.prefix(5)), window: 4, minimumCount: 10)
        few.missed(at: 0)
        usleep(50_000)
        XCTAssertEqual(stopped.hintedCount, 0)
        XCTAssertEqual(few.hintedCount, 0)
        few.stop()
    }

    #if canImport(Glibc)
    /// `readBytes` reports a file whose pages are not in memory, and reads it all the same.
    func testReadBytesTellsWhenAFileWasNotCached() throws {
        let files = try makeFiles(1)
        let path = files.root + files.names[0]
        let text = String(repeating: "キャッシュ外の記事\n", count: 2_000)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        _ = try SourceText.readBytes(path)
        var misses = 0
        XCTAssertEqual(try SourceText.readBytes(path, uncached: { misses += 1 }), Array(text.utf8))
        XCTAssertEqual(misses, 0, "just read, so in the page cache")
        // Written back and dropped from the page cache, then read. A read that does not wait still
        // succeeds when the kernel's read of the page completes at once (a fast disk), so an
        // eviction may go unnoticed: on this project's 2-core VM about five in six did, and ten
        // tries all went unnoticed in 4 of 25 runs. So up to 100 tries, until one is seen (after
        // at least ten); of the evicted ones at least one must be seen. tmpfs keeps its pages:
        // nothing to check there.
        var evictions = 0
        for attempt in 0..<100 {
            if attempt >= 10 && misses > 0 { break }
            let fd = open(path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(fd, 0)
            fsync(fd)
            _ = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED)
            close(fd)
            if firstPageIsResident(path) == false { evictions += 1 }
            XCTAssertEqual(try SourceText.readBytes(path, uncached: { misses += 1 }), Array(text.utf8))
        }
        XCTAssertLessThanOrEqual(misses, evictions)
        if evictions >= 10 { XCTAssertGreaterThan(misses, 0, "evicted \(evictions) times, never seen out of the page cache") }
    }

    /// mincore(2) of the file's first page, mapped without touching it (nil if that fails).
    private func firstPageIsResident(_ path: String) -> Bool? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        let length = 4096
        guard let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0), map != MAP_FAILED else { return nil }
        defer { munmap(map, length) }
        var vector: UInt8 = 0
        guard mincore(map, length, &vector) == 0 else { return nil }
        return vector & 1 == 1
    }
    #endif
}
