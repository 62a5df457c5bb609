import BlogContent
import BlogCore
import BlogImport
import Foundation

enum ImportCommand: BlogCommand {
    static let name = "import"
    static let abstract = "Import Qiita articles (from Qiita's API, API JSON, a qiita-cli folder or text dumps) into content/posts/."
    static let discussion = """
    FORMATS:
      qiita --user NAME       Fetches NAME's public articles from Qiita's API v2, page by page.
      qiita --mine            Fetches your articles, private ones included (as drafts), with an
                              access token (read_qiita scope) from QIITA_TOKEN or --token-file.
                              Rate limits are waited out (--no-wait: stop instead); errors are
                              retried, then stop the import before anything is written.
      qiita-api FILE...       Qiita API v2 items saved as JSON (an array of items per file).
      qiita-cli DIR           A qiita-cli folder: its public/*.md (public/.remote/ is skipped).
                              qiita-cli keeps no creation date: updated_at is used, or the
                              file's modification time when it is empty (a warning says which).
      text FILE...            Plain-text dumps of Qiita pages: each article starts with a line
                              '- 投稿日:2021-05-10T09:15:00+09:00', then the title, then the body.
                              The structure the dump lost is restored: code blocks (fenced,
                              lines and indentation rebuilt, language and file name), inline
                              code and headings; --verbatim keeps every line as it is instead.
                              Tags are inferred from the title ([iOS], 【Swift/iOS】, known names)
                              and the body; an article without any gets the tag 'memo'. An article
                              found twice with a few lines changed is imported once, with a
                              warning showing the lines (--keep-duplicates imports both).

    Every input is read and checked first; if any has an error, nothing is written. Files are
    named content/posts/<yyyy-mm-dd>-<slug>.md (slug: the Qiita id, else from the title; colliding
    slugs get -2, -3...). Existing files with the same content are reported unchanged; different
    ones are left alone unless --force. The same article twice (same date and title) is imported once.

    IMAGES (on for qiita, --images for the others): images on Qiita's image hosts (and the hosts
    in blog.yml import.image_hosts) are downloaded once into static/images/qiita/<id>/ and the
    Markdown points at them; an image that cannot be fetched keeps its URL, with a warning.
    """
    static let arguments = [
        ArgumentSpec("format", "qiita, qiita-api, qiita-cli or text"),
        ArgumentSpec("input", "JSON files, a qiita-cli folder, or text files (none for qiita)", optional: true, variadic: true),
    ]
    static let options: [OptionSpec] = [
        .value("source", "DIR", short: "s", "The site folder (default: the current folder)."),
        .flag("force", "Overwrite existing files whose content differs."),
        .flag("quiet", short: "q", "Print errors and the summary line only (not every file created)."),
        .value("known-tags", "FILE", "text: tag names to find in titles and bodies, one a line (default: blog.yml import.known_tags, else a built-in list)."),
        .value("date", "DATE", "text: date of a file without header lines (2021-05-10T09:15:00+09:00 or 2021-05-10)."),
        .value("title", "TITLE", "text: title of a file without header lines (with --date)."),
        .flag("verbatim", "text: keep every line of the dump as a line; restore no code, headings or inline code."),
        .flag("keep-duplicates", "text: import both copies of an article found twice with a few lines changed."),
    ] + ImportQiitaOptions.options

    static func run(_ arguments: ParsedArguments, context: CommandContext) throws -> Int32 {
        guard let format = arguments.positionals.first else {
            throw UsageError("missing format: qiita, qiita-api, qiita-cli or text", command: name)
        }
        let inputs = Array(arguments.positionals.dropFirst())
        if format == "qiita" {
            guard inputs.isEmpty else { throw UsageError("'import qiita' takes no input files (it fetches from the API)", command: name) }
        } else {
            guard !inputs.isEmpty else {
                throw UsageError("missing input for '\(format)'", command: name)
            }
            for option in ImportQiitaOptions.qiitaOnly where arguments.value(option) != nil || arguments.flag(option) {
                throw UsageError("--\(option) only applies to 'import qiita'", command: name)
            }
        }
        let source = context.resolve(arguments.value("source") ?? ".")
        try BuildCommand.checkSiteFolder(source)
        let config = try SiteConfig.load(siteDirectory: source, console: context.console)
        var options = ImportOptions(force: arguments.flag("force"), timeZone: config.timezone)
        let paths = inputs.map { context.resolve($0).path }

        options.images = try ImportQiitaOptions.images(arguments, format: format, config: config, site: source, command: name)

        var importSource: ImportSource
        var fetch: (QiitaClientOptions, QiitaItemsQuery)?
        switch format {
        case "qiita":
            fetch = try ImportQiitaOptions.client(arguments, context: context, command: name)
            importSource = .fetched(ImportResult())
        case "qiita-api":
            importSource = .qiitaAPI(files: paths)
        case "qiita-cli":
            guard paths.count == 1 else { throw UsageError("'import qiita-cli' takes exactly one folder", command: name) }
            importSource = .qiitaCLI(directory: paths[0])
        case "text":
            importSource = .text(files: paths)
            options.verbatim = arguments.flag("verbatim")
            options.keepDuplicates = arguments.flag("keep-duplicates")
            if let file = arguments.value("known-tags") {
                let path = context.resolve(file).path
                let text = try SourceText.read(URL(fileURLWithPath: path), displayPath: file)
                options.tagInference.knownTags = TagInference.parseKnownTags(text)
            } else if !config.importKnownTags.isEmpty {
                options.tagInference.knownTags = config.importKnownTags
            }
            switch (arguments.value("date"), arguments.value("title")) {
            case let (date?, title?):
                guard let parsed = parseDate(date, timeZone: config.timezone) else {
                    throw UsageError("invalid --date '\(date)': use 2021-05-10T09:15:00+09:00 or 2021-05-10", command: name)
                }
                let trimmed = title.trimmingCharacters(in: .whitespaces)
                guard !trimmed.isEmpty else { throw UsageError("--title is empty", command: name) }
                options.fallbackDate = parsed
                options.fallbackTitle = trimmed
            case (nil, nil):
                break
            default:
                throw UsageError("--date and --title go together", command: name)
            }
        default:
            throw UsageError("unknown format '\(format)': use qiita, qiita-api, qiita-cli or text", command: name)
        }
        if format != "text" {
            for option in ["known-tags", "date", "title"] where arguments.value(option) != nil {
                throw UsageError("--\(option) only applies to 'import text'", command: name)
            }
            for option in ["verbatim", "keep-duplicates"] where arguments.flag(option) {
                throw UsageError("--\(option) only applies to 'import text'", command: name)
            }
        }
        if let (clientOptions, query) = fetch {
            importSource = .fetched(QiitaClient(options: clientOptions).fetch(query, console: context.console))
        }
        let posts = source.appendingPathComponent("content").appendingPathComponent("posts").path
        let base = context.workingDirectory.standardizedFileURL.path + "/"
        let trap = options.images.map { ImportQiitaOptions.removeStagingOnInterrupt($0.staticDirectory) }
        defer { trap?.cancel() }
        let outcome = ImportJob.run(importSource, options: options, postsDirectory: posts, console: context.console,
                                    quiet: arguments.flag("quiet"), display: { $0.hasPrefix(base) ? String($0.dropFirst(base.count)) : $0 })
        return outcome.succeeded ? ExitCode.success : ExitCode.failure
    }

    /// ISO 8601 with offset, or a day (`2021-05-10`, midnight in the site's time zone).
    static func parseDate(_ text: String, timeZone: TimeZone) -> ImportDate? {
        if let date = ImportDate.parseISO8601(text) { return date }
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return ImportDate(date: date, timeZone: timeZone)
    }
}
