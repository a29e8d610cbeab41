"use strict";
// The Slotgraph playground. Plain JavaScript, no build step, no external assets.
// State lives in `ui`; the DOM shows it. The page exposes progress for tests as data attributes on <body>:
// data-ready (agents loaded), data-session, data-turns (turns finished), data-finished (session over).
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const KEY_STORAGE = "slotgraph.apiKey";
  const ui = { agent: null, sessionId: null, graph: null, rootGraph: null, view: null, busy: false, finished: false };

  // ---- API key: asked for first when the server needs one, kept for this tab (sessionStorage) ----------------
  function storedKey() {
    try { return sessionStorage.getItem(KEY_STORAGE) || ""; } catch (_) { return ""; }
  }
  function storeKey(key) {
    try { key ? sessionStorage.setItem(KEY_STORAGE, key) : sessionStorage.removeItem(KEY_STORAGE); } catch (_) { /* private mode */ }
  }

  class Unauthorized extends Error {}

  function headers(json) {
    const h = {};
    if (json) h["Content-Type"] = "application/json";
    const key = storedKey();
    if (key) h["Authorization"] = "Bearer " + key;
    return h;
  }

  async function problemText(response) {
    try {
      const p = await response.json();
      return (p.detail || p.title || response.statusText) + (p.fix ? " — " + p.fix : "") + (p.code ? " [" + p.code + "]" : "");
    } catch (_) { return response.status + " " + response.statusText; }
  }

  async function checked(response) {
    if (response.status === 401) throw new Unauthorized(await problemText(response));
    if (!response.ok) throw new Error(await problemText(response));
    return response;
  }

  async function api(path, body) {
    const init = body === undefined ? { headers: headers(false) }
                                    : { method: "POST", headers: headers(true), body: JSON.stringify(body) };
    return (await checked(await fetch(path, init))).json();
  }

  function askForKey(message) {
    $("workspace").hidden = true;
    $("key-gate").hidden = false;
    $("key-error").textContent = message || "";
    $("api-key").value = "";
    $("api-key").focus();
  }

  // ---- small DOM helpers -------------------------------------------------------------------------------------
  function showError(message) { $("error").textContent = message || ""; }

  function addMessage(role, text, extra) {
    const div = document.createElement("div");
    div.className = "msg " + role + (extra ? " " + extra : "");
    div.textContent = text;
    $("transcript").appendChild(div);
    $("transcript").scrollTop = $("transcript").scrollHeight;
  }

  function show(value) {
    if (value === null || value === undefined || value === "") return "—";
    return typeof value === "string" ? value : JSON.stringify(value);
  }

  function short(value, limit) {
    const text = show(value);
    return text.length > limit ? text.slice(0, limit - 1) + "…" : text;
  }

  function node(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // ---- the session panel and the slot table -----------------------------------------------------------------
  function slotState(name, view) {
    if (!view) return "empty";
    if (name in view.filled) return "filled";
    if (name in view.pending) return "pending";
    if (name in view.deferred) return "deferred";
    if ((view.inactive || []).includes(name)) return "inactive";
    if (view.candidates && name in view.candidates) return "early";
    if (view.held && name in view.held) return "held";
    if (view.asking === name) return "asking";
    return "empty";
  }

  function renderView(view) {
    ui.view = view;
    $("status").textContent = view ? view.status : "—";
    $("asking").textContent = view && view.asking ? view.asking : "—";
    $("directive").textContent = view && view.directive ? view.directive : "—";
    $("hidden-tools").textContent = view && view.hidden_tools ? (view.hidden_tools.join(", ") || "none") : "—";
    $("tasks").textContent = view && view.tasks.length
      ? view.tasks.map((t) => t.name + (t.succeeded ? " ✓" : " ✗")).join(", ") : "—";
    const variables = view && view.variables ? Object.entries(view.variables) : [];
    $("variables").textContent = variables.length
      ? variables.map(([k, v]) => k + "=" + short(v, 60)).join(", ") : "—";
    const body = $("slots");
    body.replaceChildren();
    const topic = view && view.variables ? view.variables.current_topic : undefined;
    for (const el of document.querySelectorAll(".topic-only")) el.hidden = topic === undefined || topic === null;
    $("active-topic").textContent = topic ? topic : "main";
    const agents = view && view.agents ? Object.entries(view.agents) : [];
    for (const el of document.querySelectorAll(".app-only")) el.hidden = !agents.length;
    $("active-agent").textContent = view && view.agent ? view.agent : "—";
    if (agents.length) {  // a multi-agent app: every agent's slots, the active agent's first
      agents.sort(([a], [b]) => (a === view.agent ? -1 : b === view.agent ? 1 : 0));
      for (const [name, slotsOf] of agents) {
        const head = document.createElement("tr");
        head.className = "agent-row" + (name === view.agent ? " active" : "");
        head.dataset.agent = name;
        const cell = node("td", "", name + (name === view.agent ? " (active)" : "") + " — " + slotsOf.status);
        cell.colSpan = 3;
        head.appendChild(cell);
        body.appendChild(head);
        for (const state of ["filled", "pending", "deferred"]) {
          for (const [slot, value] of Object.entries(slotsOf[state] || {})) {
            const row = document.createElement("tr");
            row.dataset.slot = slot;
            row.dataset.agent = name;
            row.dataset.state = state;
            const stateCell = node("td");
            stateCell.appendChild(node("span", "state " + state, state));
            row.append(node("td", "", slot), stateCell, node("td", "", show(value)));
            body.appendChild(row);
          }
        }
      }
      if (!followGraph(view)) drawGraph();
      return;
    }
    const slots = ui.graph ? ui.graph.nodes.filter((n) => n.type === "slot") : [];
    for (const slot of slots) {
      let state = slotState(slot.name, view);
      if (state === "filled" && view && view.changes && slot.name in view.changes) state = "changing";
      const row = document.createElement("tr");
      row.dataset.slot = slot.name;
      row.dataset.state = state;
      const name = node("td", "", slot.name);
      if (slot.condition) name.title = "only when: " + slot.condition;
      const stateCell = node("td");
      stateCell.appendChild(node("span", "state " + state, state));
      let source = view ? (view.filled[slot.name] ?? view.pending[slot.name] ?? view.deferred[slot.name]) : undefined;
      if (view && source === undefined) source = (view.candidates || {})[slot.name] ?? (view.held || {})[slot.name];
      if (state === "changing") source = show(view.changes[slot.name]) + " → " + show(view.pending[slot.name] ?? view.deferred[slot.name]);
      row.append(name, stateCell, node("td", "", source === undefined ? "" : (state === "changing" ? source : show(source))));
      body.appendChild(row);
    }
    if (!followGraph(view)) drawGraph();
  }

  // The DAG in play: the active agent's (an app), or the own DAG of its active topic. False when the drawn
  // graph is that one already; else it is fetched and drawn (the view's states colour it).
  function followGraph(view) {
    if (!view || !ui.graph) return false;
    const agent = view.agent || null, topic = view.topic_dag || null;
    if ((!agent || agent === ui.graph.app_agent) && topic === (ui.graph.topic || null)) return false;
    const key = agent + "|" + topic;
    if (ui.fetchingGraph !== key) {  // one fetch per wanted graph, however many views arrive meanwhile
      ui.fetchingGraph = key;
      showGraphOf(agent, topic).catch((err) => showError(err.message))
        .finally(() => { if (ui.fetchingGraph === key) ui.fetchingGraph = null; });
    }
    return true;
  }

  // ---- the turn's events as rows ----------------------------------------------------------------------------
  function args(map) {
    return Object.entries(map || {}).map(([k, v]) => k + "=" + short(v, 60)).join(", ");
  }

  function describe(kind, d) {
    switch (kind) {
      case "text": return [d.origin === "engine" ? "said (engine)" : "said", d.text];
      case "tool_call": return ["tool call", d.name + "(" + args(d.args) + ")" + (d.origin === "engine" ? " — by the engine" : "")];
      case "tool_result": return [d.failed ? "tool failed" : "tool result", d.name + " → " + short(d.result, 160)];
      case "state_snapshot": {
        const s = d.state || {};
        const parts = [["filled", s.filled], ["pending", s.pending], ["deferred", s.deferred]]
          .filter(([, v]) => v && Object.keys(v).length)
          .map(([label, v]) => label + ": " + Object.keys(v).join(", "));
        return ["state", "after " + d.after_tool + (parts.length ? " — " + parts.join("; ") : "")];
      }
      case "rule": return [d.ok ? "rule" : "rule failed", d.rule + " (" + d.trigger + ")" +
        (d.actions && d.actions.length ? ": " + d.actions.join(", ") : "") + (d.error ? " — " + d.error : "")];
      case "refusal": return ["refused" + (d.by && d.by !== "runtime" ? " by the " + d.by : ""), d.name + " (" + d.refused + ")" + (d.message ? ": " + d.message : "")];
      case "payload": return ["payload", short(d.part, 160)];
      case "end_session": return ["session ended", (d.escalated ? "escalated" : "") + (d.reason ? (d.escalated ? ": " : "") + d.reason : "")];
      case "transfer": return ["handed over", d.reason || ""];
      case "error": return ["error", (d.code ? d.code + ": " : "") + (d.message || d.detail || "")];
      case "model_no_call": return ["model made no call", d.reason || ""];
      case "topic": return [d.ok ? "topic" : "topic refused", (d.from_topic || "main") + " → " + (d.to_topic || "main") +
        " (" + d.via + ")" + (d.message ? " — " + d.message : "")];
      case "agent_transfer": return ["agent transfer", d.from_agent + " → " + d.to_agent + " (" + d.tool + ")"];
      case "guard": return [d.action === "check_failed" ? "guard undecided" : "guard",
        d.guard + " (" + d.check + "): " + d.action + " sentence " + (d.sentence + 1) + (d.detail ? " — " + d.detail : "")];
      default: return [kind.replace(/_/g, " "), short(d, 160)];
    }
  }

  function addEventRow(kind, data) {
    const [label, what] = describe(kind, data);
    const row = node("li", kind.replace(/_/g, "-") + (data.failed ? " failed" : ""));
    row.dataset.kind = kind;
    row.title = JSON.stringify(data);
    row.append(node("span", "kind", label), node("span", "what", what));
    $("events").appendChild(row);
  }

  // ---- the DAG picture ---------------------------------------------------------------------------------------
  function el(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const COLOURS = { filled: ["#d9f2e3", "#2e8b57"], pending: ["#fdf0d5", "#c98a14"], deferred: ["#efe5fb", "#7b4bb7"],
                    asking: ["#e1ebfd", "#2f6fd6"], empty: ["#fff", "#98a2b3"], inactive: ["#f2f3f5", "#c4c9d2"],
                    early: ["#eef0f3", "#8a8f98"], held: ["#eef0f3", "#8a8f98"] };

  function nodeLook(n) {
    const view = ui.view;
    if (n.type === "task") {
      const fired = view ? view.tasks.find((t) => t.name === n.name) : undefined;
      if (!fired) return { fill: "#f5f5f5", stroke: "#333", state: "idle" };
      return fired.succeeded ? { fill: "#d9f2e3", stroke: "#2e8b57", state: "fired" }
                             : { fill: "#fde2df", stroke: "#c0392b", state: "failed" };
    }
    const state = slotState(n.name, view);
    const [fill, stroke] = COLOURS[state];
    return { fill, stroke, state };
  }

  function subtitle(n) {
    if (n.type === "task") return "calls " + n.tool + (n.parallel ? " · parallel" : "");
    const kind = n.kind.replace(/_/g, " ");
    return (n.condition ? "if … · " : "") + kind + (n.readback ? " · readback" : "");
  }

  // Layered layout from the server (rank = column, row = place in the column). Edges are routed orthogonally
  // through the gaps between columns and the channels between rows, never across a node: an edge to the next
  // column turns in that gap; a longer edge leaves its source into the gap, runs along the channel nearest to
  // both ends and drops into the gap before its target. Each target has its own vertical lane and every
  // channel run its own height, so edges meet only where they end.
  function layout(graph) {
    const NAME_PX = 8.4, SUB_PX = 6.8, H = 46, PAD = 12;
    const nodes = graph.nodes, byId = {};
    let ranks = 0, rows = 0;
    for (const n of nodes) { byId[n.id] = n; ranks = Math.max(ranks, n.rank + 1); rows = Math.max(rows, n.row + 1); }
    const colW = new Array(ranks).fill(120);
    for (const n of nodes) {
      colW[n.rank] = Math.max(colW[n.rank], Math.ceil(n.name.length * NAME_PX + 20), Math.ceil(subtitle(n).length * SUB_PX + 20));
    }
    const edges = graph.edges.filter((e) => byId[e.source] && byId[e.target]).map((e) => ({ ...e, s: byId[e.source], t: byId[e.target] }));
    // lanes in the gap after each column: sources of long edges, then targets in the next column
    const gapLanes = Array.from({ length: ranks }, () => []);
    const lane = (gap, key) => { if (!gapLanes[gap].includes(key)) gapLanes[gap].push(key); };
    for (const e of edges) {
      if (e.t.rank > e.s.rank + 1) lane(e.s.rank, "out:" + e.s.id);
      lane(e.t.rank - 1, "in:" + e.t.id);
    }
    const gapW = gapLanes.map((l) => Math.max(36, (l.length + 1) * 8));
    // channels between rows: 0 above row 0, k between row k-1 and row k, rows below the last row
    const channelOf = new Map(), channelRuns = new Array(rows + 1).fill(0);
    for (const e of edges) {
      if (e.t.rank <= e.s.rank + 1) continue;
      const mid = (e.s.row + e.t.row + 1) / 2;                 // channel k sits at "row index" k - 0.5
      const c = Math.max(0, Math.min(rows, Math.round(mid)));
      channelOf.set(e, [c, channelRuns[c]++]);
    }
    const chanH = channelRuns.map((n, c) => Math.max(c === 0 || c === rows ? PAD : 18, (n + 1) * 8));
    const colX = [], rowY = [];
    let x = PAD;
    for (let r = 0; r < ranks; r++) { colX.push(x); x += colW[r] + gapW[r]; }
    let y = 0;
    for (let r = 0; r < rows; r++) { y += chanH[r]; rowY.push(y); y += H; }
    const width = x - gapW[ranks - 1] + PAD, height = y + chanH[rows];
    const laneX = (gap, key) => {
      const i = gapLanes[gap].indexOf(key), n = gapLanes[gap].length;
      return colX[gap] + colW[gap] + (gapW[gap] * (i + 1)) / (n + 1);
    };
    const box = (n) => ({ x: colX[n.rank], y: rowY[n.row], w: colW[n.rank], h: H });
    const incoming = {};
    for (const e of edges) (incoming[e.t.id] = incoming[e.t.id] || []).push(e);
    const paths = edges.map((e) => {
      const a = box(e.s), b = box(e.t);
      const siblings = incoming[e.t.id], k = siblings.indexOf(e);
      const sy = a.y + H / 2, ty = b.y + (H * (k + 1)) / (siblings.length + 1);
      const inX = laneX(e.t.rank - 1, "in:" + e.t.id);
      let pts;
      if (e.t.rank === e.s.rank + 1) {
        pts = [[a.x + a.w, sy], [inX, sy], [inX, ty], [b.x, ty]];
      } else {
        const [c, run] = channelOf.get(e);
        const top = c === 0 ? 0 : rowY[c - 1] + H;
        const cy = top + (chanH[c] * (run + 1)) / (channelRuns[c] + 1);
        const outX = laneX(e.s.rank, "out:" + e.s.id);
        pts = [[a.x + a.w, sy], [outX, sy], [outX, cy], [inX, cy], [inX, ty], [b.x, ty]];
      }
      return { edge: e, d: "M" + pts.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" L") };
    });
    return { box, paths, width, height };
  }

  function useGraph(graph) {
    ui.graph = graph;
    $("mermaid").value = graph.mermaid;
    const whose = [graph.app_agent, graph.topic ? "topic " + graph.topic : null].filter(Boolean).join(", ");
    $("graph-agent").textContent = whose ? "of " + whose : "";
  }

  async function showGraphOf(member, topic) {  // an app's agent's DAG, or a topic's own DAG
    const query = new URLSearchParams();
    if (member) query.set("agent", member);
    if (topic) query.set("topic", topic);
    useGraph(await api("/v1/agents/" + encodeURIComponent(ui.agent) + "/graph?" + query.toString()));
    drawGraph();
  }

  function drawGraph() {
    const holder = $("graph");
    holder.replaceChildren();
    holder.dataset.agent = ui.graph && ui.graph.app_agent ? ui.graph.app_agent : "";
    holder.dataset.topic = ui.graph && ui.graph.topic ? ui.graph.topic : "";
    if (!ui.graph || !ui.graph.nodes.length) return;
    const { box, paths, width, height } = layout(ui.graph);
    const svg = el("svg", { viewBox: `0 0 ${width} ${height}`, width, height, role: "img", "aria-label": "DAG of " + ui.agent });
    const defs = el("defs", {});
    const marker = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" });
    marker.appendChild(el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#8a94a6" }));
    defs.appendChild(marker); svg.appendChild(defs);
    for (const { edge, d } of paths) {
      const path = el("path", { d, class: "edge" + (edge.dashed ? " requires" : ""), "marker-end": "url(#arrow)",
                                "data-source": edge.source, "data-target": edge.target, "stroke-linejoin": "round" });
      path.appendChild(el("title", {}, edge.source + " → " + edge.target + (edge.label ? " (" + edge.label + ")" : "")));
      svg.appendChild(path);
    }
    for (const n of ui.graph.nodes) {
      const b = box(n), look = nodeLook(n);
      const g = el("g", { "data-node": n.id, "data-state": look.state, class: "node " + n.type,
                          opacity: look.state === "inactive" ? 0.55 : 1 });
      g.appendChild(el("title", {}, n.id + (n.kind === "terminal" ? " (terminal task)" : "") +
                                     (n.condition ? "\nonly when: " + n.condition : "")));
      g.appendChild(el("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: n.type === "task" ? 2 : 10,
        fill: look.fill, stroke: look.stroke, "stroke-width": look.state === "asking" || n.kind === "terminal" ? 3 : 1.5,
        "stroke-dasharray": n.condition ? "6 4" : "none" }));
      g.appendChild(el("text", { x: b.x + 9, y: b.y + 19, "font-size": 14, "font-weight": 600, fill: "#1d2330" }, n.name));
      g.appendChild(el("text", { x: b.x + 9, y: b.y + 37, "font-size": 12.5, fill: "#5b6476" },
        look.state === "inactive" ? "inactive · condition false" : subtitle(n)));
      g.addEventListener("mouseenter", () => focusNode(svg, n.id));
      g.addEventListener("mouseleave", () => focusNode(svg, null));
      svg.appendChild(g);
    }
    holder.appendChild(svg);
  }

  function focusNode(svg, id) {
    svg.classList.toggle("focus", id !== null);
    for (const p of svg.querySelectorAll(".edge")) {
      p.classList.toggle("hot", id !== null && (p.dataset.source === id || p.dataset.target === id));
    }
  }

  // ---- sessions and turns -----------------------------------------------------------------------------------
  function setFinished(finished, status) {
    ui.finished = finished;
    $("message").disabled = finished;
    $("send").disabled = finished || ui.busy;
    $("composer").classList.toggle("disabled", finished);
    $("ended").hidden = !finished;
    $("message").placeholder = finished ? "This session has ended" : "Say something…";
    if (finished) $("ended-text").textContent = "This session has ended (" + (status || "ended") + ").";
    document.body.dataset.finished = String(finished);
  }

  async function loadAgent(name) {
    ui.agent = name;
    ui.rootGraph = await api("/v1/agents/" + encodeURIComponent(name) + "/graph");
    await newSession();
  }

  async function newSession() {
    showError("");
    $("transcript").replaceChildren();
    $("events").replaceChildren();
    const created = await api("/v1/sessions", { agent: ui.agent });
    ui.sessionId = created.session_id;
    $("session-id").textContent = "session " + ui.sessionId;
    document.body.dataset.session = ui.sessionId;
    setFinished(false);
    useGraph(ui.rootGraph);  // a new conversation starts with the root agent
    renderView(null);
    $("message").focus({ preventScroll: true });
  }

  function applyEvent(kind, data) {
    if (kind !== "turn") addEventRow(kind, data);
    if (kind === "text" && data.text) addMessage("agent", data.text, data.origin === "engine" ? "engine" : "");
    else if (kind === "payload") addMessage("note", "payload: " + JSON.stringify(data.part));
    else if (kind === "end_session") addMessage("note", "session ended" + (data.reason ? ": " + data.reason : ""));
    else if (kind === "transfer") addMessage("note", "handed over" + (data.reason ? ": " + data.reason : ""));
    else if (kind === "refusal") addMessage("note", "refused " + data.name + " (" + data.refused + ")");
    else if (kind === "error") showError((data.detail || data.title || "the turn failed") + (data.code ? " [" + data.code + "]" : ""));
    else if (kind === "state_snapshot" && ui.view) {
      renderView({ ...ui.view, filled: data.state.filled || {}, pending: data.state.pending || {},
                   deferred: data.state.deferred || {}, candidates: data.state._candidates || {},
                   changes: data.state._changes || {}, held: data.state._held || {} });
    } else if (kind === "turn") {
      renderView(data.view);
      if (data.ended || (data.view && data.view.status !== "in_progress")) setFinished(true, data.view ? data.view.status : "");
    }
  }

  async function send(text) {
    ui.busy = true; $("send").disabled = true; showError("");
    addMessage("user", text);
    $("events").replaceChildren();
    try {
      const response = await checked(await fetch("/v1/sessions/" + encodeURIComponent(ui.sessionId) + "/messages:stream", {
        method: "POST", headers: headers(true), body: JSON.stringify({ text }) }));
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let cut;
        while ((cut = buffer.indexOf("\n\n")) >= 0) {
          const block = buffer.slice(0, cut); buffer = buffer.slice(cut + 2);
          let kind = "message", data = "";
          for (const line of block.split("\n")) {
            if (line.startsWith("event: ")) kind = line.slice(7);
            else if (line.startsWith("data: ")) data += line.slice(6);
          }
          if (kind !== "done") applyEvent(kind, data ? JSON.parse(data) : {});
        }
      }
    } catch (err) {
      if (err instanceof Unauthorized) askForKey("The key was refused: " + err.message);
      else showError(err.message);
    } finally {
      ui.busy = false; $("send").disabled = ui.finished;
      document.body.dataset.turns = String(Number(document.body.dataset.turns || "0") + 1);
    }
  }

  // ---- wiring -----------------------------------------------------------------------------------------------
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message").value.trim();
    if (!text || ui.busy || ui.finished || !ui.sessionId) return;
    $("message").value = "";
    send(text);
  });
  const fresh = () => newSession().catch((e) => (e instanceof Unauthorized ? askForKey(e.message) : showError(e.message)));
  $("new-session").addEventListener("click", fresh);
  $("restart").addEventListener("click", fresh);
  $("agent").addEventListener("change", (e) => loadAgent(e.target.value).catch((err) => showError(err.message)));
  $("copy-mermaid").addEventListener("click", () => {
    $("mermaid").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("mermaid").value).catch(() => {});
  });
  $("key-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const key = $("api-key").value.trim();
    if (!key) return;
    storeKey(key);
    start();
  });
  $("change-key").addEventListener("click", () => { storeKey(""); askForKey(""); });

  async function start() {
    let agents;
    try {
      if (!storedKey()) {  // ask before the first /v1 request when the server says it needs a key
        const health = await (await fetch("/healthz")).json();
        if (health.api_key_required) { askForKey(""); return; }
      }
      ({ agents } = await api("/v1/agents"));
    } catch (err) {
      if (err instanceof Unauthorized) {
        const hadKey = Boolean(storedKey());
        storeKey("");
        askForKey(hadKey ? "That key was refused. Check it and try again." : "");
      } else {
        showError(err.message);
      }
      return;
    }
    $("key-gate").hidden = true;
    $("workspace").hidden = false;
    $("change-key").hidden = !storedKey();
    const select = $("agent");
    select.replaceChildren();
    for (const a of agents) {
      const option = node("option", "", a.name + " — " + a.slots + " slots, " + a.tasks + " tasks");
      option.value = a.name;
      option.title = a.description;
      select.appendChild(option);
    }
    select.disabled = agents.length === 0;
    $("new-session").disabled = agents.length === 0;
    try {
      if (agents.length) await loadAgent(agents[0].name);
      else showError("This server hosts no agents.");
      document.body.dataset.ready = "true";
    } catch (err) {
      if (err instanceof Unauthorized) askForKey(err.message);
      else showError(err.message);
    }
  }
  start();
})();
