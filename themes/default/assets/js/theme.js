/* blog default theme: the light/dark toggle and the code blocks' copy buttons (and line numbers
   when the site asks for them). Plain JavaScript, no dependencies; the pages work without it. */
(function () {
  'use strict';
  var root = document.documentElement;
  var body = document.body;
  var KEY = 'blog-theme';

  function systemDark() {
    return !!(window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches);
  }
  function current() {
    var chosen = root.getAttribute('data-theme');
    return chosen === 'dark' || chosen === 'light' ? chosen : (systemDark() ? 'dark' : 'light');
  }

  // The toggle: the choice is remembered; with none stored the system setting applies.
  var toggle = document.getElementById('blog-theme-toggle');
  if (toggle) {
    var show = function () { toggle.setAttribute('aria-pressed', current() === 'dark' ? 'true' : 'false'); };
    toggle.hidden = false;
    show();
    toggle.addEventListener('click', function () {
      var next = current() === 'dark' ? 'light' : 'dark';
      root.setAttribute('data-theme', next);
      try { localStorage.setItem(KEY, next); } catch (e) { /* private mode: the choice lasts this page */ }
      show();
    });
    if (window.matchMedia) {
      var query = window.matchMedia('(prefers-color-scheme: dark)');
      if (query.addEventListener) query.addEventListener('change', show);
    }
  }

  // One polite live region announces copies to screen readers.
  var live = null;
  function announce(text) {
    if (!live) {
      live = document.createElement('p');
      live.className = 'visually-hidden';
      live.setAttribute('aria-live', 'polite');
      live.setAttribute('role', 'status');
      body.appendChild(live);
    }
    live.textContent = '';
    window.setTimeout(function () { live.textContent = text; }, 30);
  }

  function copyText(text) {
    // The Clipboard API needs a secure context and the page's focus; the older way covers the rest.
    if (navigator.clipboard && window.isSecureContext) {
      return navigator.clipboard.writeText(text).catch(function () { return legacyCopy(text); });
    }
    return legacyCopy(text);
  }
  function legacyCopy(text) {
    return new Promise(function (resolve, reject) {
      var area = document.createElement('textarea');
      area.value = text;
      area.setAttribute('readonly', '');
      area.style.position = 'fixed';
      area.style.opacity = '0';
      body.appendChild(area);
      area.select();
      var ok = false;
      try { ok = document.execCommand('copy'); } catch (e) { ok = false; }
      body.removeChild(area);
      if (ok) resolve(); else reject(new Error('copy failed'));
    });
  }

  var copyLabel = body.getAttribute('data-text-copy') || 'Copy';
  var copiedLabel = body.getAttribute('data-text-copied') || 'Copied';
  var numbersForAll = body.hasAttribute('data-line-numbers');
  var blocks = document.querySelectorAll('.post-content pre > code, .page .post-content pre > code');
  Array.prototype.forEach.call(blocks, function (code) {
    var pre = code.parentNode;
    var frame = pre.parentNode && pre.parentNode.classList && pre.parentNode.classList.contains('code-frame') ? pre.parentNode : null;
    if (!frame) {
      frame = document.createElement('div');
      frame.className = 'code-frame code-frame-plain';
      pre.parentNode.insertBefore(frame, pre);
      frame.appendChild(pre);
    }
    if (frame.querySelector('.code-copy')) return;
    if (numbersForAll || frame.classList.contains('linenos') || pre.classList.contains('linenos')) {
      var lines = code.textContent.replace(/\n$/, '').split('\n').length;
      var gutter = document.createElement('span');
      gutter.className = 'code-line-numbers';
      gutter.setAttribute('aria-hidden', 'true');
      var numbers = [];
      for (var n = 1; n <= lines; n++) numbers.push(n);
      gutter.textContent = numbers.join('\n');
      pre.insertBefore(gutter, code);
      pre.classList.add('has-line-numbers');
    }
    var button = document.createElement('button');
    button.type = 'button';
    button.className = 'code-copy';
    button.textContent = copyLabel;
    button.addEventListener('click', function () {
      copyText(code.textContent).then(function () {
        button.textContent = copiedLabel;
        button.classList.add('is-copied');
        announce(copiedLabel);
        window.setTimeout(function () { button.textContent = copyLabel; button.classList.remove('is-copied'); }, 2000);
      }, function () { /* nothing copied: the button stays as it was */ });
    });
    frame.appendChild(button);
  });
})();
