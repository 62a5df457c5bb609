import Foundation
import XCTest
import TestSupport
import BlogMustache

/// Runs every test of every `*.json` file of the official Mustache spec (including the optional
/// `~` modules) found in `<package root>/../shared/spec/mustache`, or in `$MUSTACHE_SPEC_DIR`.
final class MustacheSpecTests: XCTestCase {
    /// The spec directory, or nil when it is not there.
    static func specDirectory() -> URL? {
        let fm = FileManager.default
        if let env = ProcessInfo.processInfo.environment["MUSTACHE_SPEC_DIR"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        // <root>/Tests/BlogMustacheTests/MustacheSpecTests.swift -> <root>
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let dir = root.deletingLastPathComponent().appendingPathComponent("shared/spec/mustache")
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: dir.path, isDirectory: &isDir), isDir.boolValue { return dir }
        return nil
    }

    func testOfficialSpec() throws {
        guard let dir = Self.specDirectory() else {
            throw specMissing("Mustache spec not found: expected <package root>/../shared/spec/mustache or $MUSTACHE_SPEC_DIR")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        XCTAssertFalse(files.isEmpty, "no *.json files in \(dir.path)")
        var total = 0
        var failed = 0
        for file in files {
            let data = try Data(contentsOf: dir.appendingPathComponent(file))
            let spec = try JSONDecoder().decode(SpecFile.self, from: data)
            var ran = 0
            for test in spec.tests {
                ran += 1
                if !run(test, file: file) { failed += 1 }
            }
            print("mustache spec \(file): \(ran) tests ran")
            XCTAssertGreaterThan(ran, 0, "\(file): no tests")
            total += ran
        }
        print("mustache spec total: \(total) tests ran in \(files.count) files, \(failed) failed")
        XCTAssertGreaterThan(total, 0, "no spec tests ran")
    }

    /// Renders one spec test; reports and returns false on a mismatch.
    private func run(_ test: SpecTest, file: String) -> Bool {
        let label = "\(file) / \(test.name)"
        let mainName = "(spec template)"
        var sources = [TemplateSource(name: mainName, text: test.template, path: label)]
        for (name, text) in (test.partials ?? [:]).sorted(by: { $0.key < $1.key }) {
            sources.append(TemplateSource(name: name, text: text, path: "\(label) partial '\(name)'"))
        }
        do {
            let context = try test.data.mustacheValue(lambda: { try SpecLambdas.lambda(for: test.name) })
            let library = try TemplateLibrary(sources, strictPartials: false)
            let output = try library.render(mainName, context)
            if output != test.expected {
                XCTFail("\(label): \(test.desc)\n  template: \(test.template.debugDescription)\n  expected: \(test.expected.debugDescription)\n  actual:   \(output.debugDescription)")
                return false
            }
            return true
        } catch {
            XCTFail("\(label): threw \(error)")
            return false
        }
    }
}

/// The spec's lambdas (given in other languages' source) as Swift closures, by test name.
enum SpecLambdas {
    struct Missing: Error, CustomStringConvertible {
        var name: String
        var description: String { "no Swift lambda for spec test '\(name)'" }
    }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 0
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }
    }

    static func lambda(for test: String) throws -> MustacheLambda {
        switch test {
        case "Interpolation":
            return MustacheLambda { "world" }
        case "Interpolation - Expansion":
            return MustacheLambda { "{{planet}}" }
        case "Interpolation - Alternate Delimiters":
            return MustacheLambda { "|planet| => {{planet}}" }
        case "Interpolation - Multiple Calls":
            let counter = Counter()  // fresh per test: the spec expects 1, 2, 3
            return MustacheLambda { String(counter.next()) }
        case "Escaping":
            return MustacheLambda { ">" }
        case "Section":
            return MustacheLambda(section: { $0 == "{{x}}" ? "yes" : "no" })
        case "Section - Expansion":
            return MustacheLambda(section: { $0 + "{{planet}}" + $0 })
        case "Section - Alternate Delimiters":
            return MustacheLambda(section: { $0 + "{{planet}} => |planet|" + $0 })
        case "Section - Multiple Calls":
            return MustacheLambda(section: { "__" + $0 + "__" })
        case "Inverted Section":
            return MustacheLambda(section: { _ in "" })
        default:
            throw Missing(name: test)
        }
    }
}

struct SpecFile: Decodable {
    var overview: String?
    var tests: [SpecTest]
}

struct SpecTest: Decodable {
    var name: String
    var desc: String
    var data: JSONValue
    var template: String
    var partials: [String: String]?
    var expected: String
}

/// Any JSON value, decoded without losing the integer/decimal distinction.
indirect enum JSONValue: Decodable {
    case null, bool(Bool), int(Int), double(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// Objects tagged `"__tag__": "code"` become the Swift lambda for the current test.
    func mustacheValue(lambda: () throws -> MustacheLambda) throws -> MustacheValue {
        switch self {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .string(let s): return .string(s)
        case .array(let a): return .array(try a.map { try $0.mustacheValue(lambda: lambda) })
        case .object(let o):
            if case .string("code")? = o["__tag__"] { return .lambda(try lambda()) }
            return .object(try o.mapValues { try $0.mustacheValue(lambda: lambda) })
        }
    }
}

