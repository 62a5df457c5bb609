import BlogCore
import BlogContent
import BlogMustache
import BlogSearch
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `blog serve` keeps between builds, so that the next build after a change does only the work
/// the change needs: the loaded content files and their stamps, each page's and feed's output with the
/// fingerprint of its inputs, the search analyses, the last outputs and what a patch needs. `BuildPipeline`
/// consults it; `blog build` runs with a fresh one and keeps nothing in it but the configuration.
/// (The keys and fingerprints themselves are `Fingerprints`'.)
final class BuildCache: @unchecked Sendable {
    /// Identity of a file's contents on disk.
    struct FileStamp: Equatable {
        var size: Int64
        var mtime: Int64
        var mtimeNanos: Int
        var inode: UInt64
    }

    /// A class: the cache is read for every post on every rebuild, and copying a reference is one retain.
    final class CachedFile {
        let stamp: FileStamp
        let file: ContentLoader.LoadedFile
        /// Changes every time the file is (re)loaded.
        let version: Int
        init(stamp: FileStamp, file: ContentLoader.LoadedFile, version: Int) {
            self.stamp = stamp
            self.file = file
            self.version = version
        }
    }

    struct CachedOutput {
        var fingerprint: Int
        var files: [OutputFile]
    }

    /// The configuration and theme of the last build (loaded again when they change).
    var config: SiteConfig?
    var theme: Theme?
    /// Each content file loaded, by relative path.
    var contentCache: [String: CachedFile] = [:]
    /// The content files of the last good build (sorted relative paths), their loaded files and
    /// each path's index.
    var lastPaths: [String] = []
    var lastFiles: [ContentLoader.LoadedFile] = []
    var lastPathIndex: [String: Int] = [:]
    /// Each page's, feed's, JSON index's and the sitemap's output, by key, with the fingerprint of its inputs.
    var outputCache: [String: CachedOutput] = [:]
    /// The page and feed keys of the last build, in order (the cache holds exactly these).
    var lastPageKeys: [String] = []
    var lastFeedKeys: [String] = []
    var staticCache: [OutputFile]?
    var searchCache: [String: (key: Int, analyzed: AnalyzedDocument)] = [:]
    var searchState = SearchIndexState()
    /// Each post's object in posts.json, by source path.
    var postObjectCache: [String: (key: Int, bytes: [UInt8])] = [:]
    var lastModel: SiteModel?
    var nextVersion = 1
    var epoch = 0

    /// The archive's tree (`PageRenderer.years`) of the last build and the fingerprint of what it shows.
    var archiveTreeCache: (fingerprint: Int, tree: MustacheValue)?

    /// The archive's tree for `model`, made again only when what it shows changed: it lists every
    /// post, so making it for each edit would cost as much as the rest of a patch.
    func archiveTree(_ model: SiteModel, keys: Fingerprints) -> MustacheValue {
        if let cached = archiveTreeCache, cached.fingerprint == keys.archiveIndex { return cached.tree }
        let tree = PageRenderer.years(model)
        archiveTreeCache = (keys.archiveIndex, tree)
        return tree
    }


    static func postObjectKey(epoch: Int, version: Int, slug: String, tags: [Int], tagNames: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(epoch)
        hasher.combine(version)
        hasher.combine(slug)
        for tag in tags { hasher.combine(tagNames[tag]) }
        return hasher.finalize()
    }

    /// The cache key of a post's search analysis.
    static func searchKey(version: Int, slug: String, tags: [Int], tagNames: [String]) -> Int {
        var hasher = Hasher()
        hasher.combine(version)
        hasher.combine(slug)
        for tag in tags { hasher.combine(tagNames[tag]) }
        return hasher.finalize()
    }

    /// What a rebuild needs to patch the last successful in-memory build instead of going through
    /// the whole site. Set at the end of every such build; cleared when a build starts, so a failed
    /// build leaves none (the next one goes the whole way).
    struct PatchState {
        var model: SiteModel
        var postVersions: [Int]
        var pageVersions: [Int]
        var postIndexByPath: [String: Int]
        var sourcePaths: [String]
        var slugs: [String]
        /// Each post's object in posts.json and its search analysis, in model order.
        var postObjects: [[UInt8]]
        var analyzed: [AnalyzedDocument]
        /// The search index files in the order `SearchIndexState.update` gives them, and the index of
        /// each in `lastOutputs`.
        var searchPaths: [String]
        var searchOutputIndices: [Int]
    }
    var patchState: PatchState?

    static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && a.withUnsafeBufferPointer { x in
            b.withUnsafeBufferPointer { y in
                a.isEmpty || x.baseAddress == y.baseAddress || memcmp(x.baseAddress!, y.baseAddress!, a.count) == 0
            }
        }
    }

    /// The unsorted paths of the last build's outputs and the order that sorts them.
    var lastOutputPaths: [String] = []
    var lastOutputOrder: [Int] = []
    /// The last build's outputs (sorted) and the same by path.
    var lastOutputs: [OutputFile] = []
    var lastFileMap: [String: [UInt8]] = [:]

    /// Sorts by path, reusing the last order when the outputs come in the same sequence of paths
    /// (the usual case in `blog serve`: an edit changes bytes, not which files there are).
    func sortOutputs(_ outputs: inout [OutputFile]) {
        var same = outputs.count == lastOutputPaths.count
        if same {
            for index in outputs.indices where outputs[index].path != lastOutputPaths[index] { same = false; break }
        }
        if !same {
            lastOutputPaths = outputs.map(\.path)
            let paths = lastOutputPaths
            lastOutputOrder = paths.indices.sorted { paths[$0] < paths[$1] }
        }
        let unsorted = outputs
        outputs = lastOutputOrder.map { unsorted[$0] }
    }

    /// Each output's index in `lastOutputs`, by path.
    var lastOutputIndex: [String: Int] = [:]

    /// The outputs by path: the last build's map with the files whose bytes changed replaced; and
    /// the paths whose bytes changed (nil when the set of paths changed).
    func patchFileMap(_ outputs: [OutputFile]) -> ([String: [UInt8]], Set<String>?) {
        var map = lastFileMap
        lastFileMap = [:]
        var changed = Set<String>()
        var samePaths = outputs.count == lastOutputs.count
        if samePaths {
            for index in outputs.indices {
                let new = outputs[index], old = lastOutputs[index]
                if new.path != old.path { samePaths = false; break }
                if !BuildCache.sameBytes(new.bytes, old.bytes) {
                    map[new.path] = new.bytes
                    changed.insert(new.path)
                }
            }
        }
        if !samePaths {
            map = [:]
            map.reserveCapacity(outputs.count)
            for file in outputs { map[file.path] = file.bytes }
            lastOutputIndex = [:]
            lastOutputIndex.reserveCapacity(outputs.count)
            for (index, file) in outputs.enumerated() { lastOutputIndex[file.path] = index }
        }
        lastOutputs = outputs
        lastFileMap = map
        return (map, samePaths ? changed : nil)
    }

    static func stamp(_ path: String) -> FileStamp? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(size: Int64(info.st_size), mtime: Int64(info.modificationTime.tv_sec), mtimeNanos: Int(info.modificationTime.tv_nsec), inode: UInt64(info.st_ino))
    }
}

/// What the pipeline asks of the cache, step by step.
extension BuildCache {
    /// A new configuration and theme: every cached output is stale (`epoch` is in every
    /// fingerprint), and the loaded files too when Markdown is read another way.
    func configChanged(to newConfig: SiteConfig, theme newTheme: Theme) {
        let sameMarkdown = config.map {
            $0.markdownHardBreaks == newConfig.markdownHardBreaks && $0.markdownUnsafe == newConfig.markdownUnsafe
                && $0.markdownMath == newConfig.markdownMath && $0.timezone == newConfig.timezone
        } ?? false
        if !sameMarkdown { contentCache = [:] }
        config = newConfig
        theme = newTheme
        outputCache = [:]
        epoch += 1
    }

    /// The content files a build reads, in path order.
    struct ContentRead {
        var paths: [String] = []
        var files: [ContentLoader.LoadedFile] = []
        /// The files read in this build (the others were reused), and their paths.
        var reloaded: [ContentLoader.LoadedFile] = []
        var stale: [String] = []
        /// Whether the list of paths is the last build's.
        var sameList = false

        init() {}

        init(paths: [String], files: [ContentLoader.LoadedFile], reloaded: [ContentLoader.LoadedFile], stale: [String], sameList: Bool) {
            self.paths = paths
            self.files = files
            self.reloaded = reloaded
            self.stale = stale
            self.sameList = sameList
        }

        /// Every file read, nothing reused (`blog build`: no stamps taken, nothing cached).
        init(all paths: [String], loader: ContentLoader, deferringPostBodies: Bool) {
            self.paths = paths
            files = loader.loadFiles(paths, deferringPostBodies: deferringPostBodies)
            reloaded = files
            stale = paths
        }
    }

    /// The content files for a build: only stale files (new, or whose stamp changed) are loaded;
    /// the cache, the sorted path list and the list of loaded files are patched in place, so a
    /// rebuild after one edit costs little per unchanged file. When the watcher named only
    /// Markdown files, only those are looked at; anything else (a folder, a rescan) lists content/ again.
    func contentFiles(_ scope: ChangeScope, loader: ContentLoader) throws -> ContentRead {
        let root = scope.root
        let contentPrefix = root + "/content/"
        let onlyMarkdown = !scope.changed.isEmpty && !contentCache.isEmpty && !scope.configChanged && scope.changed.allSatisfy { path in
            if path.hasPrefix(root + "/static/") { return true }
            guard path.hasPrefix(contentPrefix), path.hasSuffix(".md") || path.hasSuffix(".markdown") else { return false }
            var info = stat()
            // lstat: a new link is checked by a full listing (SiteFiles), not read as it is.
            return lstat(path, &info) != 0 || (info.st_mode & S_IFMT) == S_IFREG
        }
        var paths: [String]
        var stale: [(path: String, stamp: FileStamp?)] = []
        var sameList = false
        if onlyMarkdown {
            var added: [String] = []
            var removed: [String] = []
            var touched: [String] = []
            for path in scope.changed where path.hasPrefix(contentPrefix) {
                let relative = String(path.dropFirst(root.count + 1))
                if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { continue }
                let exists = FileManager.default.fileExists(atPath: path)
                let known = contentCache[relative] != nil
                if exists { touched.append(relative) }
                if exists && !known { added.append(relative) }
                if !exists && known { removed.append(relative) }
            }
            if added.isEmpty && removed.isEmpty && lastPaths.count == contentCache.count {
                paths = lastPaths
                sameList = true
            } else {
                var set = Set(contentCache.keys)
                set.formUnion(added)
                set.subtract(removed)
                paths = set.sorted()
            }
            for relative in touched.sorted() {
                let stamp = BuildCache.stamp(root + "/" + relative)
                if let cached = contentCache[relative], let stamp, cached.stamp == stamp { continue }
                stale.append((relative, stamp))
            }
        } else {
            paths = try loader.markdownFiles()
            let list = paths
            let stamps = WorkShare.map(count: list.count) { BuildCache.stamp(root + "/" + list[$0]) }
            for (index, path) in paths.enumerated() {
                if let cached = contentCache[path], let stamp = stamps[index], cached.stamp == stamp { continue }
                stale.append((path, stamps[index]))
            }
            sameList = paths == lastPaths && lastPaths.count == contentCache.count
        }
        let reloaded = loader.loadFiles(stale.map(\.path), deferringPostBodies: false)
        for (n, entry) in stale.enumerated() {
            contentCache[entry.path] = CachedFile(stamp: entry.stamp ?? FileStamp(size: -1, mtime: 0, mtimeNanos: 0, inode: 0),
                                                  file: reloaded[n], version: nextVersion)
            nextVersion += 1
        }
        var files: [ContentLoader.LoadedFile]
        if sameList && lastFiles.count == paths.count {
            files = lastFiles
            lastFiles = []
            for (n, entry) in stale.enumerated() {
                if let index = lastPathIndex[entry.path] { files[index] = reloaded[n] }
            }
        } else {
            if contentCache.count != paths.count {
                let live = Set(paths)
                contentCache = contentCache.filter { live.contains($0.key) }
            }
            files = paths.map { contentCache[$0]!.file }
            lastPathIndex = Dictionary(uniqueKeysWithValues: paths.enumerated().map { ($0.element, $0.offset) })
        }
        return ContentRead(paths: paths, files: files, reloaded: reloaded, stale: stale.map(\.path), sameList: sameList)
    }

    /// After a content error: good files stay cached, broken ones are read again next time.
    func forgetBrokenFiles() {
        contentCache = contentCache.filter { !$0.value.file.diagnostics.contains { $0.severity == .error } }
        lastPaths = []
        lastFiles = []
    }

    /// The content of a build whose files were collected without error, for the next build.
    func keepContent(_ read: ContentRead) {
        lastPaths = read.paths
        lastFiles = read.files
    }

    /// Whether the pages' keys differ from the last build's (then remembered).
    func pageKeysChanged(_ keys: some Collection<String>) -> Bool {
        if keys.count == lastPageKeys.count && zip(keys, lastPageKeys).allSatisfy({ $0 == $1 }) { return false }
        lastPageKeys = Array(keys)
        return true
    }

    /// Drops the cached outputs of pages and feeds that no longer exist (the outputs named in
    /// `others` are kept; their fingerprints are checked where they are made).
    func forgetGoneOutputs(pageKeysChanged: Bool, feedKeys: [String], others: [String]) {
        guard pageKeysChanged || feedKeys != lastFeedKeys else { return }
        var live = Set(lastPageKeys)
        live.formUnion(feedKeys)
        live.formUnion(others)
        outputCache = outputCache.filter { live.contains($0.key) }
        lastFeedKeys = feedKeys
    }

    /// The cached files of output `key` while its inputs' fingerprint is the same; else made again and kept.
    func reuse(_ key: String, fingerprint: Int, make: () throws -> [OutputFile]) rethrows -> [OutputFile] {
        if let cached = outputCache[key], cached.fingerprint == fingerprint { return cached.files }
        let files = try make()
        outputCache[key] = CachedOutput(fingerprint: fingerprint, files: files)
        return files
    }

    /// A build's outputs sorted by path and by path in a map, with the paths whose bytes changed
    /// since the last build (nil when the set of paths changed); kept for the next build.
    func publish(_ outputs: [OutputFile]) -> (outputs: [OutputFile], files: [String: [UInt8]], changed: Set<String>?) {
        var sorted = outputs
        sortOutputs(&sorted)
        let (map, changed) = patchFileMap(sorted)
        return (sorted, map, changed)
    }

    /// The last build's outputs (sorted by path, and by path) with `made` put in place of the
    /// files of the same paths, and the search index's files swapped in (an edit can add or remove
    /// a shard); the paths whose bytes changed. Nil, having changed nothing, when a file of `made`
    /// was not in the last build.
    func splice(_ made: [OutputFile], searchFiles: [OutputFile], state: inout PatchState)
        -> (outputs: [OutputFile], files: [String: [UInt8]], changed: Set<String>)? {
        // A shard may have been added or removed (an edit moves shard boundaries in its run).
        let sameSearchPaths = searchFiles.count == state.searchPaths.count
            && zip(searchFiles, state.searchPaths).allSatisfy({ $0.path == $1 })
        var positions: [Int] = []
        for file in made {
            guard let position = lastOutputIndex[file.path] else { return nil }
            positions.append(position)
        }
        var outputs = lastOutputs
        var files = lastFileMap
        lastOutputs = []
        lastFileMap = [:]
        var changed = Set<String>()
        func put(_ file: OutputFile, at position: Int) {
            if BuildCache.sameBytes(outputs[position].bytes, file.bytes) { return }
            outputs[position] = file
            files[file.path] = file.bytes
            changed.insert(file.path)
        }
        for (file, position) in zip(made, positions) { put(file, at: position) }
        var searchOutputIndices = state.searchOutputIndices
        if sameSearchPaths {
            for (n, file) in searchFiles.enumerated() { put(OutputFile(path: file.path, bytes: file.bytes), at: searchOutputIndices[n]) }
        } else {
            // The old search files out, the new ones in, sorted again like a full rebuild's outputs.
            let newSearch = Dictionary(uniqueKeysWithValues: searchFiles.map { ($0.path, $0.bytes) })
            let oldSearch = Set(state.searchPaths)
            for path in oldSearch where newSearch[path] == nil {
                files[path] = nil
                changed.insert(path)
            }
            for (path, bytes) in newSearch {
                if let old = files[path], BuildCache.sameBytes(old, bytes) { continue }
                files[path] = bytes
                changed.insert(path)
            }
            outputs.removeAll { oldSearch.contains($0.path) }
            outputs += searchFiles.map { OutputFile(path: $0.path, bytes: $0.bytes) }
            outputs.sort { $0.path < $1.path }
            lastOutputIndex = [:]
            lastOutputIndex.reserveCapacity(outputs.count)
            for (index, file) in outputs.enumerated() { lastOutputIndex[file.path] = index }
            searchOutputIndices = searchFiles.map { lastOutputIndex[$0.path]! }
            // The full rebuild's sequence of unsorted paths changed too: it sorts again.
            lastOutputPaths = []
        }
        lastOutputs = outputs
        lastFileMap = files
        state.searchPaths = searchFiles.map(\.path)
        state.searchOutputIndices = searchOutputIndices
        return (outputs, files, changed)
    }

    /// What the next rebuild needs to patch this one (see `PatchState`). `postObjects`: nil when
    /// posts.json was reused (its objects are then the cached ones, made with it).
    func keepPatchState(model: SiteModel, postVersions: [Int], pageVersions: [Int], slugs: [String],
                        postObjects: [[UInt8]]?, analyzed: [AnalyzedDocument], searchFiles: [OutputFile]) {
        let sourcePaths = postColumn(model.posts) { $0.pointee.sourcePath }
        let objects = postObjects ?? sourcePaths.map { postObjectCache[$0]?.bytes ?? [] }
        var postIndexByPath: [String: Int] = [:]
        postIndexByPath.reserveCapacity(sourcePaths.count)
        for (index, path) in sourcePaths.enumerated() { postIndexByPath[path] = index }
        let searchIndices = searchFiles.map { lastOutputIndex[$0.path] ?? -1 }
        guard !searchIndices.contains(-1) else { return }
        patchState = PatchState(model: model, postVersions: postVersions, pageVersions: pageVersions,
                                postIndexByPath: postIndexByPath, sourcePaths: sourcePaths, slugs: slugs,
                                postObjects: objects, analyzed: analyzed,
                                searchPaths: searchFiles.map(\.path), searchOutputIndices: searchIndices)
    }
}
