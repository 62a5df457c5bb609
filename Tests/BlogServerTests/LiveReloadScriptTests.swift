import XCTest
@testable import BlogServer

/// Runs the browser script under Node.js with a tiny fake DOM (skipped when node is missing).
final class LiveReloadScriptTests: XCTestCase {
    static let harness = #"""
    const assert = require('assert');
    const fs = require('fs');
    const listeners = {};
    let reloads = 0;
    const nodes = {};
    function makeElement(tag) {
      return {
        tag, children: [], style: {}, attributes: {}, parentNode: null, _text: '',
        set textContent(v) { this._text = String(v); }, get textContent() { return this._text; },
        set innerHTML(v) { throw new Error('innerHTML must not be used'); },
        setAttribute(k, v) { this.attributes[k] = v; }, addEventListener() {},
        appendChild(c) { c.parentNode = this; this.children.push(c); if (c.id) nodes[c.id] = c; return c; },
        removeChild(c) { this.children = this.children.filter(x => x !== c); if (c.id) delete nodes[c.id]; },
      };
    }
    const links = [
      { rel: 'stylesheet', _href: '/assets/a.css', getAttribute() { return this._href; }, set href(v) { this._href = v; }, get href() { return 'http://127.0.0.1:8000' + this._href; } },
      { rel: 'stylesheet', _href: '/assets/b.css', getAttribute() { return this._href; }, set href(v) { this._href = v; }, get href() { return 'http://127.0.0.1:8000' + this._href; } },
    ];
    const body = makeElement('body');
    global.window = global;
    global.location = { href: 'http://127.0.0.1:8000/posts/x/', origin: 'http://127.0.0.1:8000', reload() { reloads++; } };
    global.document = {
      body, documentElement: body,
      createElement: makeElement,
      getElementById(id) { return nodes[id] || null; },
      querySelectorAll() { return links; },
    };
    global.EventSource = function (url) { assert.strictEqual(url, '/__blog/events'); this.addEventListener = (n, f) => { listeners[n] = f; }; };
    global.fetch = undefined;
    eval(fs.readFileSync(process.argv[2], 'utf8'));

    listeners.reload({ data: JSON.stringify({ generation: 2, paths: ['/assets/a.css'] }) });
    assert.strictEqual(reloads, 0, 'a CSS-only change does not reload the page');
    assert.match(links[0]._href, /^\/assets\/a\.css\?__blog_reload=\d+$/);
    assert.strictEqual(links[1]._href, '/assets/b.css');

    listeners.reload({ data: JSON.stringify({ generation: 3, paths: ['/assets/a.css', '/index.html'] }) });
    assert.strictEqual(reloads, 1);
    listeners.reload({ data: JSON.stringify({ generation: 4, paths: [] }) });
    assert.strictEqual(reloads, 2, 'unknown changes reload');

    listeners.error({});  // the stream failing: no overlay
    assert.strictEqual(body.children.length, 0);
    listeners.error({ data: JSON.stringify(['a.md:3: bad <b>tag</b>']) });
    const overlay = nodes['__blog-error-overlay'];
    assert.ok(overlay, 'overlay shown');
    const texts = overlay.children.map(c => c.textContent);
    assert.ok(texts.includes('a.md:3: bad <b>tag</b>'), texts.join('|'));
    listeners.ok({ data: '[]' });
    assert.strictEqual(nodes['__blog-error-overlay'], undefined, 'ok removes the overlay');
    assert.strictEqual(body.children.length, 0);
    console.log('script ok');
    """#

    func testScriptBehaviourUnderNode() throws {
        let candidates = ["/usr/bin/node", "/usr/local/bin/node", "/usr/bin/nodejs"]
        guard let node = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("node is not installed")
        }
        let dir = makeTempDir()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        writeFile(dir + "/livereload.js", liveReloadScript)
        writeFile(dir + "/harness.js", Self.harness)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: node)
        process.arguments = [dir + "/harness.js", dir + "/livereload.js"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("script ok"), output)
    }
}
