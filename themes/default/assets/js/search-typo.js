/*
 * Typo tolerance for search.js: which index term a misspelled query word most likely meant.
 * Pure functions, no DOM (search-tokenizer.js loads first); must decide exactly like Sources/BlogSearch/SearchTypo.swift (the shared
 * test vectors in SearchTestVectors check both). Rules: docs/search-index.md, "Typo tolerance".
 */
(function () {
  'use strict';

  var tokenizer = window.blogSearchTokenizer;
  var MIN_LENGTH = 5;
  var LONG_LENGTH = 9;

  function chars(s) { return Array.from(String(s)); }

  function isDigit(c) { return c >= '0' && c <= '9'; }

  function digits(list) { return list.filter(isDigit).join(''); }

  /** Latin (or Greek/Cyrillic) word characters only: CJK runs never get corrections. */
  function isWordTerm(list) {
    return list.every(function (c) {
      var v = c.codePointAt(0);
      if (v < 0x80) return (v >= 0x61 && v <= 0x7a) || (v >= 0x30 && v <= 0x39) || v === 0x5f;
      return (v >= 0xc0 && v <= 0x24f) || (v >= 0x370 && v <= 0x4ff) || (v >= 0x1e00 && v <= 0x1eff);
    });
  }

  /** Edits allowed for a query word of this many characters: 0 (too short), 1, or 2 from 9 on. */
  function maxEdits(length) {
    return length < MIN_LENGTH ? 0 : (length < LONG_LENGTH ? 1 : 2);
  }

  /**
   * Optimal string alignment distance (insert, delete, substitute, swap two neighbours), or
   * limit + 1 as soon as it must exceed `limit`.
   */
  function distance(a, b, limit) {
    var n = a.length, m = b.length;
    if (Math.abs(n - m) > limit) return limit + 1;
    var before = null, previous = [], current;
    for (var j = 0; j <= m; j++) previous.push(j);
    for (var i = 1; i <= n; i++) {
      current = [i];
      var best = i;
      for (j = 1; j <= m; j++) {
        var cost = a[i - 1] === b[j - 1] ? 0 : 1;
        var d = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
        if (before && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
          d = Math.min(d, before[j - 2] + 1);
        }
        current.push(d);
        if (d < best) best = d;
      }
      if (best > limit) return limit + 1;
      before = previous;
      previous = current;
    }
    return previous[m] <= limit ? previous[m] : limit + 1;
  }

  /**
   * The edit distance from query word `word` to index term `term` when `term` may stand in for it,
   * else -1. A stand-in keeps the first two characters (where namespace prefixes such as UI/NS
   * live: NSTableView is not a misspelt UITableView) and every digit (iOS18 is not iOS17).
   */
  function editsTo(word, term) {
    var w = chars(word), t = chars(term);
    var limit = maxEdits(w.length);
    if (limit === 0 || !isWordTerm(w) || !isWordTerm(t) || t.length < 2) return -1;
    if (w[0] !== t[0] || w[1] !== t[1] || digits(w) !== digits(t)) return -1;
    if (term === word) return -1;
    var d = distance(w, t, limit);
    return d <= limit ? d : -1;
  }

  /**
   * The best stand-in among `candidates` ([{term, df}]): fewest edits, then the most documents,
   * then the first in term order; null when none qualifies.
   */
  function best(word, candidates) {
    var chosen = null, chosenEdits = 0;
    candidates.forEach(function (c) {
      var d = editsTo(word, c.term);
      if (d < 0) return;
      if (!chosen || d < chosenEdits || (d === chosenEdits && (c.df > chosen.df ||
          (c.df === chosen.df && c.term < chosen.term)))) {
        chosen = c;
        chosenEdits = d;
      }
    });
    return chosen ? { term: chosen.term, df: chosen.df, edits: chosenEdits } : null;
  }

  /**
   * `term` written with the letter case of `original` (the word as typed): characters that line up
   * take the typed case; an inserted letter is upper case only between two upper-case letters.
   */
  function recase(original, term) {
    var o = chars(original), t = chars(term);
    var lo = chars(original.toLowerCase());
    if (lo.length !== o.length) return term;
    // Align with the same distance table, then walk back from the end.
    var n = lo.length, m = t.length, table = [];
    for (var i = 0; i <= n; i++) {
      table.push([]);
      for (var j = 0; j <= m; j++) {
        if (i === 0 || j === 0) { table[i].push(i + j); continue; }
        var cost = lo[i - 1] === t[j - 1] ? 0 : 1;
        table[i].push(Math.min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost));
      }
    }
    function upper(k) { return k >= 0 && k < n && o[k] !== lo[k]; }
    var out = [];
    i = n; j = m;
    while (j > 0) {
      if (i > 0 && table[i][j] === table[i - 1][j - 1] + (lo[i - 1] === t[j - 1] ? 0 : 1)) {
        out.push(upper(i - 1) ? t[j - 1].toUpperCase() : t[j - 1]);
        i--; j--;
      } else if (i > 0 && table[i][j] === table[i - 1][j] + 1) {
        i--;
      } else {
        out.push(upper(i - 1) && upper(i) ? t[j - 1].toUpperCase() : t[j - 1]);
        j--;
      }
    }
    return out.reverse().join('');
  }

  /** `text` with its first occurrence of the word `word` (not inside a longer word) replaced. */
  function replaceWord(text, word, replacement) {
    var at = -1, from = 0;
    while ((at = text.indexOf(word, from)) >= 0) {
      var before = at > 0 ? tokenizer.runs(text.charAt(at - 1)) : [];
      var after = tokenizer.runs(text.charAt(at + word.length));
      if ((before.length === 0 || before[0].kind !== 'word') && (after.length === 0 || after[0].kind !== 'word')) {
        return text.slice(0, at) + replacement + text.slice(at + word.length);
      }
      from = at + 1;
    }
    return tokenizer.normalize(text).replace(word, replacement);
  }

  window.blogSearchTypo = {
    maxEdits: maxEdits, editsTo: editsTo, best: best, recase: recase, distance: distance, replaceWord: replaceWord
  };
})();
