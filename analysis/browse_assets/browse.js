// Item browser of one run. The page holds BROWSE_INDEX (every item's id, sample and filter bits); the items'
// details come from chunk scripts calling browseChunk(k, items), loaded on demand with <script src>: pages are
// opened from disk, where browsers refuse to fetch local files. Data is only ever set as text (textContent).
"use strict";
(function () {
  const X = window.BROWSE_INDEX;
  const BITS = { all: 0, correct: 1, wrong: 2, failed: 4, flagged: 8, disagree: 16, unjudged: 32 };
  const chunks = {}, pending = {};
  const state = { filter: "all", query: "", page: 0 };
  let shown = [], ticket = 0;
  const $ = (id) => document.getElementById(id);

  window.browseChunk = (k, items) => { chunks[k] = items; };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

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

  // Text whose images stand where the question places them: strings, {img, alt} and {missing} parts.
  function rich(cls, parts) {
    const box = el("div", cls);
    for (const p of parts || []) {
      if (typeof p === "string") box.appendChild(document.createTextNode(p));
      else if (p.img) {
        const a = el("a"), img = el("img", "thumb");
        a.href = p.img; a.target = "_blank";
        img.src = p.img; img.alt = p.alt || ""; img.title = p.alt || ""; img.loading = "lazy";
        a.appendChild(img); box.appendChild(a);
      } else box.appendChild(el("span", "bad", "[" + p.missing + "]"));
    }
    return box;
  }

  function fold(title, body) {
    const d = el("details");
    d.appendChild(el("summary", null, title));
    d.appendChild(body);
    return d;
  }

  function verdict(v) {
    const box = el("div", "verdict"), line = el("div");
    line.appendChild(el("span", v.main ? "main" : null, v.judge + (v.model ? " (" + v.model + ")" : "") + ": "));
    const said = typeof v.correct === "boolean" ? (v.correct ? "correct" : "wrong")
      : v.labels ? "labels: " + (v.labels.join(", ") || "none")
      : v.score != null ? "score: " + JSON.stringify(v.score) : null;
    if (said) line.appendChild(el("span", "tag " + (typeof v.correct === "boolean" ? said : ""), said));
    if (v.subtypes && v.subtypes.length) line.appendChild(el("span", "muted", " subtypes: " + v.subtypes.join(", ")));
    line.appendChild(el("span", v.status === "ok" ? "muted" : "bad", " status " + v.status));
    if (v.stage) line.appendChild(el("span", "muted", " · stage " + v.stage));
    if (v.flags && v.flags.length) line.appendChild(el("span", "tag flagged", "flags: " + v.flags.join(", ")));
    box.appendChild(line);
    if (v.extracted !== null) {
      const e = el("div", "plain", "extracted: ");
      e.appendChild(el("code", null, v.extracted));
      box.appendChild(e);
    }
    if (v.stale) box.appendChild(el("div", "warn", "no current verdict: the last one " + v.stale));
    if (v.error) box.appendChild(el("div", "bad plain", v.error));
    if (v.reply) box.appendChild(fold("judge reply", el("div", "text", v.reply)));
    return box;
  }

  function meta(it) {
    const u = it.usage || {}, parts = ["finish: " + it.finish_reason];
    if (u.completion_tokens != null) parts.push(u.completion_tokens + " completion tokens");
    if (u.reasoning_tokens) parts.push(u.reasoning_tokens + " reasoning tokens");
    if (typeof it.latency_s === "number") parts.push(it.latency_s.toFixed(1) + " s");
    return parts.join(" · ");
  }

  function item(it, bits) {
    const box = el("div", "item"), h = el("h2");
    box.dataset.id = it.id;
    box.dataset.sample = it.s;
    h.appendChild(el("span", null, it.id + (X.samples ? " #" + it.s : "")));
    for (const name of ["correct", "wrong", "failed", "flagged", "disagree", "unjudged"]) {
      if (bits & BITS[name]) h.appendChild(el("span", "tag " + name, name === "disagree" ? "judges disagree" : name));
    }
    box.appendChild(h);
    if (it.record_error) box.appendChild(el("div", "bad", it.record_error));
    box.appendChild(rich("plain", it.question));
    if (it.choices && it.choices.length) {
      const ol = el("ol", "choices");
      ol.type = "A";
      for (const c of it.choices) { const li = el("li"); li.appendChild(rich("plain", c)); ol.appendChild(li); }
      box.appendChild(ol);
    }
    if (it.answer) box.appendChild(el("div", "plain", "gold: " + it.answer.join(", ")));
    const prompt = el("div");
    if (it.prompt_error) prompt.appendChild(el("div", "bad", it.prompt_error));
    for (const m of it.prompt || []) {
      prompt.appendChild(el("div", "label", m.role));
      prompt.appendChild(rich("text", m.content));
    }
    box.appendChild(fold("rendered prompt", prompt));
    if (it.reasoning) box.appendChild(fold("reasoning", el("div", "text", it.reasoning)));
    box.appendChild(el("div", "label", "response"));
    box.appendChild(it.response ? el("div", "text", it.response) : el("div", "muted", "(no response)"));
    if (it.error) box.appendChild(el("div", "bad plain", "request failed: " + it.error));
    box.appendChild(el("div", "muted", meta(it)));
    box.appendChild(el("div", "label", "verdicts"));
    if (!it.verdicts.length) box.appendChild(el("div", "muted", "no judge has run"));
    for (const v of it.verdicts) box.appendChild(verdict(v));
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
