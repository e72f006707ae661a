// Item browser of one run. The page holds BROWSE_INDEX (every item's id, sample and filter bits); the items'
// details come from chunk scripts calling browseChunk(k, items), loaded on demand with <script src>: pages are
// opened from disk, where browsers refuse to fetch local files. The parts of an item are drawn by items.js.
"use strict";
(function () {
  const X = window.BROWSE_INDEX;
  const BITS = { all: 0, correct: 1, wrong: 2, failed: 4, flagged: 8, disagree: 16, unjudged: 32 };
  const chunks = {}, pending = {};
  const state = { filter: "all", query: "", page: 0 };
  let shown = [], ticket = 0;
  const $ = (id) => document.getElementById(id);

  window.browseChunk = (k, items) => { chunks[k] = items; };

  const { el, rich, fold, record, answer } = window.BrowseParts;

  function load(k) {
    if (!pending[k]) {
      pending[k] = new Promise((ok, fail) => {
        const s = document.createElement("script");
        s.src = X.base + String(k).padStart(4, "0") + ".js";
        s.onload = () => (chunks[k] ? ok() : fail(new Error(s.src + " did not register its items")));
        s.onerror = () => { delete pending[k]; fail(new Error("cannot load " + s.src + " (rerun analysis.browse)")); };
        document.head.appendChild(s);
      });
    }
    return pending[k];
  }

  function item(it, bits) {
    const box = el("div", "item"), h = el("h2");
    box.dataset.id = it.id;
    box.dataset.sample = it.s;
    h.appendChild(el("span", null, it.id + (X.samples ? " #" + it.s : "")));
    for (const name of ["correct", "wrong", "failed", "flagged", "disagree", "unjudged"]) {
      if (bits & BITS[name]) h.appendChild(el("span", "tag " + name, name === "disagree" ? "judges disagree" : name));
    }
    const across = el("a", "compare", "this item in every run");
    across.href = "../compare.html#id=" + encodeURIComponent(it.id);
    h.appendChild(across);
    box.appendChild(h);
    record(box, it);
    const prompt = el("div");
    if (it.prompt_error) prompt.appendChild(el("div", "bad", it.prompt_error));
    for (const m of it.prompt || []) {
      prompt.appendChild(el("div", "label", m.role));
      prompt.appendChild(rich("text", m.content));
    }
    box.appendChild(fold("rendered prompt", prompt));
    answer(box, it);
    return box;
  }

  function render() {
    const mine = ++ticket, box = $("items");
    const slice = shown.slice(state.page * X.per, (state.page + 1) * X.per);
    const need = [...new Set(slice.map((i) => Math.floor(i / X.chunk)))];
    Promise.all(need.map(load)).then(() => {
      if (mine !== ticket) return;
      box.replaceChildren(...slice.map((i) => item(chunks[Math.floor(i / X.chunk)][i % X.chunk], X.f[i])));
      if (!slice.length) box.appendChild(el("p", "muted", "No item matches."));
    }, (err) => { if (mine === ticket) box.replaceChildren(el("p", "bad", err.message)); });
  }

  function update() {
    const q = state.query.trim().toLowerCase(), bit = BITS[state.filter];
    const counts = { all: 0, correct: 0, wrong: 0, failed: 0, flagged: 0, disagree: 0, unjudged: 0 };
    shown = [];
    for (let i = 0; i < X.ids.length; i++) {
      if (q && X.ids[i].toLowerCase().indexOf(q) < 0) continue;
      counts.all++;
      for (const name in BITS) if (X.f[i] & BITS[name]) counts[name]++;
      if (!bit || (X.f[i] & bit)) shown.push(i);
    }
    for (const b of document.querySelectorAll("[data-filter]")) {
      b.querySelector(".n").textContent = counts[b.dataset.filter];
      b.classList.toggle("on", b.dataset.filter === state.filter);
    }
    const pages = Math.max(1, Math.ceil(shown.length / X.per));
    state.page = Math.min(state.page, pages - 1);
    $("count").textContent = shown.length;
    $("page").textContent = "page " + (state.page + 1) + " of " + pages;
    $("prev").disabled = state.page === 0;
    $("next").disabled = state.page >= pages - 1;
    render();
  }

  for (const b of document.querySelectorAll("[data-filter]")) {
    b.addEventListener("click", () => { state.filter = b.dataset.filter; state.page = 0; update(); });
  }
  $("search").addEventListener("input", (e) => { state.query = e.target.value; state.page = 0; update(); });
  $("prev").addEventListener("click", () => { state.page--; update(); window.scrollTo(0, 0); });
  $("next").addEventListener("click", () => { state.page++; update(); window.scrollTo(0, 0); });
  update();
})();
