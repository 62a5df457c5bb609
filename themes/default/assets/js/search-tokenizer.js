/*
 * The search tokenizer for the browser: must match Sources/BlogSearch/SearchTokenizer.swift token
 * for token (the shared test vectors in SearchTestVectors check it). Used by search.js.
 */
(function () {
  'use strict';


  var MAX_WORD_LENGTH = 64;
  var MAX_PARTS_FOR_SPANS = 8;
  var MAX_SPAN_PARTS = 3;

  function isCJK(v) {
    if (v < 0x1100) return false;
    if (v >= 0x4e00 && v <= 0x9fff) return true;
    if (v >= 0x3041 && v <= 0x309f) return true;
    if (v >= 0x30a1 && v <= 0x30ff) return v !== 0x30fb;
    if (v >= 0x3005 && v <= 0x3007) return true;
    if (v >= 0x31f0 && v <= 0x31ff) return true;
    if (v >= 0x3400 && v <= 0x4dbf) return true;
    if (v >= 0xf900 && v <= 0xfaff) return true;
    if (v >= 0x20000 && v <= 0x3134f) return true;
    if (v >= 0xac00 && v <= 0xd7a3) return true;
    if (v <= 0x11ff) return true;
    if (v >= 0x3131 && v <= 0x318e) return true;
    if (v >= 0xa960 && v <= 0xa97f) return true;
    return v >= 0xd7b0 && v <= 0xd7ff;
  }

  function isWordLetter(v) {
    if (v >= 0xc0 && v <= 0x24f) return v !== 0xd7 && v !== 0xf7;
    if (v >= 0x370 && v <= 0x3ff) return v !== 0x37e && v !== 0x387 && v !== 0x375;
    if (v >= 0x400 && v <= 0x4ff) return true;
    return v >= 0x1e00 && v <= 0x1eff;
  }

  function isASCIIWord(v) {
    return (v >= 0x61 && v <= 0x7a) || (v >= 0x41 && v <= 0x5a) || (v >= 0x30 && v <= 0x39) || v === 0x5f;
  }

  function lower(s) {
    return s.toLowerCase().replace(/\u03c2/g, '\u03c3');
  }

  function isUpper(c) { return c.toLowerCase() !== c; }
  function isLower(c) { return c.toUpperCase() !== c; }
  function isDigit(c) { return c >= '0' && c <= '9'; }

  function normalize(text) {
    return String(text).normalize('NFKC');
  }

  /** Splits normalized text into runs: {kind: 'cjk'|'word', chars: [code point strings]}. */
  function runs(normalized) {
    var out = [];
    var kind = 0;
    var chars = [];
    for (var ch of normalized) {
      var v = ch.codePointAt(0);
      var k = v < 0x80 ? (isASCIIWord(v) ? 2 : 0) : (isCJK(v) ? 1 : (isWordLetter(v) ? 2 : 0));
      if (k !== kind) {
        if (kind) out.push({ kind: kind === 1 ? 'cjk' : 'word', chars: chars });
        chars = [];
        kind = k;
      }
      if (k) chars.push(ch);
    }
    if (kind) out.push({ kind: kind === 1 ? 'cjk' : 'word', chars: chars });
    return out;
  }

  function splitParts(chars) {
    var parts = [];
    var start = -1;
    for (var i = 0; i < chars.length; i++) {
      var c = chars[i];
      if (c === '_') {
        if (start >= 0) { parts.push(chars.slice(start, i)); start = -1; }
        continue;
      }
      if (start >= 0) {
        var prev = chars[i - 1];
        if (isUpper(c) && (isLower(prev) || isDigit(prev) ||
            (isUpper(prev) && i + 1 < chars.length && isLower(chars[i + 1])))) {
          parts.push(chars.slice(start, i));
          start = i;
        }
      } else {
        start = i;
      }
    }
    if (start >= 0) parts.push(chars.slice(start));
    return parts;
  }

  /** The whole lowercased word (leading/trailing `_` removed), or null. */
  function wholeWord(chars) {
    if (chars.length > MAX_WORD_LENGTH) return null;
    var lo = 0, hi = chars.length;
    while (lo < hi && chars[lo] === '_') lo++;
    while (hi > lo && chars[hi - 1] === '_') hi--;
    if (lo === hi) return null;
    return lower(chars.slice(lo, hi).join(''));
  }

  function wordTokens(chars) {
    var whole = wholeWord(chars);
    if (whole === null) return [];
    var out = [whole];
    var parts = splitParts(chars);
    if (parts.length < 2) return out;
    var lowered = parts.map(function (p) { return lower(p.join('')); });
    var seen = new Set(out);
    var longest = parts.length > MAX_PARTS_FOR_SPANS ? 1 : Math.min(MAX_SPAN_PARTS, parts.length);
    for (var length = 1; length <= longest; length++) {
      for (var start = 0; start + length <= lowered.length; start++) {
        var token = lowered.slice(start, start + length).join('');
        if (!seen.has(token)) { seen.add(token); out.push(token); }
      }
    }
    return out;
  }

  function cjkTokens(chars) {
    if (chars.length === 1) return [chars[0]];
    var out = [];
    for (var i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1]);
    return out;
  }

  /** All index tokens of `text`, in the order the Swift tokenizer gives them. */
  function tokenize(text) {
    var out = [];
    runs(normalize(text)).forEach(function (run) {
      var tokens = run.kind === 'cjk' ? cjkTokens(run.chars) : wordTokens(run.chars);
      for (var i = 0; i < tokens.length; i++) out.push(tokens[i]);
    });
    return out;
  }

  /** The terms a query looks up: whole words and CJK bigrams (one per position). */
  function queryTerms(text) {
    var out = [];
    runs(normalize(text)).forEach(function (run) {
      if (run.kind === 'cjk') {
        cjkTokens(run.chars).forEach(function (t) { out.push(t); });
      } else {
        var whole = wholeWord(run.chars);
        if (whole !== null) out.push(whole);
      }
    });
    return out;
  }

  function normalizeTag(tag) {
    return lower(normalize(tag)).split(/\s+/).filter(Boolean).join(' ');
  }

  window.blogSearchTokenizer = {
    normalize: normalize, runs: runs, wholeWord: wholeWord, cjkTokens: cjkTokens, lower: lower,
    tokenize: tokenize, queryTerms: queryTerms, normalizeTag: normalizeTag
  };
})();
