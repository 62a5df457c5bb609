import BlogCore
import BlogContent
import BlogMustache
import BlogYAML
import DefaultTheme
import Foundation

/// The templates and assets a build uses, after applying the lookup order:
/// the site's `layouts/`, then `themes/<theme>/templates/`, then the built-in default theme.
public struct Theme: Sendable {
    /// From `theme.yml`: name, description, version.
    public var info: ThemeInfo
    public var library: TemplateLibrary
    /// Output path (`assets/css/main.1a2b3c4d.css`) and bytes of every asset.
    public var assets: [(path: String, bytes: [UInt8])]
    /// Asset path as named in templates (`css/main.css`) → its URL path under the site root
    /// (`assets/css/main.1a2b3c4d.css`, without base path).
    public var assetPaths: [String: String]
    /// Where each template came from, for messages.
    public var templateOrigins: [String: String]
    /// The icon every page links: the site's `static/favicon.*` when it has one, else the theme's
    /// `assets/favicon.svg`. A path under the site root, and its media type.
    public var favicon: (path: String, type: String) = ("favicon.ico", "image/x-icon")

    /// The page kinds every theme must provide.
    public static let requiredTemplates = ["home", "post", "page", "tags", "tag", "archive", "search", "404"]

    public static func load(siteDirectory: URL, config: SiteConfig, hashAssetNames: Bool = true) throws -> Theme {
        var templates: [String: (text: String, path: String)] = [:]
        var assetFiles: [String: [UInt8]] = [:]
        for (path, bytes) in DefaultTheme.files {
            if path.hasPrefix("templates/"), path.hasSuffix(".mustache") {
                let name = String(path.dropFirst("templates/".count).dropLast(".mustache".count))
                templates[name] = (String(decoding: bytes, as: UTF8.self), "(built-in default theme)/" + path)
            } else if path.hasPrefix("assets/") {
                assetFiles[String(path.dropFirst("assets/".count))] = bytes
            }
        }
        let themeDirectory = siteDirectory.appendingPathComponent("themes").appendingPathComponent(config.theme)
        var isDirectory: ObjCBool = false
        let themeExists = FileManager.default.fileExists(atPath: themeDirectory.path, isDirectory: &isDirectory) && isDirectory.boolValue
        if !themeExists && config.theme != "default" {
            throw Diagnostic.error("theme '\(config.theme)' not found: expected a folder themes/\(config.theme)/ (or remove 'theme' from blog.yml to use the built-in default)",
                                   at: SourceLocation(file: "blog.yml"))
        }
        var errors: [Diagnostic] = []
        let siteFiles = config.siteFiles(siteDirectory)
        /// The files of `folder` (relative to the site folder), with its listing's errors kept.
        func list(_ folder: String, wanted: (String) -> Bool = { _ in true }) -> [String] {
            do {
                return try siteFiles.files(under: folder, wanted: wanted)
            } catch let list as DiagnosticList {
                errors += list.diagnostics
                return []
            } catch {
                return []
            }
        }
        func overlay(_ folder: String, templatesOnly: Bool) {
            let templatesFolder = templatesOnly ? folder : folder + "/templates"
            for relative in list(templatesFolder, wanted: { $0.hasSuffix(".mustache") }) {
                let display = templatesFolder + "/" + relative
                let url = siteDirectory.appendingPathComponent(display)
                do {
                    let text = try SourceText.read(url, displayPath: display)
                    templates[String(relative.dropLast(".mustache".count))] = (text, display)
                } catch let diagnostic as Diagnostic {
                    errors.append(diagnostic)
                } catch {
                    errors.append(.error("\(error)", at: SourceLocation(file: display)))
                }
            }
            if !templatesOnly {
                for relative in list(folder + "/assets") {
                    let display = folder + "/assets/" + relative
                    do {
                        assetFiles[relative] = try SourceText.readBytes(siteDirectory.appendingPathComponent(display).path)
                    } catch {
                        errors.append(.error("cannot read the file: \(SourceText.reason(error))", at: SourceLocation(file: display)))
                    }
                }
            }
        }
        var info = try ThemeInfo.parse(String(decoding: DefaultTheme.files["theme.yml"] ?? [], as: UTF8.self), path: "theme.yml", console: nil)
        if themeExists {
            overlay("themes/\(config.theme)", templatesOnly: false)
            info = try ThemeInfo.load(themeDirectory, displayPath: "themes/\(config.theme)/theme.yml") ?? ThemeInfo(name: config.theme)
        }
        overlay("layouts", templatesOnly: true)
        if !errors.isEmpty { throw DiagnosticList(errors) }
        for name in requiredTemplates where templates[name] == nil {
            throw Diagnostic.error("missing template '\(name).mustache': the theme '\(config.theme)' must provide templates/\(name).mustache",
                                   at: SourceLocation(file: "themes/\(config.theme)/templates/\(name).mustache"))
        }
        let sources = templates.keys.sorted().map { name in
            TemplateSource(name: name, text: templates[name]!.text, path: templates[name]!.path)
        }
        let library: TemplateLibrary
        do {
            library = try TemplateLibrary(sources)
        } catch let error as MustacheError {
            throw Diagnostic.error(error.message, at: error.location)
        }
        var assets: [(path: String, bytes: [UInt8])] = []
        var assetPaths: [String: String] = [:]
        for relative in assetFiles.keys.sorted() {
            let bytes = assetFiles[relative]!
            let hashed = hashAssetNames ? hashedName(relative, bytes: bytes) : relative
            assets.append(("assets/" + hashed, bytes))
            assetPaths[relative] = "assets/" + hashed
        }
        var origins: [String: String] = [:]
        for (name, value) in templates { origins[name] = value.path }
        var theme = Theme(info: info, library: library, assets: assets, assetPaths: assetPaths, templateOrigins: origins)
        theme.favicon = favicon(siteDirectory: siteDirectory, assetPaths: assetPaths)
        return theme
    }

    /// The site's own icon wins, in this order of formats; then the theme's.
    static let faviconTypes: [(name: String, type: String)] = [
        ("favicon.svg", "image/svg+xml"), ("favicon.ico", "image/x-icon"), ("favicon.png", "image/png"),
    ]

    static func favicon(siteDirectory: URL, assetPaths: [String: String]) -> (path: String, type: String) {
        let statics = siteDirectory.appendingPathComponent("static")
        for candidate in faviconTypes where FileManager.default.fileExists(atPath: statics.appendingPathComponent(candidate.name).path) {
            return (candidate.name, candidate.type)
        }
        for candidate in faviconTypes {
            if let path = assetPaths[candidate.name] { return (path, candidate.type) }
        }
        return ("favicon.ico", "image/x-icon")
    }

    /// `css/main.css` → `css/main.1a2b3c4d.css`: the name changes when the bytes do, so hosts may cache for ever.
    static func hashedName(_ path: String, bytes: [UInt8]) -> String {
        let padded = hex8(UInt32(truncatingIfNeeded: fnv1a64(bytes)))
        let directory = (path as NSString).deletingLastPathComponent
        let file = (path as NSString).lastPathComponent
        let dot = file.lastIndex(of: ".") ?? file.endIndex
        let name = file[..<dot] + "." + padded + file[dot...]
        return directory.isEmpty ? String(name) : directory + "/" + name
    }
}

/// `theme.yml`: what a theme says about itself.
public struct ThemeInfo: Sendable, Equatable {
    public var name: String
    public var description = ""
    public var version = ""

    public init(name: String, description: String = "", version: String = "") {
        self.name = name
        self.description = description
        self.version = version
    }

    /// Reads `theme.yml` in a theme folder; nil when the file is absent.
    public static func load(_ directory: URL, displayPath: String, console: Console? = nil) throws -> ThemeInfo? {
        let url = directory.appendingPathComponent("theme.yml")
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        var info = try parse(try SourceText.read(url, displayPath: displayPath), path: displayPath, console: console)
        if info.name.isEmpty { info.name = directory.lastPathComponent }
        return info
    }

    public static func parse(_ text: String, path: String, console: Console?) throws -> ThemeInfo {
        let root: YAMLValue
        do {
            root = try YAML.parse(text)
        } catch let error as YAMLError {
            throw Diagnostic.error(error.message, at: SourceLocation(file: path, line: error.line, column: error.column))
        }
        var info = ThemeInfo(name: "")
        for pair in root.mapping ?? [] {
            let key = pair.key.scalar ?? ""
            let location = SourceLocation(file: path, line: pair.key.line, column: pair.key.column)
            guard let value = pair.value.scalar else {
                throw Diagnostic.error("'\(key)' must be text", at: location)
            }
            switch key {
            case "name": info.name = value
            case "description": info.description = value
            case "version": info.version = value
            default: console?.report(.warning("unknown key '\(key)' in theme.yml (known: name, description, version)", at: location))
            }
        }
        return info
    }
}
