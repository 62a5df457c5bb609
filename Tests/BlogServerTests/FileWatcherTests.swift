import XCTest
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
@testable import BlogServer

final class BatchCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var batches: [Set<String>] = []
    func add(_ batch: Set<String>) { lock.lock(); batches.append(batch); lock.unlock() }
    var all: Set<String> { lock.lock(); defer { lock.unlock() }; return batches.reduce(into: []) { $0.formUnion($1) } }
    var count: Int { lock.lock(); defer { lock.unlock() }; return batches.count }
    func reset() { lock.lock(); batches.removeAll(); lock.unlock() }
}

func makeTempDir() -> String {
    var template = Array((NSTemporaryDirectory() + "/blogserver-XXXXXX").utf8CString)
    let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    return path
}

func writeFile(_ path: String, _ text: String) {
    _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
}

class FileWatcherTests: XCTestCase {
    var root = ""
    /// The watcher these tests check (`PollingFileWatcherTests` runs them all with polling).
    var method: FileWatcher.Method { .native }

    override func setUp() {
        root = makeTempDir()
        try? FileManager.default.createDirectory(atPath: root + "/content/posts", withIntermediateDirectories: true)
        writeFile(root + "/content/posts/a.md", "a")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: root)
    }

    func startWatcher(_ paths: [String], debounce: Double = 0.05) throws -> (FileWatcher, BatchCollector) {
        let collector = BatchCollector()
        let watcher = FileWatcher(paths: paths, debounce: debounce, method: method) { collector.add($0) }
        try watcher.start()
        addTeardownBlock { watcher.stop() }
        return (watcher, collector)
    }

    func testCreateModifyDeleteAreReported() throws {
        let (_, changes) = try startWatcher([root + "/content"])
        writeFile(root + "/content/posts/b.md", "new")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/b.md") })
        changes.reset()
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: root + "/content/posts/a.md"))
        handle.seekToEndOfFile()
        handle.write(Data("more".utf8))
        handle.closeFile()
        XCTAssertTrue(waitUntil { changes.all == [self.root + "/content/posts/a.md"] }, "\(changes.all)")
        changes.reset()
        try FileManager.default.removeItem(atPath: root + "/content/posts/b.md")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/b.md") })
    }

    func testSaveByRenameIsReportedUnderTheRealName() throws {
        let (_, changes) = try startWatcher([root + "/content"])
        // What many editors do: write a hidden temp file, then rename it over the original.
        writeFile(root + "/content/posts/.a.md.tmp", "saved")
        XCTAssertEqual(rename(root + "/content/posts/.a.md.tmp", root + "/content/posts/a.md"), 0)
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/a.md") })
        usleep(150_000)
        XCTAssertFalse(changes.all.contains { $0.hasSuffix(".tmp") }, "dotfiles are ignored: \(changes.all)")
        // And the file keeps being watched after the rename.
        changes.reset()
        writeFile(root + "/content/posts/a.md", "again")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/a.md") })
    }

    func testFoldersCreatedLaterAreFollowed() throws {
        let (watcher, changes) = try startWatcher([root + "/content"])
        let before = watcher.watchedFolderCount
        try FileManager.default.createDirectory(atPath: root + "/content/posts/2024/img", withIntermediateDirectories: true)
        writeFile(root + "/content/posts/2024/img/x.png", "png")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/2024/img/x.png") }, "\(changes.all)")
        XCTAssertTrue(waitUntil { watcher.watchedFolderCount == before + 2 })
        changes.reset()
        writeFile(root + "/content/posts/2024/c.md", "c")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/2024/c.md") })
        // A folder moved in from outside is followed too.
        let outside = makeTempDir()
        writeFile(outside + "/moved.md", "m")
        XCTAssertEqual(rename(outside, root + "/content/drafts"), 0)
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/drafts/moved.md") }, "\(changes.all)")
        changes.reset()
        writeFile(root + "/content/drafts/later.md", "l")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/drafts/later.md") })
    }

    func testBurstsAreDebouncedIntoOneBatch() throws {
        let (_, changes) = try startWatcher([root + "/content"], debounce: 0.1)
        for index in 0..<20 {
            writeFile(root + "/content/posts/burst\(index).md", "\(index)")
        }
        XCTAssertTrue(waitUntil { changes.all.count == 20 })
        usleep(300_000)
        XCTAssertLessThanOrEqual(changes.count, 2, "20 quick writes arrive in one (at most two) batches")
    }

    func testSingleFileRootsAndRootsThatAppearLater() throws {
        writeFile(root + "/blog.yml", "title: x")
        let (_, changes) = try startWatcher([root + "/blog.yml", root + "/static"])
        writeFile(root + "/other.txt", "not watched")
        writeFile(root + "/blog.yml", "title: y")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/blog.yml") })
        usleep(150_000)
        XCTAssertFalse(changes.all.contains(root + "/other.txt"))
        try FileManager.default.createDirectory(atPath: root + "/static", withIntermediateDirectories: true)
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/static") })
        usleep(100_000)
        writeFile(root + "/static/robots.txt", "r")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/static/robots.txt") }, "\(changes.all)")
    }

    func testStopEndsTheThreadAndCallbacks() throws {
        let (watcher, changes) = try startWatcher([root + "/content"])
        watcher.stop()
        writeFile(root + "/content/posts/after.md", "x")
        usleep(200_000)
        XCTAssertEqual(changes.count, 0)
        watcher.stop()
    }
}

/// The same tests with the polling watcher (`blog serve --poll`, and the only one without inotify).
/// Each test is named again so that test discovery lists it for this class too.
final class PollingFileWatcherTests: FileWatcherTests {
    override var method: FileWatcher.Method { .polling }

    override func testCreateModifyDeleteAreReported() throws { try super.testCreateModifyDeleteAreReported() }
    override func testSaveByRenameIsReportedUnderTheRealName() throws { try super.testSaveByRenameIsReportedUnderTheRealName() }
    override func testFoldersCreatedLaterAreFollowed() throws { try super.testFoldersCreatedLaterAreFollowed() }
    override func testBurstsAreDebouncedIntoOneBatch() throws { try super.testBurstsAreDebouncedIntoOneBatch() }
    override func testSingleFileRootsAndRootsThatAppearLater() throws { try super.testSingleFileRootsAndRootsThatAppearLater() }
    override func testStopEndsTheThreadAndCallbacks() throws { try super.testStopEndsTheThreadAndCallbacks() }

    func testEditsInTheSameSecondWithTheSameSizeAreSeen() throws {
        let (_, changes) = try startWatcher([root + "/content"])
        // Same size, written twice well within one second: the modification time's fraction tells.
        writeFile(root + "/content/posts/a.md", "b")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/a.md") })
        changes.reset()
        usleep(150_000)
        writeFile(root + "/content/posts/a.md", "c")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/a.md") }, "\(changes.all)")
    }

    func testADeletedFolderIsReportedAndForgotten() throws {
        try FileManager.default.createDirectory(atPath: root + "/content/posts/old", withIntermediateDirectories: true)
        writeFile(root + "/content/posts/old/x.md", "x")
        let (watcher, changes) = try startWatcher([root + "/content"])
        XCTAssertEqual(watcher.watchedFolderCount, 3)
        try FileManager.default.removeItem(atPath: root + "/content/posts/old")
        XCTAssertTrue(waitUntil { changes.all.contains(self.root + "/content/posts/old") }, "\(changes.all)")
        XCTAssertEqual(watcher.watchedFolderCount, 2)
    }
}
