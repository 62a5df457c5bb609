import BlogCore
import BlogSite
import Foundation
import XCTest

final class OutputWriterTests: XCTestCase {
    func file(_ path: String, _ text: String) -> OutputFile { OutputFile(path: path, bytes: Array(text.utf8)) }

    /// A temporary folder with a site folder in it and a writer for its `public/`.
    func makeSite() throws -> (root: URL, output: URL, writer: OutputWriter) {
        let root = try Fixtures.temporaryDirectory()
        let source = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        let output = root.appendingPathComponent("public")
        return (root, output, OutputWriter(output: output, source: source))
    }

    func testUnchangedFilesKeepTheirInodeAndStaleFilesGo() throws {
        let (root, output, writer) = try makeSite()
        var summary = try writer.write([file("a/index.html", "A"), file("b.txt", "B"), file("old.txt", "O")])
        XCTAssertEqual(summary.written, 3)
        let before = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("a/index.html").path)
        // A file the user put there by hand must survive.
        try "mine".write(to: output.appendingPathComponent("notes.txt"), atomically: false, encoding: .utf8)
        summary = try writer.write([file("a/index.html", "A"), file("b.txt", "B2")])
        XCTAssertEqual(summary, OutputWriter.Summary(written: 1, unchanged: 1, removed: 1))
        let after = try FileManager.default.attributesOfItem(atPath: output.appendingPathComponent("a/index.html").path)
        XCTAssertEqual(before[.systemFileNumber] as? Int, after[.systemFileNumber] as? Int, "an unchanged file is not rewritten")
        XCTAssertEqual(before[.modificationDate] as? Date, after[.modificationDate] as? Date)
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("b.txt"), encoding: .utf8), "B2")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("old.txt").path))
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("notes.txt"), encoding: .utf8), "mine")
        // Nothing changed: nothing is touched.
        XCTAssertEqual(try writer.write([file("a/index.html", "A"), file("b.txt", "B2")]), OutputWriter.Summary(unchanged: 2))
        // A folder emptied of blog's files goes; one with a file of the user's stays.
        try "x".write(to: output.appendingPathComponent("a/mine.txt"), atomically: false, encoding: .utf8)
        try writer.write([file("c/d/index.html", "C")])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("b.txt").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: output.appendingPathComponent("a/mine.txt").path))
        try writer.write([file("index.html", "I")])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("c").path), "emptied folders are removed")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: root.path).filter { $0.hasPrefix(".") }
        XCTAssertEqual(leftovers, [], "no staging folder is left behind")
        let temporary = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { $0.contains(".blog-tmp") || $0.hasSuffix(".tmp") }
        XCTAssertEqual(temporary, [], "no temporary files are left behind")
    }

    /// A rebuild compares each output with the file there piece by piece: a file of several
    /// pieces that differs only in its first or its last byte, or only past the length the new
    /// bytes have, is written again; one equal in every byte is not; a symbolic link in its place
    /// is replaced even when what it points to is equal.
    func testRebuildComparesLargeFilesToTheLastByte() throws {
        let (root, output, writer) = try makeSite()
        let large = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
        var lastChanged = large
        lastChanged[large.count - 1] ^= 1
        var firstChanged = large
        firstChanged[0] ^= 1
        let names = ["same.html", "last.html", "first.html", "shorter.html", "link.html"]
        let first = names.map { OutputFile(path: $0, bytes: large) }
        XCTAssertEqual(try writer.write(first).written, names.count)
        let target = root.appendingPathComponent("elsewhere.html")
        try Data(large).write(to: target)
        try FileManager.default.removeItem(at: output.appendingPathComponent("link.html"))
        try FileManager.default.createSymbolicLink(at: output.appendingPathComponent("link.html"), withDestinationURL: target)
        let second = [OutputFile(path: "same.html", bytes: large), OutputFile(path: "last.html", bytes: lastChanged),
                      OutputFile(path: "first.html", bytes: firstChanged), OutputFile(path: "shorter.html", bytes: Array(large.dropLast())),
                      OutputFile(path: "link.html", bytes: large)]
        XCTAssertEqual(try writer.write(second), OutputWriter.Summary(written: 4, unchanged: 1))
        for file in second {
            let url = output.appendingPathComponent(file.path)
            XCTAssertEqual(Array(try Data(contentsOf: url)), file.bytes, file.path)
            let type = try FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType
            XCTAssertEqual(type, .typeRegular, file.path)
        }
        XCTAssertEqual(Array(try Data(contentsOf: target)), large, "the link's target is left alone")
        XCTAssertEqual(try writer.write(second), OutputWriter.Summary(unchanged: 5))
    }

    func testRefusesForeignFolderAndSourceFolder() throws {
        let root = try Fixtures.temporaryDirectory()
        let source = root.appendingPathComponent("site")
        let foreign = root.appendingPathComponent("docs")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try "keep".write(to: foreign.appendingPathComponent("thesis.txt"), atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try OutputWriter(output: foreign, source: source).write([file("index.html", "x")])) { error in
            XCTAssertTrue("\(error)".contains("not empty and was not written by blog"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOf: foreign.appendingPathComponent("thesis.txt"), encoding: .utf8), "keep")
        XCTAssertThrowsError(try OutputWriter(output: source, source: source).validate())
        XCTAssertThrowsError(try OutputWriter(output: root, source: source).validate(), "the output contains the source")
    }

    func testRefusesToOverwriteAForeignFileInsideTheOutput() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([file("index.html", "x")])
        try "hand made".write(to: output.appendingPathComponent("about.html"), atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try writer.write([file("index.html", "x"), file("about.html", "generated")]))
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("about.html"), encoding: .utf8), "hand made")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("index.html"), encoding: .utf8), "x")
    }

    func testRejectsPathsOutsideTheOutput() throws {
        let root = try Fixtures.temporaryDirectory()
        let writer = OutputWriter(output: root.appendingPathComponent("public"), source: root.appendingPathComponent("site"))
        XCTAssertThrowsError(try writer.write([file("../escape.txt", "x")]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("escape.txt").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("public").path))
        // Every unsafe form is refused before anything is written, wherever it sits in the path.
        for bad in ["", "/abs.txt", "a/../../escape.txt", "..", ".", "a/./b.txt", "a//b.txt", "a/", "a/..", "./a", "a\0b", "ノート/../../x"] {
            XCTAssertThrowsError(try writer.write([file(bad, "x")]), "\(bad.debugDescription) must be refused") { error in
                XCTAssertTrue("\(error)".contains("refusing to write outside the output folder"), "\(error)")
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("public").path))
        // Names that only look odd are written, in folders made parents first.
        let odd = ["...", ".well-known/x.txt", "a..b/c.d/e..", "タグ/日本語/index.html", "x/y/z/w/v.txt"]
        try writer.write(odd.map { file($0, $0) })
        for path in odd {
            XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("public/" + path), encoding: .utf8), path)
        }
    }
}

final class OutputWriterFailureTests: XCTestCase {
    func testAFailedWriteLeavesTheOldOutputAsItWas() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([OutputFile(path: "a.txt", bytes: Array("old a".utf8)), OutputFile(path: "sub/b.txt", bytes: Array("old b".utf8))])
        // A folder sitting where the second file's temporary copy goes makes that write fail, even for root.
        let blocker = output.appendingPathComponent("sub/b.txt.blog-tmp-\(getpid())")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        XCTAssertThrowsError(try writer.write([OutputFile(path: "a.txt", bytes: Array("new a".utf8)), OutputFile(path: "sub/b.txt", bytes: Array("new b".utf8))]))
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("a.txt"), encoding: .utf8), "old a", "nothing was switched")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("sub/b.txt"), encoding: .utf8), "old b")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: output.path).filter { $0.contains("blog-tmp") }, [],
                       "the first file's temporary copy was removed")
    }

    func testAFailedBatchSurfacesLaterAndNothingIsSwitched() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        try writer.write([OutputFile(path: "x/a.txt", bytes: Array("old a".utf8)), OutputFile(path: "z.txt", bytes: Array("old z".utf8))])
        let blocker = output.appendingPathComponent("x/a.txt.blog-tmp-\(getpid())")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: true)
        let transaction = try writer.begin()
        // Batches are written in the background: the failure of the first one is reported by a
        // later call, and no batch after it reaches the output.
        var thrown = false
        do {
            try transaction.add([OutputFile(path: "x/a.txt", bytes: Array("new a".utf8))])
            for n in 0..<50 {
                try transaction.add([OutputFile(path: "more/\(n).txt", bytes: Array("\(n)".utf8))])
            }
            _ = try transaction.commit()
        } catch {
            thrown = true
            transaction.abort()
        }
        XCTAssertTrue(thrown, "the failed write is reported")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("x/a.txt"), encoding: .utf8), "old a")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("z.txt"), encoding: .utf8), "old z", "stale files are not removed")
        let leftovers = FileManager.default.enumerator(atPath: output.path)!.compactMap { $0 as? String }.filter { $0.contains("blog-tmp") && !$0.hasPrefix("x/a.txt.blog-tmp") }
        XCTAssertEqual(leftovers, [])
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("more/0.txt").path))
    }

    /// An update in many batches: each batch is compared and its folders made on one queue while
    /// the batch before it is written on another; the counts and the files come out as if it were
    /// one batch.
    func testBatchesOfAnUpdateAreCountedAndLandInOrder() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        func batch(_ n: Int, version: (Int, Int) -> String) -> [OutputFile] {
            (0..<30).map { OutputFile(path: "b\(n)/f\($0)/index.html", bytes: Array(version(n, $0).utf8)) }
        }
        let first = try writer.begin()
        for n in 0..<20 { try first.add(batch(n) { "\($0)-\($1)" }) }
        XCTAssertEqual(try first.commit().written, 600)
        // Every third file changes, batches 20-24 are new (new folders), batch 19 goes.
        let second = try writer.begin()
        for n in 0..<19 { try second.add(batch(n) { $1 % 3 == 0 ? "\($0)-\($1) changed" : "\($0)-\($1)" }) }
        for n in 20..<25 { try second.add(batch(n) { "\($0)-\($1) new" }) }
        XCTAssertEqual(try second.commit(), OutputWriter.Summary(written: 19 * 10 + 5 * 30, unchanged: 19 * 20, removed: 30))
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("b3/f6/index.html"), encoding: .utf8), "3-6 changed")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("b3/f7/index.html"), encoding: .utf8), "3-7")
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("b24/f29/index.html"), encoding: .utf8), "24-29 new")
        XCTAssertFalse(FileManager.default.fileExists(atPath: output.appendingPathComponent("b19").path))
        let temporary = try FileManager.default.subpathsOfDirectory(atPath: output.path).filter { $0.contains(".blog-tmp") || $0.hasPrefix(".blog-build-") }
        XCTAssertEqual(temporary, [])
    }

    func testBatchesOfAFreshBuildAllLand() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let transaction = try OutputWriter(output: output, source: root.appendingPathComponent("site")).begin()
        for batch in 0..<20 {
            try transaction.add((0..<30).map { OutputFile(path: "b\(batch)/f\($0)/index.html", bytes: Array("\(batch)-\($0)".utf8)) })
        }
        XCTAssertEqual(try transaction.commit().written, 600)
        XCTAssertEqual(try String(contentsOf: output.appendingPathComponent("b19/f29/index.html"), encoding: .utf8), "19-29")
        XCTAssertThrowsError(try OutputWriter(output: output, source: root.appendingPathComponent("site")).begin().add(
            [OutputFile(path: "a", bytes: []), OutputFile(path: "a", bytes: [])]), "a path given twice is refused at once")
    }
}

final class BuildStampTests: XCTestCase {
    func testUpToDateNeedsSameInputsUntouchedOutputAndNoDuePost() throws {
        let root = try Fixtures.temporaryDirectory()
        let output = root.appendingPathComponent("public")
        let writer = OutputWriter(output: output, source: root.appendingPathComponent("site"))
        XCTAssertFalse(writer.isUpToDate(BuildStamp(inputs: "abc")), "no output yet")
        let due = Date(timeIntervalSince1970: 2_000_000_000)
        try writer.write([OutputFile(path: "index.html", bytes: Array("x".utf8))], stamp: BuildStamp(inputs: "abc", due: 2_000_000_000))
        XCTAssertTrue(writer.isUpToDate(BuildStamp(inputs: "abc"), now: due.addingTimeInterval(-1)))
        XCTAssertFalse(writer.isUpToDate(BuildStamp(inputs: "abd"), now: due.addingTimeInterval(-1)), "other inputs")
        XCTAssertFalse(writer.isUpToDate(BuildStamp(inputs: "abc"), now: due), "a future post became due")
        try "changed".write(to: output.appendingPathComponent("index.html"), atomically: false, encoding: .utf8)
        XCTAssertFalse(writer.isUpToDate(BuildStamp(inputs: "abc"), now: due.addingTimeInterval(-1)), "the output was edited")
    }

    func testInputsFollowEveryFileAndOption() throws {
        let site = try Fixtures.copy("basic")
        let options = BuildOptions(siteDirectory: site)
        let first = BuildStamp.inputs(for: options)
        XCTAssertEqual(BuildStamp.inputs(for: options), first, "stable")
        XCTAssertNotEqual(BuildStamp.inputs(for: BuildOptions(siteDirectory: site, includeDrafts: true)), first)
        try FileManager.default.createDirectory(at: site.appendingPathComponent("layouts"), withIntermediateDirectories: true)
        try "x".write(to: site.appendingPathComponent("layouts/new.mustache"), atomically: false, encoding: .utf8)
        XCTAssertNotEqual(BuildStamp.inputs(for: options), first, "a new template")
    }

    func testInputsOfALargeFolderFollowEachFile() throws {
        // More files in one folder than one batch of lstat calls (they are made on all cores then).
        let site = try Fixtures.copy("basic")
        let posts = site.appendingPathComponent("content/posts")
        for n in 0..<700 { try "---\ntitle: P\(n)\ndate: 2020-01-01\n---\nx\n".write(to: posts.appendingPathComponent("bulk-\(n).md"), atomically: false, encoding: .utf8) }
        let options = BuildOptions(siteDirectory: site)
        let first = BuildStamp.inputs(for: options)
        for _ in 0..<5 { XCTAssertEqual(BuildStamp.inputs(for: options), first, "stable whatever the threads' order") }
        for n in [0, 255, 256, 511, 699] {
            let file = posts.appendingPathComponent("bulk-\(n).md")
            try "---\ntitle: Changed\ndate: 2020-01-01\n---\nlonger body\n".write(to: file, atomically: false, encoding: .utf8)
            let changed = BuildStamp.inputs(for: options)
            XCTAssertNotEqual(changed, first, "file \(n) changed")
            try FileManager.default.removeItem(at: file)
            XCTAssertNotEqual(BuildStamp.inputs(for: options), changed, "file \(n) removed")
        }
    }
}
