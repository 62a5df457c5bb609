import BlogMarkdown

/// A code block found inside a dump line, with the text around it.
struct DumpCodeBlock: Equatable {
    /// The block's first and end character offsets in the line (the file name included).
    var range: Range<Int>
    /// A file name that was glued in front of the code (the fence's `:filename` label).
    var fileName: String?
    /// The flattened code as it was in the dump.
    var code: String
    var language: String
}

/// Finds flattened code blocks in a dump line and cuts them out of the prose around them.
///
/// A block was one line in the dump, glued without a space to the prose before and after it. It
/// starts after Japanese text (or at the start of the line), either with a file name glued to the
/// code (`AppDelegate.swiftimport UIKit`, `Podfileplatform :ios`) or with text that scores as code
/// (braces, calls, assignments, statement keywords, a shell prompt); it runs until Japanese text
/// resumes outside a string literal or a comment.
enum DumpCodeBlocks {
    static func find(in line: String) -> [DumpCodeBlock] {
        let characters = Array(line)
        var blocks: [DumpCodeBlock] = []
        var index = 0
        while index < characters.count {
            let atStart = index == 0 || DumpText.isJapanese(characters[index - 1])
            guard atStart, characters[index].isASCII, characters[index] != " " else { index += 1; continue }
            if let block = block(characters, at: index) {
                blocks.append(block)
                index = block.range.upperBound
            } else {
                index += 1
            }
        }
        return blocks
    }

    private static func block(_ characters: [Character], at start: Int) -> DumpCodeBlock? {
        let rest = String(characters[start...])
        if rest.hasPrefix("http://") || rest.hasPrefix("https://") { return nil }
        var start = start
        var codeStart = start
        var fileName: String?
        // `PodfilePodfileplatform …`: a heading named after the file, glued to the labelled block.
        let prefix = rest.prefix(while: { DumpText.isASCIIWordCharacter($0) || "-+./".contains($0) })
        for length in stride(from: prefix.count / 2, through: 2, by: -1)
            where rest.dropFirst(length).hasPrefix(rest.prefix(length)) {
            if let again = gluedFileName(String(rest.dropFirst(length))), again.count == length {
                start += length
                fileName = again
                break
            }
        }
        if fileName == nil, let name = gluedFileName(rest) { fileName = name }
        if let name = fileName { codeStart = start + name.count }
        let end = codeEnd(characters, from: codeStart)
        guard end > codeStart else { return nil }
        let code = String(characters[codeStart..<end])
        let language = fileName.flatMap(fenceLanguage(forFileName:)) ?? DumpLanguage.infer(code)
        if fileName == nil {
            guard DumpLanguage.codeScore(code, language: language) >= 3 else { return nil }
        }
        return DumpCodeBlock(range: start..<end, fileName: fileName, code: code, language: language)
    }

    static let fileNameWithoutExtension: Set<String> = ["Podfile", "Gemfile", "Fastfile", "Cartfile", "Brewfile", "Dangerfile",
                                                        "Appfile", "Matchfile", "Dockerfile", "Makefile", "Package.swift"]
    static let codeExtensions = ["swift", "js", "ts", "jsx", "tsx", "mjs", "rb", "json", "yml", "yaml", "kt", "m", "h",
                                 "sh", "py", "plist", "gradle", "java", "xml", "html", "css", "dart", "podspec", "entitlements"]

    /// A file name at the start of `text` followed directly (no space) by code: a known name
    /// (`Podfile`) or a path whose extension is known (`AppDelegate.swift`, `.github/workflows/ci.yml`).
    static func gluedFileName(_ text: String) -> String? {
        let name = Array(text.prefix(while: { DumpText.isASCIIWordCharacter($0) || "-+./".contains($0) }))
        guard !name.isEmpty else { return nil }
        let nameText = String(name)
        for fixed in fileNameWithoutExtension where nameText.hasPrefix(fixed) && nameText.count > fixed.count || text.hasPrefix(fixed + "{") {
            if followedByCode(String(text.dropFirst(fixed.count)), fileExtension: "") { return fixed }
        }
        for dot in name.indices where name[dot] == "." && dot > 0 && name[dot - 1] != "/" {
            let afterDot = String(name[(dot + 1)...])
            for ext in codeExtensions.sorted(by: { $0.count > $1.count }) where afterDot.hasPrefix(ext) {
                let candidate = String(name[..<(dot + 1)]) + ext
                if followedByCode(String(text.dropFirst(candidate.count)), fileExtension: ext) { return candidate }
            }
        }
        return nil
    }

    private static func followedByCode(_ text: String, fileExtension: String) -> Bool {
        guard let first = text.first, first != " " else { return false }
        if fileExtension == "yml" || fileExtension == "yaml" {
            let key = text.prefix(while: { DumpText.isASCIIWordCharacter($0) || $0 == "-" })
            if !key.isEmpty, text.dropFirst(key.count).hasPrefix(": ") || text.dropFirst(key.count).hasPrefix(":\n") { return true }
        }
        if "{[@/#<\"'".contains(first) { return true }
        return DumpCodeTokens.startsCode(text) || DumpLanguage.startsWithKeyword(text)
    }

    /// Closing symbols that end a line of code; flattened code puts a space after them, so a
    /// letter directly after one starts the prose that was glued to the block.
    static let closingSymbols: Set<Character> = [")", "]", "}", ";", "\"", "'"]

    /// The length of the prose glued to the end of `code` (`…});onCall`, `…}String(describing:)`):
    /// in the last run without spaces, what follows a closing symbol directly, from a letter on.
    static func gluedProseLength(_ code: String) -> Int? {
        let characters = Array(code)
        let chunkStart = (characters.lastIndex(of: " ") ?? -1) + 1
        guard characters.count - chunkStart > 1 else { return nil }
        for index in (chunkStart + 1)..<characters.count where closingSymbols.contains(characters[index - 1]) {
            let symbol = characters[index - 1]
            // A quote closes a literal only when it is the second of a pair.
            if symbol == "\"" || symbol == "'", characters[..<index].filter({ $0 == symbol }).count % 2 == 1 { continue }
            let character = characters[index]
            if character.isASCII && (character.isLetter || character.isNumber || character == "_" || character == "@" || character == "-") {
                return characters.count - index
            }
        }
        return nil
    }

    static func fenceLanguage(forFileName name: String) -> String? {
        SyntaxHighlighter.language(forFileName: name)
    }

    /// Where the code starting at `start` ends: the first Japanese character outside a string
    /// literal or a comment (trailing spaces and an ASCII word glued to the code's last symbol
    /// are left to the prose).
    private static func codeEnd(_ characters: [Character], from start: Int) -> Int {
        var index = start
        var quote: Character?
        var inComment = false
        var end = start
        while index < characters.count {
            let character = characters[index]
            if let open = quote {
                if character == "\\" { index += 2; end = min(index, characters.count); continue }
                if character == open { quote = nil }
                index += 1
                end = index
                continue
            }
            if inComment {
                if DumpText.isJapanese(character) { index += 1; end = index; continue }
                // Code resumes after the comment's Japanese text when the text that follows starts like code.
                if character != " ", DumpText.isJapanese(characters[index - 1]) || characters[index - 1] == " ",
                   characters[..<index].last(where: { $0 != " " }).map(DumpText.isJapanese) == true,
                   DumpCodeTokens.startsCode(String(characters[index...])) {
                    inComment = false
                } else {
                    index += 1
                    if character != " " { end = index }
                    continue
                }
            }
            if DumpText.isJapanese(character) { break }
            if character == "\"" || character == "'" || character == "`" {
                // A quote that does not close on the line is prose's, not a literal.
                guard characters[(index + 1)...].contains(character) else { break }
                quote = character
            } else if (character == "/" && index + 1 < characters.count && characters[index + 1] == "/")
                        || (character == "#" && index > start && characters[index - 1] == " "
                            && index + 1 < characters.count && (characters[index + 1] == " " || DumpText.isJapanese(characters[index + 1]))) {
                inComment = true
            }
            index += 1
            if character != " " { end = index }
        }
        // `…}Xcodeで`: text glued to the code's closing symbol begins the prose.
        if end == characters.count || DumpText.isJapanese(characters[end]),
           let glued = gluedProseLength(String(characters[start..<end])) {
            return end - glued
        }
        return end
    }
}

import Foundation
