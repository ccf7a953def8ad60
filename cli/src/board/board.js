// foxbase board: the page of `foxbase serve`, for every game foxbase solves
// (the Fox Game, Bagh-Chal, tic-tac-toe). Plain JavaScript, no build step
// and no external resources; every rule comes from the server (the legal
// moves and the positions they lead to from api/moves, values from
// api/probe, the engine's move from api/engine): the page never
// re-implements the rules. What differs between games is data from
// api/variant: the board's shape (its points with their places, the lines
// between them or a grid of cells, a region such as the Fox Game's pen),
// the two sides (their names, their pieces' letters in the position text,
// the letter naming the side to move, their words), and the numbers a
// position's text gives after the side to move (Bagh-Chal's goats to place
// and captured). A position's text is read the same way for every game:
// the board rank by rank from the top, each rank's points left to right, one
// letter a point, ranks separated by "/"; then the side to move's letter;
// then the numbers.
//
// URL parameters (all optional):
//   position=P   the position to show (the game's notation); default: the variant's start.
//                Kept up to date (history.replaceState) on every move, undo and load.
//   engine=W     which side the engine plays: none (default), a side's name (fox, sheep;
//                goat, tiger; x, o) or both.
//   delay=MS     milliseconds the engine waits before it moves (default 300; 0 for tests).
//
// The stable DOM that tests rely on:
//   body[data-ready]          "true" once a position, its move list and its value are shown (or
//                             an error is); "false" while loading. body[data-position] is the
//                             position shown, body[data-ply] its ply number in the game's history,
//                             body[data-engine-pending] is "true" while an engine move is due,
//                             body[data-script-errors] counts uncaught errors in this script,
//                             body[data-game] the game (api/variant's "game").
//   [data-square="d7"]        one SVG group per board point (33, 25 or 9), with data-piece="empty"
//                             or the name of the side whose piece stands there (fox, sheep, goat,
//                             tiger, x, o); click a piece of the side to move to select it, then a
//                             target to move it (classes: selected, target, capture, last); click an
//                             empty point where a piece may be placed (class drop) to place one
//                             (Bagh-Chal's goats while some are left to place, tic-tac-toe's marks).
//                             Points of the region (the Fox Game's pen) have the classes in-region
//                             and in-NAME (in-pen).
//   [data-move="c7-c6"]       one button per legal move in [data-role="moves"], with
//                             data-value="win|draw|loss" for the player making the move ("unknown"
//                             when the tables do not hold the position) and data-plies (the
//                             distance in plies from this position; "" for a draw or unknown);
//                             click it to play the move. Moves are written as the game writes them:
//                             a placement "c3", a step "c3-c4", a jump (a capture) "a1xc3".
//   [data-role="value"]       the position's value in words for the side to move (data-value too).
//   [data-role="side-to-move"] "Fox to move", "Goats to move", "X to move" (data-side: the side's name).
//   [data-role="counts"]      the numbers the position gives after the side to move, one
//                             [data-count=KEY] each ("goats to place: 2", "goats captured: 0");
//                             hidden for games without them.
//   [data-role="position"]    the notation text box: always the current position; type or paste
//                             one and press Enter or [data-role="load"] to load it.
//   [data-role="history"]     the moves played, one [data-ply] button each (click to go there).
//   [data-role="undo"], [data-role="redo"]  step back / forward in the history.
//   [data-role="engine"]      a <select>: none, each side's name, both.
//   [data-role="error"]       visible (not hidden) with the server's error message when a position
//                             is malformed (then the board is not drawn) or outside the tables
//                             (then the board stays and moves come from api/moves).
//   [data-role="board"]       the SVG board; [data-role="notice"] the game-over note.
//   [data-role="title"], [data-role="notation"], [data-role="help"]: the game's name, how its
//                             positions are written, how to play on the board (set from api/variant).
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
  const MARGIN = 50;

  const byRole = (role) => document.querySelector(`[data-role="${role}"]`);
  const el = {
    boardPane: byRole("board-pane"),
    analysis: byRole("analysis"),
    recover: byRole("recover"),
    variant: byRole("variant"),
    title: byRole("title"),
    notation: byRole("notation"),
    help: byRole("help"),
    error: byRole("error"),
    notice: byRole("notice"),
    boardWrap: byRole("board-wrap"),
    side: byRole("side-to-move"),
    value: byRole("value"),
    counts: byRole("counts"),
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
    sides: new Map(), // side name -> api/variant's side, with `single` (one piece at the start)
    byPiece: new Map(), // a piece's letter in the position text -> its side's name
    byLetter: new Map(), // the side-to-move letter -> the side's name
    rows: [], // square names rank by rank, from the top rank down, as the notation lists them
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

  // ---- the position's text -------------------------------------------------

  const fields = (position) => position.trim().split(/\s+/);
  // The side to move: the letter after the board.
  const sideOf = (position) => state.byLetter.get(fields(position)[1]) || null;
  const other = (side) => [...state.sides.keys()].find((s) => s !== side) || side;
  // The numbers after the side to move.
  const countsOf = (position) => fields(position).slice(2);

  // ---- words -------------------------------------------------------------

  const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

  // The side as the subject of a sentence: "the fox" (one at the start), "the goats", "X".
  function subject(side) {
    const s = state.sides.get(side);
    if (!s) return String(side);
    return s.single ? s.one : s.team;
  }

  function plural(side) {
    const s = state.sides.get(side);
    return !!s && s.plural && !s.single;
  }

  // "Fox", "Sheep", "Goats", "X": the side on its own.
  const sideName = (side) => capital(subject(side).replace(/^the /, ""));

  // "the fox wins", "the tigers win", "X wins".
  const wins = (side) => `${subject(side)} ${plural(side) ? "win" : "wins"}`;

  const pliesText = (n) => `${n} ${n === 1 ? "ply" : "plies"}`;

  // A distance in words: " in 7 plies" (plies to the end), or ", 7 plies to zeroing" (DTZ tables:
  // plies to the next move that leaves the tier); "" for none.
  const distanceText = (plies) =>
    plies == null
      ? ""
      : state.variant && state.variant.distance === "dtz"
        ? `, ${pliesText(plies)} to zeroing`
        : ` in ${pliesText(plies)}`;

  // The end of a game: who won, or a draw.
  const ending = (status) => (status.winner ? wins(status.winner) : "a draw");

  // The value of a position for its side to move, in words.
  function valueWords(value, plies, side, status) {
    if (status && status.over) {
      const own = status.winner ? (status.winner === side ? "win" : "loss") : "draw";
      return `${value || own} — game over: ${ending(status)}${status.reason ? ` (${status.reason})` : ""}`;
    }
    const inPlies = distanceText(plies);
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
    const first = `${subject(v.first_mover)} ${plural(v.first_mover) ? "move" : "moves"} first`;
    const plies = !v.plies
      ? "values only, no distances"
      : v.distance === "dtz"
        ? "with distances to zeroing (DTZ)"
        : "with distances to the end";
    const words = [...(v.words || []), first, `${v.layout} tables, ${plies}`].join(" · ");
    // Tables solved under a sheep floor hold bounds, not the real game's values: say so.
    return v.bound ? `${words} · bound: ${v.bound.note}` : words;
  }

  // Text with `code` spans, as DOM nodes: ["Positions: ", ["F"], " fox"].
  function withCode(parts) {
    return parts.map((p) => {
      if (typeof p === "string") return document.createTextNode(p);
      const c = document.createElement("code");
      c.textContent = p[0];
      return c;
    });
  }

  // The game's name and how its positions are written.
  function describeGame(v) {
    document.title = `foxbase: ${v.title} board`;
    el.title.textContent = `${v.title} with perfect play`;
    document.body.dataset.game = v.game;
    const ys = v.board.points.map((p) => p.y);
    const parts = [`Positions: ranks ${Math.max(...ys) - Math.min(...ys) + 1} to 1 separated by `, ["/"], ", "];
    // "F fox", but "X" for X.
    for (const s of v.sides) parts.push([s.piece], s.name.toUpperCase() === s.piece ? ", " : ` ${s.name}, `);
    parts.push(["."], " empty, then ");
    v.sides.forEach((s, i) => parts.push(i ? " or " : "", [s.letter]));
    parts.push(" for the side to move");
    const counts = v.board.counts || [];
    if (counts.length) parts.push(`, then the ${counts.map((c) => c.words).join(" and the ")}`);
    parts.push(".");
    el.notation.replaceChildren(...withCode(parts));
  }

  // How to play on the board, for the moves of the position shown (kept when there are none).
  function describeHelp() {
    const parts = state.legal.map((m) => moveParts(m.move)).filter((p) => p);
    if (parts.length === 0) return;
    const places = parts.some((p) => !p.from);
    const steps = parts.some((p) => p.from);
    let help = "Click a piece of the side to move, then where it goes; or click a move in the list.";
    if (places && !steps) help = "Click a free point to place a piece there, or click a move in the list.";
    else if (places) help = "Click a free point to place a piece, or a piece and then where it goes; or click a move in the list.";
    el.help.textContent = help;
  }

  // ---- the board ---------------------------------------------------------

  function svg(name, attrs, parent) {
    const node = document.createElementNS(SVG, name);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (parent) parent.appendChild(node);
    return node;
  }

  // Each side's picture, by its name; a side without one is drawn as a disc with its letter.
  const ART = {
    fox(g) {
      svg("circle", { r: 23, class: "fox-body" }, g);
      svg("polygon", { points: "-17,-5 -13,-21 -4,-12", class: "fox-ear" }, g);
      svg("polygon", { points: "17,-5 13,-21 4,-12", class: "fox-ear" }, g);
      svg("polygon", { points: "-16,-8 16,-8 0,17", class: "fox-face" }, g);
      svg("circle", { cx: -6, cy: -2, r: 2.2, class: "fox-eye" }, g);
      svg("circle", { cx: 6, cy: -2, r: 2.2, class: "fox-eye" }, g);
      svg("circle", { cx: 0, cy: 13, r: 3, class: "fox-eye" }, g);
    },
    sheep(g) {
      svg("circle", { r: 22, class: "sheep-wool" }, g);
      svg("ellipse", { cx: 0, cy: 3, rx: 8, ry: 11, class: "sheep-face" }, g);
      svg("ellipse", { cx: -11, cy: -4, rx: 5, ry: 2.5, class: "sheep-face" }, g);
      svg("ellipse", { cx: 11, cy: -4, rx: 5, ry: 2.5, class: "sheep-face" }, g);
      svg("circle", { cx: -3.5, cy: 0, r: 1.6, class: "sheep-eye" }, g);
      svg("circle", { cx: 3.5, cy: 0, r: 1.6, class: "sheep-eye" }, g);
    },
    tiger(g) {
      svg("circle", { r: 23, class: "tiger-body" }, g);
      svg("circle", { cx: -14, cy: -16, r: 5.5, class: "tiger-ear" }, g);
      svg("circle", { cx: 14, cy: -16, r: 5.5, class: "tiger-ear" }, g);
      for (const d of ["M-21,-4 L-12,-2", "M-21,5 L-12,4", "M21,-4 L12,-2", "M21,5 L12,4", "M0,-22 L0,-13", "M-6,-21 L-4,-14", "M6,-21 L4,-14"]) {
        svg("path", { d, class: "tiger-stripe" }, g);
      }
      svg("ellipse", { cx: 0, cy: 9, rx: 9, ry: 7, class: "tiger-muzzle" }, g);
      svg("circle", { cx: -7, cy: -4, r: 2.4, class: "tiger-eye" }, g);
      svg("circle", { cx: 7, cy: -4, r: 2.4, class: "tiger-eye" }, g);
      svg("circle", { cx: 0, cy: 7, r: 2.6, class: "tiger-eye" }, g);
    },
    goat(g) {
      svg("path", { d: "M-9,-12 C-16,-24 -26,-18 -20,-8", class: "goat-horn" }, g);
      svg("path", { d: "M9,-12 C16,-24 26,-18 20,-8", class: "goat-horn" }, g);
      svg("circle", { r: 19, class: "goat-body" }, g);
      svg("ellipse", { cx: 0, cy: 4, rx: 8, ry: 11, class: "goat-face" }, g);
      svg("path", { d: "M-4,14 L0,22 L4,14", class: "goat-beard" }, g);
      svg("circle", { cx: -3.5, cy: 0, r: 1.6, class: "goat-eye" }, g);
      svg("circle", { cx: 3.5, cy: 0, r: 1.6, class: "goat-eye" }, g);
    },
    x(g) {
      svg("path", { d: "M-17,-17 L17,17 M17,-17 L-17,17", class: "mark-x" }, g);
    },
    o(g) {
      svg("circle", { r: 17, class: "mark-o" }, g);
    },
  };

  function defs(root, sides) {
    const d = svg("defs", {}, root);
    for (const s of sides) {
      const symbol = svg("symbol", { id: `piece-${s.name}`, viewBox: "-25 -25 50 50" }, d);
      if (Object.prototype.hasOwnProperty.call(ART, s.name)) {
        ART[s.name](symbol);
      } else {
        svg("circle", { r: 22, class: "piece-disc" }, symbol);
        const t = svg("text", { y: 8, class: "piece-letter" }, symbol);
        t.textContent = s.piece;
      }
    }
  }

  // Draws the board of the variant: its points, its lines or its grid of cells, its region, with labels.
  function buildBoard(board, sides) {
    const xs = board.points.map((p) => p.x);
    const ys = board.points.map((p) => p.y);
    const minX = Math.min(...xs);
    const maxX = Math.max(...xs);
    const minY = Math.min(...ys);
    const maxY = Math.max(...ys);
    const at = new Map(board.points.map((p) => [p.name, p]));
    // With cells, a point is the middle of its square: the squares need half a step more on each side.
    const margin = board.cells ? MARGIN + SPACING / 2 - 12 : MARGIN;
    const px = (p) => margin + (p.x - minX) * SPACING;
    const py = (p) => margin + (maxY - p.y) * SPACING;
    const width = 2 * margin + (maxX - minX) * SPACING;
    const height = 2 * margin + (maxY - minY) * SPACING;
    const root = svg("svg", {
      viewBox: `0 0 ${width} ${height}`,
      class: board.cells ? "board cells" : "board",
      "data-role": "board",
      role: "group",
      "aria-label": "The board",
    });
    defs(root, sides);
    svg("rect", { x: 0, y: 0, width, height, rx: 14, class: "board-bg" }, root);
    const regionName = board.region || null;
    const region = new Set(regionName ? board[regionName] || [] : []);
    const shade = svg("g", { class: regionName ? `region ${regionName}` : "region" }, root);
    for (const name of region) {
      const p = at.get(name);
      if (!p) continue;
      const h = SPACING / 2;
      svg("rect", { x: px(p) - h, y: py(p) - h, width: SPACING, height: SPACING }, shade);
    }
    if (board.cells) {
      // The grid between neighbouring squares (tic-tac-toe's #).
      const grid = svg("g", { class: "grid" }, root);
      const h = SPACING / 2;
      for (const p of board.points) {
        for (const q of board.points) {
          if (q.y === p.y && q.x === p.x + 1) {
            const x = (px(p) + px(q)) / 2;
            svg("line", { x1: x, y1: py(p) - h, x2: x, y2: py(p) + h }, grid);
          }
          if (q.x === p.x && q.y === p.y - 1) {
            const y = (py(p) + py(q)) / 2;
            svg("line", { x1: px(p) - h, y1: y, x2: px(p) + h, y2: y }, grid);
          }
        }
      }
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
      const t = svg("text", { x: margin + (x - minX) * SPACING, y: height - 8 }, labels);
      t.textContent = file;
    }
    for (let y = minY; y <= maxY; y++) {
      const t = svg("text", { x: 12, y: margin + (maxY - y) * SPACING + 5 }, labels);
      t.textContent = String(y - minY + 1);
    }
    state.groups = new Map();
    for (const p of board.points) {
      const inRegion = region.has(p.name);
      const g = svg(
        "g",
        {
          class: inRegion ? `point in-region in-${regionName}` : "point",
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
      svg("use", { href: `#piece-${sides[0].name}`, x: -24, y: -24, width: 48, height: 48, class: "piece" }, g);
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
    // The notation lists each rank's points left to right, from the top rank down.
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

  // The pieces of a position: square name -> a side's name or "empty".
  function pieces(position) {
    const ranks = fields(position)[0].split("/");
    const out = new Map();
    state.rows.forEach((row, i) => {
      row.forEach((name, j) => {
        const c = (ranks[i] || "")[j];
        out.set(name, state.byPiece.get(c) || "empty");
      });
    });
    return out;
  }

  // A move's points: a placement "c3" (no from), a step "c3-c4", a jump "a1xc3".
  const moveParts = (move) => {
    const m = /^(?:([a-z][0-9]+)([-x]))?([a-z][0-9]+)$/.exec(move);
    return m ? { from: m[1] || null, capture: m[2] === "x", to: m[3] } : null;
  };

  function drawPieces(position) {
    const at = pieces(position);
    const last = state.history[state.cursor].move;
    const lastParts = last ? moveParts(last) : null;
    const legal = state.over ? [] : state.legal.map((m) => moveParts(m.move)).filter((p) => p);
    const movable = new Set(legal.filter((p) => p.from).map((p) => p.from));
    const drops = new Set(legal.filter((p) => !p.from).map((p) => p.to));
    for (const [name, g] of state.groups) {
      const piece = at.get(name) || "empty";
      g.setAttribute("data-piece", piece);
      g.setAttribute("aria-label", `${name}: ${piece}`);
      const use = g.querySelector("use");
      if (piece !== "empty") use.setAttribute("href", `#piece-${piece}`);
      g.classList.toggle("movable", movable.has(name));
      g.classList.toggle("drop", drops.has(name));
      g.setAttribute("tabindex", movable.has(name) || drops.has(name) ? "0" : "-1");
      g.classList.toggle("last", !!lastParts && (lastParts.from === name || lastParts.to === name));
    }
    drawSelection();
  }

  function drawSelection() {
    const targets = new Map();
    if (state.selected) {
      for (const m of state.legal) {
        const parts = moveParts(m.move);
        if (parts && parts.from && parts.from === state.selected) targets.set(parts.to, parts.capture);
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
    const find = (test) =>
      state.legal.find((m) => {
        const parts = moveParts(m.move);
        return parts && test(parts);
      });
    if (state.selected) {
      const move = find((p) => p.from === state.selected && p.to === name);
      if (move) {
        play(move.move);
        return;
      }
    }
    // A placement on this point.
    const place = find((p) => !p.from && p.to === name);
    if (place) {
      play(place.move);
      return;
    }
    const ownMoves = !!find((p) => p.from === name);
    state.selected = ownMoves && state.selected !== name ? name : null;
    drawSelection();
  }

  // ---- the move list, the value, the history -----------------------------

  const ORDER = { win: 0, draw: 1, loss: 2, unknown: 3 };

  function drawMoves(probe, side) {
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
          : `${e.move}: ${e.value} for ${subject(side)}` + distanceText(e.plies);
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

  // The numbers after the side to move ("goats to place: 2 · goats captured: 0").
  function drawCounts(position) {
    const counts = state.variant.board.counts || [];
    const values = countsOf(position);
    const items = [];
    counts.forEach((c, i) => {
      if (i) items.push(document.createTextNode(" · "));
      const span = document.createElement("span");
      span.dataset.count = c.key;
      span.textContent = `${c.words}: ${values[i] ?? "?"}`;
      items.push(span);
    });
    el.counts.replaceChildren(...items);
    el.counts.hidden = counts.length === 0;
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
    const side = moves.body.side_to_move;
    el.side.textContent = `${sideName(side)} to move`;
    el.side.dataset.side = side;
    const value = probe.ok ? probe.body.value : "unknown";
    el.value.textContent = valueWords(probe.ok ? value : null, probe.ok ? probe.body.plies : null, side, status);
    el.value.dataset.value = value;
    el.value.className = `value ${value}`;
    el.notice.hidden = !state.over;
    el.notice.textContent = state.over ? `Game over: ${ending(status)}.` : "";
    drawCounts(position);
    drawPieces(position);
    drawMoves(probe.ok ? probe.body : null, side);
    drawHistory();
    describeHelp();
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
    if (state.sides.has(state.engine)) {
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

  // The sides of the variant: their letters, and whether each has a single piece at the start.
  function learnSides(v) {
    const start = fields(v.start)[0];
    for (const s of v.sides) {
      const single = [...start].filter((c) => c === s.piece).length === 1;
      state.sides.set(s.name, { ...s, single });
      state.byPiece.set(s.piece, s.name);
      state.byLetter.set(s.letter, s.name);
    }
    // The engine's choices: nobody, either side, both.
    const option = (value, text) => {
      const o = document.createElement("option");
      o.value = value;
      o.textContent = text;
      return o;
    };
    el.engine.replaceChildren(
      option("none", "nobody"),
      ...v.sides.map((s) => option(s.name, subject(s.name))),
      option("both", "both sides"),
    );
  }

  async function start() {
    const variant = await api("variant", {});
    if (!variant.ok) {
      showError(variant.body.error);
      el.boardPane.hidden = true;
      el.analysis.hidden = true;
      setReady(true);
      return;
    }
    state.variant = variant.body;
    learnSides(state.variant);
    describeGame(state.variant);
    el.variant.textContent = variantWords(state.variant);
    buildBoard(state.variant.board, state.variant.sides);

    const params = new URLSearchParams(location.search);
    const engine = params.get("engine");
    if (engine && (engine === "none" || engine === "both" || state.sides.has(engine))) state.engine = engine;
    el.engine.value = state.engine;
    const delay = Number(params.get("delay"));
    if (params.has("delay") && Number.isFinite(delay) && delay >= 0) state.delay = Math.min(delay, 10000);

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
