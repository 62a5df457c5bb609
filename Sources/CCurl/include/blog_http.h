#ifndef BLOG_HTTP_H
#define BLOG_HTTP_H

#include <stddef.h>

/// What became of a request.
enum {
    BLOG_HTTP_OK = 0,
    /// libcurl could not be loaded (message says why).
    BLOG_HTTP_UNAVAILABLE = 1,
    /// The request failed (message from libcurl).
    BLOG_HTTP_TRANSPORT = 2,
    /// No connection, a dropped one, or no data for the timeout: worth trying again.
    BLOG_HTTP_RETRYABLE = 3,
    /// The body (or its announced length) went past max_bytes.
    BLOG_HTTP_TOO_LARGE = 4,
    /// A 200 answer whose Content-Type is not image/* (message holds the type).
    BLOG_HTTP_NOT_IMAGE = 5,
};

/// One response. headers and body are malloc'd; release them with blog_http_free.
typedef struct {
    int outcome;
    long status;
    char *headers;
    size_t headers_length;
    char *body;
    size_t body_length;
    char message[256];
} blog_http_response;

/// A GET of url with extra header lines ("Name: value"). timeout: seconds to connect and seconds
/// without data before giving up. max_bytes: body limit (0: none). require_image: refuse a 200
/// answer that is not an image before reading its body. Redirects (http and https only) are
/// followed; libcurl does not send custom Authorization headers to another host.
void blog_http_get(const char *url, const char *const *header_lines, int header_count, const char *user_agent,
                   long timeout, long long max_bytes, int require_image, blog_http_response *response);

void blog_http_free(blog_http_response *response);

#endif
