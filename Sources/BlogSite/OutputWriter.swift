import Synchronization
import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a built site to disk without ever leaving a half-written output folder or losing a file
/// blog did not write:
/// - a first build is written into a staging folder beside the output and renamed into place;
/// - later builds change the output in two steps: every new or changed file is first written
///   next to its target under a temporary name (a failure here removes them all and leaves the
///   output as it was), then all of them are renamed over their targets at once;
/// - a file whose bytes did not change is not touched (same inode, same modification time, so
///   rsync and CDNs see no change);
/// - files a previous build wrote (listed in its manifest) and this build does not are removed;
/// - anything else in the output folder (a `.git`, a `CNAME` put there by hand) is left alone, and a
///   build that would overwrite such a file stops with an error instead;
/// - an output folder that is the source folder or contains it is refused, and so is a non-empty
///   folder without blog's manifest;
/// - a build stopped half way (`Transaction.interrupt`, which `blog build` calls on Ctrl-C) removes
///   what it staged; what a build killed outright left behind (its staging folder, or its
///   temporary files and their marker in the output) is removed by the next one (`recoverLeftovers`).
public struct OutputWriter {
    public static let manifestName = ".blog-manifest"
    /// What a build reads from the source folder.
    static let readFolders = ["content", "static", "layouts", "themes", "blog.yml"]
    static let manifestHeader = "# blog build manifest v1: files written by `blog build`. Do not edit."

    public var output: URL
    public var source: URL

    public init(output: URL, source: URL) {
        self.output = output.standardizedFileURL
        self.source = source.standardizedFileURL
    }

    public struct Summary: Sendable, Equatable {
        public var written = 0
        public var unchanged = 0
        public var removed = 0

        public init(written: Int = 0, unchanged: Int = 0, removed: Int = 0) {
            self.written = written
            self.unchanged = unchanged
            self.removed = removed
        }
    }

    static func realPath(_ url: URL) -> String {
        // Resolve what exists; keep the missing tail as written.
        var existing = url
        var tail: [String] = []
        while !FileManager.default.fileExists(atPath: existing.path) && existing.path != "/" {
            tail.insert(existing.lastPathComponent, at: 0)
            existing = existing.deletingLastPathComponent()
        }
        var resolved = existing.resolvingSymlinksInPath().path
        for part in tail { resolved = (resolved as NSString).appendingPathComponent(part) }
        return resolved
    }

    /// Checks the output folder before anything is built, so a refusal costs nothing.
    public func validate() throws {
        let outputPath = OutputWriter.realPath(output)
        let sourcePath = OutputWriter.realPath(source)
        let location = SourceLocation(file: output.path)
        if outputPath == "/" || outputPath == NSHomeDirectory() {
            throw Diagnostic.error("refusing to write the site into \(outputPath)", at: location)
        }
        if outputPath == sourcePath || sourcePath.hasPrefix(outputPath + "/") {
            throw Diagnostic.error("the output folder must not be the source folder or contain it; choose another --output", at: location)
        }
        // A build must not write into what it reads (the next build would read its own output).
        for name in OutputWriter.readFolders {
            let read = OutputWriter.realPath(source.appendingPathComponent(name))
            if outputPath == read || outputPath.hasPrefix(read + "/") {
                throw Diagnostic.error("the output folder must not be \(name) or inside it: blog reads that; choose another --output", at: location)
            }
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: output.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw Diagnostic.error("the output path exists and is not a folder", at: location)
            }
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: output.path)) ?? []
            if !entries.isEmpty && !entries.contains(OutputWriter.manifestName) {
                throw Diagnostic.error("the output folder is not empty and was not written by blog (no \(OutputWriter.manifestName)); refusing to touch it. Empty it or choose another --output", at: location)
            }
        }
    }

    func readManifest() -> Set<String> {
        guard let manifest = Manifest(path: output.appendingPathComponent(OutputWriter.manifestName).path) else { return [] }
        var paths = Set<String>(minimumCapacity: manifest.paths.count)
        for range in manifest.paths { paths.insert(manifest.string(range)) }
        return paths
    }

    /// The manifest's lines, found on its bytes: splitting a large site's manifest into
    /// `Substring`s would cost more than the rest of the up-to-date check.
    struct Manifest {
        let bytes: [UInt8]
        /// The lines that list files (not empty, not starting with `#`).
        var paths: [Range<Int>] = []
        var inputs: String?
        var outputs: String?
        var due: Int64?

        /// nil when the file cannot be read or is not UTF-8.
        init?(path: String) {
            guard let data = FileManager.default.contents(atPath: path) else { return nil }
            let bytes = [UInt8](data)
            guard SourceText.firstInvalidUTF8(bytes[...]) == nil else { return nil }
            self.bytes = bytes
            var start = 0
            let count = bytes.count
            while start < count {
                var end = start
                while end < count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if end > start {
                    if bytes[start] != UInt8(ascii: "#") {
                        paths.append(start..<end)
                    } else if let rest = Manifest.after("# inputs ", in: bytes, start..<end) {
                        inputs = string(rest)
                    } else if let rest = Manifest.after("# outputs ", in: bytes, start..<end) {
                        outputs = string(rest)
                    } else if let rest = Manifest.after("# due ", in: bytes, start..<end) {
                        due = Int64(string(rest))
                    }
                }
                start = end + 1
            }
        }

        func string(_ range: Range<Int>) -> String {
            String(decoding: bytes[range], as: UTF8.self)
        }

        /// The rest of the line `range` after `prefix`, when it starts with it.
        private static func after(_ prefix: StaticString, in bytes: [UInt8], _ range: Range<Int>) -> Range<Int>? {
            let n = prefix.utf8CodeUnitCount
            guard range.count >= n else { return nil }
            let head = UnsafeBufferPointer(start: prefix.utf8Start, count: n)
            for k in 0..<n where bytes[range.lowerBound + k] != head[k] { return nil }
            return (range.lowerBound + n)..<range.upperBound
        }
    }

    /// Whether the output folder holds exactly what a build with `stamp`'s inputs wrote, untouched
    /// since, with no future post due yet.
    public func isUpToDate(_ stamp: BuildStamp, now: Date = Date()) -> Bool {
        guard let manifest = Manifest(path: output.appendingPathComponent(OutputWriter.manifestName).path) else { return false }
        // A build that was killed left its temporary files here: the next build removes them.
        if !OutputWriter.leftoverMarkers(in: output.path).isEmpty { return false }
        guard let inputs = manifest.inputs, inputs == stamp.inputs, let outputs = manifest.outputs else { return false }
        if let due = manifest.due, Int64(now.timeIntervalSince1970) >= due { return false }
        return BuildStamp.outputs(root: output.path, manifest: manifest) == outputs
    }

    /// Writes `files` (paths relative to the output folder) and returns what changed. With a
    /// `stamp`, the manifest also records what the build was made from (see `isUpToDate`).
    @discardableResult
    public func write(_ files: [OutputFile], stamp: BuildStamp? = nil) throws -> Summary {
        let transaction = try begin()
        do {
            try transaction.add(files)
            return try transaction.commit(stamp: stamp)
        } catch {
            transaction.abort()
            throw error
        }
    }

    /// Starts writing a site whose files arrive in batches (so a build need not hold them all).
    /// Nothing is visible in the output folder until `commit`; `abort` removes what was staged.
    public func begin() throws -> Transaction {
        try validate()
        try recoverLeftovers()
        let exists = FileManager.default.fileExists(atPath: output.path)
        let entries = exists ? try FileManager.default.contentsOfDirectory(atPath: output.path) : []
        return try Transaction(writer: self, fresh: entries.isEmpty, outputExists: exists)
    }

    // MARK: - Leftovers of builds that did not finish

    /// The staging folder of a first build by process `pid`, beside the output: this prefix + pid.
    static func stagingPrefix(output: String) -> String { ".\(output).blog-staging-" }
    /// The marker a later build by process `pid` keeps in the output while its temporary files
    /// (ending in `temporarySuffix(pid)`) are there: this prefix + pid.
    static let markerPrefix = ".blog-build-"
    static func markerName(pid: Int32) -> String { markerPrefix + "\(pid)" }
    static func temporarySuffix(pid: Int32) -> String { ".blog-tmp-\(pid)" }

    /// `prefix` followed by a process id and nothing else: that id, else nil.
    static func processID(in name: String, after prefix: String) -> Int32? {
        guard name.hasPrefix(prefix) else { return nil }
        let digits = name.utf8.dropFirst(prefix.utf8.count)
        // Digits only: `Int32` alone would also take a sign.
        guard digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let pid = Int32(String(decoding: digits, as: UTF8.self)), pid > 0 else { return nil }
        return pid
    }

    /// Whether no process `pid` exists (a process of another user still counts as alive).
    static func isGone(_ pid: Int32) -> Bool {
        pid != getpid() && kill(pid, 0) != 0 && errno == ESRCH
    }

    /// Process ids of the builds that left their marker in the output folder `root` and are gone.
    static func leftoverMarkers(in root: String) -> [Int32] {
        goneProcesses(named: markerPrefix, in: root)
    }

    /// The ids of gone processes that entries of `folder` named `prefix` + id belong to, in order.
    static func goneProcesses(named prefix: String, in folder: String) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.compactMap { processID(in: $0, after: prefix) }.filter(isGone).sorted()
    }

    /// Removes what builds that were killed before they finished left behind, and only that:
    /// - beside the output, the staging folder of a first build (`.public.blog-staging-PID`);
    /// - in the output, the temporary files of a later build (`NAME.blog-tmp-PID`) and its marker
    ///   (`.blog-build-PID`), which says those files are there.
    /// A name counts only with the id of a process that no longer exists, so a build running now
    /// (in this process or another) is never disturbed.
    func recoverLeftovers() throws {
        // A switch that had begun is finished first; the rest of what a killed build left is removed.
        try SwitchJournal.recover(root: output.path, location: SourceLocation(file: output.path))
        SwitchJournal.removeSideFolders(root: output.path)
        let parent = output.deletingLastPathComponent().path
        let prefix = OutputWriter.stagingPrefix(output: output.lastPathComponent)
        for pid in OutputWriter.goneProcesses(named: prefix, in: parent) {
            try? FileManager.default.removeItem(atPath: parent + "/" + prefix + "\(pid)")
        }
        for pid in OutputWriter.leftoverMarkers(in: output.path) {
            let suffix = OutputWriter.temporarySuffix(pid: pid)
            if let walker = FileManager.default.enumerator(atPath: output.path) {
                while let relative = walker.nextObject() as? String {
                    if relative.hasSuffix(suffix) { unlink(output.path + "/" + relative) }
                }
            }
            let marker = output.path + "/" + OutputWriter.markerName(pid: pid)
            // The folders it made, children first; one that holds anything stays.
            let lines = ((try? String(contentsOfFile: marker, encoding: .utf8)) ?? "").split(separator: "\n")
            for line in lines.reversed() where !line.hasPrefix("#") && OutputWriter.isSafeRelativePath(String(line)) {
                rmdir(output.path + "/" + line)
            }
            unlink(marker)
            // A manifest written for a switch that never began.
            unlink(output.path + "/" + OutputWriter.manifestName + ".tmp")
        }
    }

    /// One build's writes. A first build goes into a staging folder that `commit` renames into
    /// place; a later build stages each new or changed file beside its target under a temporary
    /// name, and `commit` renames them all, removes stale files and writes the manifest.
    ///
    /// Batches are written beside the caller while it goes on making the next one (at most three
    /// batches wait), so rendering and file-system work overlap; a write error is thrown by the next
    /// `add` or by `commit`. Each batch passes two lanes: the first compares it with what is there
    /// and makes its folders (one `mkdir` at a time: new folders under one parent wait for each
    /// other in the kernel anyway), the second writes its files on all cores. A batch's folders
    /// are made while the batch before it is written: with both on one lane, a core would sit
    /// idle through every batch's folders.
    public final class Transaction: @unchecked Sendable {
        let writer: OutputWriter
        let fresh: Bool
        let outputExists: Bool
        let root: String
        let location: SourceLocation
        let suffix: String
        let oldManifest: Set<String>
        private var paths = Set<String>()
        private var madeDirectories = Set<String>()
        /// Folders this transaction created (update mode: removed again if it does not commit).
        private var createdDirectories: [String] = []
        /// Files staged beside their targets (update mode).
        private var staged: [String] = []
        /// Files staged in the side folder, below a folder that replaces a file (update mode).
        private var stagedAside: [String] = []
        /// Folders met so far, and whether each is a file the last build wrote that this build
        /// does not (a folder takes its place).
        private var folderBlocked: [String: Bool] = [:]
        private var blockedFolders = Set<String>()
        private var madeAside = Set<String>()
        /// Paths of new files whose target is a folder now (the switch removes it first).
        private var replacedFolders: [String] = []
        /// The side folder of this build (`SwitchJournal.sideFolderName`).
        private var sideRoot: String { root + "/" + SwitchJournal.sideFolderName(pid: getpid()) }
        /// Files written (on `writeLane`) and found unchanged (on `prepareLane`); read by `commit`.
        private var written = 0
        private var unchanged = 0
        /// What `fstat` said of each file written (read and written on `writeLane`, then by `commit`).
        private var writtenInfo: [String: BuildStamp.FileInfo] = [:]
        /// Set once `commit`, `abort` or `interrupt` has run (read and written under `phase`).
        private var finished = false
        private var interrupted = false

        /// Whether `interrupt()` ended this transaction (read after `abort()` or `commit()` returned
        /// or threw: both wait for an interrupt under way).
        public var wasInterrupted: Bool { phase.withLock { _ in interrupted } }
        /// Held by `commit`, `abort` and `interrupt`, so an interruption never meets a commit half way.
        private let phase = Mutex(())
        /// The marker of an update-mode build in the output folder (nil for a first build).
        private let marker: String?
        /// Prepares batches in order, one at a time, beside the caller: compares, makes the folders.
        private let prepareLane = WorkShare.Lane("blog.output-writer")
        /// Writes the prepared batches' files, in order, one batch at a time.
        private let writeLane = WorkShare.Lane("blog.output-writer.files")
        private let slots = DispatchSemaphore(value: 3)
        /// The first staging error (under `failureLock`: both lanes and the caller read it).
        private var storedFailure: Error?
        private let failureLock = Mutex(())
        private var failure: Error? { failureLock.withLock { _ in storedFailure } }

        init(writer: OutputWriter, fresh: Bool, outputExists: Bool) throws {
            self.writer = writer
            self.fresh = fresh
            self.outputExists = outputExists
            location = SourceLocation(file: writer.output.path)
            if fresh {
                let parent = writer.output.deletingLastPathComponent()
                let staging = parent.appendingPathComponent(OutputWriter.stagingPrefix(output: writer.output.lastPathComponent) + "\(getpid())")
                do {
                    try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
                } catch {
                    throw Diagnostic.error("cannot create the folder \(parent.path): \(error.localizedDescription)", at: SourceLocation(file: writer.output.path))
                }
                if FileManager.default.fileExists(atPath: staging.path) { try? FileManager.default.removeItem(at: staging) }
                guard mkdir(staging.path, 0o755) == 0 else {
                    throw Diagnostic.error("cannot create \(staging.path): \(String(cString: strerror(errno)))", at: SourceLocation(file: writer.output.path))
                }
                root = staging.path
                suffix = ""
                oldManifest = []
                marker = nil
            } else {
                root = writer.output.path
                suffix = OutputWriter.temporarySuffix(pid: getpid())
                oldManifest = writer.readManifest()
                // Says that this process's temporary files are in the output, for the next build to
                // remove should this one be killed before it is done.
                let marker = root + "/" + OutputWriter.markerName(pid: getpid())
                let note = "# blog build (process \(getpid())) is writing here: files ending in \(suffix) are its temporary files, and the folders below are new.\n"
                guard OutputWriter.writeBytes(Array(note.utf8), toPath: marker) else {
                    throw Diagnostic.error("cannot write in the output folder: \(String(cString: strerror(errno)))", at: location)
                }
                self.marker = marker
            }
        }

        /// Stages a batch of files. Throws (and leaves the output as it was, once `abort` runs) on a
        /// write error, a path outside the folder, a path given twice, or a file blog did not write.
        public func add(_ files: [OutputFile]) throws {
            for file in files {
                guard OutputWriter.isSafeRelativePath(file.path) else {
                    throw Diagnostic.error("refusing to write outside the output folder: \(file.path)", at: location)
                }
                guard paths.insert(file.path).inserted else {
                    throw Diagnostic.error("two outputs have the same path \(file.path)", at: location)
                }
            }
            if let failure { throw failure }
            slots.wait()
            prepareLane.async { [self] in
                // The slot is given back by whichever lane ends the batch.
                var handedOn = false
                defer { if !handedOn { slots.signal() } }
                guard failure == nil else { return }
                let toWrite: (beside: [OutputFile], aside: [OutputFile])
                do {
                    toWrite = try prepare(files)
                } catch {
                    setFailure(error)
                    return
                }
                handedOn = true
                writeLane.async { [self] in
                    defer { slots.signal() }
                    guard failure == nil else { return }
                    do {
                        try write(toWrite.beside, aside: toWrite.aside)
                    } catch {
                        setFailure(error)
                    }
                }
            }
        }

        /// Keeps the first failure.
        private func setFailure(_ error: Error) {
            failureLock.withLock { _ in if storedFailure == nil { storedFailure = error } }
        }

        /// Waits for every batch handed over so far (the first lane hands each on to the second
        /// before it is done with it).
        private func waitForBatches() {
            prepareLane.wait()
            writeLane.wait()
        }

        /// Waits for the staged batches; throws the first error one of them met.
        private func drain() throws {
            waitForBatches()
            if let failure { throw failure }
        }

        /// Compares a batch with what is there and makes its folders (on `prepareLane`); returns the
        /// files to write.
        private func prepare(_ files: [OutputFile]) throws -> (beside: [OutputFile], aside: [OutputFile]) {
            var toWrite = files
            if !fresh {
                // Compare with what is there (on all cores); a path blog did not write before must not exist.
                // 0 write, 1 unchanged, 2 foreign file in the way, 3 write over a folder
                let root = self.root
                let oldManifest = self.oldManifest
                let state: [Int8] = OutputWriter.withFolder(root) { folder, prefix in
                    WorkShare.map(count: files.count, batch: 16) { index -> Int8 in
                        let file = files[index]
                        let path = prefix + file.path
                        if oldManifest.contains(file.path) {
                            return OutputWriter.sameBytes(atPath: path, file.bytes, relativeTo: folder) ? 1 : 0
                        }
                        var info = stat()
                        if fstatat(folder, path, &info, AT_SYMLINK_NOFOLLOW) != 0 { return 0 }
                        // A folder where a file goes: the switch replaces it if blog wrote all it holds.
                        return (info.st_mode & S_IFMT) == S_IFDIR ? 3 : 2
                    }
                }
                if let clash = state.firstIndex(of: 2) {
                    throw Diagnostic.error("\(files[clash].path) in the output folder was not written by blog and this build would replace it; move it to static/ or delete it", at: location)
                }
                for index in state.indices where state[index] == 3 { replacedFolders.append(files[index].path) }
                toWrite = files.indices.filter { state[$0] == 0 || state[$0] == 3 }.map { files[$0] }
                unchanged += files.count - toWrite.count
            }
            var aside: [OutputFile] = []
            if !fresh && !oldManifest.isEmpty {
                (toWrite, aside) = splitAside(toWrite)
            }
            let knownFolders = createdDirectories.count
            try OutputWriter.makeDirectories(for: toWrite.lazy.map(\.path), under: root, made: &madeDirectories,
                                             created: &createdDirectories, location: location)
            if !aside.isEmpty {
                if mkdir(sideRoot, 0o755) != 0 && errno != EEXIST {
                    throw Diagnostic.error("cannot create \(sideRoot): \(String(cString: strerror(errno)))", at: location)
                }
                var created: [String] = []
                try OutputWriter.makeDirectories(for: aside.lazy.map(\.path), under: sideRoot, made: &madeAside,
                                                 created: &created, location: location)
                stagedAside += aside.map(\.path)
            }
            if let marker, createdDirectories.count > knownFolders {
                // The marker lists the folders made for new files, for the next build to remove
                // them too should this one be killed.
                let lines = createdDirectories[knownFolders...].map { $0 + "\n" }.joined()
                guard OutputWriter.appendBytes(Array(lines.utf8), toPath: marker) else {
                    throw Diagnostic.error("cannot write in the output folder: \(String(cString: strerror(errno)))", at: location)
                }
            }
            if !fresh { staged += toWrite.map(\.path) }
            return (toWrite, aside)
        }

        /// Splits a batch into the files staged beside their targets and those staged in the side
        /// folder: the ones below a folder that takes the place of a file the last build wrote
        /// (that file is in the way of the folder until the switch removes it).
        private func splitAside(_ files: [OutputFile]) -> (beside: [OutputFile], aside: [OutputFile]) {
            var beside: [OutputFile] = []
            var aside: [OutputFile] = []
            beside.reserveCapacity(files.count)
            for file in files {
                // Walk up to the first folder already known; a new folder is looked up once.
                var folder = OutputWriter.parent(of: file.path)
                var blocked = false
                while !folder.isEmpty {
                    if let known = folderBlocked[folder] {
                        blocked = blocked || known
                        break
                    }
                    let isBlocked = oldManifest.contains(folder)
                    folderBlocked[folder] = isBlocked
                    if isBlocked { blockedFolders.insert(folder) }
                    blocked = blocked || isBlocked
                    folder = OutputWriter.parent(of: folder)
                }
                if blocked || hasBlockedAncestor(file.path) { aside.append(file) } else { beside.append(file) }
            }
            return (beside, aside)
        }

        /// Whether a folder above `path` is one of `blockedFolders` (answers for folders met before).
        private func hasBlockedAncestor(_ path: String) -> Bool {
            if blockedFolders.isEmpty { return false }
            var folder = OutputWriter.parent(of: path)
            while !folder.isEmpty {
                if blockedFolders.contains(folder) { return true }
                folder = OutputWriter.parent(of: folder)
            }
            return false
        }

        /// Writes a prepared batch's files (on `writeLane`).
        private func write(_ toWrite: [OutputFile], aside: [OutputFile]) throws {
            let infos = try OutputWriter.writeAll(toWrite, root: root, suffix: suffix, location: location)
            for (file, info) in zip(toWrite, infos) where info != nil { writtenInfo[file.path] = info }
            written += toWrite.count
            if !aside.isEmpty {
                let infos = try OutputWriter.writeAll(aside, root: sideRoot, suffix: "", location: location)
                for (file, info) in zip(aside, infos) where info != nil { writtenInfo[file.path] = info }
                written += aside.count
            }
        }

        /// Makes the staged site the output.
        @discardableResult
        public func commit(stamp: BuildStamp? = nil) throws -> Summary {
            try phase.withLock { _ in
                guard !finished else { throw Diagnostic.error("the build was interrupted", at: location) }
                try drain()
                finished = true
                return try switchOutput(stamp: stamp)
            }
        }

        private func switchOutput(stamp: BuildStamp?) throws -> Summary {
            let stale = oldManifest.subtracting(paths)
            var extra: [String] = []
            if let stamp {
                extra.append("# inputs \(stamp.inputs)")
                if let due = stamp.due { extra.append("# due \(due)") }
            }
            if fresh {
                let sorted = ByteOrder.sorted(paths)
                if stamp != nil {
                    extra.append("# outputs \(BuildStamp.outputs(root: root, paths: sorted, known: writtenInfo))")
                }
                do {
                    try writer.writeManifest(sorted, root: root, location: location, extra: extra)
                    if outputExists { rmdir(writer.output.path) }
                    guard rename(root, writer.output.path) == 0 else {
                        throw Diagnostic.error("cannot move the new site into place: \(String(cString: strerror(errno)))", at: location)
                    }
                } catch {
                    try? FileManager.default.removeItem(atPath: root)
                    throw error
                }
                return Summary(written: written)
            }
            // The switch, planned in a journal first (see `SwitchJournal`).
            try SwitchJournal.checkReplacedFolders(replacedFolders, stale: stale, root: root, suffix: suffix, location: location)
            let sideFolders = blockedFolders.sorted().filter { !hasBlockedAncestor($0) }
            let steps = SwitchJournal.plan(stale: stale, staged: staged, sideFolders: sideFolders, replacedFolders: replacedFolders)
            let sorted = ByteOrder.sorted(paths)
            if stamp != nil {
                extra.append("# outputs \(BuildStamp.outputs(root: root, paths: sorted, known: writtenInfo))")
            }
            try writer.writeManifest(sorted, root: root, location: location, extra: extra, install: false)
            let journal = SwitchJournal(pid: getpid(), steps: steps)
            guard journal.write(root: root) else {
                throw Diagnostic.error("cannot write in the output folder: \(String(cString: strerror(errno)))", at: location)
            }
            // From here on the switch is finished, by this build or by the next.
            staged = []
            stagedAside = []
            try journal.run(root: root, replaying: false, location: location)
            unlink(root + "/" + SwitchJournal.journalName)
            if !blockedFolders.isEmpty { try? FileManager.default.removeItem(atPath: sideRoot) }
            if let marker { unlink(marker) }
            return Summary(written: written, unchanged: unchanged, removed: stale.count)
        }

        /// Removes whatever was staged; the output folder stays as it was.
        public func abort() {
            phase.withLock { _ in
                guard !finished else { return }
                finished = true
                waitForBatches()
                removeStaged()
            }
        }

        /// Stops the build from another thread (`blog build` calls it on Ctrl-C): waits for the
        /// batch being written, makes every later `add` and `commit` throw, and removes what was
        /// staged, so the output folder stays as it was. A commit already under way is waited for
        /// and kept. Returns true when the staged files were removed, false when the transaction
        /// had already ended (committed or aborted).
        @discardableResult
        public func interrupt() -> Bool {
            phase.withLock { _ in
                guard !finished else { return false }
                finished = true
                interrupted = true
                setFailure(Diagnostic.error("the build was interrupted", at: location))
                waitForBatches()
                removeStaged()
                return true
            }
        }

        /// The staging folder, or the temporary files and the marker (once no batch is being written).
        private func removeStaged() {
            if fresh {
                try? FileManager.default.removeItem(atPath: root)
            } else {
                for path in staged { unlink(root + "/" + path + suffix) }
                staged = []
                if !stagedAside.isEmpty || !madeAside.isEmpty { try? FileManager.default.removeItem(atPath: sideRoot) }
                stagedAside = []
                // The folders made for new files, children first (one still holding a file stays).
                for directory in createdDirectories.reversed() { rmdir(root + "/" + directory) }
                createdDirectories = []
                if let marker { unlink(marker) }
            }
        }
    }

    /// Writes the manifest listing `sortedPaths` (sorted once by the caller, which also stamps them).
    /// Without `install`, it is left at its name + `.tmp` (a switch's journal moves it in place).
    func writeManifest(_ sortedPaths: [String], root: String, location: SourceLocation, extra: [String] = [], install: Bool = true) throws {
        let manifest = ([OutputWriter.manifestHeader] + extra + sortedPaths).joined(separator: "\n") + "\n"
        let target = root + "/" + OutputWriter.manifestName
        guard OutputWriter.writeBytes(Array(manifest.utf8), toPath: target + ".tmp"), !install || rename(target + ".tmp", target) == 0 else {
            throw Diagnostic.error("cannot write the manifest: \(String(cString: strerror(errno)))", at: location)
        }
    }
}
