"use strict";
// The run timeline page: recent runs, one run's stages (status, duration, attempts) and its three channels.
// Plain JavaScript, no build step. Progress for tests is exposed on <body>: data-ready (lists loaded),
// data-run (the run shown) and data-run-status (its status, refreshed until it is finished).
(() => {
  const $ = (id) => document.getElementById(id);
  const KEY_STORAGE = "slotgraph.apiKey";  // shared with the playground
  let shown = null;
  let timer = null;

  function headers(json) {
    const h = {};
    if (json) h["Content-Type"] = "application/json";
    let key = "";
    try { key = sessionStorage.getItem(KEY_STORAGE) || ""; } catch (_) { /* private mode */ }
    if (key) h["Authorization"] = "Bearer " + key;
    return h;
  }

  async function api(path, options) {
    const response = await fetch(path, Object.assign({ headers: headers(options && options.body) }, options || {}));
    let body = null;
    try { body = await response.json(); } catch (_) { /* empty */ }
    if (!response.ok) {
      const p = body || {};
      throw new Error((p.detail || response.statusText) + (p.fix ? " — " + p.fix : "") + (p.code ? " [" + p.code + "]" : ""));
    }
    return body;
  }

  function text(el, value) { el.textContent = value; return el; }
  function node(tag, cls, value) {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (value !== undefined) el.textContent = value;
    return el;
  }
  const json = (v) => JSON.stringify(v, null, 2);

  async function loadWorkflows() {
    const { workflows } = await api("/v1/workflows");
    const select = $("workflow");
    select.replaceChildren(...workflows.map((w) => { const o = node("option", "", w.name); o.value = w.name; return o; }));
    $("no-workflows").hidden = workflows.length > 0;  // an empty form would only leave you guessing
    $("start-fields").disabled = workflows.length === 0;
    document.body.dataset.workflows = String(workflows.length);
  }

  async function loadRuns() {
    const { runs } = await api("/v1/runs?limit=50");
    $("run-list").replaceChildren(...runs.map((r) => {
      const li = node("li", r.run_id === shown ? "current" : "");
      li.dataset.runId = r.run_id;
      li.append(node("span", "", r.workflow + " · " + r.run_id.slice(0, 12)), node("span", "status " + r.status, r.status));
      li.addEventListener("click", () => show(r.run_id));
      return li;
    }));
  }

  function renderTimeline(record) {
    const stages = record.stages;
    const longest = Math.max(1, ...stages.map((s) => s.duration_ms));
    const rows = [];
    for (const s of stages) {
      const name = node("span", "", s.stage_id);
      name.dataset.stage = s.stage_id;
      name.dataset.stageStatus = s.status;
      const bar = node("div", "bar " + s.status);
      bar.style.width = Math.max(0.5, (100 * s.duration_ms) / longest) + "%";
      bar.title = json(s.detail);
      const attempts = s.attempts > 1 ? " ×" + s.attempts : "";
      rows.push(name, node("span", "status " + s.status, s.kind), bar, node("span", "", s.duration_ms.toFixed(1) + " ms" + attempts));
      if (s.error) rows.push(node("p", "stage-error", s.error.code + ": " + s.error.message));
    }
    if (record.next_stage && !["succeeded", "failed"].includes(record.status)) {
      rows.push(node("span", "", record.next_stage), node("span", "status running", "…"), node("div", ""), node("span", "", ""));
    }
    $("timeline").replaceChildren(...rows);
  }

  async function show(runId) {
    shown = runId;
    clearTimeout(timer);
    let record;
    try {
      record = await api("/v1/runs/" + encodeURIComponent(runId));
    } catch (err) {
      $("run").hidden = false;
      text($("run-error"), String(err.message || err));
      return;
    }
    $("run").hidden = false;
    text($("run-title"), record.workflow + " · " + record.run_id);
    const status = $("run-status");
    status.className = "status " + record.status;
    text(status, record.status);
    text($("run-error"), record.error ? record.error.code + ": " + record.error.message : "");
    renderTimeline(record);
    text($("goal"), json(record.goal));
    text($("slots"), json(record.slots));
    $("notes").replaceChildren(...record.notes.map((n) => node("li", "", n)));
    text($("result"), record.result === null ? "" : json(record.result));
    document.body.dataset.run = record.run_id;
    document.body.dataset.runStatus = record.status;
    history.replaceState(null, "", "/runs?run=" + encodeURIComponent(record.run_id));
    if (!["succeeded", "failed"].includes(record.status)) timer = setTimeout(() => show(runId), 700);
    else loadRuns().catch(() => {});
  }

  $("start-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    text($("start-error"), "");
    let payload;
    try { payload = JSON.parse($("payload").value); } catch (err) { text($("start-error"), "the payload is not JSON: " + err.message); return; }
    try {
      const record = await api("/v1/runs", { method: "POST", headers: headers(true), body: JSON.stringify({ workflow: $("workflow").value, payload }) });
      await loadRuns();
      await show(record.run_id);
    } catch (err) { text($("start-error"), String(err.message || err)); }
  });

  (async () => {
    try {
      await Promise.all([loadWorkflows(), loadRuns()]);
      const wanted = new URLSearchParams(location.search).get("run");
      if (wanted) await show(wanted);
    } catch (err) {
      text($("start-error"), String(err.message || err));
    }
    document.body.dataset.ready = "true";
  })();
})();
