// blog-bench: micro-benchmarks used by `make bench`. See scripts/bench.sh.
import Foundation

FileHandle.standardError.write("usage: blog-bench <markdown|templates|search> SITE_DIR\n".data(using: .utf8)!)
exit(64)
