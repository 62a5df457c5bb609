import Synchronization
import BlogCore
import CMicroHTTPD

/// The tag injected before `</body>` of every HTML response when live reload is on.
let liveReloadScriptTag = "<script src=\"/__blog/livereload.js\"></script>"

/// Inserts the live-reload tag before the last `</body>` (any case), or appends it.
func injectLiveReload(into html: [UInt8]) -> [UInt8] {
    let tag = Array(liveReloadScriptTag.utf8)
    let needle = Array("</body".utf8)
    var position = html.count
    if html.count >= needle.count {
        var index = html.count - needle.count
        search: while index >= 0 {
            for offset in 0..<needle.count {
                var byte = html[index + offset]
                if byte >= 0x41 && byte <= 0x5A { byte += 0x20 }
                if byte != needle[offset] { index -= 1; continue search }
            }
            position = index
            break
        }
    }
    var out: [UInt8] = []
    out.reserveCapacity(html.count + tag.count)
    out.append(contentsOf: html[..<position])
    out.append(contentsOf: tag)
    out.append(contentsOf: html[position...])
    return out
}

/// Server-sent event text for one event.
func sseEvent(_ name: String, data: String) -> String {
    "event: \(name)\ndata: \(data)\n\n"
}

func errorStateEvent(_ errors: [String]) -> String {
    errors.isEmpty ? sseEvent("ok", data: "[]") : sseEvent("error", data: JSON.array(errors))
}

/// One open `/__blog/events` stream. Its bytes wait in `pending`; when there is nothing to send the
/// connection is suspended (not polled at all) until a broadcast resumes it.
final class SSEClient {
    let connection: OpaquePointer
    /// The connection's socket, watched for the browser closing it.
    let fd: Int32
    unowned let hub: LiveReloadHub
    var pending: [UInt8]
    var suspended = false
    var ended = false

    init(connection: OpaquePointer, fd: Int32, hub: LiveReloadHub, initial: [UInt8]) {
        self.connection = connection
        self.fd = fd
        self.hub = hub
        self.pending = initial
    }

    /// Called by libmicrohttpd's thread (content reader callback).
    func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        hub.lock.withLock { _ in
            if !pending.isEmpty {
                let count = min(max, pending.count)
                pending.withUnsafeBytes { source in
                    UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
                }
                pending.removeFirst(count)
                return count
            }
            if ended { return -1 } // MHD_CONTENT_READER_END_OF_STREAM
            suspended = true
            MHD_suspend_connection(connection)
            return 0
        }
    }
}

/// All open live-reload streams.
final class LiveReloadHub {
    let lock = Mutex(())
    private var clients: [ObjectIdentifier: SSEClient] = [:]
    private var closing = false
    /// A client that does not read this much queued data is dropped.
    static let maxPending = 256 * 1024
    /// Open streams at most: each holds a connection, and connections from one address are limited.
    let limit: Int
    /// Called after a stream registers (outside the lock), so that its socket is watched at once.
    var registered: (() -> Void)?

    init(limit: Int = 64) {
        self.limit = limit
    }

    var count: Int { lock.withLock { _ in clients.count } }

    /// False when closing or full (the caller answers 503).
    func register(_ client: SSEClient) -> Bool {
        let added: Bool = lock.withLock { _ in
            if closing || clients.count >= limit { return false }
            clients[ObjectIdentifier(client)] = client
            return true
        }
        if added { registered?() }
        return added
    }

    /// The open streams and their sockets.
    func sockets() -> [(client: SSEClient, fd: Int32)] {
        lock.withLock { _ in clients.values.filter { !$0.ended && $0.fd >= 0 }.map { ($0, $0.fd) } }
    }

    /// Ends one stream (its browser went away): libmicrohttpd resumes it, finds the end and closes it.
    func end(_ client: SSEClient) {
        lock.withLock { _ in
            guard clients[ObjectIdentifier(client)] != nil, !client.ended else { return }
            client.ended = true
            client.pending.removeAll()
            wake(client)
        }
    }

    func unregister(_ client: SSEClient) {
        lock.withLock { _ in _ = clients.removeValue(forKey: ObjectIdentifier(client)) }
    }

    func broadcast(_ text: String) {
        let bytes = Array(text.utf8)
        lock.withLock { _ in
            for client in clients.values where !client.ended {
                if client.pending.count + bytes.count > LiveReloadHub.maxPending {
                    client.ended = true
                    client.pending.removeAll()
                } else {
                    client.pending.append(contentsOf: bytes)
                }
                wake(client)
            }
        }
    }

    /// Ends every stream (they finish once their queued bytes are written) and refuses new ones.
    func closeAll() {
        lock.withLock { _ in
            closing = true
            for client in clients.values {
                client.ended = true
                wake(client)
            }
        }
    }

    private func wake(_ client: SSEClient) {
        if client.suspended {
            client.suspended = false
            MHD_resume_connection(client.connection)
        }
    }
}

/// The browser side of live reload, served at `/__blog/livereload.js`.
/// Builds the error overlay with `textContent` only (error text is never parsed as HTML).
let liveReloadScript = #"""
(function () {
  'use strict';
  if (window.__blogLiveReload || !window.EventSource) { return; }
  window.__blogLiveReload = true;
  var OVERLAY_ID = '__blog-error-overlay';

  function removeOverlay() {
    var old = document.getElementById(OVERLAY_ID);
    if (old && old.parentNode) { old.parentNode.removeChild(old); }
  }

  function showErrors(lines) {
    removeOverlay();
    if (!lines || !lines.length) { return; }
    var box = document.createElement('div');
    box.id = OVERLAY_ID;
    box.setAttribute('role', 'alert');
    var s = box.style;
    s.position = 'fixed'; s.left = '0'; s.right = '0'; s.top = '0'; s.maxHeight = '100%';
    s.overflow = 'auto'; s.zIndex = '2147483647'; s.margin = '0'; s.padding = '16px 20px';
    s.boxSizing = 'border-box'; s.background = 'rgba(24, 24, 27, 0.96)'; s.color = '#fecaca';
    s.font = '13px/1.6 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace';
    s.whiteSpace = 'pre-wrap'; s.borderBottom = '3px solid #ef4444'; s.textAlign = 'left';
    var close = document.createElement('button');
    close.type = 'button';
    close.textContent = '\u00d7';
    close.setAttribute('aria-label', 'Close');
    close.style.cssFloat = 'right'; close.style.font = 'inherit'; close.style.fontSize = '18px';
    close.style.background = 'transparent'; close.style.color = '#fff'; close.style.border = '0';
    close.style.cursor = 'pointer';
    close.addEventListener('click', removeOverlay);
    box.appendChild(close);
    var title = document.createElement('strong');
    title.textContent = 'Build failed \u2014 the last good version is shown';
    title.style.display = 'block'; title.style.color = '#fff'; title.style.marginBottom = '8px';
    box.appendChild(title);
    for (var i = 0; i < lines.length; i++) {
      var line = document.createElement('div');
      line.textContent = String(lines[i]);
      box.appendChild(line);
    }
    (document.body || document.documentElement).appendChild(box);
  }

  function parse(text) {
    try { return JSON.parse(text); } catch (e) { return null; }
  }

  function isStylesheet(path) { return /\.css$/i.test(path); }

  function swapStylesheets(paths) {
    var links = document.querySelectorAll('link[rel~="stylesheet"][href]');
    var stamp = String(Date.now());
    for (var i = 0; i < links.length; i++) {
      var url = new URL(links[i].getAttribute('href'), location.href);
      if (url.origin !== location.origin || paths.indexOf(url.pathname) < 0) { continue; }
      url.searchParams.set('__blog_reload', stamp);
      links[i].href = url.pathname + url.search + url.hash;
    }
  }

  var source = new EventSource('/__blog/events');
  source.addEventListener('reload', function (event) {
    var info = parse(event.data) || {};
    var paths = Array.isArray(info.paths) ? info.paths : [];
    if (paths.length > 0 && paths.every(isStylesheet)) {
      swapStylesheets(paths);
    } else {
      location.reload();
    }
  });
  source.addEventListener('error', function (event) {
    // Without data this is the stream itself failing; EventSource reconnects on its own.
    if (typeof event.data !== 'string') { return; }
    var lines = parse(event.data);
    showErrors(Array.isArray(lines) ? lines : [event.data]);
  });
  source.addEventListener('ok', removeOverlay);

  if (window.fetch) {
    fetch('/__blog/status', { cache: 'no-store' })
      .then(function (response) { return response.json(); })
      .then(function (status) {
        if (status && Array.isArray(status.errors) && status.errors.length) { showErrors(status.errors); }
      })
      .catch(function () {});
  }
})();
"""#
