// HTTP GET through libcurl, loaded with dlopen on the first request: linking it (or Foundation's
// URLSession, which links it on Linux) would load libcurl and some thirty libraries it needs at
// every start of blog, for the one command that goes on the network.
#define CURL_DISABLE_TYPECHECK 1
#include "blog_http.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    int loaded;
    char error[200];
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    void (*easy_cleanup)(CURL *);
    const char *(*easy_strerror)(CURLcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} curl;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    static const char *names[] = {"libcurl.so.4", "libcurl.so", "libcurl-gnutls.so.4", "libcurl.4.dylib", "libcurl.dylib"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(curl.error, sizeof curl.error, "libcurl is needed to fetch from the network and was not found (Debian: apt install libcurl4)");
        return;
    }
    CURLcode (*global_init)(long) = (CURLcode (*)(long))dlsym(library, "curl_global_init");
    curl.easy_init = (CURL *(*)(void))dlsym(library, "curl_easy_init");
    curl.easy_setopt = (CURLcode (*)(CURL *, CURLoption, ...))dlsym(library, "curl_easy_setopt");
    curl.easy_perform = (CURLcode (*)(CURL *))dlsym(library, "curl_easy_perform");
    curl.easy_getinfo = (CURLcode (*)(CURL *, CURLINFO, ...))dlsym(library, "curl_easy_getinfo");
    curl.easy_cleanup = (void (*)(CURL *))dlsym(library, "curl_easy_cleanup");
    curl.easy_strerror = (const char *(*)(CURLcode))dlsym(library, "curl_easy_strerror");
    curl.slist_append = (struct curl_slist *(*)(struct curl_slist *, const char *))dlsym(library, "curl_slist_append");
    curl.slist_free_all = (void (*)(struct curl_slist *))dlsym(library, "curl_slist_free_all");
    if (!global_init || !curl.easy_init || !curl.easy_setopt || !curl.easy_perform || !curl.easy_getinfo || !curl.easy_cleanup
        || !curl.easy_strerror || !curl.slist_append || !curl.slist_free_all) {
        snprintf(curl.error, sizeof curl.error, "the libcurl found lacks functions blog needs");
        return;
    }
    if (global_init(CURL_GLOBAL_ALL) != CURLE_OK) {
        snprintf(curl.error, sizeof curl.error, "libcurl failed to start");
        return;
    }
    curl.loaded = 1;
}

typedef struct {
    blog_http_response *response;
    CURL *handle;
    long long max_bytes;
    int require_image;
    int checked;
    size_t body_capacity;
} transfer;

static int append(char **buffer, size_t *length, size_t *capacity, const char *data, size_t size) {
    if (*length + size + 1 > *capacity) {
        size_t next = *capacity ? *capacity : 16384;
        while (next < *length + size + 1) next *= 2;
        char *grown = realloc(*buffer, next);
        if (!grown) return 0;
        *buffer = grown;
        *capacity = next;
    }
    memcpy(*buffer + *length, data, size);
    *length += size;
    (*buffer)[*length] = 0;
    return 1;
}

static size_t on_header(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t bytes = size * count;
    // Each response of a redirect chain starts with its status line: keep the last one's headers.
    if (bytes >= 5 && memcmp(data, "HTTP/", 5) == 0) t->response->headers_length = 0;
    // Headers are few and small: grown exactly.
    char *grown = realloc(t->response->headers, t->response->headers_length + bytes + 1);
    if (!grown) return 0;
    t->response->headers = grown;
    memcpy(grown + t->response->headers_length, data, bytes);
    t->response->headers_length += bytes;
    grown[t->response->headers_length] = 0;
    return bytes;
}

static size_t on_body(char *data, size_t size, size_t count, void *context) {
    transfer *t = context;
    size_t bytes = size * count;
    if (!t->checked) {
        t->checked = 1;
        long status = 0;
        char *type = NULL;
        curl.easy_getinfo(t->handle, CURLINFO_RESPONSE_CODE, &status);
        curl.easy_getinfo(t->handle, CURLINFO_CONTENT_TYPE, &type);
        if (t->require_image && status == 200 && (!type || strncasecmp(type, "image/", 6) != 0)) {
            t->response->outcome = BLOG_HTTP_NOT_IMAGE;
            snprintf(t->response->message, sizeof t->response->message, "%s", type ? type : "");
            return 0;
        }
    }
    if (t->max_bytes > 0 && (long long)(t->response->body_length + bytes) > t->max_bytes) {
        t->response->outcome = BLOG_HTTP_TOO_LARGE;
        return 0;
    }
    if (!append(&t->response->body, &t->response->body_length, &t->body_capacity, data, bytes)) return 0;
    return bytes;
}

void blog_http_get(const char *url, const char *const *header_lines, int header_count, const char *user_agent,
                   long timeout, long long max_bytes, int require_image, blog_http_response *response) {
    memset(response, 0, sizeof *response);
    pthread_once(&load_once, load);
    if (!curl.loaded) {
        response->outcome = BLOG_HTTP_UNAVAILABLE;
        snprintf(response->message, sizeof response->message, "%s", curl.error);
        return;
    }
    CURL *handle = curl.easy_init();
    if (!handle) {
        response->outcome = BLOG_HTTP_TRANSPORT;
        snprintf(response->message, sizeof response->message, "libcurl could not start a request");
        return;
    }
    struct curl_slist *headers = NULL;
    for (int i = 0; i < header_count; i++) headers = curl.slist_append(headers, header_lines[i]);
    transfer t = {response, handle, max_bytes, require_image, 0, 0};
    char error[CURL_ERROR_SIZE] = {0};
    curl.easy_setopt(handle, CURLOPT_URL, url);
    curl.easy_setopt(handle, CURLOPT_HTTPHEADER, headers);
    curl.easy_setopt(handle, CURLOPT_USERAGENT, user_agent);
    curl.easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(handle, CURLOPT_MAXREDIRS, 5L);
    curl.easy_setopt(handle, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl.easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
    curl.easy_setopt(handle, CURLOPT_ACCEPT_ENCODING, "");
    curl.easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, timeout);
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl.easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, timeout);
    if (max_bytes > 0) curl.easy_setopt(handle, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_bytes);
    curl.easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
    curl.easy_setopt(handle, CURLOPT_HEADERDATA, &t);
    curl.easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
    curl.easy_setopt(handle, CURLOPT_WRITEDATA, &t);
    curl.easy_setopt(handle, CURLOPT_ERRORBUFFER, error);
    CURLcode code = curl.easy_perform(handle);
    curl.easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response->status);
    if (response->outcome == BLOG_HTTP_OK && code != CURLE_OK) {
        if (code == CURLE_FILESIZE_EXCEEDED) {
            response->outcome = BLOG_HTTP_TOO_LARGE;
        } else {
            response->outcome = (code == CURLE_OPERATION_TIMEDOUT || code == CURLE_COULDNT_CONNECT || code == CURLE_GOT_NOTHING
                                 || code == CURLE_RECV_ERROR || code == CURLE_SEND_ERROR || code == CURLE_PARTIAL_FILE)
                                    ? BLOG_HTTP_RETRYABLE : BLOG_HTTP_TRANSPORT;
            const char *reason = code == CURLE_OPERATION_TIMEDOUT ? "timed out" : error[0] ? error : curl.easy_strerror(code);
            snprintf(response->message, sizeof response->message, "%s", reason);
        }
    }
    curl.easy_cleanup(handle);
    curl.slist_free_all(headers);
}

void blog_http_free(blog_http_response *response) {
    free(response->headers);
    free(response->body);
    response->headers = NULL;
    response->body = NULL;
}
