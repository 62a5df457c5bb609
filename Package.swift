// swift-tools-version:5.10
// blog: a static site generator for Qiita-style technical archives.
// Module layout: see README.md ("Source layout"). No dependency outside this package:
// the C libraries come from Debian (apt) or Homebrew packages through systemLibrary targets.
import PackageDescription

// Homebrew's mimalloc has a pkg-config file (it is how its Homebrew prefix is found); Debian's has
// none and needs none (its header and library are in the default paths).
#if os(macOS)
let mimallocPkgConfig: String? = "mimalloc"
#else
let mimallocPkgConfig: String? = nil
#endif

let package = Package(
    name: "blog",
    // Synchronization's Mutex and Atomic need macOS 15.
    platforms: [.macOS("15.0")],
    products: [
        .executable(name: "blog", targets: ["blog"]),
    ],
    targets: [
        // C libraries from Debian or Homebrew, wrapped once.
        .systemLibrary(name: "CCmark", path: "Sources/CCmark", pkgConfig: "libcmark",
                       providers: [.apt(["libcmark-dev"]), .brew(["cmark"])]),
        .systemLibrary(name: "CYaml", path: "Sources/CYaml", pkgConfig: "yaml-0.1",
                       providers: [.apt(["libyaml-dev"]), .brew(["libyaml"])]),
        .systemLibrary(name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", pkgConfig: "libmicrohttpd",
                       providers: [.apt(["libmicrohttpd-dev"]), .brew(["libmicrohttpd"])]),
        // The allocator the blog program links: its malloc replaces the system's.
        .systemLibrary(name: "CMimalloc", path: "Sources/CMimalloc", pkgConfig: mimallocPkgConfig,
                       providers: [.apt(["libmimalloc-dev"]), .brew(["mimalloc"])]),
        // HTTP GET through libcurl, loaded on first use (its headers come from libcurl4-openssl-dev).
        .target(name: "CCurl", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),

        // Shared vocabulary: diagnostics, paths, slugs, console.
        .target(name: "BlogCore"),
        // libyaml events -> YAMLValue with line marks.
        .target(name: "BlogYAML", dependencies: ["CYaml", "BlogCore"]),
        // TeX to MathML Core at build time, no dependencies.
        .target(name: "BlogMath"),
        // cmark + the Qiita dialect + syntax highlighting.
        .target(name: "BlogMarkdown", dependencies: ["CCmark", "BlogCore", "BlogMath"]),
        // Spec-complete Mustache (BlogCore for source locations and the hash).
        .target(name: "BlogMustache", dependencies: ["BlogCore"]),
        // Japanese-aware search index (tokenizer, shards).
        .target(name: "BlogSearch", dependencies: ["BlogCore"]),
        // Config, front matter, posts and pages, the content loader.
        .target(name: "BlogContent", dependencies: ["BlogCore", "BlogYAML", "BlogMarkdown"]),
        // Qiita importers and authoring helpers.
        .target(name: "BlogImport", dependencies: ["BlogCore", "BlogYAML", "BlogContent", "CCurl"]),
        // The default theme, embedded into the binary at build time from themes/default.
        .executableTarget(name: "embed-theme", path: "Sources/embed-theme"),
        .plugin(name: "EmbedTheme", capability: .buildTool(), dependencies: ["embed-theme"]),
        .target(name: "DefaultTheme", plugins: ["EmbedTheme"]),
        // Assembly, rendering, feeds, indexes, output.
        .target(name: "BlogSite", dependencies: ["BlogCore", "BlogYAML", "BlogContent", "BlogMustache", "BlogSearch", "DefaultTheme"]),
        // The preview server: libmicrohttpd, file watching (inotify or polling), live reload.
        .target(name: "BlogServer", dependencies: ["BlogCore", "CMicroHTTPD"]),
        // Commands, argument parsing, help, exit codes.
        .target(name: "BlogCLI", dependencies: ["BlogCore", "BlogContent", "BlogSite", "BlogServer", "BlogImport", "DefaultTheme"]),
        .executableTarget(name: "blog", dependencies: ["BlogCLI", "BlogCore", "CMimalloc"]),
        // Micro-benchmarks for `make bench` (Markdown vs plain cmark, template throughput, search queries).
        .executableTarget(name: "blog-bench", dependencies: ["CCmark", "BlogCore", "BlogMarkdown", "BlogMath", "BlogMustache", "BlogContent", "BlogSearch", "BlogSite", "BlogServer"]),

        // Helpers shared by the test targets (a deterministic generator).
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "BlogCoreTests", dependencies: ["BlogCore", "TestSupport"]),
        .testTarget(name: "BlogYAMLTests", dependencies: ["BlogYAML"]),
        .testTarget(name: "BlogMarkdownTests", dependencies: ["BlogMarkdown", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "BlogMathTests", dependencies: ["BlogMath"], exclude: ["Fixtures"]),
        .testTarget(name: "BlogMustacheTests", dependencies: ["BlogMustache", "BlogCore", "TestSupport"]),
        .testTarget(name: "BlogSearchTests", dependencies: ["BlogSearch", "TestSupport"]),
        .testTarget(name: "BlogContentTests", dependencies: ["BlogContent"]),
        .testTarget(name: "BlogImportTests", dependencies: ["BlogImport", "BlogContent"], exclude: ["Fixtures"]),
        .testTarget(name: "BlogSiteTests", dependencies: ["BlogSite", "BlogContent", "TestSupport"], exclude: ["Fixtures"]),
        .testTarget(name: "BlogServerTests", dependencies: ["BlogServer", "blog-bench"]),
        .testTarget(name: "BlogCLITests", dependencies: ["BlogCLI"]),
    ]
)
