// Tags page: offers "by count" / "by name" ordering. Without JavaScript the
// list stays as generated (by count, then name) and the buttons stay hidden.
(function () {
  "use strict";
  var list = document.getElementById("blog-tag-cloud");
  var group = document.querySelector(".tag-sort");
  if (!list || !group) return;
  var buttons = group.querySelectorAll("button[data-sort]");
  var items = Array.prototype.slice.call(list.children);
  var lang = document.documentElement.lang || undefined;
  var collator = typeof Intl !== "undefined" && Intl.Collator
    ? new Intl.Collator(lang, { numeric: true, sensitivity: "base" })
    : { compare: function (a, b) { return a < b ? -1 : a > b ? 1 : 0; } };

  function byName(a, b) {
    return collator.compare(a.dataset.name, b.dataset.name);
  }
  function byCount(a, b) {
    return (Number(b.dataset.count) - Number(a.dataset.count)) || byName(a, b);
  }

  function apply(mode) {
    var sorted = items.slice().sort(mode === "name" ? byName : byCount);
    var fragment = document.createDocumentFragment();
    sorted.forEach(function (item) { fragment.appendChild(item); });
    list.appendChild(fragment);
    Array.prototype.forEach.call(buttons, function (button) {
      button.setAttribute("aria-pressed", String(button.dataset.sort === mode));
    });
    try { localStorage.setItem("blog.tagSort", mode); } catch (e) { /* storage unavailable */ }
  }

  Array.prototype.forEach.call(buttons, function (button) {
    button.addEventListener("click", function () { apply(button.dataset.sort); });
  });
  group.hidden = false;

  var saved = null;
  try { saved = localStorage.getItem("blog.tagSort"); } catch (e) { /* storage unavailable */ }
  if (saved === "name") apply("name");
})();
