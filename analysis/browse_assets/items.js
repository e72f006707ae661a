// The parts of an item as the item browser and the side-by-side view show them: text with its images, folds,
// a judge's verdict, a request's finish, tokens and time. Data is only ever set as text (textContent).
"use strict";
window.BrowseParts = (function () {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  // Text whose images stand where the question places them: strings, {img, alt} and {missing} parts. `at`: the
  // folder the image paths are relative to, seen from this page ("" for the run's own page).
  function rich(cls, parts, at) {
    const box = el("div", cls);
    for (const p of parts || []) {
      if (typeof p === "string") box.appendChild(document.createTextNode(p));
      else if (p.img) {
        const a = el("a"), img = el("img", "thumb");
        a.href = (at || "") + p.img; a.target = "_blank";
        img.src = (at || "") + p.img; img.alt = p.alt || ""; img.title = p.alt || ""; img.loading = "lazy";
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
    line.appendChild(el("span", v.status === "ok" || v.status === "undecided" ? "muted" : "bad", " status " + v.status));
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
    if (v.reason) box.appendChild(el("div", "plain", "undecided: " + v.reason));
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

  // The record: question (images in place), choices, gold.
  function record(box, it, at) {
    if (it.record_error) box.appendChild(el("div", "bad", it.record_error));
    box.appendChild(rich("plain", it.question, at));
    if (it.choices && it.choices.length) {
      const ol = el("ol", "choices");
      ol.type = "A";
      for (const c of it.choices) { const li = el("li"); li.appendChild(rich("plain", c, at)); ol.appendChild(li); }
      box.appendChild(ol);
    }
    if (it.answer) box.appendChild(el("div", "plain", "gold: " + it.answer.join(", ")));
  }

  // The answer: reasoning apart, the response or the request's failure, its finish, every judge's verdict.
  function answer(box, it) {
    if (it.reasoning) box.appendChild(fold("reasoning", el("div", "text", it.reasoning)));
    box.appendChild(el("div", "label", "response"));
    box.appendChild(it.response ? el("div", "text response", it.response) : el("div", "muted", "(no response)"));
    if (it.error) box.appendChild(el("div", "bad plain", "request failed: " + it.error));
    box.appendChild(el("div", "muted", meta(it)));
    box.appendChild(el("div", "label", "verdicts"));
    if (!it.verdicts.length) box.appendChild(el("div", "muted", "no judge has run"));
    for (const v of it.verdicts) box.appendChild(verdict(v));
  }

  return { el, rich, fold, verdict, meta, record, answer };
})();
