import XCTest
import BlogCore
import Foundation

final class ReadAheadTests: XCTestCase {
    /// Files under a fresh temporary folder; every fifth path is missing (the hints skip it).
    private func makeFiles(_ count: Int) throws -> [String] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("readahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return try (0..<count).map { index in
            let path = folder.appendingPathComponent("post-\(index).md").path
            if index % 5 != 4 { try Data("# \(index)\n".utf8).write(to: URL(fileURLWithPath: path)) }
            return path
        }
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

    func testHintsStayWithinTheWindowAheadOfTheLoaders() throws {
        let paths = try makeFiles(100)
        let readAhead = ReadAhead(paths: paths, window: 4, minimumCount: 10)
        defer { readAhead.stop() }
        // No loader has started: files 0...3 only.
        XCTAssertTrue(eventually { readAhead.hintedCount == 4 }, "hinted \(readAhead.hintedCount)")
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 4)
        // A loader at file 9: up to file 13. Reaching an earlier file again moves nothing back.
        readAhead.reached(9)
        readAhead.reached(2)
        XCTAssertTrue(eventually { readAhead.hintedCount == 14 }, "hinted \(readAhead.hintedCount)")
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 14)
        // The last file reached: every file, missing ones included, is passed over once.
        readAhead.reached(99)
        XCTAssertTrue(eventually { readAhead.hintedCount == 100 }, "hinted \(readAhead.hintedCount)")
    }

    func testStopEndsTheHintsWhileTheyWait() throws {
        let paths = try makeFiles(100)
        let readAhead = ReadAhead(paths: paths, window: 8, minimumCount: 10)
        XCTAssertTrue(eventually { readAhead.hintedCount == 8 })
        readAhead.stop()
        readAhead.reached(99)
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 8, "no hint after stop")
        readAhead.stop() // a second stop returns at once
    }

    func testFewFilesStartNoThread() throws {
        let paths = try makeFiles(5)
        let readAhead = ReadAhead(paths: paths, window: 4, minimumCount: 10)
        readAhead.reached(4)
        usleep(50_000)
        XCTAssertEqual(readAhead.hintedCount, 0)
        readAhead.stop()
    }
}
