"use strict";
// The Slotgraph playground. Plain JavaScript, no build step, no external assets (the DAG is laid out by ELK,
// elk.bundled.js, served beside this file). State lives in `ui`; the DOM shows it. The session is kept in the
// page's address (?agent=NAME&session=ID): a reload resumes it. The page exposes progress for tests as data
// attributes on <body>: data-ready (agents loaded, the session started or resumed), data-session, data-turns
// (turns finished in this page), data-finished (session over), data-resumed (the session came from the
// address); #graph gets data-drawn once a DAG is drawn.
(() => {
  const $ = (id) => document.getElementById(id);
  const SVG = "http://www.w3.org/2000/svg";
  const KEY_STORAGE = "slotgraph.apiKey";
  const TRACE_STORAGE = "slotgraph.trace.";   // + session id: this tab's traces of the session's turns
  const TRACE_KEPT = 30;                       // turns whose trace is kept per session
  const ui = { agent: null, agents: [], sessionId: null, graph: null, rootGraph: null, view: null, busy: false,
               finished: false, maxChars: null, turns: [], turnCount: 0, layouts: new WeakMap() };

  // ---- API key: asked for first when the server needs one, kept for this tab (sessionStorage) ----------------
  function stored(key) {
    try { return sessionStorage.getItem(key) || ""; } catch (_) { return ""; }
  }
  function store(key, value) {
    try { value ? sessionStorage.setItem(key, value) : sessionStorage.removeItem(key); return true; } catch (_) { return false; }
  }
  const storedKey = () => stored(KEY_STORAGE);
  const storeKey = (key) => store(KEY_STORAGE, key);

  class Unauthorized extends Error {}
  class Unreachable extends Error {}      // the server did not answer at all (stopped, network down)
  class NotFound extends Error {}

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
      const details = (p.errors || []).map((e) => (e.location ? e.location.replace(/^body\./, "") + ": " : "") + e.message);
      return (details.length ? details.join("; ") : (p.detail || p.title || response.statusText)) +
        (p.fix && !details.length ? " — " + p.fix : "") + (p.code ? " [" + p.code + "]" : "");
    } catch (_) { return response.status + " " + response.statusText; }
  }

  async function checked(response) {
    if (response.status === 401) throw new Unauthorized(await problemText(response));
    if (response.status === 404) throw new NotFound(await problemText(response));
    if (!response.ok) throw new Error(await problemText(response));
    return response;
  }

  // fetch, with the browser's bare "Failed to fetch" turned into what happened
  async function call(path, init) {
    try {
      return await fetch(path, init);
    } catch (err) {
      throw new Unreachable("The server at " + location.host + " does not answer — it may have stopped. " +
                            "Start it again, then retry.");
    }
  }

  async function api(path, body) {
    const init = body === undefined ? { headers: headers(false) }
                                    : { method: "POST", headers: headers(true), body: JSON.stringify(body) };
    return (await checked(await call(path, init))).json();
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

  function failed(err) {
    if (err instanceof Unauthorized) askForKey("The key was refused: " + err.message);
    else showError(err.message);
  }

  function addMessage(role, text, extra) {
    const div = document.createElement("div");
    div.className = "msg " + role + (extra ? " " + extra : "");
    div.textContent = text;
    $("transcript").appendChild(div);
    $("transcript").scrollTop = $("transcript").scrollHeight;
    return div;
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

  const plural = (n, one, many) => n + " " + (n === 1 ? one : (many || one + "s"));
  const ms = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2)) + " ms";

  // a name that may break at its underscores (never inside a word): party_size → party_<wbr>size
  function breakable(name) {
    const span = document.createDocumentFragment();
    name.split("_").forEach((part, i, parts) => {
      span.append(part + (i < parts.length - 1 ? "_" : ""));
      if (i < parts.length - 1) span.append(document.createElement("wbr"));
    });
    return span;
  }

  // ---- the address: ?agent=NAME&session=ID ------------------------------------------------------------------
  function remember() {
    const query = new URLSearchParams(location.search);
    query.set("agent", ui.agent);
    query.set("session", ui.sessionId);
    history.replaceState(null, "", location.pathname + "?" + query.toString());
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

  function toolList(names) {
    if (!names) return "—";
    return names.length ? names.join(", ") : "none";
  }

  function valueCell(value, spoken) {
    const cell = node("td", "", value === undefined ? "" : show(value));
    if (value !== undefined && spoken !== undefined && spoken !== show(value)) {
      const said = node("span", "spoken", "“" + spoken + "”");
      said.title = "how the agent reads it back";
      cell.appendChild(said);
    }
    return cell;
  }

  function renderView(view) {
    ui.view = view;
    $("status").textContent = view ? view.status : "—";
    $("asking").textContent = view && view.asking ? view.asking : "—";
    $("directive").textContent = view && view.directive ? view.directive : "—";
    $("visible-tools").textContent = toolList(view && view.visible_tools);
    $("hidden-tools").textContent = toolList(view && view.hidden_tools);
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
            const nameCell = node("td", "slot-name");
            nameCell.appendChild(breakable(slot));
            const stateCell = node("td");
            stateCell.appendChild(node("span", "state " + state, state));
            const spoken = name === view.agent && view.spoken ? view.spoken[slot] : undefined;
            row.append(nameCell, stateCell, valueCell(value, spoken));
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
      const name = node("td", "slot-name");
      name.appendChild(breakable(slot.name));
      if (slot.condition) name.title = "only when: " + slot.condition;
      const stateCell = node("td");
      stateCell.appendChild(node("span", "state " + state, state));
      let value = view ? (view.filled[slot.name] ?? view.pending[slot.name] ?? view.deferred[slot.name]) : undefined;
      if (view && value === undefined) value = (view.candidates || {})[slot.name] ?? (view.held || {})[slot.name];
      let cell;
      if (state === "changing") {
        cell = node("td", "", show(view.changes[slot.name]) + " → " + show(view.pending[slot.name] ?? view.deferred[slot.name]));
      } else {
        cell = valueCell(value, view && view.spoken ? view.spoken[slot.name] : undefined);
      }
      row.append(name, stateCell, cell);
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

  // ---- the trace: one entry per turn, its steps with their timings and their events ----------------------------
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

  function eventRow(kind, data) {
    const [label, what] = describe(kind, data);
    const row = node("li", kind.replace(/_/g, "-") + (data.failed ? " failed" : ""));
    row.dataset.kind = kind;
    row.title = JSON.stringify(data);
    const text = node("span", "what", what);
    if (kind === "tool_result" && typeof data.duration_ms === "number") {
      text.append(" ", node("span", "took", "· " + ms(data.duration_ms)));
    }
    row.append(node("span", "kind", label), text);
    return row;
  }

  function eventList(events) {
    const list = node("ol", "events");
    for (const e of events) list.appendChild(eventRow(e.kind, e));
    return list;
  }

  function toolTime(events) {
    return events.reduce((sum, e) => sum + (e.kind === "tool_result" && typeof e.duration_ms === "number" ? e.duration_ms : 0), 0);
  }

  // One step: what the engine decided, a bar of where its time went, then its events.
  function stepBlock(step, events) {
    const block = node("div", "step");
    block.dataset.step = String(step.index);
    block.dataset.kind = step.kind;
    const tools = toolTime(events);
    const other = Math.max(0, step.duration_ms - step.engine_ms - step.model_ms - tools);
    const head = node("div", "step-head");
    const what = step.kind === "model" ? "model call" : "engine reply";
    head.appendChild(node("span", "", step.index + " · " + what + " · " + step.phase + (step.reason ? " · " + step.reason : "")));
    const figures = node("span", "figures", ms(step.duration_ms));
    figures.title = "engine " + ms(step.engine_ms) + ", model " + ms(step.model_ms) + ", tools " + ms(tools) + ", runtime " + ms(other);
    head.appendChild(figures);
    const bar = node("div", "bar");
    const total = Math.max(step.duration_ms, 1e-9);
    for (const [part, value] of [["engine", step.engine_ms], ["model", step.model_ms], ["tools", tools], ["other", other]]) {
      if (value <= 0) continue;
      const seg = node("i", "seg " + part);
      seg.dataset.part = part;
      seg.dataset.ms = String(value);
      seg.style.width = (100 * value / total).toFixed(2) + "%";
      seg.title = part + " " + ms(value);
      bar.appendChild(seg);
    }
    head.appendChild(bar);
    block.appendChild(head);
    if (step.usage && (step.usage.prompt_tokens || step.usage.completion_tokens)) {
      block.appendChild(node("div", "note", step.usage.prompt_tokens + " prompt + " + step.usage.completion_tokens + " completion tokens"));
    }
    block.appendChild(eventList(events));
    return block;
  }

  // A turn of the trace: `turn` is {n, text, events, steps?, model_calls?, server_ms?, round_trip_ms?}.
  function turnBlock(turn, open) {
    const details = node("details", "turn");
    details.dataset.turn = String(turn.n);
    details.open = open;
    const summary = node("summary");
    summary.append(node("span", "turn-said", turn.n + ". “" + short(turn.text, 80) + "”"));
    const figures = [];
    if (turn.steps) {
      figures.push(plural(turn.steps.length, "step"), plural(turn.model_calls || 0, "model call"));
      figures.push(ms(turn.server_ms) + " in the server");
      if (typeof turn.round_trip_ms === "number") figures.push(ms(turn.round_trip_ms) + " round trip");
    } else {
      figures.push(turn.failed ? "failed" : "playing…");
    }
    summary.append(node("span", "turn-figures", figures.join(" · ")));
    details.appendChild(summary);
    if (!turn.steps) { details.appendChild(eventList(turn.events)); return details; }
    // steps in order, each with its events; events of no step (turn-start and turn-end rules) where they happened
    const owner = new Map();
    for (const step of turn.steps) for (const i of step.events || []) owner.set(i, step);
    let next = 0, loose = [];
    const flush = () => {
      if (loose.length) details.append(node("div", "note", "outside the steps"), eventList(loose));
      loose = [];
    };
    const stepsUpTo = (step) => {
      flush();
      while (next < turn.steps.length) {
        const s = turn.steps[next++];
        details.appendChild(stepBlock(s, (s.events || []).map((i) => turn.events[i])));
        if (s === step) return;
      }
    };
    turn.events.forEach((event, i) => {
      const step = owner.get(i);
      if (!step) loose.push(event);
      else if (turn.steps.indexOf(step) >= next) stepsUpTo(step);
    });
    stepsUpTo(null);
    flush();
    return details;
  }

  function renderTrace(note) {
    const holder = $("trace");
    holder.replaceChildren();
    if (note) holder.appendChild(node("p", "note", note));
    ui.turns.forEach((turn, i) => holder.appendChild(turnBlock(turn, i === ui.turns.length - 1)));
    holder.scrollTop = holder.scrollHeight;
  }

  function saveTrace() {
    let kept = ui.turns.filter((t) => t.steps).slice(-TRACE_KEPT);
    while (kept.length && !store(TRACE_STORAGE + ui.sessionId, JSON.stringify(kept))) kept = kept.slice(1);
  }

  function loadTrace(sessionId) {
    try { return JSON.parse(stored(TRACE_STORAGE + sessionId) || "[]"); } catch (_) { return []; }
  }

  // ---- the DAG picture: laid out by ELK (layered, orthogonal edges), drawn as SVG -----------------------------
  function el(name, attrs, text) {
    const e = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  }

  const COLOURS = { filled: ["#d9f2e3", "#2e8b57"], pending: ["#fdf0d5", "#c98a14"], deferred: ["#efe5fb", "#7b4bb7"],
                    asking: ["#e1ebfd", "#2f6fd6"], empty: ["#fff", "#98a2b3"], inactive: ["#f2f3f5", "#c4c9d2"],
                    early: ["#eef0f3", "#8a8f98"], held: ["#eef0f3", "#8a8f98"] };
  const INACTIVE = "inactive · condition false";

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

  const NAME_FONT = 14, SUB_FONT = 12.5, PAD_X = 12, MIN_H = 48;
  let measurer = null;
  function textWidth(text, size, weight) {
    measurer = measurer || document.createElement("canvas").getContext("2d");
    measurer.font = weight + " " + size + "px " + getComputedStyle(document.body).fontFamily;
    return measurer.measureText(text).width;
  }

  // The ELK graph of a DAG: each node as wide as its longest label (in either state) plus padding; one port
  // for its outgoing edges on its right, and one port per incoming edge on its left, so arrowheads never stack
  // (ELK spaces the ports and makes a node taller when they need the room).
  function elkGraph(graph) {
    const ids = new Set(graph.nodes.map((n) => n.id));
    const edges = graph.edges.filter((e) => ids.has(e.source) && ids.has(e.target)).map((e, i) => ({ ...e, id: "e" + i }));
    const outs = new Set(edges.map((e) => e.source));
    const ordered = [...graph.nodes].sort((a, b) => a.rank - b.rank || a.row - b.row);
    const children = ordered.map((n) => {
      const labels = [textWidth(n.name, NAME_FONT, 600), textWidth(subtitle(n), SUB_FONT, 400)];
      if (n.type === "slot" && n.condition) labels.push(textWidth(INACTIVE, SUB_FONT, 400));
      const width = Math.ceil(Math.max(...labels)) + 2 * PAD_X;
      const ports = edges.filter((e) => e.target === n.id).map((e) => ({ id: e.id + ":in", layoutOptions: { "elk.port.side": "WEST" } }));
      if (outs.has(n.id)) ports.push({ id: n.id + ":out", layoutOptions: { "elk.port.side": "EAST" } });
      return { id: n.id, width, height: MIN_H, ports, layoutOptions: {
        "elk.portConstraints": "FIXED_SIDE", "elk.nodeSize.constraints": "PORTS MINIMUM_SIZE",
        "elk.nodeSize.minimum": "(" + width + "," + MIN_H + ")" } };
    });
    return {
      id: "dag",
      layoutOptions: {
        "elk.algorithm": "layered", "elk.direction": "RIGHT", "elk.edgeRouting": "ORTHOGONAL",
        "elk.padding": "[top=12,left=12,bottom=12,right=12]", "elk.spacing.nodeNode": "20",
        "elk.layered.spacing.nodeNodeBetweenLayers": "32", "elk.spacing.edgeEdge": "10", "elk.spacing.edgeNode": "14",
        "elk.layered.spacing.edgeNodeBetweenLayers": "14", "elk.spacing.portPort": "14",
        "elk.layered.nodePlacement.strategy": "NETWORK_SIMPLEX",
      },
      children,
      edges: edges.map((e) => ({ id: e.id, sources: [e.source + ":out"], targets: [e.id + ":in"], original: e })),
    };
  }

  function layoutOf(graph) {
    let found = ui.layouts.get(graph);
    if (!found) {
      const input = elkGraph(graph);
      found = new ELK().layout(input).then((out) => {
        const boxes = {};
        for (const c of out.children) boxes[c.id] = { x: c.x, y: c.y, w: c.width, h: c.height };
        const originals = Object.fromEntries(input.edges.map((e) => [e.id, e.original]));
        const paths = out.edges.map((e) => {
          const points = (e.sections || []).flatMap((s) => [s.startPoint, ...(s.bendPoints || []), s.endPoint]);
          return { edge: originals[e.id], d: "M" + points.map((p) => p.x.toFixed(1) + "," + p.y.toFixed(1)).join(" L") };
        });
        const layout = { boxes, paths, width: Math.ceil(out.width), height: Math.ceil(out.height) };
        found.done = layout;
        return layout;
      });
      ui.layouts.set(graph, found);
    }
    return found;
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
    await drawGraph();
  }

  // Draw the current graph: at once when its layout is known (a new state only recolours), else once ELK has it.
  function drawGraph() {
    const graph = ui.graph;
    if (!graph || !graph.nodes.length) { paint(graph, null); return Promise.resolve(); }
    if (typeof ELK === "undefined") {
      showError("The graph layout library (elk.bundled.js) did not load, so the DAG cannot be drawn; reload the page.");
      return Promise.resolve();
    }
    const pending = layoutOf(graph);
    if (pending.done) { paint(graph, pending.done); return Promise.resolve(); }
    return pending.then((layout) => { if (ui.graph === graph) paint(graph, layout); })
      .catch((err) => showError("The DAG could not be laid out: " + err.message));
  }

  function paint(graph, layout) {
    const holder = $("graph");
    holder.replaceChildren();
    holder.dataset.agent = graph && graph.app_agent ? graph.app_agent : "";
    holder.dataset.topic = graph && graph.topic ? graph.topic : "";
    if (!layout) { delete holder.dataset.drawn; return; }
    const { boxes, paths, width, height } = layout;
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
    for (const n of graph.nodes) {
      const b = boxes[n.id], look = nodeLook(n);
      const g = el("g", { "data-node": n.id, "data-state": look.state, class: "node " + n.type,
                          opacity: look.state === "inactive" ? 0.55 : 1 });
      g.appendChild(el("title", {}, n.id + (n.kind === "terminal" ? " (terminal task)" : "") +
                                     (n.condition ? "\nonly when: " + n.condition : "")));
      g.appendChild(el("rect", { x: b.x, y: b.y, width: b.w, height: b.h, rx: n.type === "task" ? 2 : 10,
        fill: look.fill, stroke: look.stroke, "stroke-width": look.state === "asking" || n.kind === "terminal" ? 3 : 1.5,
        "stroke-dasharray": n.condition ? "6 4" : "none" }));
      const middle = b.y + b.h / 2;
      g.appendChild(el("text", { x: b.x + PAD_X, y: middle - 4, "font-size": NAME_FONT, "font-weight": 600, fill: "#1d2330" }, n.name));
      g.appendChild(el("text", { x: b.x + PAD_X, y: middle + 14, "font-size": SUB_FONT, fill: "#5b6476" },
        look.state === "inactive" ? INACTIVE : subtitle(n)));
      g.addEventListener("mouseenter", () => focusNode(svg, n.id));
      g.addEventListener("mouseleave", () => focusNode(svg, null));
      svg.appendChild(g);
    }
    holder.appendChild(svg);
    holder.dataset.drawn = (graph.app_agent || "") + "|" + (graph.topic || "");
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

  function useSession(sessionId) {
    ui.sessionId = sessionId;
    $("session-id").textContent = "session " + sessionId;
    document.body.dataset.session = sessionId;
    remember();
  }

  function clearConversation() {
    showError("");
    $("transcript").replaceChildren();
    ui.turns = [];
    ui.turnCount = 0;
    renderTrace();
  }

  async function loadAgent(name) {
    ui.agent = name;
    $("agent").value = name;
    const summary = ui.agents.find((a) => a.name === name);
    $("agent-info").textContent = summary ? plural(summary.slots, "slot") + " · " + plural(summary.tasks, "task") : "";
    $("agent-info").title = summary ? summary.description : "";
    ui.rootGraph = await api("/v1/agents/" + encodeURIComponent(name) + "/graph");
  }

  async function newSession() {
    clearConversation();
    const created = await api("/v1/sessions", { agent: ui.agent });
    useSession(created.session_id);
    setFinished(false);
    useGraph(ui.rootGraph);  // a new conversation starts with the root agent
    renderView(null);
    await drawGraph();
    $("message").focus({ preventScroll: true });
  }

  // Resume the session of the address: its transcript, its state, and this tab's traces of its turns.
  async function resume(detail) {
    clearConversation();
    useSession(detail.session_id);
    for (const entry of detail.transcript) {
      if (entry.role === "user" && entry.event) addMessage("note", "event: " + entry.event);
      else if (entry.role === "user") addMessage("user", entry.text);
      else if (entry.role === "agent" && entry.text) addMessage("agent", entry.text);
    }
    ui.turns = loadTrace(detail.session_id);
    ui.turnCount = detail.turns;
    const missing = detail.turns - ui.turns.length;
    renderTrace(missing > 0 ? plural(missing, "earlier turn") + " without a trace here: traces are kept by the " +
                              "browser tab that played the turns (its last " + TRACE_KEPT + "), not by the server." : "");
    setFinished(detail.ended || detail.status !== "in_progress", detail.status);
    useGraph(ui.rootGraph);
    renderView(detail.view);
    await drawGraph();
    document.body.dataset.resumed = "true";
  }

  function applyEvent(kind, data, turn) {
    if (kind === "turn" || (kind === "error" && data.status)) return;  // the summary, a problem: handled by send()
    turn.events.push({ kind, ...data });
    if (kind === "text" && data.text) addMessage("agent", data.text, data.origin === "engine" ? "engine" : "");
    else if (kind === "payload") addMessage("note", "payload: " + JSON.stringify(data.part));
    else if (kind === "end_session") addMessage("note", "session ended" + (data.reason ? ": " + data.reason : ""));
    else if (kind === "transfer") addMessage("note", "handed over" + (data.reason ? ": " + data.reason : ""));
    else if (kind === "refusal") addMessage("note", "refused " + data.name + " (" + data.refused + ")");
    else if (kind === "error") showError((data.message || data.detail || "the turn failed") + (data.code ? " [" + data.code + "]" : ""));
    else if (kind === "state_snapshot" && ui.view) {
      renderView({ ...ui.view, filled: data.state.filled || {}, pending: data.state.pending || {},
                   deferred: data.state.deferred || {}, candidates: data.state._candidates || {},
                   changes: data.state._changes || {}, held: data.state._held || {} });
    }
  }

  // The message was not taken: the bubble says so, with a button that sends it again.
  function undelivered(bubble, text) {
    bubble.classList.add("undelivered");
    bubble.dataset.delivered = "false";
    const note = node("div", "undelivered-note");
    note.append(node("span", "", "not delivered"));
    const retry = node("button", "retry", "Retry");
    retry.type = "button";
    retry.addEventListener("click", () => {
      if (ui.busy || ui.finished) return;
      note.remove(); bubble.remove();
      send(text);
    });
    note.appendChild(retry);
    bubble.after(note);
  }

  async function readStream(response, turn) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "", summary = null, problem = null;
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
        const parsed = data ? JSON.parse(data) : {};
        if (kind === "turn") summary = parsed;
        else if (kind === "error" && parsed.status) problem = parsed;
        if (kind !== "done") applyEvent(kind, parsed, turn);
      }
    }
    return { summary, problem };
  }

  async function send(text) {
    ui.busy = true; $("send").disabled = true; showError("");
    const bubble = addMessage("user", text);
    const turn = { n: ++ui.turnCount, text, events: [] };
    ui.turns.push(turn);
    renderTrace();
    const started = performance.now();
    try {
      let response;
      try {
        response = await checked(await call("/v1/sessions/" + encodeURIComponent(ui.sessionId) + "/messages:stream", {
          method: "POST", headers: headers(true), body: JSON.stringify({ text }) }));
      } catch (err) {  // refused or unreachable before the turn started: nothing was played
        ui.turns.pop(); ui.turnCount--;
        renderTrace();
        undelivered(bubble, text);
        if (err instanceof Unauthorized) { askForKey("The key was refused: " + err.message); return; }
        showError((err instanceof Unreachable ? "" : "The message was not taken: ") + err.message);
        return;
      }
      let outcome;
      try {
        outcome = await readStream(response, turn);
      } catch (_) {
        outcome = { summary: null, problem: null };
      }
      if (outcome.problem) {  // the turn failed: it was not saved, so the message can be sent again
        ui.turns.pop(); ui.turnCount--;
        undelivered(bubble, text);
        const p = outcome.problem;
        showError("The turn failed and was not saved: " + (p.detail || p.title) + (p.fix ? " — " + p.fix : "") + (p.code ? " [" + p.code + "]" : ""));
      } else if (!outcome.summary) {  // the stream broke off: the server may or may not have saved the turn
        turn.failed = true;
        showError("The connection to the server was lost during the turn; reload the page to see what the server kept.");
      } else {
        const s = outcome.summary;
        Object.assign(turn, { steps: s.steps, model_calls: s.model_calls,
                              server_ms: s.steps.reduce((sum, step) => sum + step.duration_ms, 0),
                              round_trip_ms: performance.now() - started });
        saveTrace();
        renderView(s.view);
        if (s.ended || (s.view && s.view.status !== "in_progress")) setFinished(true, s.view ? s.view.status : "");
      }
      renderTrace();
    } finally {
      ui.busy = false; $("send").disabled = ui.finished;
      document.body.dataset.turns = String(Number(document.body.dataset.turns || "0") + 1);
    }
  }

  // ---- the composer: the server's message limit -------------------------------------------------------------
  function useLimit(limit) {
    ui.maxChars = limit || null;
    if (ui.maxChars) $("message").maxLength = ui.maxChars;
    else $("message").removeAttribute("maxlength");
    countChars();
  }

  function countChars() {
    const used = $("message").value.length, limit = ui.maxChars;
    const near = limit && used >= limit * 0.9;
    $("count").hidden = !near;
    $("count").classList.toggle("full", Boolean(limit && used >= limit));
    if (near) $("count").textContent = used.toLocaleString("en") + " / " + limit.toLocaleString("en") + " characters" +
                                       (used >= limit ? " — the most one message can have" : "");
  }

  // ---- wiring -----------------------------------------------------------------------------------------------
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("message").value.trim();
    if (!text || ui.busy || ui.finished || !ui.sessionId) return;
    if (ui.maxChars && text.length > ui.maxChars) {
      showError("A message can have at most " + ui.maxChars.toLocaleString("en") + " characters; this one has " +
                text.length.toLocaleString("en") + ". Shorten it and send again.");
      return;
    }
    $("message").value = "";
    countChars();
    send(text);
  });
  $("message").addEventListener("input", countChars);
  const fresh = () => newSession().catch(failed);
  $("new-session").addEventListener("click", fresh);
  $("restart").addEventListener("click", fresh);
  $("agent").addEventListener("change", (e) => loadAgent(e.target.value).then(newSession).catch(failed));
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

  // The session of the address when it still exists (null when the server does not know it).
  async function addressed(sessionId) {
    try {
      return await api("/v1/sessions/" + encodeURIComponent(sessionId));
    } catch (err) {
      if (!(err instanceof NotFound)) throw err;
      return null;
    }
  }

  async function start() {
    let agents;
    try {
      const health = await (await call("/healthz")).json();
      useLimit(health.max_message_chars);
      if (health.api_key_required && !storedKey()) { askForKey(""); return; }  // ask before any /v1 request
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
    ui.agents = agents;
    const select = $("agent");
    select.replaceChildren();
    for (const a of agents) {
      const option = node("option", "", a.name);
      option.value = a.name;
      option.title = a.description;
      select.appendChild(option);
    }
    select.disabled = agents.length === 0;
    $("new-session").disabled = agents.length === 0;
    try {
      if (!agents.length) { showError("This server hosts no agents."); return; }
      const wanted = new URLSearchParams(location.search);
      const detail = wanted.get("session") ? await addressed(wanted.get("session")) : null;
      const named = detail ? detail.agent : wanted.get("agent");
      const agent = agents.some((a) => a.name === named) ? named : agents[0].name;
      await loadAgent(agent);
      if (detail) {
        await resume(detail);
      } else {
        await newSession();
        if (wanted.get("session")) {
          addMessage("note", "The session " + wanted.get("session") + " of the address is not on this server any more " +
                             "(a server with an in-memory store forgets its sessions when it stops); this is a new one.");
        } else if (named && named !== agent) {
          showError("This server has no agent named " + named + "; showing " + agent + ".");
        }
      }
    } catch (err) {
      failed(err);
    } finally {
      document.body.dataset.ready = "true";
    }
  }
  start();
})();
