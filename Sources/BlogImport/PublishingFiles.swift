import Foundation

/// The files `blog init` writes so that a new site's repository publishes itself: a `.gitignore`
/// for the output, and a GitHub Actions workflow that builds the site with blog's own action
/// (`action.yml` at the root of blog's repository) and deploys it to GitHub Pages.
public enum PublishingFiles {
    /// Where blog's GitHub Action lives, as a workflow's `uses:` names it (repository@major version).
    public static let defaultAction = "blog-ssg/blog@v1"

    /// What is not committed: the output folder (built by the workflow, or locally by `blog build`).
    public static let gitignore = """
        # The built site: made by `blog build` (and by the Pages workflow), never committed.
        /public/
        # Where the Pages workflow compiles blog.
        /.blog-build/

        """

    /// The Pages workflow (`.github/workflows/pages.yml`) using `action` (`owner/repo@ref`). The
    /// permissions and concurrency are what GitHub documents for a Pages deployment; the base URL
    /// comes from the repository's Pages settings (project site, user site or custom domain).
    public static func pagesWorkflow(action: String = defaultAction) -> String {
        """
        # Builds the site with blog and publishes it on GitHub Pages at every push to main.
        # Once: Settings → Pages → Build and deployment → Source: "GitHub Actions".
        name: Publish to GitHub Pages

        on:
          push:
            branches: [main]
          workflow_dispatch:

        permissions:
          contents: read
          pages: write
          id-token: write

        # One deployment at a time; a run in progress finishes.
        concurrency:
          group: pages
          cancel-in-progress: false

        jobs:
          build:
            runs-on: ubuntu-24.04
            # blog is built from source with the Swift toolchain of this image.
            container: swift:6.3
            steps:
              - uses: actions/checkout@v4
              - id: blog
                uses: \(action)
                with:
                  source: .
              - uses: actions/upload-pages-artifact@v3
                with:
                  path: ${{ steps.blog.outputs.output }}

          deploy:
            needs: build
            runs-on: ubuntu-24.04
            environment:
              name: github-pages
              url: ${{ steps.deployment.outputs.page_url }}
            steps:
              - id: deployment
                uses: actions/deploy-pages@v4

        """
    }

    /// Writes `.gitignore` (unless there is one) and, with `workflow`, the Pages workflow into the
    /// site folder `directory`. Returns the paths written.
    static func write(into directory: String, workflow: Bool, action: String) throws -> [String] {
        var written: [String] = []
        let gitignorePath = (directory as NSString).appendingPathComponent(".gitignore")
        if !FileManager.default.fileExists(atPath: gitignorePath) {
            try ImportWriter.writeAtomically(Data(gitignore.utf8), to: gitignorePath)
            written.append(gitignorePath)
        }
        if workflow {
            let folder = (directory as NSString).appendingPathComponent(".github/workflows")
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let path = (folder as NSString).appendingPathComponent("pages.yml")
            try ImportWriter.writeAtomically(Data(pagesWorkflow(action: action).utf8), to: path)
            written.append(path)
        }
        return written
    }
}
