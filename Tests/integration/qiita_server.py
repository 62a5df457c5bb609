"""A loopback server that plays Qiita's API v2 and its image host for `blog import qiita` tests.

Five public items of user `alice` come in three pages (2 + 2 + 1) with `Link` and `Total-Count`
headers; `/authenticated_user/items` adds one private item and needs the bearer token. Images:
two good ones, one without an extension, one 404, one that is HTML, one over a megabyte. Faults
are switched on per test through `state.faults`.
"""
import http.server
import json
import threading
import time
import urllib.parse

TOKEN = "qiita-test-TOKEN-5e3f9c1a7b"
USER = "alice"

PNG = bytes.fromhex("89504e470d0a1a0a0000000d4948445200000001000000010806000000"
                    "1f15c4890000000d49444154789c6360000002000100e221bc330000000049454e44ae426082")
JPEG = b"\xff\xd8\xff\xe0" + b"JFIF-test-bytes" * 8 + b"\xff\xd9"


def item_id(n):
    return f"c0ffee{n:014x}"


def items(base):
    img = f"{base}/img"
    bodies = [
        "# Cats\n\n![a cat](" + img + "/cat.png)\n\n"
        "<img src=\"" + img + "/dog.jpg\" width=\"300\">\n\n"
        "[![linked](" + img + "/cat.png)](" + img + "/cat.png)\n\n"
        "![elsewhere](https://example.com/remote.png)\n\n"
        "```markdown\n![in code](" + img + "/cat.png)\n```\n",
        "Missing picture:\n\n![gone](" + img + "/missing.png)\n",
        "Not a picture:\n\n![page](" + img + "/page.png)\n",
        "Too big:\n\n![big](" + img + "/big.png \"a title\")\n",
        "No extension:\n\n![noext](" + img + "/noext)\nand again ![again](" + img + "/noext)\n",
    ]
    result = []
    for n, body in enumerate(bodies, start=1):
        result.append({
            "id": item_id(n),
            "title": f"記事 {n}: Swift tips",
            "body": body,
            "created_at": f"2021-0{n}-10T09:15:00+09:00",
            "updated_at": f"2021-0{n}-11T10:00:00+09:00",
            "tags": [{"name": "Swift", "versions": []}, {"name": "iOS", "versions": []}],
            "url": f"https://qiita.com/{USER}/items/{item_id(n)}",
            "likes_count": n * 3,
            "private": False,
            "user": {"id": USER},
        })
    return result


def private_item():
    return {
        "id": item_id(99), "title": "下書きのメモ", "body": "private notes\n",
        "created_at": "2022-01-02T03:04:05+09:00", "updated_at": "2022-01-02T03:04:05+09:00",
        "tags": [{"name": "memo", "versions": []}], "url": f"https://qiita.com/{USER}/private/{item_id(99)}",
        "likes_count": 0, "private": True, "user": {"id": USER},
    }


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []   # (path, authorization header or None)
        self.images_in_flight = 0
        self.most_images_in_flight = 0
        # fault name -> remaining count (None: always). Names: "429:<page>", "403rate:<page>" (Qiita's
        # own answer to a used-up limit), "429long:<page>",
        # "500:<page>", "401:<page>", "403:<page>", "slow-image" (cat.png answers after 5 s),
        # "slow-images" (every image answers after 0.3 s, so that downloads overlap).
        self.faults = {}

    def take_fault(self, name):
        with self.lock:
            if name not in self.faults:
                return False
            left = self.faults[name]
            if left is None:
                return True
            if left <= 0:
                return False
            self.faults[name] = left - 1
            return True


class Handler(http.server.BaseHTTPRequestHandler):
    state: State = None
    base = ""

    def log_message(self, *args):
        pass

    def send(self, status, body=b"", content_type="application/json", headers=None, length=True):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if length:
            self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def send_json(self, status, value, headers=None):
        self.send(status, json.dumps(value, ensure_ascii=False).encode(), headers=headers)

    def rate_headers(self, remaining=999, reset=None):
        return {"Rate-Limit": "1000", "Rate-Remaining": str(remaining),
                "Rate-Reset": str(int(reset if reset is not None else time.time() + 3600))}

    def do_GET(self):
        parsed = urllib.parse.urlsplit(self.path)
        with self.state.lock:
            self.state.requests.append((parsed.path, self.headers.get("Authorization")))
        if parsed.path.startswith("/img/"):
            with self.state.lock:
                self.state.images_in_flight += 1
                self.state.most_images_in_flight = max(self.state.most_images_in_flight, self.state.images_in_flight)
            try:
                if "slow-images" in self.state.faults:
                    time.sleep(0.3)
                return self.image(parsed.path[len("/img/"):])
            finally:
                with self.state.lock:
                    self.state.images_in_flight -= 1
        query = urllib.parse.parse_qs(parsed.query)
        page = int(query.get("page", ["1"])[0])
        if parsed.path == f"/api/v2/users/{USER}/items":
            return self.items(parsed.path, page, items(self.base))
        if parsed.path == "/api/v2/authenticated_user/items":
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self.send_json(401, {"message": "Unauthorized", "type": "unauthorized"}, self.rate_headers())
            return self.items(parsed.path, page, [private_item()] + items(self.base))
        if parsed.path.startswith("/api/v2/users/"):
            return self.send_json(404, {"message": "Not found", "type": "not_found"}, self.rate_headers())
        self.send_json(404, {"message": "Not found", "type": "not_found"})

    def items(self, path, page, all_items):
        if self.state.take_fault(f"429:{page}"):
            return self.send_json(429, {"message": "Rate limit exceeded", "type": "rate_limit_exceeded"},
                                  self.rate_headers(0, time.time() + 1))
        if self.state.take_fault(f"403rate:{page}"):
            return self.send_json(403, {"message": "Rate limit exceeded", "type": "rate_limit_exceeded"},
                                  self.rate_headers(0, time.time() + 1))
        if self.state.take_fault(f"429long:{page}"):
            return self.send_json(429, {"message": "Rate limit exceeded", "type": "rate_limit_exceeded"},
                                  self.rate_headers(0, time.time() + 3600))
        if self.state.take_fault(f"500:{page}"):
            return self.send(500, b"<html>Internal Server Error</html>", "text/html")
        if self.state.take_fault(f"403:{page}"):
            return self.send_json(403, {"message": "Forbidden", "type": "forbidden"}, self.rate_headers())
        if self.state.take_fault(f"401:{page}"):
            return self.send_json(401, {"message": "Unauthorized", "type": "unauthorized"}, self.rate_headers())
        size = 2
        pages = (len(all_items) + size - 1) // size
        chunk = all_items[(page - 1) * size: page * size]
        url = lambda n: f"{self.base}{path}?page={n}&per_page=100"
        links = [f'<{url(1)}>; rel="first"']
        if page > 1:
            links.append(f'<{url(page - 1)}>; rel="prev"')
        if page < pages:
            links.append(f'<{url(page + 1)}>; rel="next"')
        links.append(f'<{url(pages)}>; rel="last"')
        headers = {"Link": ", ".join(links), "Total-Count": str(len(all_items))}
        headers.update(self.rate_headers())
        self.send_json(200, chunk, headers)

    def image(self, name):
        if name == "cat.png" and self.state.take_fault("slow-image"):
            time.sleep(5)
        if name == "cat.png":
            return self.send(200, PNG, "image/png")
        if name == "dog.jpg":
            return self.send(200, JPEG, "image/jpeg; charset=binary")
        if name == "noext":
            return self.send(200, PNG, "image/png")
        if name == "page.png":
            return self.send(200, b"<!doctype html><title>login</title>", "text/html; charset=utf-8")
        if name == "big.png":
            # No Content-Length: the size limit must hold while the body streams.
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.end_headers()
            try:
                for _ in range(24):
                    self.wfile.write(b"\0" * 65536)
            except (BrokenPipeError, ConnectionResetError):
                pass
            return
        self.send(404, b"not found", "text/plain")


def start():
    """Starts a server on a free loopback port; returns (base URL, state, server)."""
    state = State()
    handler = type("QiitaHandler", (Handler,), {"state": state})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    handler.base = f"http://127.0.0.1:{server.server_address[1]}"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return handler.base, state, server
