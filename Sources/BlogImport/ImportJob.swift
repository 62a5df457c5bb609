import BlogCore
import Foundation

/// What to import.
public enum ImportSource: Sendable {
    case qiitaAPI(files: [String])
    case qiitaCLI(directory: String)
    case text(files: [String])
    /// Articles already read, e.g. fetched from Qiita's API by `QiitaClient`.
    case fetched(ImportResult)
}

/// Options shared by the importers (the CLI fills them from flags and blog.yml).
public struct ImportOptions: Sendable {
    public var force: Bool
    public var tagInference: TagInference
    /// `--date` / `--title` for text files without a header line.
    public var fallbackDate: ImportDate?
    public var fallbackTitle: String?
    /// The site's time zone (file modification times of qiita-cli files).
    public var timeZone: TimeZone
    /// Text dumps: keep every line as a line instead of restoring code, headings and inline code.
    public var verbatim = false
    /// Text dumps: import both copies of a near-duplicate article.
    public var keepDuplicates = false
    /// Download the articles' images and point the Markdown at them (`--images`); nil: leave them.
    public var images: ImageImportOptions?

    public init(force: Bool = false, tagInference: TagInference = TagInference(), fallbackDate: ImportDate? = nil,
                fallbackTitle: String? = nil, timeZone: TimeZone = TimeZone(identifier: "Asia/Tokyo")!) {
        self.force = force
        self.tagInference = tagInference
        self.fallbackDate = fallbackDate
        self.fallbackTitle = fallbackTitle
        self.timeZone = timeZone
    }
}

/// The result of a whole import run.
public struct ImportOutcome: Sendable {
    public var summary: ImportSummary
    /// Every warning and error, in the order found.
    public var diagnostics: [Diagnostic]
    /// False when any input was invalid (then nothing was written) or a file failed to write.
    public var succeeded: Bool
}

/// Runs an import: reads and validates ALL inputs first, and writes nothing when any of them has
/// an error; otherwise removes duplicate articles (warning), plans file names and writes them.
/// Messages go to `console`: diagnostics and the progress bar to stderr, created paths and the
/// summary to stdout.
public enum ImportJob {
    public static func read(_ source: ImportSource, options: ImportOptions) -> ImportResult {
        switch source {
        case .qiitaAPI(let files):
            return QiitaAPIImporter().importFiles(files)
        case .qiitaCLI(let directory):
            return QiitaCLIImporter(timeZone: options.timeZone).importDirectory(directory)
        case .text(let files):
            return TextDumpImporter(tagInference: options.tagInference, fallbackDate: options.fallbackDate,
                                    fallbackTitle: options.fallbackTitle, verbatim: options.verbatim,
                                    keepDuplicates: options.keepDuplicates).importFiles(files)
        case .fetched(let result):
            return result
        }
    }

    /// `display` turns a written file's path into the text printed for it (e.g. relative to the
    /// working folder). `quiet` prints errors and the summary line only (no file per line, no
    /// warnings; the summary counts them).
    @discardableResult
    public static func run(_ source: ImportSource, options: ImportOptions, postsDirectory: String, console: Console,
                           quiet: Bool = false, display: (String) -> String = { $0 }) -> ImportOutcome {
        var result = read(source, options: options).deduplicated()
        for diagnostic in result.diagnostics where !quiet || diagnostic.severity == .error { console.report(diagnostic) }
        if result.hasErrors {
            let count = result.errors.count
            console.report(.error("\(Wording.count(count, "error")) in the input; nothing was written"))
            return ImportOutcome(summary: ImportSummary(), diagnostics: result.diagnostics, succeeded: false)
        }
        var imageSummary: ImageSummary?
        if let images = options.images {
            let fetched = ImageFetcher(options: images).localize(result.articles, console: console)
            let commitErrors = fetched.staged.commit()
            for diagnostic in fetched.diagnostics + commitErrors where !quiet || diagnostic.severity == .error { console.report(diagnostic) }
            result.articles = fetched.articles
            result.diagnostics += fetched.diagnostics + commitErrors
            imageSummary = fetched.summary
        }
        let writer = ImportWriter(postsDirectory: postsDirectory, force: options.force)
        let planned = writer.plan(result.articles)
        let bar = ProgressBar(console: console, label: "importing", total: quiet ? 0 : planned.count)
        let (summary, writeDiagnostics) = writer.write(planned, progress: bar.update)
        for diagnostic in writeDiagnostics where !quiet || diagnostic.severity == .error { console.report(diagnostic) }
        if !quiet {
            for path in summary.created { console.print("created \(display(path))") }
            for path in summary.overwritten { console.print("overwritten \(display(path))") }
        }
        if let imageSummary { console.print(imageSummary.description) }
        let hidden = quiet ? (result.diagnostics + writeDiagnostics).filter { $0.severity == .warning }.count : 0
        console.print(summary.description + (hidden > 0 ? " (\(Wording.count(hidden, "warning")) not shown: --quiet)" : ""))
        return ImportOutcome(summary: summary, diagnostics: result.diagnostics + writeDiagnostics, succeeded: summary.failed.isEmpty)
    }
}
