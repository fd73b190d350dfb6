// rag-bench run report: renders the questions of the embedded data model, in batches as the reader scrolls,
// so that a run of 10,000 questions opens at once. Text is always set with textContent (never parsed as HTML).
(function () {
  "use strict";
  var BATCH = 40;
  var data = unpack(JSON.parse(document.getElementById("run-data").textContent));
  var stages = data.run.stages;
  var classOrder = {};
  data.classes.forEach(function (c, i) { classOrder[c] = i; });
  var MISS = { hit: false, unlabelled: false };
  var list = document.getElementById("questions");
  var status = document.getElementById("status");
  var more = document.getElementById("more");
  var controls = {
    category: document.getElementById("filter-category"),
    failure: document.getElementById("filter-class"),
    query: document.getElementById("search"),
    sort: document.getElementById("sort"),
  };
  var searchText = null; // lower-cased question text, id and evidence, built on the first search
  var shown = [];
  var next = 0;

  // the model as report/run/packed.py stores it (format 2): lists in a fixed order, back into objects
  function unpack(packed) {
    if (packed.format !== 2) return packed;
    var n = packed.run.stages.length;
    function entry(t) { return { chunk: t[0], hit: t[1] === 1, ranks: t.slice(2, 2 + n), scores: t.slice(2 + n) }; }
    packed.chunks = packed.chunks.map(function (c) {
      return { id: c.length > 4 ? c[4] : c[0] + ":" + c[1] + "-" + c[2], doc: c[0], start: c[1], end: c[2], text: c[3] };
    });
    packed.questions = packed.questions.map(function (q) {
      return {
        id: q[0], text: q[1], category: q[2], failure: q[3], first_hit: q[4], ranks: q[5],
        evidence: q[6].map(function (e) { return { doc: e[0], start: e[1], end: e[2], text: e[3] }; }),
        relevant: q[7], top: q[8].map(entry), beyond: q[9].map(entry),
      };
    });
    packed.format = 1;
    return packed;
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function isMiss(failure) { return !(failure in MISS); }

  function rankKey(q) { return q.first_hit === null ? Infinity : q.first_hit; }

  var SORTS = {
    misses: function (a, b) {
      var qa = data.questions[a], qb = data.questions[b];
      return classOrder[qa.failure] - classOrder[qb.failure] || a - b;
    },
    "rank-asc": function (a, b) {
      return rankKey(data.questions[a]) - rankKey(data.questions[b]) || a - b;
    },
    "rank-desc": function (a, b) {
      var ra = rankKey(data.questions[a]), rb = rankKey(data.questions[b]);
      return (ra === rb ? 0 : ra < rb ? 1 : -1) || a - b;
    },
    id: function (a, b) {
      var ia = data.questions[a].id, ib = data.questions[b].id;
      return ia < ib ? -1 : ia > ib ? 1 : 0;
    },
  };

  function matches(i, category, failure, query) {
    var q = data.questions[i];
    if (category && (q.category || "(none)") !== category) return false;
    if (failure === "misses" && !isMiss(q.failure)) return false;
    if (failure && failure !== "misses" && q.failure !== failure) return false;
    if (query) {
      if (searchText === null) {
        searchText = data.questions.map(function (x) {
          return (x.id + "\n" + x.text + "\n" + x.evidence.map(function (e) { return e.text; }).join("\n")).toLowerCase();
        });
      }
      if (searchText[i].indexOf(query) < 0) return false;
    }
    return true;
  }

  function apply() {
    var category = controls.category.value, failure = controls.failure.value;
    var query = controls.query.value.trim().toLowerCase();
    shown = [];
    for (var i = 0; i < data.questions.length; i++) {
      if (matches(i, category, failure, query)) shown.push(i);
    }
    shown.sort(SORTS[controls.sort.value] || SORTS.misses);
    list.textContent = "";
    next = 0;
    renderMore();
  }

  function renderMore() {
    var stop = Math.min(next + BATCH, shown.length);
    var fragment = document.createDocumentFragment();
    for (; next < stop; next++) fragment.appendChild(card(data.questions[shown[next]]));
    list.appendChild(fragment);
    status.textContent = "showing " + next + " of " + shown.length + " questions" +
      (shown.length < data.questions.length ? " (filtered from " + data.questions.length + ")" : "");
    more.hidden = next >= shown.length;
  }

  function rankText(rank) { return rank === null || rank === undefined ? "-" : String(rank); }

  function card(q) {
    var kind = isMiss(q.failure) ? "miss" : q.failure;
    var article = el("article", "q " + kind);
    article.dataset.failure = q.failure;
    article.dataset.id = q.id;
    var details = el("details");
    details.open = kind === "miss";
    var summary = el("summary");
    summary.appendChild(el("span", "badge " + q.failure, q.failure));
    summary.appendChild(document.createTextNode(" "));
    summary.appendChild(el("span", "qtext", q.text));
    var meta = el("div", "meta");
    var ranks = stages.filter(function (s) { return s in q.ranks; }).map(function (s) {
      return s + " " + rankText(q.ranks[s]);
    });
    meta.textContent = q.id + " \u00b7 " + (q.category || "no category") + " \u00b7 evidence rank: " +
      (ranks.join(" \u00b7 ") || "-");
    summary.appendChild(meta);
    details.appendChild(summary);
    details.appendChild(evidence(q));
    details.appendChild(chunks(q));
    article.appendChild(details);
    return article;
  }

  function evidence(q) {
    var box = el("div", "evidence-list");
    box.appendChild(el("h4", null, q.evidence.length ? "Evidence" : q.relevant.length ? "Relevant documents" :
      "No labels"));
    q.evidence.forEach(function (e) {
      var item = el("div", "evidence");
      item.appendChild(el("div", "meta", e.doc + " [" + e.start + ", " + e.end + ")"));
      item.appendChild(document.createTextNode(e.text));
      box.appendChild(item);
    });
    if (q.relevant.length) box.appendChild(el("div", "meta", q.relevant.join(", ")));
    return box;
  }

  function score(value) { return value === null ? "" : " (" + Number(value.toPrecision(4)) + ")"; }

  function chunkRow(t, label, evidenceSpans) {
    var c = data.chunks[t.chunk];
    var row = el("div", "chunk" + (t.hit ? " hit" : ""));
    var head = el("div", "head");
    head.appendChild(el("span", "rank", label));
    head.appendChild(document.createTextNode(" "));
    head.appendChild(el("span", "id", c.id));
    head.appendChild(document.createTextNode(t.hit ? " \u2714 hits evidence \u00b7 " : " \u00b7 "));
    head.appendChild(el("span", "stages", stages.map(function (s, j) {
      return s + " " + (t.ranks[j] === null ? "-" : "#" + t.ranks[j] + score(t.scores[j]));
    }).join(" \u00b7 ")));
    row.appendChild(head);
    row.appendChild(highlighted(c, evidenceSpans));
    return row;
  }

  function chunks(q) {
    var box = el("div", "chunks");
    box.appendChild(el("h4", null, "Top " + q.top.length + " chunks (final ranking)"));
    q.top.forEach(function (t, i) { box.appendChild(chunkRow(t, (i + 1) + ".", q.evidence)); });
    if (q.beyond.length) {
      box.appendChild(el("h4", null, "Where the evidence went: candidates below the top " + q.top.length +
        " that touch it"));
      q.beyond.forEach(function (t) { box.appendChild(chunkRow(t, "\u2022", q.evidence)); });
    }
    return box;
  }

  function highlighted(c, spans) {
    // the parts of the chunk that overlap an evidence span of its document, merged, as <mark>
    var parts = spans.filter(function (s) { return s.doc === c.doc && s.start < c.end && s.end > c.start; })
      .map(function (s) { return [Math.max(s.start, c.start) - c.start, Math.min(s.end, c.end) - c.start]; })
      .sort(function (a, b) { return a[0] - b[0]; });
    var text = el("div", "text");
    var at = 0;
    parts.forEach(function (p) {
      if (p[1] <= at) return;
      var start = Math.max(p[0], at);
      if (start > at) text.appendChild(document.createTextNode(c.text.slice(at, start)));
      text.appendChild(el("mark", null, c.text.slice(start, p[1])));
      at = p[1];
    });
    if (at < c.text.length) text.appendChild(document.createTextNode(c.text.slice(at)));
    return text;
  }

  var timer = null;
  controls.query.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(apply, 150);
  });
  [controls.category, controls.failure, controls.sort].forEach(function (c) { c.addEventListener("change", apply); });
  more.addEventListener("click", renderMore);
  document.querySelectorAll("td.count").forEach(function (cell) {
    cell.addEventListener("click", function () {
      controls.category.value = cell.dataset.category;
      controls.failure.value = cell.dataset.failure;
      apply();
      list.scrollIntoView();
    });
  });
  if ("IntersectionObserver" in window) {
    new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; }) && next < shown.length) renderMore();
    }, { rootMargin: "600px" }).observe(more);
  }
  apply();
  window.runPageReady = performance.now(); // script done: every control live
  requestAnimationFrame(function () { setTimeout(function () { window.runPagePainted = performance.now(); }); });
})();
