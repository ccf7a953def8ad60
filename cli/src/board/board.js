// foxbase board: the page of `foxbase serve`. Plain JavaScript, no build
// step and no external resources; every rule comes from the server (the
// legal moves and the positions they lead to from api/moves, values from
// api/probe, the engine's move from api/engine): the page never
// re-implements the rules.
//
// URL parameters (all optional):
//   position=P   the position to show (RULES.md notation); default: the variant's start.
//                Kept up to date (history.replaceState) on every move, undo and load.
//   engine=W     which side the engine plays: none (default), fox, sheep or both.
//   delay=MS     milliseconds the engine waits before it moves (default 300; 0 for tests).
//
// The stable DOM that tests rely on:
//   body[data-ready]          "true" once a position, its move list and its value are shown (or
//                             an error is); "false" while loading. body[data-position] is the
//                             position shown, body[data-ply] its ply number in the game's history,
//                             body[data-engine-pending] is "true" while an engine move is due,
//                             body[data-script-errors] counts uncaught errors in this script.
//   [data-square="d7"]        one SVG group per board point (33), with data-piece="fox|sheep|empty";
//                             click it to select a piece of the side to move, click a target to move
//                             (classes: selected, target, capture, last).
//   [data-move="c7-c6"]       one button per legal move in [data-role="moves"], with
//                             data-value="win|draw|loss" for the player making the move ("unknown"
//                             when the tables do not hold the position) and data-plies (the
//                             distance in plies from this position; "" for a draw or unknown);
//                             click it to play the move.
//   [data-role="value"]       the position's value in words for the side to move (data-value too).
//   [data-role="side-to-move"] "Fox to move" / "Sheep to move" (data-side="fox|sheep").
//   [data-role="position"]    the notation text box: always the current position; type or paste
//                             one and press Enter or [data-role="load"] to load it.
//   [data-role="history"]     the moves played, one [data-ply] button each (click to go there).
//   [data-role="undo"], [data-role="redo"]  step back / forward in the history.
//   [data-role="engine"]      a <select>: none, fox, sheep, both.
//   [data-role="error"]       visible (not hidden) with the server's error message when a position
//                             is malformed (then the board is not drawn) or outside the tables
//                             (then the board stays and moves come from api/moves).
//   [data-role="board"]       the SVG board; [data-role="notice"] the game-over note.
//
// The engine's seed is the ply number of the position it moves from (0 for
// the position loaded, 1 after one move...), so a game replays the same.
// The engine moves only at the end of the history: after an undo it waits
// (redo, or play a move). With the engine playing one side, undo goes back
// to the last position where the other side was to move.
"use strict";

(() => {
  const SVG = "http://www.w3.org/2000/svg";
  const SPACING = 60;
  const MARGIN = 42;

  const byRole = (role) => document.querySelector(`[data-role="${role}"]`);
  const el = {
    boardPane: byRole("board-pane"),
    analysis: byRole("analysis"),
    recover: byRole("recover"),
    variant: byRole("variant"),
    error: byRole("error"),
    notice: byRole("notice"),
    boardWrap: byRole("board-wrap"),
    side: byRole("side-to-move"),
    value: byRole("value"),
    status: byRole("status"),
    moves: byRole("moves"),
    history: byRole("history"),
    undo: byRole("undo"),
    redo: byRole("redo"),
    restart: byRole("restart"),
    engine: byRole("engine"),
    form: byRole("position-form"),
    position: byRole("position"),
  };

  const state = {
    variant: null,
    rows: [], // square names rank by rank, from rank 7 down, as the notation lists them
    groups: new Map(), // square name -> its SVG group
    history: [{ position: null, move: null }], // the game: positions and the move leading to each
    cursor: 0, // the entry shown
    legal: [], // api/moves entries of the position shown
    over: false,
    selected: null,
    engine: "none",
    delay: 300,
    generation: 0, // bumped on every change; stale answers are dropped
    engineTimer: null,
    failed: false, // the position shown is malformed
  };

  // ---- the server --------------------------------------------------------

  async function api(path, params) {
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(v)}`)
      .join("&");
    let response;
    try {
      response = await fetch(`api/${path}${query ? "?" + query : ""}`, { headers: { accept: "application/json" } });
    } catch (e) {
      return { ok: false, status: 0, body: { error: `the server did not answer (${e.message})` } };
    }
    let body;
    try {
      body = await response.json();
    } catch (e) {
      body = { error: `api/${path} answered HTTP ${response.status} without JSON` };
    }
    if (!response.ok && typeof body.error !== "string") {
      body = { error: `api/${path} answered HTTP ${response.status}` };
    }
    return { ok: response.ok, status: response.status, body };
  }

  // ---- words -------------------------------------------------------------

  const sideOf = (position) => (position.trim().endsWith("s") ? "sheep" : "fox");
  const other = (side) => (side === "fox" ? "sheep" : "fox");
  const foxPlural = () => state.variant && state.variant.foxes > 1;

  function sideName(side) {
    if (side === "sheep") return "Sheep";
    return foxPlural() ? "Foxes" : "Fox";
  }

  function wins(side) {
    if (side === "sheep") return "the sheep win";
    return foxPlural() ? "the foxes win" : "the fox wins";
  }

  const pliesText = (n) => `${n} ${n === 1 ? "ply" : "plies"}`;

  // The value of a position for its side to move, in words.
  function valueWords(value, plies, side, status) {
    if (status && status.over) {
      const winner = status.winner === "sheep" ? "sheep" : "fox";
      const w = wins(winner);
      return `${value || (winner === side ? "win" : "loss")} — game over: ${w}${status.reason ? ` (${status.reason})` : ""}`;
    }
    const inPlies = plies == null ? "" : ` in ${pliesText(plies)}`;
    switch (value) {
      case "win":
        return `win — ${wins(side)}${inPlies}`;
      case "loss":
        return `loss — ${wins(other(side))}${inPlies}`;
      case "draw":
        return "draw";
      default:
        return "unknown (outside these tables)";
    }
  }

  function variantWords(v) {
    const foxes = v.foxes === 1 ? "1 fox" : `${v.foxes} foxes`;
    const plies = v.plies ? "with distances" : "values only, no distances";
    const words = `${v.geometry} board · ${foxes} · pen target ${v.pen_target} · ${v.first_mover} moves first · ${v.layout} tables, ${plies}`;
    // Tables solved under a sheep floor hold bounds, not the real game's values: say so.
    return v.bound ? `${words} · bound: ${v.bound.note}` : words;
  }

  // ---- the board ---------------------------------------------------------

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  function defs(root) {
    const d = svg("defs", {}, root);
    const fox = svg("symbol", { id: "piece-fox", viewBox: "-25 -25 50 50" }, d);
    svg("circle", { r: 23, class: "fox-body" }, fox);
    svg("polygon", { points: "-17,-5 -13,-21 -4,-12", class: "fox-ear" }, fox);
    svg("polygon", { points: "17,-5 13,-21 4,-12", class: "fox-ear" }, fox);
    svg("polygon", { points: "-16,-8 16,-8 0,17", class: "fox-face" }, fox);
    svg("circle", { cx: -6, cy: -2, r: 2.2, class: "fox-eye" }, fox);
    svg("circle", { cx: 6, cy: -2, r: 2.2, class: "fox-eye" }, fox);
    svg("circle", { cx: 0, cy: 13, r: 3, class: "fox-eye" }, fox);
    const sheep = svg("symbol", { id: "piece-sheep", viewBox: "-25 -25 50 50" }, d);
    svg("circle", { r: 22, class: "sheep-wool" }, sheep);
    svg("ellipse", { cx: 0, cy: 3, rx: 8, ry: 11, class: "sheep-face" }, sheep);
    svg("ellipse", { cx: -11, cy: -4, rx: 5, ry: 2.5, class: "sheep-face" }, sheep);
    svg("ellipse", { cx: 11, cy: -4, rx: 5, ry: 2.5, class: "sheep-face" }, sheep);
    svg("circle", { cx: -3.5, cy: 0, r: 1.6, class: "sheep-eye" }, sheep);
    svg("circle", { cx: 3.5, cy: 0, r: 1.6, class: "sheep-eye" }, sheep);
  }

  // Draws the board of the variant: its points, lines and pen, with labels.
  function buildBoard(board) {
    const xs = board.points.map((p) => p.x);
    const ys = board.points.map((p) => p.y);
    const minX = Math.min(...xs);
    const maxX = Math.max(...xs);
    const minY = Math.min(...ys);
    const maxY = Math.max(...ys);
    const at = new Map(board.points.map((p) => [p.name, p]));
    const px = (p) => MARGIN + (p.x - minX) * SPACING;
    const py = (p) => MARGIN + (maxY - p.y) * SPACING;
    const width = 2 * MARGIN + (maxX - minX) * SPACING;
    const height = 2 * MARGIN + (maxY - minY) * SPACING;
    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      class: "board",
      "data-role": "board",
      role: "group",
      "aria-label": "The board",
    });
    defs(root);
    svg("rect", { x: 0, y: 0, width, height, rx: 14, class: "board-bg" }, root);
    const pen = svg("g", { class: "pen" }, root);
    for (const name of board.pen) {
      const p = at.get(name);
      if (!p) continue;
      const h = SPACING / 2;
      svg("rect", { x: px(p) - h, y: py(p) - h, width: SPACING, height: SPACING }, pen);
    }
    const lines = svg("g", { class: "lines" }, root);
    for (const [a, b] of board.lines) {
      const p = at.get(a);
      const q = at.get(b);
      if (p && q) svg("line", { x1: px(p), y1: py(p), x2: px(q), y2: py(q) }, lines);
    }
    const labels = svg("g", { class: "labels", "aria-hidden": "true" }, root);
    for (let x = minX; x <= maxX; x++) {
      const file = String.fromCharCode(97 + x - minX);
      const t = svg("text", { x: MARGIN + (x - minX) * SPACING, y: height - 10 }, labels);
      t.textContent = file;
    }
    for (let y = minY; y <= maxY; y++) {
      const t = svg("text", { x: 13, y: MARGIN + (maxY - y) * SPACING + 5 }, labels);
      t.textContent = String(y - minY + 1);
    }
    const penSet = new Set(board.pen);
    state.groups = new Map();
    for (const p of board.points) {
      const g = svg(
        "g",
        {
          class: penSet.has(p.name) ? "point in-pen" : "point",
          transform: `translate(${px(p)} ${py(p)})`,
          "data-square": p.name,
          "data-piece": "empty",
          tabindex: "-1",
          role: "button",
          "aria-label": `${p.name}: empty`,
        },
        root,
      );
      svg("circle", { r: SPACING * 0.46, class: "hit" }, g);
      svg("circle", { r: 5.5, class: "dot" }, g);
      svg("use", { href: "#piece-fox", x: -24, y: -24, width: 48, height: 48, class: "piece" }, g);
      svg("circle", { r: 27, class: "ring" }, g);
      svg("circle", { r: 9, class: "target-dot" }, g);
      g.addEventListener("click", () => clickSquare(p.name));
      g.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          clickSquare(p.name);
        }
      });
      state.groups.set(p.name, g);
    }
    // The notation lists each rank's points left to right, from rank 7 down.
    state.rows = [];
    for (let y = maxY; y >= minY; y--) {
      state.rows.push(
        board.points
          .filter((p) => p.y === y)
          .sort((a, b) => a.x - b.x)
          .map((p) => p.name),
      );
    }
    el.boardWrap.replaceChildren(root);
  }

  // The pieces of a position: square name -> "fox" | "sheep" | "empty".
  function pieces(position) {
    const ranks = position.trim().split(/\s+/)[0].split("/");
    const out = new Map();
    state.rows.forEach((row, i) => {
      row.forEach((name, j) => {
        const c = (ranks[i] || "")[j];
        out.set(name, c === "F" ? "fox" : c === "S" ? "sheep" : "empty");
      });
    });
    return out;
  }

  const moveParts = (move) => {
    const m = /^([a-g][1-7])([-x])([a-g][1-7])$/.exec(move);
    return m ? { from: m[1], capture: m[2] === "x", to: m[3] } : null;
  };

  function drawPieces(position) {
    const at = pieces(position);
    const last = state.history[state.cursor].move;
    const lastParts = last ? moveParts(last) : null;
    const movable = new Set(state.over ? [] : state.legal.map((m) => moveParts(m.move)?.from));
    for (const [name, g] of state.groups) {
      const piece = at.get(name) || "empty";
      g.setAttribute("data-piece", piece);
      g.setAttribute("aria-label", `${name}: ${piece}`);
      const use = g.querySelector("use");
      if (piece !== "empty") use.setAttribute("href", `#piece-${piece}`);
      g.classList.toggle("movable", movable.has(name));
      g.setAttribute("tabindex", movable.has(name) ? "0" : "-1");
      g.classList.toggle("last", !!lastParts && (lastParts.from === name || lastParts.to === name));
    }
    drawSelection();
  }

  function drawSelection() {
    const targets = new Map();
    if (state.selected) {
      for (const m of state.legal) {
        const parts = moveParts(m.move);
        if (parts && parts.from === state.selected) targets.set(parts.to, parts.capture);
      }
    }
    for (const [name, g] of state.groups) {
      g.classList.toggle("selected", name === state.selected);
      g.classList.toggle("target", targets.has(name));
      g.classList.toggle("capture", targets.get(name) === true);
      if (targets.has(name)) g.setAttribute("tabindex", "0");
    }
  }

  function clickSquare(name) {
    if (state.failed || state.over || document.body.dataset.ready !== "true") return;
    if (state.selected) {
      const move = state.legal.find((m) => {
        const parts = moveParts(m.move);
        return parts && parts.from === state.selected && parts.to === name;
      });
      if (move) {
        play(move.move);
        return;
      }
    }
    const ownMoves = state.legal.some((m) => moveParts(m.move)?.from === name);
    state.selected = ownMoves && state.selected !== name ? name : null;
    drawSelection();
  }

  // ---- the move list, the value, the history -----------------------------

  const ORDER = { win: 0, draw: 1, loss: 2, unknown: 3 };

  function drawMoves(probe) {
    const known = new Map();
    if (probe) for (const m of probe.moves) known.set(m.move, m);
    const entries = state.legal.map((m) => {
      const p = known.get(m.move);
      return { move: m.move, value: p ? p.value : "unknown", plies: p && p.plies != null ? p.plies : null };
    });
    // The best first: the fastest wins, draws, the slowest losses.
    entries.sort(
      (a, b) =>
        ORDER[a.value] - ORDER[b.value] ||
        (a.value === "win" ? (a.plies ?? 1e9) - (b.plies ?? 1e9) : (b.plies ?? -1) - (a.plies ?? -1)) ||
        a.move.localeCompare(b.move),
    );
    const items = entries.map((e) => {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = `move ${e.value}`;
      b.dataset.move = e.move;
      b.dataset.value = e.value;
      b.dataset.plies = e.plies == null ? "" : String(e.plies);
      const mv = document.createElement("span");
      mv.className = "mv";
      mv.textContent = e.move;
      const val = document.createElement("span");
      val.className = "val";
      val.textContent =
        e.value === "unknown" ? "?" : e.plies == null ? e.value : `${e.value} in ${e.plies}`;
      b.title =
        e.value === "unknown"
          ? `${e.move}: not in these tables`
          : `${e.move}: ${e.value} for the ${sideName(sideOf(current())).toLowerCase()}` +
            (e.plies == null ? "" : ` in ${pliesText(e.plies)}`);
      b.append(mv, val);
      b.addEventListener("click", () => {
        if (document.body.dataset.ready === "true") play(e.move);
      });
      li.appendChild(b);
      return li;
    });
    if (items.length === 0) {
      const li = document.createElement("li");
      li.className = "none";
      li.textContent = "No legal move.";
      items.push(li);
    }
    el.moves.replaceChildren(...items);
  }

  function drawHistory() {
    const items = [];
    state.history.forEach((h, i) => {
      if (i === 0) return;
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.ply = String(i);
      b.className = i === state.cursor ? "current" : i > state.cursor ? "future" : "done";
      b.textContent = h.move;
      b.title = `ply ${i}: ${h.move}`;
      b.addEventListener("click", () => goTo(i));
      li.appendChild(b);
      items.push(li);
    });
    el.history.replaceChildren(...items);
    el.undo.disabled = state.cursor === 0;
    el.redo.disabled = state.cursor >= state.history.length - 1;
    el.history.classList.toggle("empty", items.length === 0);
  }

  // ---- showing a position ------------------------------------------------

  const current = () => state.history[state.cursor].position;

  function setReady(ready) {
    document.body.dataset.ready = ready ? "true" : "false";
  }

  function showError(message) {
    el.error.textContent = message;
    el.error.hidden = !message;
  }

  function updateUrl(position) {
    const params = new URLSearchParams(location.search);
    params.delete("position");
    let query = `position=${encodeURIComponent(position).replace(/%2F/g, "/")}`;
    const rest = params.toString();
    if (rest) query += `&${rest}`;
    try {
      history.replaceState(null, "", `${location.pathname}?${query}`);
    } catch (e) {
      // a page opened from a file or a sandbox: the URL just stays
    }
  }

  function cancelEngine() {
    if (state.engineTimer !== null) clearTimeout(state.engineTimer);
    state.engineTimer = null;
    document.body.dataset.enginePending = "false";
  }

  // Loads and draws the position at the cursor: its legal moves, its value.
  async function show() {
    const gen = ++state.generation;
    cancelEngine();
    setReady(false);
    state.selected = null;
    let position = current();
    el.position.value = position;
    const [moves, probe] = await Promise.all([api("moves", { position }), api("probe", { position })]);
    if (gen !== state.generation) return;
    if (moves.ok && moves.body.position !== position) {
      // Written as the server writes it (a pasted position may differ in spacing).
      position = moves.body.position;
      state.history[state.cursor].position = position;
      el.position.value = position;
    }
    document.body.dataset.position = position;
    document.body.dataset.ply = String(state.cursor);
    if (!moves.ok) {
      // A malformed position: say why, draw no board.
      state.failed = true;
      state.legal = [];
      el.boardPane.hidden = true;
      el.analysis.hidden = true;
      el.recover.hidden = false;
      showError(moves.body.error);
      setReady(true);
      return;
    }
    state.failed = false;
    el.boardPane.hidden = false;
    el.analysis.hidden = false;
    el.recover.hidden = true;
    state.legal = moves.body.moves;
    const status = moves.body.status;
    state.over = !!status.over;
    if (state.over) state.legal = [];
    showError(probe.ok ? "" : probe.body.error);
    const side = sideOf(position);
    el.side.textContent = `${sideName(side)} to move`;
    el.side.dataset.side = side;
    const value = probe.ok ? probe.body.value : "unknown";
    el.value.textContent = valueWords(probe.ok ? value : null, probe.ok ? probe.body.plies : null, side, status);
    el.value.dataset.value = value;
    el.value.className = `value ${value}`;
    el.notice.hidden = !state.over;
    el.notice.textContent = state.over ? `Game over: ${wins(status.winner === "sheep" ? "sheep" : "fox")}.` : "";
    drawPieces(position);
    drawMoves(probe.ok ? probe.body : null);
    drawHistory();
    updateUrl(position);
    setReady(true);
    maybeEngine(gen, probe.ok);
  }

  const engineSide = (side) => state.engine === "both" || state.engine === side;

  function maybeEngine(gen, inTables) {
    const position = current();
    if (state.failed || state.over || !inTables || !engineSide(sideOf(position))) return;
    if (state.cursor !== state.history.length - 1) return; // reviewing the past: wait
    document.body.dataset.enginePending = "true";
    state.engineTimer = setTimeout(async () => {
      state.engineTimer = null;
      const answer = await api("engine", { position, seed: state.cursor });
      if (gen !== state.generation) return;
      document.body.dataset.enginePending = "false";
      if (!answer.ok) {
        showError(answer.body.error);
        return;
      }
      if (answer.body.move) play(answer.body.move, answer.body.next);
    }, state.delay);
  }

  // Plays a legal move of the position shown (next: the position after it).
  function play(move, next) {
    const entry = state.legal.find((m) => m.move === move);
    const after = entry ? entry.position : next;
    if (!after) return;
    state.history.splice(state.cursor + 1);
    state.history.push({ position: after, move });
    state.cursor += 1;
    show();
  }

  function goTo(i) {
    if (i < 0 || i >= state.history.length || i === state.cursor) return;
    state.cursor = i;
    show();
  }

  function undo() {
    if (state.cursor === 0) return;
    let i = state.cursor - 1;
    if (state.engine === "fox" || state.engine === "sheep") {
      while (i > 0 && engineSide(sideOf(state.history[i].position))) i -= 1;
    }
    goTo(i);
  }

  function redo() {
    goTo(state.cursor + 1);
  }

  // Starts a new game from `position` if the server accepts it.
  async function load(position, { validate }) {
    position = position.trim().replace(/\s+/g, " ");
    if (validate) {
      const gen = ++state.generation;
      cancelEngine();
      setReady(false);
      const check = await api("moves", { position });
      if (gen !== state.generation) return;
      if (!check.ok) {
        // Keep the game; say what is wrong with the text.
        showError(check.body.error);
        setReady(true);
        return;
      }
    }
    state.history = [{ position, move: null }];
    state.cursor = 0;
    await show();
  }

  // ---- start -------------------------------------------------------------

  async function start() {
    const params = new URLSearchParams(location.search);
    const engine = params.get("engine");
    if (engine && ["none", "fox", "sheep", "both"].includes(engine)) state.engine = engine;
    el.engine.value = state.engine;
    const delay = Number(params.get("delay"));
    if (params.has("delay") && Number.isFinite(delay) && delay >= 0) state.delay = Math.min(delay, 10000);

    const variant = await api("variant", {});
    if (!variant.ok) {
      showError(variant.body.error);
      el.boardPane.hidden = true;
      el.analysis.hidden = true;
      setReady(true);
      return;
    }
    state.variant = variant.body;
    el.variant.textContent = variantWords(state.variant);
    buildBoard(state.variant.board);

    el.undo.addEventListener("click", undo);
    el.redo.addEventListener("click", redo);
    el.restart.addEventListener("click", () => load(state.variant.start, { validate: false }));
    el.engine.addEventListener("change", () => {
      state.engine = el.engine.value;
      const params = new URLSearchParams(location.search);
      if (state.engine === "none") params.delete("engine");
      else params.set("engine", state.engine);
      try {
        history.replaceState(null, "", `${location.pathname}?${params.toString().replace(/%2F/g, "/")}`);
      } catch (e) {
        // the URL just stays
      }
      if (document.body.dataset.ready === "true" && !state.failed) {
        cancelEngine();
        maybeEngine(state.generation, el.value.dataset.value !== "unknown");
      }
    });
    el.form.addEventListener("submit", (e) => {
      e.preventDefault();
      load(el.position.value, { validate: true });
    });
    document.addEventListener("keydown", (e) => {
      const t = e.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
      if (e.key === "ArrowLeft") undo();
      else if (e.key === "ArrowRight") redo();
      else if (e.key === "Escape") {
        state.selected = null;
        drawSelection();
      }
    });

    const asked = params.get("position");
    await load(asked && asked.trim() ? asked : state.variant.start, { validate: false });
  }

  // A bug in this page shows as an error too, instead of a silently stuck board.
  const internal = (message) => {
    document.body.dataset.scriptErrors = String(Number(document.body.dataset.scriptErrors || 0) + 1);
    showError(`internal error in the page: ${message}`);
    setReady(true);
  };
  window.addEventListener("error", (e) => internal(e.message));
  window.addEventListener("unhandledrejection", (e) => internal(String(e.reason)));

  start();
})();
