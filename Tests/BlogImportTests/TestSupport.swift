import BlogCore
import Foundation
import XCTest

enum Fixtures {
    static let directory: String = {
        let file = URL(fileURLWithPath: #filePath)
        return file.deletingLastPathComponent().appendingPathComponent("Fixtures").path
    }()

    static func path(_ relative: String) -> String {
        (directory as NSString).appendingPathComponent(relative)
    }
}

/// A fresh directory under the system temp dir, removed by the test's teardown.
func makeTemporaryDirectory(_ testCase: XCTestCase) throws -> String {
    let path = (NSTemporaryDirectory() as NSString).appendingPathComponent("blog-import-\(UUID().uuidString)")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    testCase.addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
    return path
}

func readFile(_ path: String) -> String? {
    FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
}

func listFiles(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// The text of rendered HTML as lines: block ends and `<br />` become line breaks, tags are
/// removed, character references decoded, empty lines dropped.
func renderedLines(_ html: String) -> [String] {
    var text = html.replacingOccurrences(of: "<br />\n", with: "\n")
    for closing in ["</p>", "</li>", "</h1>", "</h2>", "</h3>", "</h4>", "</h5>", "</h6>", "</blockquote>", "</pre>", "<ul>", "</ul>", "<ol>", "</ol>", "<hr />"] {
        text = text.replacingOccurrences(of: closing, with: "\n")
    }
    var stripped = ""
    var inTag = false
    for character in text {
        if character == "<" { inTag = true; continue }
        if character == ">" && inTag { inTag = false; continue }
        if !inTag { stripped.append(character) }
    }
    return decodeEntities(stripped).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
}

func decodeEntities(_ text: String) -> String {
    var out = ""
    var rest = Substring(text)
    while let amp = rest.firstIndex(of: "&") {
        out += rest[..<amp]
        rest = rest[amp...]
        if let semicolon = rest.firstIndex(of: ";"), rest.distance(from: rest.startIndex, to: semicolon) <= 10 {
            let name = String(rest[rest.index(after: rest.startIndex)..<semicolon])
            var decoded: String?
            switch name {
            case "amp": decoded = "&"
            case "lt": decoded = "<"
            case "gt": decoded = ">"
            case "quot": decoded = "\""
            default:
                if name.hasPrefix("#x"), let code = UInt32(name.dropFirst(2), radix: 16), let scalar = Unicode.Scalar(code) {
                    decoded = String(Character(scalar))
                } else if name.hasPrefix("#"), let code = UInt32(name.dropFirst()), let scalar = Unicode.Scalar(code) {
                    decoded = String(Character(scalar))
                }
            }
            if let decoded {
                out += decoded
                rest = rest[rest.index(after: semicolon)...]
                continue
            }
        }
        out.append("&")
        rest = rest.dropFirst()
    }
    return out + rest
}
