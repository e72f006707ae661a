// One item of a benchmark across every run (model × setting), side by side. The page holds COMPARE_INDEX: the
// item ids, and per run its folder, its chunk files' prefix and, per answer in page order, the item's position
// in `ids` and the sample. The answers come from the runs' own chunk scripts (browseChunk(k, items)), loaded one
// at a time so that each call is known to belong to the run asked for.
"use strict";
(function () {
  const X = window.COMPARE_INDEX;
  const { el, record, answer } = window.BrowseParts;
  const $ = (id) => document.getElementById(id);
  const chunks = {};
  let queue = Promise.resolve(), arriving = null, ticket = 0;

  window.browseChunk = (k, items) => { arriving = items; };

  for (const run of X.runs) {  // where each item's answers sit in the run: item position → answer positions
    run.where = new Map();
    run.pos.forEach((g, i) => { if (!run.where.has(g)) run.where.set(g, []); run.where.get(g).push(i); });
  }

  function load(r, k) {
    const key = r + ":" + k;
    if (!chunks[key]) {
      chunks[key] = queue = queue.catch(() => {}).then(() => new Promise((ok, fail) => {
        const s = document.createElement("script");
        arriving = null;
        s.src = X.runs[r].dir + X.runs[r].prefix + String(k).padStart(4, "0") + ".js";
        s.onload = () => (arriving ? ok(arriving) : fail(new Error(s.src + " did not register its items")));
        s.onerror = () => { delete chunks[key]; fail(new Error("cannot load " + s.src + " (rerun analysis.browse)")); };
        document.head.appendChild(s);
      }));
    }
    return chunks[key];
  }

  function answersOf(r, g) {
    const at = X.runs[r].where.get(g) || [];
    return Promise.all(at.map((i) => load(r, Math.floor(i / X.chunk)).then((items) => items[i % X.chunk])));
  }

  function mainSaid(it) {
    const v = it.verdicts.find((x) => x.main);
    if (it.error) return ["failed", "request failed"];
    if (!v) return ["unjudged", "no verdict"];
    if (v.status !== "ok") return ["failed", v.status];
    return typeof v.correct === "boolean" ? [v.correct ? "correct" : "wrong", v.correct ? "correct" : "wrong"]
      : ["", v.labels ? "labels: " + v.labels.join(", ") : "score: " + JSON.stringify(v.score)];
  }

  function column(r, answers) {
    const run = X.runs[r], col = el("div", "run");
    col.dataset.model = run.model;
    col.dataset.setting = run.setting;
    const h = el("h3"), a = el("a", null, run.model + " / " + run.setting);
    a.href = run.dir + run.page;
    h.appendChild(a);
    col.appendChild(h);
    if (!answers.length) col.appendChild(el("p", "muted", "(this item is not in this run)"));
    for (const it of answers) {
      const box = el("div", "answer"), [cls, said] = mainSaid(it);
      box.appendChild(el("div", null, answers.length > 1 ? "sample #" + it.s : ""));
      box.lastChild.appendChild(el("span", "tag " + cls, said));
      answer(box, it);
      col.appendChild(box);
    }
    return col;
  }

  function runsShown() {
    const q = $("runs").value.trim().toLowerCase();
    return X.runs.map((_, r) => r).filter((r) => !q || (X.runs[r].model + " / " + X.runs[r].setting).toLowerCase().includes(q));
  }

  function show() {
    const mine = ++ticket, id = decodeURIComponent((location.hash.match(/id=([^&]*)/) || [])[1] || X.ids[0] || "");
    const g = X.ids.indexOf(id);
    $("id").value = id;
    $("prev").disabled = g <= 0;
    $("next").disabled = g < 0 || g >= X.ids.length - 1;
    if (g < 0) { $("item").replaceChildren(el("p", "bad", "No item " + id + " in any run of this benchmark.")); $("cols").replaceChildren(); return; }
    const runs = runsShown();
    Promise.all(runs.map((r) => answersOf(r, g))).then((found) => {
      if (mine !== ticket) return;
      const first = found.find((a) => a.length), head = el("div", "item");
      head.appendChild(el("h2", null, id));
      if (first) record(head, first[0], X.runs[runs[found.indexOf(first)]].dir);
      $("item").replaceChildren(head);
      $("cols").replaceChildren(...runs.map((r, k) => column(r, found[k])));
      $("count").textContent = runs.length + " of " + X.runs.length + " runs";
    }, (err) => { if (mine === ticket) $("cols").replaceChildren(el("p", "bad", err.message)); });
  }

  function go(id) { location.hash = "id=" + encodeURIComponent(id); }
  $("id").addEventListener("change", (e) => go(e.target.value));
  $("prev").addEventListener("click", () => go(X.ids[X.ids.indexOf($("id").value) - 1]));
  $("next").addEventListener("click", () => go(X.ids[X.ids.indexOf($("id").value) + 1]));
  $("runs").addEventListener("input", show);
  window.addEventListener("hashchange", show);
  const list = $("ids");
  for (const id of X.ids) { const o = el("option"); o.value = id; list.appendChild(o); }
  show();
})();
