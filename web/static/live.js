// boardwire live pages: one websocket, a snapshot then deltas, boards and clocks redrawn
// in place. The server renders every page first, so without this script the pages are
// complete (just not live). No build step, no dependencies.
"use strict";
(function () {
  const body = document.body;
  const BW = (window.BW = { hooks: [], seq: 0, epoch: null, clockRate: 1, snapshot: null });

  // -- words: the page's language, from its JSON block (web/words.py); English without it --
  const TEXTS = (function () {
    const el = document.getElementById("i18n");
    try { return el ? JSON.parse(el.textContent) : {}; } catch (e) { return {}; }
  })();
  const ENGLISH = {
    live: "live", live_delayed: "live (delayed %(seconds)s s)", reconnecting: "reconnecting…",
    removed: "this game was removed from the pairings", flag_fell: "flag fell",
    flag_white: "white's flag fell", flag_black: "black's flag fell", pending: "result pending: %(result)s",
    awaiting: ", awaiting the arbiter", not_started: "not started", start: "start", live_tail: " · live",
    time_used: "time used", time_used_last: "time used for the last move", playoff_tie: "tie for first: a play-off decides",
  };
  // A text by key, its %(name)s filled from `vars`.
  function t(key, vars) {
    const text = TEXTS[key] || ENGLISH[key] || key;
    return text.replace(/%\((\w+)\)s/g, (all, name) => (vars && name in vars ? String(vars[name]) : all));
  }
  BW.t = t;
  BW.texts = TEXTS;

  // -- boards (same markup as web/board_svg.py) ------------------------------------------
  const NS = "http://www.w3.org/2000/svg";
  function squareXY(file, rank, flip) {
    return flip ? [7 - file, rank] : [file, 7 - rank];
  }
  // A move's SAN says whether it gives check ("+") or mate ("#").
  function givesCheck(san) { return /[+#]$/.test(san || ""); }
  // The square of the king of the side to move in `fen` ("e1"), or null.
  function kingToMove(fen) {
    const [placement, turn] = (fen || "").split(" ");
    const king = turn === "b" ? "k" : "K";
    const rows = (placement || "").split("/");
    for (let r = 0; r < rows.length && r < 8; r++) {
      let file = 0;
      for (const ch of rows[r]) {
        if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
        if (ch === king) return "abcdefgh"[file] + (8 - r);
        file++;
      }
    }
    return null;
  }
  // `check`: the last move gave check, so the king to move is marked (as web/board_svg.py).
  function renderBoard(svg, fen, last, check) {
    const flip = svg.getAttribute("data-flip") === "1";
    const placement = (fen || "").split(" ")[0];
    const checked = check ? kingToMove(fen) : null;
    const marked = new Set();
    if (last && last.length >= 4) {
      marked.add(last.slice(0, 2));
      marked.add(last.slice(2, 4));
    }
    const parts = [];
    for (let rank = 0; rank < 8; rank++) {
      for (let file = 0; file < 8; file++) {
        const [x, y] = squareXY(file, rank, flip);
        const name = "abcdefgh"[file] + (rank + 1);
        const shade = (file + rank) % 2 ? "l" : "d";
        parts.push('<rect x="' + x + '" y="' + y + '" width="1" height="1" class="' + shade + (marked.has(name) ? " hl" : "") + (name === checked ? " check" : "") + '"/>');
      }
    }
    const rows = placement.split("/");
    for (let r = 0; r < rows.length && r < 8; r++) {
      let file = 0;
      for (const ch of rows[r]) {
        if (/[1-8]/.test(ch)) { file += Number(ch); continue; }
        if (!/[pnbrqkPNBRQK]/.test(ch)) continue;
        const [x, y] = squareXY(file, 7 - r, flip);
        const id = "bw-" + (ch === ch.toUpperCase() ? "w" : "b") + ch.toUpperCase();
        parts.push('<use href="#' + id + '" x="' + x + '" y="' + y + '" width="1" height="1"/>');
        file++;
      }
    }
    svg.innerHTML = parts.join("");  // built from a FEN checked character by character
    svg.setAttribute("data-fen", fen);
    svg.setAttribute("data-last", last || "");
    if (evals.size) {
      const root = svg.closest(".game, .mini");
      if (root) drawEval(root);
    }
  }
  BW.renderBoard = renderBoard;

  // -- engine evaluation (a server started with --eval sends "eval" messages) ------------
  // Kept by position (placement, side, castling, en passant: web's position_key), so the
  // viewer shows the evaluation of an earlier move it saw evaluated. Nothing is drawn
  // until an evaluation arrives: without an engine the pages say nothing about one.
  const evals = new Map();
  // `?eval=0` on an embed or a page (the venue's own screens): no evaluation at all.
  const noEval = new URLSearchParams(location.search).get("eval") === "0";
  BW.evals = evals;
  function posKey(fen) { return (fen || "").split(" ").slice(0, 4).join(" "); }
  // The score from White's side (broadcast/games/evaluation.py's score_text): +0.35, #-2.
  function scoreText(e) {
    if (e.mate !== undefined && e.mate !== null) return "#" + e.mate;
    const cp = e.cp || 0;
    return cp === 0 ? "0.00" : (cp > 0 ? "+" : "") + (cp / 100).toFixed(2);
  }
  // White's share of the bar (white_share): a logistic curve of the centipawns.
  function whiteShare(e) {
    if (e.mate !== undefined && e.mate !== null) return e.mate > 0 ? 1 : e.mate < 0 ? 0 : 0.5;
    const cp = Math.max(-10000, Math.min(10000, e.cp || 0));
    return 1 / (1 + Math.exp(-0.00368208 * cp));
  }
  // The best line with move numbers (pv_line): "21. Nf5 Qd7 22. Re3", "21... Qd7 22. Re3".
  function pvLine(e) {
    const f = (e.fen || "").split(" ");
    let white = f[1] !== "b";
    let n = Math.max(1, parseInt(f[5], 10) || 1);
    const out = [];
    (e.pv || []).forEach(function (san, i) {
      if (white) out.push(n + ". " + san);
      else out.push(i === 0 ? n + "... " + san : san);
      if (!white) n++;
      white = !white;
    });
    return out.join(" ");
  }
  function fillOf(bar) {
    let fill = bar.querySelector(".evalfill");
    if (!fill) { fill = document.createElement("div"); fill.className = "evalfill"; bar.appendChild(fill); }
    return fill;
  }
  // Draw the evaluation of the position `root` (a game page's .game, or a .mini) shows.
  function drawEval(root) {
    const svg = root.querySelector("svg.board");
    if (!svg) return;
    const e = evals.get(posKey(svg.getAttribute("data-fen")));
    if (root.classList.contains("mini")) {
      let bar = root.querySelector(".minibar");
      if (!e) { if (bar) bar.classList.add("stale"); return; }
      if (!bar) { bar = document.createElement("div"); bar.className = "minibar"; svg.after(bar); }
      bar.classList.remove("stale");
      fillOf(bar).style.width = (whiteShare(e) * 100).toFixed(1) + "%";
      bar.title = "engine: " + scoreText(e) + " (depth " + e.depth + ")";
      bar.setAttribute("data-score", scoreText(e));
      return;
    }
    const bar = document.getElementById("evalbar"), line = document.getElementById("evalline");
    if (!bar || !line) return;
    if (!e) {  // a position the engine has not reached: the bar waits, greyed
      if (bar.hidden) return;
      bar.classList.add("stale"); line.classList.add("stale");
      line.querySelector(".evalscore").textContent = "…";
      line.querySelector(".evalpv").textContent = "";
      line.querySelector(".evaldepth").textContent = "";
      return;
    }
    bar.hidden = false; line.hidden = false;
    bar.parentElement.classList.add("evaluated");
    bar.classList.remove("stale"); line.classList.remove("stale");
    bar.classList.toggle("flip", svg.getAttribute("data-flip") === "1");
    fillOf(bar).style.height = (whiteShare(e) * 100).toFixed(1) + "%";
    bar.title = "engine: " + scoreText(e);
    line.querySelector(".evalscore").textContent = scoreText(e);
    const pv = line.querySelector(".evalpv");
    pv.textContent = pvLine(e);
    pv.title = pv.textContent;
    line.querySelector(".evaldepth").textContent = "depth " + e.depth;
  }
  function applyEval(msg) {
    if (!msg.fen || noEval) return;
    evals.set(posKey(msg.fen), msg);
    if (evals.size > 4096) evals.delete(evals.keys().next().value);  // bounded: the oldest go
    for (const root of gameRoots(msg.game)) {
      if (root.classList && (root.classList.contains("game") || root.classList.contains("mini"))) drawEval(root);
    }
  }

  // -- clocks --------------------------------------------------------------------------
  function fmt(s) {
    if (s === null || s === undefined || s === "" || isNaN(s)) return "–";
    s = Math.max(0, Math.floor(s));
    return Math.floor(s / 3600) + ":" + String(Math.floor(s / 60) % 60).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  }
  BW.fmt = fmt;
  // The time a move took, short (web/pages.py's used_text): 7s, 2:05, 1:02:05.
  function used(s) {
    if (s === null || s === undefined || s === "" || isNaN(s)) return "";
    s = Math.max(0, Math.round(Number(s)));
    if (s < 60) return s + "s";
    if (s < 3600) return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
    return fmt(s);
  }
  BW.used = used;
  function setClocks(root, white, black, running) {
    if (root.classList && root.classList.contains("game")) {
      root.bwLive = { white: white, black: black, running: running, at: performance.now() };
      if (viewer.past()) return;  // the viewer shows an earlier move: its clocks stay
    }
    for (const el of root.querySelectorAll(".clock[data-side]")) {
      const side = el.getAttribute("data-side");
      const value = side === "white" ? white : black;
      el.setAttribute("data-seconds", value === null || value === undefined ? "" : String(value));
      el.setAttribute("data-since", String(performance.now()));
      el.classList.toggle("run", running === side);
      el.textContent = fmt(value);
    }
  }
  function tick() {
    const now = performance.now();
    for (const el of document.querySelectorAll(".clock.run")) {
      const base = el.getAttribute("data-seconds");
      if (base === null || base === "") continue;
      let since = Number(el.getAttribute("data-since"));
      if (!since) { since = now; el.setAttribute("data-since", String(now)); }
      el.textContent = fmt(Number(base) - ((now - since) / 1000) * BW.clockRate);
    }
  }
  setInterval(tick, 200);
  function shownFlag(root) {
    const el = root.querySelector(".result[data-flag]");
    return el ? el.getAttribute("data-flag") || null : null;
  }
  function setFlag(root, flag) {
    for (const el of root.querySelectorAll(".clock[data-side]")) {
      const fallen = flag === el.getAttribute("data-side");
      el.classList.toggle("flagged", fallen);
      if (fallen) el.setAttribute("title", t("flag_fell")); else el.removeAttribute("title");
    }
  }

  // -- results -------------------------------------------------------------------------
  // How a result's reason reads (web/pages.py has the same table).
  const REASONS = {
    "checkmate": "checkmate", "stalemate": "stalemate", "dead-position": "dead position",
    "repetition": "repetition", "75-moves": "75-move rule", "kings-signal": "signalled with the kings",
    "flag-fall": "time forfeit", "default-time": "default time", "agreement": "agreement",
    "resignation": "resignation", "arbiter": "arbiter's decision",
  };
  // The words (English in the JSON) in the page's language.
  function reasonText(r) {
    if (!r) return "";
    const words = REASONS[r] || String(r).replace(/-/g, " ");
    return (TEXTS.reasons && TEXTS.reasons[words]) || words;
  }
  // The result badge (same markup as result_text in _macros.html): the result and its
  // reason, or the proposal waiting for the arbiter, and whose flag fell.
  function span(className, text) { const el = document.createElement("span"); el.className = className; el.textContent = text; return el; }
  // A field left undefined (a message that does not carry it) keeps what the page shows.
  function showResult(root, result, reason, pending, flag) {
    const el = root.querySelector(".result");
    if (!el) return;
    if (reason === undefined) reason = el.getAttribute("data-reason") || null;
    if (flag === undefined) flag = el.getAttribute("data-flag") || null;
    const final = Boolean(result && result !== "*");
    const parts = [];
    if (final) {
      const badge = span("resultbadge", result);
      if (reason) badge.append(" ", span("why", reasonText(reason)));
      parts.push(badge);
    } else if (pending && pending.result) {
      parts.push(span("pending", t("pending", { result: pending.result }) + (pending.reason ? " (" + reasonText(pending.reason) + ")" : "")
        + (el.id === "result" ? t("awaiting") : "")));
    }
    if (flag) parts.push(" ", span("flagbadge", "⚑ " + t(flag === "white" ? "flag_white" : "flag_black")));
    el.replaceChildren(...parts);
    el.classList.toggle("final", final);
    el.classList.toggle("pending", !final && Boolean(pending));
    el.setAttribute("data-reason", final ? reason || "" : "");
    el.setAttribute("data-flag", flag || "");
  }

  // -- the game viewer: step through the moves; the live game is followed at the end ----
  const viewer = (function () {
    let ply = null;  // null: following the live game; else the ply shown (0 = start)
    const list = () => document.getElementById("moves");
    const items = () => Array.from((list() || { children: [] }).children);
    const last = () => items().length;
    function clocksAt(n) {
      const l = list();
      const out = { white: l.getAttribute("data-start-white"), black: l.getAttribute("data-start-black") };
      for (const li of items()) {
        const p = Number(li.getAttribute("data-ply"));
        if (p > n) break;
        const c = li.getAttribute("data-clock");
        if (c !== null && c !== "") out[p % 2 ? "white" : "black"] = Number(c);
      }
      return out;
    }
    function label(n) {
      if (n === 0) return t("start");
      const li = items()[n - 1];
      const san = li ? li.querySelector(".san").textContent : "";
      return Math.floor((n + 1) / 2) + (n % 2 ? ". " : "… ") + san;
    }
    // The time each side's latest move up to ply n took, shown next to its clock.
    function showUsed(game, n) {
      const out = { white: "", black: "" };
      for (const li of items()) {
        const p = Number(li.getAttribute("data-ply"));
        if (p > n) break;
        out[p % 2 ? "white" : "black"] = li.getAttribute("data-emt");
      }
      for (const el of game.querySelectorAll(".used[data-used]")) {
        const t = used(out[el.getAttribute("data-used")]);
        el.textContent = t;
        el.title = t ? BW.t("time_used_last") : "";
      }
    }
    // The viewer's place in the address (?ply=N), so a shared link opens at that move.
    function remember() {
      const url = new URL(location.href);
      if (ply === null) url.searchParams.delete("ply"); else url.searchParams.set("ply", String(ply));
      if (url.href !== location.href) history.replaceState(null, "", url.href);
      const share = document.getElementById("share");
      if (share) share.href = url.pathname + url.search;
    }
    function draw() {
      const l = list();
      if (!l) return;
      const game = l.closest(".game");
      const n = ply === null ? last() : ply;
      for (const li of items()) li.classList.toggle("cur", Number(li.getAttribute("data-ply")) === n);
      showUsed(game, n);
      const pos = document.getElementById("viewer-pos");
      if (pos) {
        const over = game.querySelector(".result.final");  // a finished game is not "live"
        const tail = over ? "" : t("live_tail");
        pos.textContent = ply === null ? (n ? label(n) + tail : over ? t("start") : t("live")) : label(n);
        pos.classList.toggle("past", ply !== null);
      }
      if (ply === null) return;
      const li = items()[n - 1];
      const svg = game.querySelector("svg.board");
      if (svg) renderBoard(svg, li ? li.getAttribute("data-fen") : l.getAttribute("data-start-fen"), li ? li.getAttribute("data-uci") : "", li && givesCheck(li.querySelector(".san").textContent));
      const c = clocksAt(n);
      for (const el of game.querySelectorAll(".clock[data-side]")) {
        const v = c[el.getAttribute("data-side")];
        el.classList.remove("run", "flagged");
        el.setAttribute("data-seconds", v === null || v === undefined ? "" : String(v));
        el.textContent = fmt(v === "" ? null : v);
      }
    }
    function go(n) {
      const l = list();
      if (!l) return;
      n = Math.max(0, Math.min(last(), n));
      const wasPast = ply !== null;
      ply = n >= last() ? null : n;
      if (ply === null && wasPast) backToLive(l.closest(".game"));
      draw();
      remember();
    }
    function backToLive(game) {
      const g = BW.liveGame;
      if (g) { showGame(g); return; }
      const lis = items();
      const li = lis[lis.length - 1];
      const svg = game.querySelector("svg.board");
      if (svg) renderBoard(svg, li ? li.getAttribute("data-fen") : list().getAttribute("data-start-fen"), li ? li.getAttribute("data-uci") : "", li && givesCheck(li.querySelector(".san").textContent));
      setFlag(game, shownFlag(game));
      const live = game.bwLive;
      if (live) {
        const elapsed = ((performance.now() - live.at) / 1000) * BW.clockRate;
        const w = live.running === "white" && live.white !== null ? live.white - elapsed : live.white;
        const b = live.running === "black" && live.black !== null ? live.black - elapsed : live.black;
        setClocks(game, w, b, live.running);
      }
    }
    function step(where) {
      const now = ply === null ? last() : ply;
      if (where === "start") go(0);
      else if (where === "prev") go(now - 1);
      else if (where === "next") go(now + 1);
      else if (where === "end") go(last());
    }
    function init() {
      const l = list();
      const bar = document.getElementById("viewer");
      if (!l || !bar) return;
      bar.hidden = false;
      bar.addEventListener("click", function (ev) {
        const b = ev.target.closest("button[data-go]");
        if (b) step(b.getAttribute("data-go"));
      });
      l.addEventListener("click", function (ev) {
        const b = ev.target.closest(".san");
        if (b) go(Number(b.closest("li").getAttribute("data-ply")));
      });
      document.addEventListener("keydown", function (ev) {
        if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
        const t = ev.target;
        if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
        if (ev.key === "f") { ev.preventDefault(); flip(); return; }
        const where = { ArrowLeft: "prev", ArrowRight: "next", Home: "start", End: "end" }[ev.key];
        if (!where) return;
        ev.preventDefault();
        step(where);
      });
      const flipLink = document.getElementById("flip");
      if (flipLink) flipLink.addEventListener("click", function (ev) { ev.preventDefault(); flip(); });
      const asked = new URL(location.href).searchParams.get("ply");
      if (asked !== null && /^\d+$/.test(asked)) go(Number(asked));
      else draw();
    }
    // Turn the board round in place: the board, the player lines, the link and the address.
    function flip() {
      const l = list();
      const game = l && l.closest(".game");
      const svg = game && game.querySelector("svg.board");
      if (!svg) return;
      const flipped = svg.getAttribute("data-flip") !== "1";
      svg.setAttribute("data-flip", flipped ? "1" : "0");
      renderBoard(svg, svg.getAttribute("data-fen"), svg.getAttribute("data-last"), svg.querySelector(".check") !== null);
      const top = game.querySelector(".pl.top"), bottom = game.querySelector(".pl.bottom");
      if (top && bottom) {  // the players swap places with their clocks
        const above = Array.from(top.childNodes), below = Array.from(bottom.childNodes);
        const colour = top.getAttribute("data-colour");
        top.replaceChildren(...below);
        bottom.replaceChildren(...above);
        top.setAttribute("data-colour", bottom.getAttribute("data-colour"));
        bottom.setAttribute("data-colour", colour);
      }
      const url = new URL(location.href);
      if (flipped) url.searchParams.set("flip", "1"); else url.searchParams.delete("flip");
      history.replaceState(null, "", url.href);
      const link = document.getElementById("flip");
      if (link) link.href = "?flip=" + (flipped ? "0" : "1");
      remember();
    }
    return { past: () => ply !== null, draw: draw, go: go, init: init, ply: () => ply };
  })();
  BW.viewer = viewer;

  // -- applying messages ---------------------------------------------------------------
  function gameRoots(id) {
    return document.querySelectorAll('[data-game="' + CSS.escape(id) + '"]');
  }
  function moveText(ply, san) {
    return Math.floor((ply + 1) / 2) + (ply % 2 ? "." : "…") + " " + san;
  }
  function setText(root, sel, text) {
    const el = root.querySelector(sel);
    if (el) el.textContent = text;
  }
  // One ply of the move list (same markup as game.html): number, SAN, clock, time used.
  function moveItem(m) {
    const li = document.createElement("li");
    li.className = m.ply % 2 ? "w" : "b";
    li.setAttribute("data-ply", String(m.ply));
    li.setAttribute("data-fen", m.fen || "");
    li.setAttribute("data-uci", m.uci || "");
    li.setAttribute("data-clock", m.clock === null || m.clock === undefined ? "" : String(m.clock));
    li.setAttribute("data-emt", m.emt === null || m.emt === undefined ? "" : String(m.emt));
    li.appendChild(span("no", Math.floor((m.ply + 1) / 2) + (m.ply % 2 ? "." : "…")));
    const san = document.createElement("button");
    san.type = "button";
    san.className = "san";
    san.textContent = m.san;
    li.appendChild(san);
    const times = span("times", "");
    if (m.clock !== null && m.clock !== undefined) times.appendChild(span("clk", fmt(Math.round(m.clock))));
    if (m.emt !== null && m.emt !== undefined) {
      const emt = span("emt", used(m.emt));
      emt.title = t("time_used");
      times.appendChild(emt);
    }
    li.appendChild(times);
    return li;
  }
  function showGame(g) {
    if (g.moves && document.getElementById("moves")) BW.liveGame = g;
    for (const root of gameRoots(g.id)) {
      if (root.tagName === "svg" || root === body) continue;
      const list = root.querySelector("#moves");
      if (list && g.moves) {
        if (g.start_fen) list.setAttribute("data-start-fen", g.start_fen);
        list.replaceChildren(...g.moves.map(moveItem));
      }
      const svg = root.querySelector("svg.board");
      if (svg && !viewer.past()) {
        const lastMove = g.last_move || (g.moves && g.moves.length ? g.moves[g.moves.length - 1] : null);
        renderBoard(svg, g.fen, lastMove ? lastMove.uci : "", lastMove && givesCheck(lastMove.san));
      }
      if (g.clock) setClocks(root, g.clock.white, g.clock.black, g.clock.running);
      const lastSan = g.last_move ? g.last_move.san : null;
      setText(root, ".last", lastSan ? moveText(g.ply, lastSan) : t("not_started"));
      showResult(root, g.result, g.result_reason, g.pending_result, g.flag);
      if (!viewer.past()) setFlag(root, shownFlag(root));
      setText(root, ".ply", String(g.ply));
      if (list) viewer.draw();
    }
  }
  function applyMove(d) {
    if (!d.moves || !d.moves.length) return;
    const g = BW.liveGame;
    if (g && g.id === d.game && g.moves) {
      g.moves = g.moves.filter((m) => m.ply < d.moves[0].ply).concat(d.moves);
      const last = d.moves[d.moves.length - 1];
      Object.assign(g, { fen: d.fen, ply: d.ply, clock: d.clock, last_move: { san: last.san, uci: last.uci } });
    }
    for (const root of gameRoots(d.game)) {
      if (root.tagName === "svg" || root === body) continue;
      const last = d.moves[d.moves.length - 1];
      const svg = root.querySelector("svg.board");
      if (svg && !viewer.past()) renderBoard(svg, d.fen, last.uci, givesCheck(last.san));
      setClocks(root, d.clock.white, d.clock.black, d.clock.running);
      setText(root, ".last", moveText(last.ply, last.san));
      setText(root, ".ply", String(d.ply));
      const list = root.querySelector("#moves");
      if (list) {
        for (const li of Array.from(list.children)) {
          if (Number(li.getAttribute("data-ply")) >= d.moves[0].ply) li.remove();
        }
        for (const m of d.moves) list.appendChild(moveItem(m));
        viewer.draw();
      }
    }
  }
  function applySnapshot(msg) {
    const data = msg.data || {};
    if (data.game) showGame(data.game);
    for (const g of data.games || []) showGame(g);
    for (const r of data.live || []) for (const g of r.games) showGame(g);
    if (data.standings) showStandings(data.standings);
  }
  // A federation's flag and code (same markup as the fed macro in _macros.html).
  function fedEl(code) {
    const el = span("fed", "");
    if (/^[A-Z]{3}$/.test(code)) {
      const img = document.createElement("img");
      img.className = "flag"; img.alt = ""; img.width = 18; img.height = 12;
      img.src = "/flags/" + code + ".svg";
      el.append(img);
    }
    el.append(code);
    return el;
  }
  function showStandings(rows) {
    const table = document.getElementById("standings");
    if (!table) return;
    const tbody = table.querySelector("tbody");
    tbody.replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      if (r.undecided) tr.className = "undecided"; else if (r.note) tr.className = "noted";
      const td = (text, cls) => { const el = document.createElement("td"); el.textContent = String(text); if (cls) el.className = cls; tr.appendChild(el); return el; };
      const rank = td(r.excluded ? "–" : r.rank);  // left out by the withdrawal rule
      if (r.undecided) { const q = document.createElement("abbr"); q.title = t("playoff_tie"); q.textContent = "?"; rank.appendChild(q); }
      const who = td("");
      if (r.title) { const t = document.createElement("abbr"); t.className = "title"; t.textContent = r.title; who.append(t, " "); }
      const sub = document.createElement("span");
      sub.className = "sub";
      sub.textContent = (r.rating || "") + " " + (r.federation || "") + (r.note ? " · " + r.note : "");
      who.append(r.name, sub);
      td(r.rating || "", "wide");
      td("", "wide").append(...(r.federation ? [fedEl(r.federation)] : []));
      td(r.points);
      for (const v of Object.values(r.tiebreaks || {})) td(v === null ? "" : v);
      td(r.note || "", "note wide");
      return tr;
    }));
  }
  function apply(msg) {
    switch (msg.type) {
      case "move": applyMove(msg); break;
      case "clock":
        if (BW.liveGame && BW.liveGame.id === msg.game) BW.liveGame.clock = { white: msg.white, black: msg.black, running: msg.running };
        for (const root of gameRoots(msg.game)) {
          if (root.tagName === "svg" || root === body) continue;
          setClocks(root, msg.white, msg.black, msg.running);
          if ("flag" in msg && !viewer.past()) setFlag(root, msg.flag);
        }
        break;
      case "result": {
        const g = BW.liveGame;
        if (g && g.id === msg.game) Object.assign(g, { result: msg.result, result_reason: msg.reason, pending_result: msg.pending_result || null }, "flag" in msg ? { flag: msg.flag } : {});
        for (const root of gameRoots(msg.game)) {
          if (root.tagName === "svg" || root === body) continue;
          showResult(root, msg.result, "result_reason" in msg ? msg.result_reason : msg.reason, msg.pending_result || null, msg.flag);
          if (!viewer.past()) setFlag(root, shownFlag(root));
        }
        break;
      }
      case "game": showGame(msg.game); break;
      case "eval": applyEval(msg); break;
      case "removed":  // its pairing was taken away (a withdrawal): drop its card
        for (const root of gameRoots(msg.game)) {
          if (root === body) status(t("removed"), "off");
          else root.remove();
        }
        break;
      case "standings": {
        const want = body.getAttribute("data-standings");
        if (want === msg.section) showStandings(msg.rows);
        break;
      }
    }
  }

  // -- the connection ------------------------------------------------------------------
  function subscription() {
    const msg = { type: "subscribe", scope: body.getAttribute("data-scope") || "event" };
    if (noEval) msg.eval = false;  // ?eval=0: no engine evaluations are sent at all
    if (msg.scope === "round") { msg.section = body.getAttribute("data-section"); msg.round = Number(body.getAttribute("data-round")); }
    if (msg.scope === "game") msg.game = body.getAttribute("data-game");
    if (BW.epoch) { msg.since = BW.seq; msg.epoch = BW.epoch; }
    return msg;
  }
  function status(text, cls) {
    const el = document.getElementById("live-status");
    if (!el) return;
    el.textContent = text;
    el.className = "status " + (cls || "");
    el.setAttribute("data-state", cls || "");
  }
  let backoff = 500;
  function connect() {
    if (!("WebSocket" in window)) return;
    const channel = body.getAttribute("data-channel");
    const path = channel === "arbiter" ? "/arbiter/ws" : channel === "commentary" ? "/commentary/ws" : "/ws";
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    BW.ws = ws;
    ws.onopen = function () { ws.send(JSON.stringify(subscription())); };
    ws.onmessage = function (ev) {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "snapshot") {
        backoff = 500;  // served: a later drop reconnects quickly again
        BW.seq = msg.seq; BW.epoch = msg.epoch; BW.clockRate = msg.clock_rate || 1; BW.snapshot = msg;
        status(msg.delay ? t("live_delayed", { seconds: Math.round(msg.delay) }) : t("live"), "live");
        applySnapshot(msg);
      } else if (msg.type === "resync" || msg.type === "pong" || msg.type === "error") {
        if (msg.type === "error") status(msg.message, "error");
        return;
      } else {
        if (typeof msg.seq === "number") {
          if (msg.seq <= BW.seq) return;  // already in the snapshot
          BW.seq = msg.seq;
        }
        if (body.getAttribute("data-state") !== "live") status(BW.snapshot && BW.snapshot.delay ? t("live_delayed", { seconds: Math.round(BW.snapshot.delay) }) : t("live"), "live");
        apply(msg);
      }
      for (const hook of BW.hooks) hook(msg);
    };
    ws.onclose = function (ev) {
      status(t("reconnecting"), "off");
      // 1013: the server is busy (or this client kept falling behind); 1008: too many
      // requests. Either way, come back later rather than sooner.
      if (ev.code === 1013 || ev.code === 1008) backoff = Math.max(backoff, 5000);
      setTimeout(connect, backoff + Math.random() * backoff / 2);
      backoff = Math.min(backoff * 2, 15000);
    };
  }
  function start() { viewer.init(); connect(); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
