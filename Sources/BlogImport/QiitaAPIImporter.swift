import BlogCore
import Foundation

/// Imports Qiita API v2 items saved as JSON (`blog import qiita-api`): a file holds an array of
/// items (or one item). Fields: `title`, `body` (kept as is), `created_at` → date,
/// `updated_at` → updated, `tags[].name` → tags, `id` (also the slug), `url` → qiita_url,
/// `likes_count`, `private` → draft. `title`, `body` and `created_at` are required.
public struct QiitaAPIImporter: Sendable, FileImporter {
    public init() {}

    public func importSource(_ source: InputText) -> ImportResult {
        let root: JSONNode
        do {
            root = try JSONParser.parse(source.bytes)
        } catch let error as JSONSyntaxError {
            return ImportResult(diagnostics: [.error("invalid JSON: \(error.message)", at: source.location(ofByte: error.offset))])
        } catch {
            return ImportResult(diagnostics: [.error("invalid JSON: \(error)", at: SourceLocation(file: source.path))])
        }
        var result = ImportResult()
        let items: [JSONNode]
        switch root.value {
        case .array(let array): items = array
        case .object: items = [root]
        default:
            result.diagnostics.append(.error("expected an array of Qiita items, found \(root.kindName)", at: source.location(ofByte: root.offset)))
            return result
        }
        for (index, item) in items.enumerated() {
            var errors: [Diagnostic] = []
            if let article = makeArticle(item, number: index + 1, source: source, errors: &errors) {
                result.articles.append(article)
            }
            result.diagnostics += errors
        }
        return result
    }

    private func makeArticle(_ item: JSONNode, number: Int, source: InputText, errors: inout [Diagnostic]) -> ImportedArticle? {
        let itemLocation = source.location(ofByte: item.offset)
        guard case .object = item.value else {
            errors.append(.error("item \(number): expected an object, found \(item.kindName)", at: itemLocation))
            return nil
        }
        func string(_ key: String, required: Bool) -> String? {
            guard let node = item.member(key), !node.isNull else {
                if required { errors.append(.error("item \(number): missing field \"\(key)\"", at: itemLocation)) }
                return nil
            }
            guard let text = node.stringValue else {
                errors.append(.error("item \(number): field \"\(key)\" must be a string, found \(node.kindName)", at: source.location(ofByte: node.offset)))
                return nil
            }
            return text
        }
        func date(_ key: String, required: Bool) -> ImportDate? {
            guard let text = string(key, required: required) else { return nil }
            guard let value = ImportDate.parseISO8601(text) else {
                errors.append(.error("item \(number): field \"\(key)\" is not an ISO 8601 time with offset: '\(text)'",
                                     at: source.location(ofByte: item.member(key)!.offset)))
                return nil
            }
            return value
        }
        let errorCount = errors.count
        let title = string("title", required: true)
        if let title, title.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            errors.append(.error("item \(number): empty title", at: source.location(ofByte: item.member("title")!.offset)))
        }
        let body = string("body", required: true)
        let created = date("created_at", required: true)
        let updated = date("updated_at", required: false)
        let id = string("id", required: false)
        let url = string("url", required: false)
        var likes: Int?
        if let node = item.member("likes_count"), !node.isNull {
            if let value = node.intValue { likes = value } else {
                errors.append(.error("item \(number): field \"likes_count\" must be an integer, found \(node.kindName)", at: source.location(ofByte: node.offset)))
            }
        }
        var draft = false
        if let node = item.member("private"), !node.isNull {
            if let value = node.boolValue { draft = value } else {
                errors.append(.error("item \(number): field \"private\" must be true or false, found \(node.kindName)", at: source.location(ofByte: node.offset)))
            }
        }
        var tags: [String] = []
        if let node = item.member("tags"), !node.isNull {
            if let array = node.arrayValue {
                for tag in array {
                    if let name = tag.member("name")?.stringValue ?? tag.stringValue {
                        let trimmed = name.trimmingCharacters(in: .whitespaces)
                        if !trimmed.isEmpty && !tags.contains(trimmed) { tags.append(trimmed) }
                    } else {
                        errors.append(.error("item \(number): a tag must be an object with a string \"name\"", at: source.location(ofByte: tag.offset)))
                    }
                }
            } else {
                errors.append(.error("item \(number): field \"tags\" must be an array, found \(node.kindName)", at: source.location(ofByte: node.offset)))
            }
        }
        guard errors.count == errorCount, let title, let body, let created else { return nil }
        let slug: String
        if let id, Slugs.isQiitaID(id) {
            slug = id
        } else if let id, Slugs.isValid(id) {
            slug = id.lowercased()
        } else {
            slug = Slugs.fromTitle(title, date: created)
        }
        var text = body.replacingOccurrences(of: "\r\n", with: "\n")
        if !text.isEmpty && !text.hasSuffix("\n") { text += "\n" }
        return ImportedArticle(title: title, date: created, updated: updated, tags: tags, draft: draft, slug: slug,
                               id: id, qiitaURL: url, likesCount: likes, body: text, source: itemLocation)
    }
}
