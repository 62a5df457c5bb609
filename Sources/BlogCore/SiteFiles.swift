import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one way blog lists the files of a site folder it reads (content/, static/, layouts/,
/// themes/), so that every reader follows the same rules:
/// - names starting with `.` are skipped;
/// - a symbolic link whose target lies inside the site folder is followed; one whose target lies
///   outside is an error naming the link and its target (a link in a cloned repository must not
///   publish the builder's files), unless `allowOutsideLinks` (`--allow-outside-links`,
///   `follow_outside_links: true`);
/// - a link that leads back into a folder being walked, a broken link, a folder that cannot be
///   read and anything that is neither a folder nor a regular file (a FIFO would hang the read,
///   a device never ends) are errors naming the path, never skipped in silence.
public struct SiteFiles: Sendable {
    /// The site folder with its links resolved, no trailing `/`.
    public let root: String
    public let allowOutsideLinks: Bool

    public init(siteDirectory: URL, allowOutsideLinks: Bool) {
        let path = siteDirectory.standardizedFileURL.path
        root = SiteFiles.resolve(path) ?? path
        self.allowOutsideLinks = allowOutsideLinks
    }

    /// realpath(3): the path with every link resolved, nil when that fails (`errno` says why).
    public static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Regular files below `folder` (a path relative to the site folder, such as `static` or
    /// `themes/x/assets`), as paths relative to `folder`, sorted by their bytes; `wanted` picks by
    /// name (others are not checked for being regular files). A missing folder has no files.
    /// Throws a `DiagnosticList` naming every bad entry.
    public func files(under folder: String, wanted: (String) -> Bool = { _ in true }) throws -> [String] {
        var errors: [Diagnostic] = []
        var result: [String] = []
        let top = root + "/" + folder
        // Checked even when `folder` is missing: a link on the way there may still lead out.
        if !allowOutsideLinks, let (link, resolved) = outsideLink(on: folder) {
            throw DiagnosticList([SiteFiles.outsideError(link: root + "/" + link, resolved: resolved, display: link)])
        }
        var info = stat()
        guard lstat(top, &info) == 0 else { return [] }
        var ancestors: [(dev_t, ino_t)] = []
        // The folders from the site folder down to `folder`: a link back to one of them is a loop.
        var walked = root
        var probe = stat()
        if stat(walked, &probe) == 0 { ancestors.append((probe.st_dev, probe.st_ino)) }
        let parts = folder.split(separator: "/")
        for part in parts.dropLast() {
            walked += "/" + part
            if stat(walked, &probe) == 0 { ancestors.append((probe.st_dev, probe.st_ino)) }
        }
        switch entryKind(top, display: folder, lstatInfo: info, ancestors: ancestors, errors: &errors) {
        case .folder(let id):
            ancestors.append(id)
            walk(top, relative: "", display: folder, ancestors: &ancestors, wanted: wanted, into: &result, errors: &errors)
        case .file, .skip:
            break
        }
        if !errors.isEmpty { throw DiagnosticList(errors) }
        return ByteOrder.sorted(result)
    }

    private enum Kind {
        case folder((dev_t, ino_t))
        case file
        case skip
    }

    /// What the entry at `path` is once links are followed, with an error for what may not be read.
    private func entryKind(_ path: String, display: String, lstatInfo: stat, ancestors: [(dev_t, ino_t)],
                           errors: inout [Diagnostic]) -> Kind {
        var info = lstatInfo
        let at = SourceLocation(file: display)
        if (info.st_mode & S_IFMT) == S_IFLNK {
            let target = SiteFiles.linkText(path)
            guard let resolved = SiteFiles.resolve(path) else {
                if errno == ELOOP {
                    errors.append(.error("the symbolic link to '\(target)' is a loop (it leads back to itself)", at: at))
                } else {
                    errors.append(.error("the symbolic link to '\(target)' is broken: \(String(cString: strerror(errno)))", at: at))
                }
                return .skip
            }
            if !allowOutsideLinks && !isInside(resolved) {
                errors.append(SiteFiles.outsideError(link: path, resolved: resolved, display: display))
                return .skip
            }
            guard stat(path, &info) == 0 else {
                errors.append(.error("cannot read the link's target '\(target)': \(String(cString: strerror(errno)))", at: at))
                return .skip
            }
        }
        switch info.st_mode & S_IFMT {
        case S_IFDIR:
            if ancestors.contains(where: { $0.0 == info.st_dev && $0.1 == info.st_ino }) {
                errors.append(.error("the symbolic link leads back into a folder that contains it (a loop); blog does not walk it", at: at))
                return .skip
            }
            return .folder((info.st_dev, info.st_ino))
        case S_IFREG:
            return .file
        default:
            errors.append(.error("not a regular file (\(SiteFiles.kindName(info.st_mode))); only regular files and folders are read", at: at))
            return .skip
        }
    }

    private func walk(_ path: String, relative: String, display: String, ancestors: inout [(dev_t, ino_t)],
                      wanted: (String) -> Bool, into result: inout [String], errors: inout [Diagnostic]) {
        guard let handle = opendir(path) else {
            errors.append(.error("cannot read the folder: \(String(cString: strerror(errno)))", at: SourceLocation(file: display + "/")))
            return
        }
        var entries: [(name: String, type: Int32)] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard !name.hasPrefix(".") else { continue }
            entries.append((name, Int32(entry.pointee.d_type)))
        }
        closedir(handle)
        for (name, type) in entries {
            let child = path + "/" + name
            let childRelative = relative.isEmpty ? name : relative + "/" + name
            let childDisplay = display + "/" + name
            // readdir's type spares a stat for the common cases (a folder full of posts).
            if type == Int32(DT_REG) {
                if wanted(name) { result.append(childRelative) }
                continue
            }
            var info = stat()
            guard lstat(child, &info) == 0 else {
                errors.append(.error("cannot read: \(String(cString: strerror(errno)))", at: SourceLocation(file: childDisplay)))
                continue
            }
            let isFolderOrLink = type == Int32(DT_DIR) || (info.st_mode & S_IFMT) == S_IFDIR || (info.st_mode & S_IFMT) == S_IFLNK
            // Something that is not wanted and not a folder or a link is none of blog's business.
            if !isFolderOrLink && !wanted(name) { continue }
            switch entryKind(child, display: childDisplay, lstatInfo: info, ancestors: ancestors, errors: &errors) {
            case .folder(let id):
                ancestors.append(id)
                walk(child, relative: childRelative, display: childDisplay, ancestors: &ancestors, wanted: wanted, into: &result, errors: &errors)
                ancestors.removeLast()
            case .file:
                if wanted(name) { result.append(childRelative) }
            case .skip:
                break
            }
        }
    }

    func isInside(_ resolved: String) -> Bool {
        resolved == root || resolved.hasPrefix(root + "/")
    }

    /// The first symbolic link on the way from the site folder down to `folder` that leads out of
    /// the site folder (`themes/x` linked elsewhere), with where it leads.
    func outsideLink(on folder: String) -> (link: String, resolved: String)? {
        var prefix = ""
        for part in folder.split(separator: "/") {
            prefix += prefix.isEmpty ? String(part) : "/" + part
            var info = stat()
            guard lstat(root + "/" + prefix, &info) == 0 else { return nil }
            if (info.st_mode & S_IFMT) == S_IFLNK, let resolved = SiteFiles.resolve(root + "/" + prefix), !isInside(resolved) {
                return (prefix, resolved)
            }
        }
        return nil
    }

    static func outsideError(link: String, resolved: String, display: String) -> Diagnostic {
        .error("the symbolic link to '\(linkText(link))' leads outside the site folder (to \(resolved)); blog does not publish files from outside it. Copy the file in, or pass --allow-outside-links (or set follow_outside_links: true in blog.yml) to follow such links",
               at: SourceLocation(file: display))
    }

    /// What a link says (its text, not resolved), for messages.
    static func linkText(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count >= 0 else { return "?" }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func kindName(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}
