import BlogCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The plan of an output switch, written into the output folder before its first step, so that a
/// build killed during the switch (SIGKILL, the OOM killer) is finished by the next one instead of
/// leaving the old and the new site mixed.
///
/// A later build switches the output with many renames and unlinks, each atomic but not all of
/// them together. The journal lists every step; it appears under its name in one rename (written
/// to `journalName.tmp` first), so it is there whole or not at all:
/// - no journal: the switch had not begun, the output is the old site, and what the build staged
///   is removed (`OutputWriter.recoverLeftovers`);
/// - a journal: the switch had begun; every step is done again in order. Each is written so that
///   doing it twice is harmless (an unlink of what is gone, a rename whose source is gone, an
///   rmdir of what is gone or not empty are skipped), so the output becomes the new site.
///
/// The steps, one a line after the header (`# blog switch journal v1 PID`):
/// - `U path`: unlink a stale file; `D path`: rmdir a folder if it is empty;
/// - `R path`: rename `path` + the build's temporary suffix to `path`;
/// - `S path`: rename the build's side folder's `path` to `path` (a folder that replaces a file);
/// - `M`: rename the new manifest (`.blog-manifest.tmp`) over the old.
struct SwitchJournal {
    static let journalName = ".blog-switch"
    static let header = "# blog switch journal v1 "

    enum Step: Equatable {
        case unlink(String)
        case removeFolder(String)
        case rename(String)
        case side(String)
        case manifest
    }

    var pid: Int32
    var steps: [Step]

    /// The folder beside the output's files where a build stages a folder that replaces one of
    /// blog's files (its target cannot be made while the file is there).
    static func sideFolderName(pid: Int32) -> String { ".blog-stage-\(pid)" }

    /// The steps of a switch: stale files first, then the folders they leave empty (deepest
    /// first), since a file may take the place of such a folder and a folder the place of such a
    /// file. A folder a file replaces goes before the renames; the others after, when the files
    /// renamed into them have made them stay. `sideFolders`: the outermost folders that replace a
    /// file, which come in whole from the side folder.
    static func plan(stale: Set<String>, staged: [String], sideFolders: [String], replacedFolders: [String]) -> [Step] {
        var steps: [Step] = []
        steps.reserveCapacity(stale.count + staged.count + sideFolders.count + 8)
        var emptied = Set<String>()
        for path in stale {
            steps.append(.unlink(path))
            var directory = OutputWriter.parent(of: path)
            while !directory.isEmpty {
                emptied.insert(directory)
                directory = OutputWriter.parent(of: directory)
            }
        }
        let replaced = Set(replacedFolders)
        func isReplaced(_ folder: String) -> Bool {
            var folder = folder
            while !folder.isEmpty {
                if replaced.contains(folder) { return true }
                folder = OutputWriter.parent(of: folder)
            }
            return false
        }
        let deepestFirst = emptied.sorted(by: { $0.utf8.count > $1.utf8.count })
        for directory in deepestFirst where !replaced.isEmpty && isReplaced(directory) { steps.append(.removeFolder(directory)) }
        for path in staged { steps.append(.rename(path)) }
        for folder in sideFolders { steps.append(.side(folder)) }
        for directory in deepestFirst where replaced.isEmpty || !isReplaced(directory) { steps.append(.removeFolder(directory)) }
        steps.append(.manifest)
        return steps
    }

    /// A new file may take the place of a folder only when everything in the folder is a file
    /// the last build wrote and this one does not: checked before the switch begins.
    static func checkReplacedFolders(_ folders: [String], stale: Set<String>, root: String, suffix: String,
                                     location: SourceLocation) throws {
        for folder in folders {
            let walker = FileManager.default.enumerator(atPath: root + "/" + folder)
            while let relative = walker?.nextObject() as? String {
                let path = folder + "/" + relative
                var info = stat()
                guard lstat(root + "/" + path, &info) == 0 else { continue }
                if (info.st_mode & S_IFMT) == S_IFDIR { continue }
                if !stale.contains(path) && !path.hasSuffix(suffix) {
                    throw Diagnostic.error("this build makes \(folder) a file, but the folder \(folder)/ in the output holds \(relative), which blog did not write; move it away", at: location)
                }
            }
        }
    }

    /// The journal's text.
    func encoded() -> [UInt8] {
        var text = SwitchJournal.header + "\(pid)\n"
        for step in steps {
            switch step {
            case .unlink(let path): text += "U " + path + "\n"
            case .removeFolder(let path): text += "D " + path + "\n"
            case .rename(let path): text += "R " + path + "\n"
            case .side(let path): text += "S " + path + "\n"
            case .manifest: text += "M\n"
            }
        }
        return Array(text.utf8)
    }

    /// nil for anything but a whole journal: a header with a process id, each line a known step
    /// with a safe path.
    init?(bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self), text.hasSuffix("\n") else { return nil }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        guard let first = lines.popFirst(), first.hasPrefix(SwitchJournal.header),
              let pid = Int32(first.dropFirst(SwitchJournal.header.count)), pid > 0 else { return nil }
        var steps: [Step] = []
        for line in lines {
            if line == "M" {
                steps.append(.manifest)
                continue
            }
            guard line.count > 2, line.dropFirst().first == " " else { return nil }
            let path = String(line.dropFirst(2))
            guard OutputWriter.isSafeRelativePath(path) else { return nil }
            switch line.first {
            case "U": steps.append(.unlink(path))
            case "D": steps.append(.removeFolder(path))
            case "R": steps.append(.rename(path))
            case "S": steps.append(.side(path))
            default: return nil
            }
        }
        self.pid = pid
        self.steps = steps
    }

    init(pid: Int32, steps: [Step]) {
        self.pid = pid
        self.steps = steps
    }

    /// Writes the journal into `root`: whole under its name, or not there.
    func write(root: String) -> Bool {
        let final = root + "/" + SwitchJournal.journalName
        return OutputWriter.writeBytes(encoded(), toPath: final + ".tmp") && rename(final + ".tmp", final) == 0
    }

    /// Does the steps in `root`. `replaying`: the steps were begun by a build that was killed, so
    /// some may be done already; a rename whose source is gone is then skipped. Throws the first
    /// step that could not be done.
    func run(root: String, replaying: Bool, location: SourceLocation) throws {
        let suffix = OutputWriter.temporarySuffix(pid: pid)
        let side = root + "/" + SwitchJournal.sideFolderName(pid: pid)
        func move(_ from: String, _ to: String, _ shown: String) throws {
            if Glibc.rename(from, to) == 0 { return }
            let reason = errno
            var info = stat()
            if replaying && lstat(from, &info) != 0 && errno == ENOENT { return }
            throw Diagnostic.error("cannot replace \(shown): \(String(cString: strerror(reason)))", at: location)
        }
        for step in steps {
            switch step {
            case .unlink(let path): unlink(root + "/" + path)
            case .removeFolder(let path): rmdir(root + "/" + path) // fails harmlessly when not empty
            case .rename(let path): try move(root + "/" + path + suffix, root + "/" + path, path)
            case .side(let path): try move(side + "/" + path, root + "/" + path, path)
            case .manifest:
                let manifest = root + "/" + OutputWriter.manifestName
                try move(manifest + ".tmp", manifest, OutputWriter.manifestName)
            }
        }
    }

    /// Finishes the switch a killed build left in the output folder `root` (when its process is
    /// gone), then removes the journal and the build's side folder; removes a journal that was
    /// never whole. Throws when a step cannot be done.
    static func recover(root: String, location: SourceLocation) throws {
        let path = root + "/" + journalName
        unlink(path + ".tmp")
        guard let data = FileManager.default.contents(atPath: path) else { return }
        guard let journal = SwitchJournal(bytes: [UInt8](data)) else {
            throw Diagnostic.error("the output folder holds a damaged \(journalName) (an interrupted build's plan); empty the folder and build again", at: location)
        }
        guard OutputWriter.isGone(journal.pid) else { return }
        try journal.run(root: root, replaying: true, location: location)
        unlink(path)
    }

    /// Removes the side folders of builds that are gone (what is left in them was never switched in).
    static func removeSideFolders(root: String) {
        for pid in OutputWriter.goneProcesses(named: ".blog-stage-", in: root) {
            try? FileManager.default.removeItem(atPath: root + "/" + sideFolderName(pid: pid))
        }
    }
}
