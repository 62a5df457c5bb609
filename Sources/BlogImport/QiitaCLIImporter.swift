import BlogContent
import BlogCore
import BlogYAML
import Foundation

/// Imports a qiita-cli folder (`blog import qiita-cli DIR`): every `DIR/public/*.md`
/// (`public/.remote/` and other hidden entries skipped). The front matter (`title`, `tags`,
/// `private`, `updated_at`, `id`, `organization_url_name`, `slide`, `ignorePublish`) is
/// normalised to ours, the body kept as is. qiita-cli keeps no creation date: the date is
/// `updated_at`, or the file's modification time when `updated_at` is empty (with a warning).
/// `private: true` or `ignorePublish: true` make a draft. The slug is the Qiita id when the
/// article has one, else the file name (ASCII words), else derived from the title.
public struct QiitaCLIImporter: Sendable {
    /// Used to show file modification times (the site's time zone).
    public var timeZone: TimeZone

    public init(timeZone: TimeZone = TimeZone(identifier: "Asia/Tokyo")!) {
        self.timeZone = timeZone
    }

    static let knownKeys: Set<String> = ["title", "tags", "private", "updated_at", "id", "organization_url_name", "slide", "ignorePublish"]

    public func importDirectory(_ directory: String) -> ImportResult {
        let publicDirectory = (directory as NSString).appendingPathComponent("public")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: publicDirectory, isDirectory: &isDirectory), isDirectory.boolValue else {
            return ImportResult(diagnostics: [.error("not a qiita-cli folder: no public/ directory inside", at: SourceLocation(file: directory))])
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: publicDirectory)
                .filter { !$0.hasPrefix(".") && $0.hasSuffix(".md") }
                .sorted()
        } catch {
            return ImportResult(diagnostics: [.error("cannot list directory: \(error.localizedDescription)", at: SourceLocation(file: publicDirectory))])
        }
        var result = ImportResult()
        var datedFromUpdatedAt = 0
        for name in names {
            let path = (publicDirectory as NSString).appendingPathComponent(name)
            var fromUpdatedAt = false
            result.merge(importFile(path, datedFromUpdatedAt: &fromUpdatedAt))
            if fromUpdatedAt { datedFromUpdatedAt += 1 }
        }
        if names.isEmpty {
            result.diagnostics.append(.warning("no .md files in public/", at: SourceLocation(file: publicDirectory)))
        }
        if datedFromUpdatedAt > 0 {
            result.diagnostics.append(.warning("qiita-cli files have no creation date: the date of \(Wording.count(datedFromUpdatedAt, "article")) is their updated_at",
                                               at: SourceLocation(file: publicDirectory)))
        }
        return result
    }

    public func importFile(_ path: String) -> ImportResult {
        var ignored = false
        return importFile(path, datedFromUpdatedAt: &ignored)
    }

    func importFile(_ path: String, datedFromUpdatedAt: inout Bool) -> ImportResult {
        let source: InputText
        do {
            source = try InputText.read(path: path)
        } catch let diagnostic as Diagnostic {
            return ImportResult(diagnostics: [diagnostic])
        } catch {
            return ImportResult(diagnostics: [.error("\(error)", at: SourceLocation(file: path))])
        }
        var modified: Date?
        if let attributes = try? FileManager.default.attributesOfItem(atPath: path) {
            modified = attributes[.modificationDate] as? Date
        }
        return importSource(source, modificationDate: modified, datedFromUpdatedAt: &datedFromUpdatedAt)
    }

    public func importSource(_ source: InputText, modificationDate: Date?) -> ImportResult {
        var ignored = false
        return importSource(source, modificationDate: modificationDate, datedFromUpdatedAt: &ignored)
    }

    func importSource(_ source: InputText, modificationDate: Date?, datedFromUpdatedAt: inout Bool) -> ImportResult {
        var result = ImportResult()
        // The loader's fences and BlogYAML, on the text with CRLF line ends made LF (the line
        // numbers stay the same).
        let normalized = source.text.replacingOccurrences(of: "\r\n", with: "\n")
        let head: (yaml: String?, yamlFirstLine: Int, bodyOffset: Int, bodyFirstLine: Int)
        do {
            head = try SplitDocument.splitHead(normalized, path: source.path)
        } catch let diagnostic as Diagnostic {
            result.diagnostics.append(diagnostic)
            return result
        } catch {
            result.diagnostics.append(.error("\(error)", at: source.location(line: 1)))
            return result
        }
        guard let yaml = head.yaml else {
            result.diagnostics.append(.error("missing front matter: a qiita-cli article starts with a '---' line", at: source.location(line: 1, column: 1)))
            return result
        }
        let body = String(decoding: normalized.utf8.dropFirst(head.bodyOffset), as: UTF8.self)
        let firstLine = head.yamlFirstLine
        func location(_ value: YAMLValue) -> SourceLocation {
            source.location(line: value.line + firstLine - 1, column: value.column)
        }
        let root: YAMLValue
        do {
            root = try YAML.parse(yaml)
        } catch let error as YAMLError {
            result.diagnostics.append(.error("invalid front matter: \(error.message)", at: source.location(line: error.line + firstLine - 1, column: error.column)))
            return result
        } catch {
            result.diagnostics.append(.error("invalid front matter: \(error)", at: source.location(line: firstLine)))
            return result
        }
        guard let pairs = root.mapping ?? (root.isNull ? [] : nil) else {
            result.diagnostics.append(.error("front matter must be a mapping of keys to values", at: location(root)))
            return result
        }
        var fields: [String: YAMLValue] = [:]
        for pair in pairs {
            let key = pair.key.scalar ?? ""
            if fields[key] != nil {
                result.diagnostics.append(.error("duplicate key \"\(key)\"", at: location(pair.key)))
            }
            if !QiitaCLIImporter.knownKeys.contains(key) {
                result.diagnostics.append(.warning("unknown qiita-cli key \"\(key)\" ignored", at: location(pair.key)))
            }
            fields[key] = pair.value
        }
        func string(_ key: String) -> String? {
            guard let value = fields[key], !value.isNull else { return nil }
            guard let text = value.scalar else {
                result.diagnostics.append(.error("\"\(key)\" must be a string, found \(value.typeName)", at: location(value)))
                return nil
            }
            return text
        }
        func bool(_ key: String) -> Bool {
            guard let value = fields[key], !value.isNull else { return false }
            if case .scalar(let text, quoted: false) = value.kind {
                switch text.lowercased() {
                case "true": return true
                case "false": return false
                default: break
                }
            }
            result.diagnostics.append(.error("\"\(key)\" must be true or false", at: location(value)))
            return false
        }
        let errorsBefore = result.errors.count
        let title = string("title")?.trimmingCharacters(in: .whitespaces) ?? ""
        if title.isEmpty {
            result.diagnostics.append(.error(fields["title"] == nil ? "missing \"title\"" : "empty title",
                                             at: fields["title"].map(location) ?? source.location(line: 1, column: 1)))
        }
        var tags: [String] = []
        if let value = fields["tags"], !value.isNull {
            switch value.kind {
            case .sequence(let items):
                for item in items where !item.isNull {
                    guard let name = item.scalar?.trimmingCharacters(in: .whitespaces) else {
                        result.diagnostics.append(.error("a tag must be a string, found \(item.typeName)", at: location(item)))
                        continue
                    }
                    if !name.isEmpty && !tags.contains(name) { tags.append(name) }
                }
            case .scalar(let text, _):
                // A single tag written as a scalar.
                if !text.isEmpty { tags = [text] }
            case .mapping:
                result.diagnostics.append(.error("\"tags\" must be a list, found a mapping", at: location(value)))
            }
        }
        let draft = bool("private") || bool("ignorePublish")
        _ = bool("slide")
        let id = string("id").flatMap { $0.isEmpty ? nil : $0 }
        let date: ImportDate
        if let updatedText = string("updated_at"), !updatedText.isEmpty {
            guard let parsed = ImportDate.parseISO8601(updatedText) else {
                result.diagnostics.append(.error("updated_at is not an ISO 8601 time with offset: '\(updatedText)'", at: location(fields["updated_at"]!)))
                return result
            }
            date = parsed
            datedFromUpdatedAt = true
        } else if let modificationDate {
            date = ImportDate(date: modificationDate, timeZone: timeZone)
            result.diagnostics.append(.warning("updated_at is empty: the date is the file's modification time (\(date))", at: source.location(line: 1)))
        } else {
            result.diagnostics.append(.error("updated_at is empty and the file has no modification time", at: source.location(line: 1)))
            return result
        }
        guard result.errors.count == errorsBefore else { return result }
        let fileName = (source.path as NSString).lastPathComponent
        let slug: String
        if let id, Slugs.isQiitaID(id) {
            slug = id
        } else if let fromName = Slugs.fromFileName(fileName) {
            slug = fromName
        } else {
            slug = Slugs.fromTitle(title, date: date)
        }
        var text = body.replacingOccurrences(of: "\r\n", with: "\n")
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        result.articles.append(ImportedArticle(title: title, date: date, tags: tags, draft: draft, slug: slug, id: id,
                                               body: text, source: source.location(line: 1)))
        return result
    }
}
