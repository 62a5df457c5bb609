import BlogCore
import BlogSite
import Foundation
import XCTest

/// A build stopped half way (Ctrl-C) or killed outright must leave nothing behind: not in the
/// output folder (which may be deployed as it is), not beside it.
final class OutputWriterInterruptionTests: XCTestCase {
    func file(_ path: String, _ text: String) -> OutputFile { OutputFile(path: path, bytes: Array(text.utf8)) }

    /// Every file and folder under `folder` with the bytes of each file (nil for a folder).
    func snapshot(_ folder: URL) throws -> [String: Data?] {
        var out: [String: Data?] = [:]
        for path in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isDirectory)
            out[path] = isDirectory.boolValue ? .some(nil) : try Data(contentsOf: folder.appendingPathComponent(path))
        }
        return out
    }

    /// The id of a process that has ended and been reaped.
    func deadProcessID() throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/true")
        try process.run()
        process.waitUntilExit()
        return process.processIdentifier
    }

    func testAnInterruptedUpdateLeavesTheOutputAsItWas() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([file("index.html", "old"), file("sub/a.html", "old a"), file("gone.html", "old g")])
        let before = try snapshot(output)
        let transaction = try writer.begin()
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent(".blog-build-\(getpid())").path),
                      "while files are staged in the output, a marker says so")
        try transaction.add([file("index.html", "new"), file("sub/a.html", "new a")])
        try transaction.add([file("new/deep/b.html", "b"), file("sub/c.html", "c")])
        XCTAssertTrue(transaction.interrupt(), "the staged files are removed")
        XCTAssertEqual(try snapshot(output), before, "no temporary file, new folder or marker is left, and nothing was switched")
        XCTAssertThrowsError(try transaction.add([file("more.html", "m")]), "nothing more is staged after an interruption")
        XCTAssertThrowsError(try transaction.commit(), "an interrupted transaction cannot commit")
        XCTAssertFalse(transaction.interrupt(), "a second interruption has nothing left to do")
        transaction.abort()
        XCTAssertEqual(try snapshot(output), before)
        // The next build goes through as usual.
        XCTAssertEqual(try writer.write([file("index.html", "new")]), OutputWriter.Summary(written: 1, removed: 2))
    }

    func testAnInterruptedFirstBuildLeavesNoStagingFolder() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let transaction = try OutputWriter(output: output, source: root.appendingPathComponent("site")).begin()
        try transaction.add((0..<40).map { file("posts/p\($0)/index.html", "\($0)") })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), [".public.blog-staging-\(getpid())"])
        XCTAssertFalse(transaction.wasInterrupted)
        XCTAssertTrue(transaction.interrupt())
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: root.path), [], "no output and no staging folder")
        // The build's own thread then meets the interruption as an error, and must leave the exit
        // to the signal's handler (`blog build` waits when `wasInterrupted` says so).
        XCTAssertThrowsError(try transaction.add([file("posts/late/index.html", "late")]))
        transaction.abort()
        XCTAssertTrue(transaction.wasInterrupted)
    }

    func testAnInterruptionAfterTheCommitKeepsTheNewSite() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([file("index.html", "old")])
        let transaction = try writer.begin()
        try transaction.add([file("index.html", "new")])
        try transaction.commit()
        XCTAssertFalse(transaction.interrupt(), "nothing to undo once committed")
        XCTAssertFalse(transaction.wasInterrupted, "a committed build was not interrupted")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8), "new")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent(".blog-build-\(getpid())").path),
                       "the commit removed the marker")
    }

    func testWhatAKilledBuildLeftIsRemovedByTheNextOneAndNothingElse() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([file("index.html", "i"), file("sub/a.html", "a")], stamp: BuildStamp(inputs: "abc"))
        XCTAssertTrue(writer.isUpToDate(BuildStamp(inputs: "abc")))
        let dead = try deadProcessID()
        let fm = FileManager.default
        func make(_ path: String, _ text: String = "x") throws {
            let url = root.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: false, encoding: .utf8)
        }
        // A first build killed while staging, beside the output.
        try make(".public.blog-staging-\(dead)/posts/p/index.html")
        // A later build killed while staging in the output: its marker (with the folders it
        // made), its temporary files and its new, still empty, folders.
        try make("public/.blog-build-\(dead)", "# blog build (process \(dead)) is writing here\nnew\nnew/deep\n")
        try make("public/index.html.blog-tmp-\(dead)")
        try make("public/sub/a.html.blog-tmp-\(dead)")
        try fm.createDirectory(at: output.appendingPathComponent("new/deep"), withIntermediateDirectories: true)
        // Not theirs: a running process's staging folder (pid 1), other names, the user's files.
        let kept = [".public.blog-staging-1/x", ".public.blog-staging-notes/x", ".docs.blog-staging-\(dead)/x",
                    "public/notes.blog-tmp-\(dead).txt", "public/sub/b.html.blog-tmp-1", "public/.blog-build-notes"]
        for path in kept { try make(path) }
        try fm.createDirectory(at: output.appendingPathComponent("mine/empty"), withIntermediateDirectories: true)

        XCTAssertFalse(writer.isUpToDate(BuildStamp(inputs: "abc")), "leftovers in the output make the next build run")
        XCTAssertEqual(try writer.write([file("index.html", "i"), file("sub/a.html", "a")]), OutputWriter.Summary(unchanged: 2))
        let gone = [".public.blog-staging-\(dead)", "public/.blog-build-\(dead)", "public/index.html.blog-tmp-\(dead)",
                    "public/sub/a.html.blog-tmp-\(dead)", "public/new"]
        for path in gone { XCTAssertFalse(fm.fileExists(atPath: root.appendingPathComponent(path).path), "\(path) is removed") }
        for path in kept + ["public/mine/empty"] {
            XCTAssertTrue(fm.fileExists(atPath: root.appendingPathComponent(path).path), "\(path) is kept")
        }
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8), "i")
    }
}
