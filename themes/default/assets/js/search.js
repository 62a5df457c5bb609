/*
 * Site search for blog: plain JavaScript, no dependencies.
 *
 * Reads the static index written by BlogSearch (format: docs/search-index.md) from the URL in the
 * `data-index` attribute of the search root element, tokenizes queries exactly like the index
 * (search-tokenizer.js), ranks with BM25F plus title and phrase bonuses, corrects misspelt words
 * that match nothing (search-typo.js), and renders results with DOM APIs only (indexed text never
 * goes through innerHTML).
 *
 * Test hook: window.blogSearch = { tokenize, queryTerms, normalizeTag, parseQuery, search, stats, reset }.
 */
(function () {
  'use strict';

  // The tokenizer (search-tokenizer.js, loaded first) and typo rules (search-typo.js).
  var tokenizer = window.blogSearchTokenizer;
  var runs = tokenizer.runs, normalize = tokenizer.normalize, wholeWord = tokenizer.wholeWord;
  var cjkTokens = tokenizer.cjkTokens, lower = tokenizer.lower, normalizeTag = tokenizer.normalizeTag;

  // ---------------------------------------------------------------------------------------------
  // Index access

  var ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  var DIGIT = {};
  for (var d = 0; d < ALPHABET.length; d++) DIGIT[ALPHABET.charCodeAt(d)] = d;

  var RESULTS_PER_PAGE = 10;
  var PREFIX_SHARD_LIMIT = 2;
  var PREFIX_TERM_LIMIT = 64;
  var PHRASE_BONUS = 0.6;
  var PREFIX_PENALTY = 0.85;
  var FUZZY_PENALTY = 0.7;

  var INDEX_VERSION = 2;

  /**
   * Decodes a posting string: {docs, values, residues} (docs ascending). Each posting starts with
   * head = gap·8 + kind (gap = doc − previous doc − 1); kind 0…5: one occurrence, body only, at a
   * position ≡ kind (mod 6); 6: body only, varint(occurrences − 2) and the residues follow;
   * 7: varint(value) and the residues follow.
   */
  function decodePostings(text) {
    var docs = [], values = [], residues = [];
    var i = 0, n = text.length, doc = -1;
    function varint() {
      var value = 0, shift = 0, digit;
      do {
        digit = DIGIT[text.charCodeAt(i++)];
        value += (digit & 31) * Math.pow(2, shift);
        shift += 5;
      } while (digit & 32);
      return value;
    }
    while (i < n) {
      var head = varint();
      var kind = head % 8;
      doc += (head - kind) / 8 + 1;
      docs.push(doc);
      if (kind < 6) {
        values.push(8);
        residues.push(1 << kind);
      } else {
        values.push(kind === 6 ? (varint() + 1) * 32 + 8 : varint());
        residues.push(DIGIT[text.charCodeAt(i++)]);
      }
    }
    return { docs: docs, values: values, residues: residues };
  }

  function SearchIndex(base) {
    this.base = base;
    this.reset();
  }

  SearchIndex.prototype.reset = function () {
    this.metaPromise = null;
    this.shardPromises = new Map();
    this.docPromises = new Map();
    this.postingCache = new Map();
    this.stats = { bytes: 0, files: 0, requests: [], last: null };
  };

  SearchIndex.prototype.fetchJSON = function (path) {
    var self = this;
    var url = this.base + path;
    return fetch(url, { credentials: 'same-origin' }).then(function (response) {
      if (!response.ok) throw new Error(url + ': HTTP ' + response.status);
      return response.arrayBuffer();
    }).then(function (buffer) {
      self.stats.bytes += buffer.byteLength;
      self.stats.files += 1;
      self.stats.requests.push({ url: url, bytes: buffer.byteLength });
      return JSON.parse(new TextDecoder('utf-8').decode(buffer));
    });
  };

  SearchIndex.prototype.meta = function () {
    var self = this;
    if (!this.metaPromise) {
      this.metaPromise = this.fetchJSON('meta.json').then(function (meta) {
        if (meta.format !== 'blog-search' || meta.version !== INDEX_VERSION) {
          // An index of another version would be misread (its postings and document files differ).
          throw new Error('the search index is version ' + meta.version + ' but this page reads version ' +
            INDEX_VERSION + '; rebuild the site with the same blog as its theme');
        }
        return meta;
      });
      this.metaPromise.catch(function () { self.metaPromise = null; });
    }
    return this.metaPromise;
  };

  SearchIndex.prototype.versioned = function (meta, path) {
    return path + '?v=' + encodeURIComponent(meta.hash);
  };

  /** Index of the shard whose range holds `term` (the last shard whose first term ≤ term), or -1. */
  function shardIndexFor(meta, term) {
    var lo = 0, hi = meta.shards.length - 1, found = -1;
    while (lo <= hi) {
      var mid = (lo + hi) >> 1;
      if (meta.shards[mid] <= term) { found = mid; lo = mid + 1; } else { hi = mid - 1; }
    }
    return found;
  }

  SearchIndex.prototype.shard = function (meta, index) {
    var self = this;
    if (!this.shardPromises.has(index)) {
      var promise = this.fetchJSON(this.versioned(meta, 'shards/' + index + '.json')).then(function (entries) {
        var terms = new Map();
        var sorted = [];
        for (var i = 0; i < entries.length; i++) {
          terms.set(entries[i][0], entries[i][1]);
          sorted.push(entries[i][0]);
        }
        return { terms: terms, sorted: sorted };
      });
      promise.catch(function () { self.shardPromises.delete(index); });
      this.shardPromises.set(index, promise);
    }
    return this.shardPromises.get(index);
  };

  SearchIndex.prototype.docChunk = function (meta, chunk) {
    var self = this;
    if (!this.docPromises.has(chunk)) {
      var promise = this.fetchJSON(this.versioned(meta, 'docs-' + chunk + '.json'));
      promise.catch(function () { self.docPromises.delete(chunk); });
      this.docPromises.set(chunk, promise);
    }
    return this.docPromises.get(chunk);
  };

  SearchIndex.prototype.postings = function (term, encoded) {
    var cached = this.postingCache.get(term);
    if (!cached) {
      cached = decodePostings(encoded);
      this.postingCache.set(term, cached);
    }
    return cached;
  };

  // ---------------------------------------------------------------------------------------------
  // Queries

  /**
   * Parses a query into lookups. `tag:Name` (or `tag:"Two Words"`) filters; other text is
   * tokenized like the index. Each lookup is one AND-ed condition:
   *   {term, pos, prefix, filter, share, group, word}
   * CJK runs use a cover of their bigrams (every other bigram and the last one), which still
   * matches every character but fetches about half the shards; each of a run's lookups has a
   * `share` of 1/(its run's lookups), so a Japanese word weighs as much as a Latin one. Every
   * word of 2 or more characters and single CJK characters also match as prefixes, whatever their
   * order. `group` numbers the query's words (a CJK run's lookups share one); `word` is the word
   * as typed (for "did you mean").
   */
  function parseQuery(raw) {
    raw = String(raw || '');
    var tags = [];
    var text = raw.replace(/(^|\s)tag:(?:"([^"]*)"|(\S*))/gi, function (m, pre, quoted, word) {
      var tag = normalizeTag(quoted !== undefined ? quoted : word);
      if (tag) tags.push(tag);
      return pre + ' ';
    });
    var lookups = [];
    var highlights = [];
    var position = 0;
    var group = 0;
    runs(normalize(text)).forEach(function (run) {
      if (run.kind === 'word') {
        var whole = wholeWord(run.chars);
        if (whole === null) return;
        lookups.push({ term: whole, pos: position, prefix: Array.from(whole).length >= 2, share: 1,
                       group: group++, word: run.chars.join('') });
        highlights.push(whole);
        position += 1;
      } else {
        var bigrams = cjkTokens(run.chars);
        highlights.push(run.chars.join(''));
        if (run.chars.length === 1) {
          lookups.push({ term: bigrams[0], pos: position, prefix: true, share: 1, group: group++ });
          position += 1;
          return;
        }
        var cover = [];
        for (var i = 0; i < bigrams.length; i++) {
          if (i % 2 === 0 || i === bigrams.length - 1 || bigrams.length <= 2) {
            cover.push({ term: bigrams[i], pos: position + i, prefix: false });
          }
          highlights.push(bigrams[i]);
        }
        cover.forEach(function (l) { l.share = 1 / cover.length; l.group = group; lookups.push(l); });
        group += 1;
        position += bigrams.length;
      }
    });
    tags.forEach(function (tag) { lookups.push({ term: '#' + tag, pos: -1, prefix: false, filter: true, share: 0, group: -1 }); });
    // Duplicate terms add nothing to an AND.
    var seen = new Set();
    lookups = lookups.filter(function (l) {
      var key = (l.prefix ? 'p:' : 't:') + l.term;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    return { raw: raw, lookups: lookups, tags: tags, highlights: highlights };
  }

  function Engine(base) {
    this.index = new SearchIndex(base);
  }

  /** Runs a query: resolves to {results, total, page, correction} where results are document records. */
  Engine.prototype.search = function (raw, page) {
    var self = this;
    var index = this.index;
    var started = performance.now();
    var bytesBefore = index.stats.bytes;
    var filesBefore = index.stats.files;
    var query = parseQuery(raw);
    page = page || 0;
    if (query.lookups.length === 0) {
      return Promise.resolve({ results: [], total: 0, query: query, page: 0, correction: null });
    }
    return index.meta().then(function (meta) {
      var shards = new Map();
      return self.load(meta, query.lookups, shards).then(function () {
        var ranked = self.rank(meta, query, shards);
        if (ranked.length > 0) return { ranked: ranked, correction: null };
        return self.corrected(meta, query, shards);
      }).then(function (found) {
        var ranked = found.ranked;
        var slice = ranked.slice(page * RESULTS_PER_PAGE, (page + 1) * RESULTS_PER_PAGE);
        var chunks = new Set(slice.map(function (r) { return Math.floor(r.doc / meta.docChunk); }));
        var list = Array.from(chunks);
        return Promise.all(list.map(function (c) { return index.docChunk(meta, c); })).then(function (records) {
          var byChunk = new Map();
          list.forEach(function (c, i) { byChunk.set(c, records[i]); });
          var results = slice.map(function (r) {
            var rec = byChunk.get(Math.floor(r.doc / meta.docChunk))[r.doc % meta.docChunk];
            return { doc: r.doc, score: r.score, titleHasAll: r.titleHasAll, id: rec[0], title: rec[1], url: rec[2],
                     date: rec[3], tags: rec[4], summary: rec[5] };
          });
          index.stats.last = {
            query: String(raw), total: ranked.length, page: page,
            bytes: index.stats.bytes - bytesBefore, files: index.stats.files - filesBefore,
            ms: performance.now() - started
          };
          var highlights = query.highlights.concat(found.correction ? found.correction.terms : []);
          return { results: results, total: ranked.length, query: query, page: page, correction: found.correction,
                   highlights: highlights };
        });
      });
    });
  };

  /** Fetches the shards the lookups need into `shards` (index → shard); sets each lookup's `shards`. */
  Engine.prototype.load = function (meta, lookups, shards) {
    var index = this.index;
    var needed = new Set();
    lookups.forEach(function (lookup) {
      var first = shardIndexFor(meta, lookup.term);
      lookup.shards = [];
      if (lookup.prefix) {
        var end = shardIndexFor(meta, lookup.term + '\uffff');
        first = Math.max(first, 0);
        for (var s = first; s <= Math.min(end, first + PREFIX_SHARD_LIMIT - 1); s++) lookup.shards.push(s);
      } else if (first >= 0) {
        lookup.shards.push(first);
      }
      lookup.shards.forEach(function (s) { if (!shards.has(s)) needed.add(s); });
    });
    var order = Array.from(needed).sort(function (a, b) { return a - b; });
    return Promise.all(order.map(function (s) { return index.shard(meta, s); })).then(function (loaded) {
      order.forEach(function (s, i) { shards.set(s, loaded[i]); });
    });
  };

  /**
   * When the query found nothing: each word with no exact or prefix match at all is replaced by the
   * index term a typo most likely came from (search-typo.js), looked for among the terms of the
   * shards already loaded and the first terms of all shards (meta.json). Resolves to
   * {ranked, correction}; the correction is offered only when the corrected query finds something.
   */
  Engine.prototype.corrected = function (meta, query, shards) {
    var self = this;
    var none = { ranked: [], correction: null };
    var typo = window.blogSearchTypo;
    if (!typo) return Promise.resolve(none);
    var misses = query.lookups.filter(function (l) {
      return l.word && !l.filter && typo.maxEdits(Array.from(l.term).length) > 0 && self.matches(l, shards).length === 0;
    });
    if (misses.length === 0) return Promise.resolve(none);
    var fixes = new Map();
    var extra = [];
    misses.forEach(function (l) {
      // Only terms that keep the word's first two characters can qualify; their document counts are
      // decoded only for those within reach.
      var start = Array.from(l.term).slice(0, 2).join('');
      var pool = new Map();
      shards.forEach(function (shard) {
        shard.sorted.forEach(function (term) {
          if (term.lastIndexOf(start, 0) === 0 && !pool.has(term) && typo.editsTo(l.term, term) >= 0) {
            pool.set(term, { term: term, df: self.documentCount(shard, term) });
          }
        });
      });
      // A term that starts a shard not loaded is a candidate too; its document count is unknown
      // until its shard arrives, so it counts as the rarest.
      meta.shards.forEach(function (term) {
        if (term.lastIndexOf(start, 0) === 0 && !pool.has(term)) pool.set(term, { term: term, df: 0 });
      });
      var choice = typo.best(l.term, Array.from(pool.values()));
      if (!choice) return;
      fixes.set(l, choice.term);
      extra.push({ term: choice.term, pos: l.pos, prefix: false, share: l.share, group: l.group, fuzzy: true, word: l.word });
    });
    if (fixes.size !== misses.length) return Promise.resolve(none);
    var lookups = query.lookups.map(function (l) {
      return fixes.has(l) ? extra[misses.indexOf(l)] : l;
    });
    return this.load(meta, extra, shards).then(function () {
      var fixed = { raw: query.raw, lookups: lookups, tags: query.tags, highlights: query.highlights };
      var ranked = self.rank(meta, fixed, shards);
      if (ranked.length === 0) return none;
      var text = query.raw;
      misses.forEach(function (l) { text = typo.replaceWord(text, l.word, typo.recase(l.word, fixes.get(l))); });
      return { ranked: ranked, correction: { query: text, terms: extra.map(function (l) { return l.term; }) } };
    });
  };

  Engine.prototype.documentCount = function (shard, term) {
    return this.index.postings(term, shard.terms.get(term)).docs.length;
  };

  /** The index terms a lookup matches in the loaded shards: the term itself or, for a prefix, up to 64. */
  Engine.prototype.matches = function (lookup, shards) {
    var terms = [];
    lookup.shards.forEach(function (s) {
      var shard = shards.get(s);
      if (!shard) return;
      if (!lookup.prefix) {
        if (shard.terms.has(lookup.term)) terms.push(lookup.term);
        return;
      }
      // Terms starting with the prefix: binary search to the first, then walk.
      var lo = 0, hi = shard.sorted.length;
      while (lo < hi) {
        var mid = (lo + hi) >> 1;
        if (shard.sorted[mid] < lookup.term) lo = mid + 1; else hi = mid;
      }
      for (var i = lo; i < shard.sorted.length && shard.sorted[i].lastIndexOf(lookup.term, 0) === 0; i++) {
        terms.push(shard.sorted[i]);
      }
    });
    if (lookup.prefix && terms.length > PREFIX_TERM_LIMIT) {
      terms.sort(function (x, y) { return x.length - y.length || (x < y ? -1 : x > y ? 1 : 0); });
      terms = terms.slice(0, PREFIX_TERM_LIMIT);
      if (terms.indexOf(lookup.term) < 0) terms.push(lookup.term);
    }
    return terms;
  };

  /**
   * One term in one document (SearchScoring.termScore in Swift): BM25F over the posting's fields.
   * It stays below idf · (k1 + 1), the title bonus (`rank`).
   */
  function termScore(meta, value, length, idf) {
    var weights = meta.weights, k1 = meta.k1, b = meta.b, avgText = Math.max(meta.avgText || 1, 1);
    var mask = value & 31;
    var wtf = 0;
    if (mask & 1) wtf += weights[0];
    if (mask & 2) wtf += weights[1];
    if (mask & 4) wtf += weights[2];
    if (mask & 24) {
      var tf = Math.floor(value / 32) + 1;
      var fieldWeight = (mask & 8) ? weights[3] : weights[4];
      wtf += fieldWeight * tf / (1 - b + b * length / avgText);
    }
    return idf * wtf * (k1 + 1) / (wtf + k1);
  }

  /**
   * Scores every document that satisfies all lookups; returns [{doc, score, titleHasAll}], documents
   * whose title holds every looked-up term first, then by score (docs/search-index.md, "Scoring").
   */
  Engine.prototype.rank = function (meta, query, shards) {
    var self = this;
    var index = this.index;
    var N = meta.docs;
    // Decoded text lengths, once per index (meta.json).
    if (!meta.lengths) {
      meta.lengths = new Float64Array(N);
      for (var d = 0; d < N; d++) meta.lengths[d] = Math.pow(2, DIGIT[meta.norms.charCodeAt(d)] / 4) - 1;
    }
    var lengths = meta.lengths;

    // For each lookup: Map doc → {score, residues, title, bonus}; `bonus` is the title bonus
    // idf · (k1 + 1) (× the lookup's factor) of its best term in the title, counted only when the
    // whole query word is in the title (every bigram lookup of a CJK run).
    var titleWeight = meta.k1 + 1;
    var groups = query.lookups.map(function (lookup) {
      var map = new Map();
      self.matches(lookup, shards).forEach(function (term) {
        var encoded;
        lookup.shards.some(function (s) {
          var shard = shards.get(s);
          if (shard && shard.terms.has(term)) { encoded = shard.terms.get(term); return true; }
          return false;
        });
        if (encoded === undefined) return;
        var postings = index.postings(term, encoded);
        var df = postings.docs.length;
        var idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        var exact = term === lookup.term && !lookup.fuzzy;
        var factor = lookup.share * (lookup.fuzzy ? FUZZY_PENALTY : (exact ? 1 : PREFIX_PENALTY));
        for (var i = 0; i < df; i++) {
          var doc = postings.docs[i];
          var value = postings.values[i];
          var score = lookup.filter ? 0 : termScore(meta, value, lengths[doc], idf) * factor;
          var current = map.get(doc);
          var bonus = (value & 1) && !lookup.filter ? idf * titleWeight * factor : 0;
          if (!current) {
            map.set(doc, { score: score, residues: exact ? postings.residues[i] : -1, title: (value & 1) !== 0, bonus: bonus });
          } else {
            if (score > current.score) {
              current.score = score;
              current.residues = exact ? postings.residues[i] : -1;
            }
            if (value & 1) current.title = true;
            if (bonus > current.bonus) current.bonus = bonus;
          }
        }
      });
      return map;
    });

    // AND: walk the smallest group, probe the others.
    var order = groups.map(function (g, i) { return i; }).sort(function (x, y) { return groups[x].size - groups[y].size; });
    var smallest = groups[order[0]];
    var worded = query.lookups.some(function (l) { return !l.filter; });
    // Pairs of lookups at increasing positions, for the phrase bonus.
    var positioned = query.lookups.map(function (l, i) { return i; })
      .filter(function (i) { return query.lookups[i].pos >= 0; })
      .sort(function (x, y) { return query.lookups[x].pos - query.lookups[y].pos; });
    var pairs = [];
    for (var p = 0; p + 1 < positioned.length; p++) {
      pairs.push([positioned[p], positioned[p + 1], query.lookups[positioned[p + 1]].pos - query.lookups[positioned[p]].pos]);
    }
    // Query words (lookup groups) as small integers, for the per-document title test.
    var wordOf = query.lookups.map(function (l) { return l.group; });
    var words = Math.max.apply(null, wordOf.concat([-1])) + 1;
    var inTitle = new Array(words);
    var ranked = [];
    var entries = new Array(groups.length);
    smallest.forEach(function (entry, doc) {
      var score = 0;
      var g, w;
      for (g = 0; g < groups.length; g++) {
        var e = groups[g].get(doc);
        if (!e) return;
        entries[g] = e;
        score += e.score;
      }
      for (w = 0; w < words; w++) inTitle[w] = true;
      var titleHasAll = worded;
      for (g = 0; g < groups.length; g++) {
        if (wordOf[g] < 0) continue;
        if (!entries[g].title) { inTitle[wordOf[g]] = false; titleHasAll = false; }
      }
      for (g = 0; g < groups.length; g++) {
        if (wordOf[g] >= 0 && inTitle[wordOf[g]]) score += entries[g].bonus;
      }
      if (pairs.length > 0) {
        var adjacent = 0;
        for (var p = 0; p < pairs.length; p++) {
          var pair = pairs[p];
          var a = entries[pair[0]].residues, c = entries[pair[1]].residues, distance = pair[2] % 6;
          if (a < 0 || c < 0) continue;
          var rotated = ((a << distance) | (a >> (6 - distance))) & 63;
          if (rotated & c) adjacent += 1;
        }
        score *= 1 + PHRASE_BONUS * adjacent / pairs.length;
      }
      ranked.push({ doc: doc, score: score, titleHasAll: titleHasAll });
    });
    ranked.sort(function (x, y) {
      return (y.titleHasAll ? 1 : 0) - (x.titleHasAll ? 1 : 0) || y.score - x.score || x.doc - y.doc;
    });
    return ranked;
  };

  // ---------------------------------------------------------------------------------------------
  // Rendering (DOM APIs and textContent only)

  /** Appends `text` to `parent`, wrapping the parts that match `fragments` in <mark>. */
  function appendHighlighted(parent, text, fragments) {
    text = String(text || '');
    var normalized = '';
    var starts = [];
    var ends = [];
    var offset = 0;
    for (var ch of text) {
      var n = lower(ch.normalize('NFKC'));
      for (var u = 0; u < n.length; u++) { starts.push(offset); ends.push(offset + ch.length); }
      normalized += n;
      offset += ch.length;
    }
    var ranges = [];
    fragments.forEach(function (fragment) {
      if (!fragment) return;
      var at = normalized.indexOf(fragment);
      while (at >= 0) {
        ranges.push([starts[at], ends[at + fragment.length - 1]]);
        at = normalized.indexOf(fragment, at + fragment.length);
      }
    });
    ranges.sort(function (x, y) { return x[0] - y[0] || y[1] - x[1]; });
    var merged = [];
    ranges.forEach(function (r) {
      var lastRange = merged[merged.length - 1];
      if (lastRange && r[0] <= lastRange[1]) lastRange[1] = Math.max(lastRange[1], r[1]);
      else merged.push([r[0], r[1]]);
    });
    var cursor = 0;
    merged.forEach(function (r) {
      if (r[0] > cursor) parent.appendChild(document.createTextNode(text.slice(cursor, r[0])));
      var mark = document.createElement('mark');
      mark.textContent = text.slice(r[0], r[1]);
      parent.appendChild(mark);
      cursor = r[1];
    });
    if (cursor < text.length) parent.appendChild(document.createTextNode(text.slice(cursor)));
  }

  /** Only http(s) and same-site URLs become links. */
  function safeURL(url) {
    try {
      var parsed = new URL(String(url), window.location.href);
      if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.href;
    } catch (e) { /* fall through */ }
    return '#';
  }

  function renderResult(result, index, fragments) {
    var item = document.createElement('li');
    item.className = 'search-result';
    item.id = 'search-result-' + index;
    item.setAttribute('role', 'option');
    item.setAttribute('aria-selected', 'false');
    var link = document.createElement('a');
    link.className = 'search-result-title';
    link.href = safeURL(result.url);
    appendHighlighted(link, result.title, fragments);
    item.appendChild(link);
    var meta = document.createElement('div');
    meta.className = 'search-result-meta';
    if (result.date) {
      var time = document.createElement('time');
      time.setAttribute('datetime', String(result.date));
      time.textContent = String(result.date).slice(0, 10);
      meta.appendChild(time);
    }
    (result.tags || []).forEach(function (tag) {
      var span = document.createElement('span');
      span.className = 'search-result-tag';
      appendHighlighted(span, tag, fragments);
      meta.appendChild(document.createTextNode(' '));
      meta.appendChild(span);
    });
    item.appendChild(meta);
    if (result.summary) {
      var snippet = document.createElement('p');
      snippet.className = 'search-result-snippet';
      appendHighlighted(snippet, result.summary, fragments);
      item.appendChild(snippet);
    }
    return item;
  }

  function SearchPage(root) {
    this.root = root;
    this.engine = new Engine(root.getAttribute('data-index') || '/search/');
    this.input = root.querySelector('input[name="q"]');
    this.form = this.input ? this.input.form : null;
    this.status = root.querySelector('.search-status');
    this.list = root.querySelector('.search-results');
    this.more = root.querySelector('.search-more');
    this.suggestion = root.querySelector('.search-suggestion');
    this.active = -1;
    this.results = [];
    this.sequence = 0;
    this.timer = null;
    this.current = null;
  }

  SearchPage.prototype.text = function (name, fallback) {
    var value = this.root.getAttribute('data-text-' + name);
    return value === null ? fallback : value;
  };

  SearchPage.prototype.start = function () {
    var self = this;
    if (!this.input || !this.list) return;
    var q = new URLSearchParams(window.location.search).get('q') || '';
    this.input.value = q;
    // The header box on this page shows the same query.
    Array.prototype.forEach.call(document.querySelectorAll('input[name="q"]'), function (other) {
      if (other !== self.input && !other.value) other.value = q;
    });
    this.input.setAttribute('role', 'combobox');
    this.input.setAttribute('aria-expanded', 'false');
    this.input.setAttribute('aria-autocomplete', 'list');
    this.input.addEventListener('input', function () {
      clearTimeout(self.timer);
      self.timer = setTimeout(function () { self.run(self.input.value, true); }, 150);
    });
    this.input.addEventListener('keydown', function (event) { self.onKey(event); });
    if (this.form) {
      this.form.addEventListener('submit', function (event) {
        event.preventDefault();
        clearTimeout(self.timer);
        self.run(self.input.value, true);
      });
    }
    if (this.more) {
      this.more.hidden = true;
      this.more.addEventListener('click', function () { self.loadMore(); });
    }
    if (q) this.run(q, false);
  };

  SearchPage.prototype.updateURL = function (q) {
    if (!window.history || !window.history.replaceState) return;
    var url = window.location.pathname + (q ? '?q=' + encodeURIComponent(q) : '');
    window.history.replaceState(null, '', url);
  };

  SearchPage.prototype.setStatus = function (text) {
    if (this.status) this.status.textContent = text;
  };

  SearchPage.prototype.run = function (q, updateURL) {
    var self = this;
    var sequence = ++this.sequence;
    if (updateURL) this.updateURL(q.trim() ? q : '');
    if (!q.trim()) {
      this.suggest(null);
      this.show([], 0, null, false);
      this.setStatus('');
      return Promise.resolve();
    }
    this.root.setAttribute('aria-busy', 'true');
    return this.engine.search(q, 0).then(function (outcome) {
      if (sequence !== self.sequence) return;
      self.current = { q: q, page: 0, total: outcome.total, highlights: outcome.highlights };
      self.show(outcome.results, outcome.total, outcome.highlights, false);
      self.suggest(outcome.correction);
    }, function (error) {
      if (sequence !== self.sequence) return;
      self.suggest(null);
      self.show([], 0, null, false);
      self.setStatus(self.text('error', 'Search is unavailable: ') + (error && error.message ? error.message : String(error)));
    }).then(function () {
      if (sequence === self.sequence) self.root.removeAttribute('aria-busy');
    });
  };

  /** "Did you mean: X" above the results; choosing X runs X (and puts it in the box). */
  SearchPage.prototype.suggest = function (correction) {
    var self = this;
    var line = this.suggestion;
    if (!line) return;
    while (line.firstChild) line.removeChild(line.firstChild);
    line.hidden = !correction;
    if (!correction) return;
    line.appendChild(document.createTextNode(this.text('suggest', 'Did you mean:') + ' '));
    var link = document.createElement('a');
    link.className = 'search-suggestion-query';
    link.href = window.location.pathname + '?q=' + encodeURIComponent(correction.query);
    link.textContent = correction.query;
    link.addEventListener('click', function (event) {
      event.preventDefault();
      self.input.value = correction.query;
      self.run(correction.query, true);
    });
    line.appendChild(link);
  };

  SearchPage.prototype.loadMore = function () {
    var self = this;
    if (!this.current) return;
    var sequence = this.sequence;
    var page = this.current.page + 1;
    this.engine.search(this.current.q, page).then(function (outcome) {
      if (sequence !== self.sequence) return;
      self.current.page = page;
      self.show(outcome.results, outcome.total, outcome.highlights, true);
    });
  };

  SearchPage.prototype.show = function (results, total, highlights, append) {
    var self = this;
    if (!append) {
      while (this.list.firstChild) this.list.removeChild(this.list.firstChild);
      this.results = [];
      this.active = -1;
      this.input.removeAttribute('aria-activedescendant');
    }
    results.forEach(function (result) {
      self.list.appendChild(renderResult(result, self.results.length, highlights || []));
      self.results.push(result);
    });
    this.input.setAttribute('aria-expanded', this.results.length > 0 ? 'true' : 'false');
    if (highlights) {
      if (total === 0) {
        this.setStatus(this.text('none', 'No results'));
      } else {
        this.setStatus(this.text('count', '{count} results').replace('{count}', String(total)));
      }
    }
    if (this.more) this.more.hidden = this.results.length >= total;
  };

  SearchPage.prototype.select = function (index) {
    var items = this.list.querySelectorAll('.search-result');
    if (items.length === 0) return;
    if (index < -1) index = -1;
    if (index > items.length - 1) index = items.length - 1;
    for (var i = 0; i < items.length; i++) {
      var on = i === index;
      items[i].classList.toggle('is-active', on);
      items[i].setAttribute('aria-selected', on ? 'true' : 'false');
    }
    this.active = index;
    if (index >= 0) {
      this.input.setAttribute('aria-activedescendant', items[index].id);
      if (items[index].scrollIntoView) items[index].scrollIntoView({ block: 'nearest' });
    } else {
      this.input.removeAttribute('aria-activedescendant');
    }
  };

  SearchPage.prototype.onKey = function (event) {
    if (event.key === 'ArrowDown') {
      event.preventDefault();
      this.select(this.active + 1);
    } else if (event.key === 'ArrowUp') {
      event.preventDefault();
      this.select(this.active - 1);
    } else if (event.key === 'Enter' && this.active >= 0) {
      var link = this.list.querySelectorAll('.search-result')[this.active].querySelector('a');
      if (link) {
        event.preventDefault();
        window.location.assign(link.href);
      }
    } else if (event.key === 'Escape') {
      this.select(-1);
    }
  };

  // ---------------------------------------------------------------------------------------------
  // Start-up and test hook

  var root = document.querySelector('[data-index]');
  var page = root ? new SearchPage(root) : null;
  var hookEngine = page ? page.engine : new Engine((document.documentElement.getAttribute('data-base-path') || '/') + 'search/');

  window.blogSearch = {
    tokenize: tokenizer.tokenize,
    queryTerms: tokenizer.queryTerms,
    normalizeTag: normalizeTag,
    parseQuery: parseQuery,
    termScore: termScore,
    /**
     * Resolves to the first page of results (document records with `score`); `total`, and
     * `correction` ({query, terms} when a misspelling was corrected, else null) on the array.
     */
    search: function (query, pageNumber) {
      return hookEngine.search(query, pageNumber || 0).then(function (outcome) {
        var results = outcome.results;
        results.total = outcome.total;
        results.correction = outcome.correction;
        return results;
      });
    },
    /** Live counters: bytes/files fetched so far, every request, and the last query's numbers. */
    get stats() { return hookEngine.index.stats; },
    /** Forgets every cached file (and the counters), for measuring cold queries. */
    reset: function () { hookEngine.index.reset(); }
  };

  if (page) {
    if (document.readyState === 'loading') {
      document.addEventListener('DOMContentLoaded', function () { page.start(); });
    } else {
      page.start();
    }
  }
})();
