// boardwire live pages: one websocket, a snapshot then deltas, boards and clocks redrawn
// in place. The server renders every page first, so without this script the pages are
// complete (just not live). No build step, no dependencies.
"use strict";
(function () {
  const body = document.body;
  const BW = (window.BW = { hooks: [], seq: 0, epoch: null, clockRate: 1, snapshot: null });

  // -- boards (same markup as web/board_svg.py) ------------------------------------------
  const NS = "http://www.w3.org/2000/svg";
  function squareXY(file, rank, flip) {
    return flip ? [7 - file, rank] : [file, 7 - rank];
  }
  function renderBoard(svg, fen, last) {
    const flip = svg.getAttribute("data-flip") === "1";
    const placement = (fen || "").split(" ")[0];
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
        parts.push('<rect x="' + x + '" y="' + y + '" width="1" height="1" class="' + shade + (marked.has(name) ? " hl" : "") + '"/>');
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
  }
  BW.renderBoard = renderBoard;

  // -- clocks --------------------------------------------------------------------------
  function fmt(s) {
    if (s === null || s === undefined || s === "" || isNaN(s)) return "–";
    s = Math.max(0, Math.floor(s));
    return Math.floor(s / 3600) + ":" + String(Math.floor(s / 60) % 60).padStart(2, "0") + ":" + String(s % 60).padStart(2, "0");
  }
  BW.fmt = fmt;
  function setClocks(root, white, black, running) {
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
  function moveItem(m) {
    const li = document.createElement("li");
    li.setAttribute("data-ply", String(m.ply));
    const no = document.createElement("span");
    no.className = "no";
    no.textContent = Math.floor((m.ply + 1) / 2) + (m.ply % 2 ? "." : "…");
    li.appendChild(no);
    li.appendChild(document.createTextNode(" "));
    const san = document.createElement("span");
    san.className = "san";
    san.textContent = m.san;
    li.appendChild(san);
    if (m.clock !== null && m.clock !== undefined) {
      const clk = document.createElement("span");
      clk.className = "clk";
      clk.textContent = " " + fmt(Math.round(m.clock));
      li.appendChild(document.createTextNode(" "));
      li.appendChild(clk);
    }
    return li;
  }
  // The result badge (same markup as the result_badge macro in _macros.html): the result
  // and why, or the proposed result awaiting the arbiter, and whose flag fell.
  function span(className, text) { const el = document.createElement("span"); el.className = className; el.textContent = text; return el; }
  function showResult(root, g) {
    for (const el of root.querySelectorAll(".result")) {
      const parts = [];
      if (g.result && g.result !== "*") {
        const badge = span("resultbadge", g.result);
        if (g.result_reason) badge.append(" ", span("why", g.result_reason));
        parts.push(badge);
      } else if (g.pending_result) {
        parts.push(span("pending", g.pending_result.result + "? " + g.pending_result.reason + ", awaiting the arbiter"));
      }
      if (g.flag) parts.push(" ", span("flagbadge", "⚑ " + g.flag + "'s flag fell"));
      el.replaceChildren(...parts);
    }
  }
  function showGame(g) {
    for (const root of gameRoots(g.id)) {
      if (root.tagName === "svg") continue;
      const svg = root.querySelector("svg.board");
      if (svg) renderBoard(svg, g.fen, g.last_move ? g.last_move.uci : (g.moves && g.moves.length ? g.moves[g.moves.length - 1].uci : ""));
      if (g.clock) setClocks(root, g.clock.white, g.clock.black, g.clock.running);
      const lastSan = g.last_move ? g.last_move.san : null;
      setText(root, ".last", lastSan ? moveText(g.ply, lastSan) : "not started");
      showResult(root, g);
      setText(root, ".ply", String(g.ply));
      const list = root.querySelector("#moves");
      if (list && g.moves) {
        list.replaceChildren(...g.moves.map(moveItem));
      }
    }
  }
  function applyMove(d) {
    for (const root of gameRoots(d.game)) {
      if (root.tagName === "svg") continue;
      const last = d.moves[d.moves.length - 1];
      const svg = root.querySelector("svg.board");
      if (svg) renderBoard(svg, d.fen, last.uci);
      setClocks(root, d.clock.white, d.clock.black, d.clock.running);
      setText(root, ".last", moveText(last.ply, last.san));
      setText(root, ".ply", String(d.ply));
      const list = root.querySelector("#moves");
      if (list) {
        for (const li of Array.from(list.children)) {
          if (Number(li.getAttribute("data-ply")) >= d.moves[0].ply) li.remove();
        }
        for (const m of d.moves) list.appendChild(moveItem(m));
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
  function showStandings(rows) {
    const table = document.getElementById("standings");
    if (!table) return;
    const tbody = table.querySelector("tbody");
    tbody.replaceChildren(...rows.map((r) => {
      const tr = document.createElement("tr");
      const cells = [r.rank, (r.title ? r.title + " " : "") + r.name, r.rating || "", r.federation || "", r.points];
      for (const v of Object.values(r.tiebreaks || {})) cells.push(v === null ? "" : v);
      for (const c of cells) { const td = document.createElement("td"); td.textContent = String(c); tr.appendChild(td); }
      return tr;
    }));
  }
  function apply(msg) {
    switch (msg.type) {
      case "move": applyMove(msg); break;
      case "clock": for (const root of gameRoots(msg.game)) if (root.tagName !== "svg") setClocks(root, msg.white, msg.black, msg.running); break;
      case "result": for (const root of gameRoots(msg.game)) if (root.tagName !== "svg") showResult(root, msg); break;
      case "game": showGame(msg.game); break;
      case "removed":  // its pairing was taken away (a withdrawal): drop its card
        for (const root of gameRoots(msg.game)) {
          if (root === body) status("this game was removed from the pairings", "off");
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
    const path = body.getAttribute("data-channel") === "arbiter" ? "/arbiter/ws" : "/ws";
    const ws = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + path);
    BW.ws = ws;
    ws.onopen = function () { backoff = 500; ws.send(JSON.stringify(subscription())); };
    ws.onmessage = function (ev) {
      let msg;
      try { msg = JSON.parse(ev.data); } catch (e) { return; }
      if (msg.type === "snapshot") {
        BW.seq = msg.seq; BW.epoch = msg.epoch; BW.clockRate = msg.clock_rate || 1; BW.snapshot = msg;
        const delay = msg.delay ? " (delayed " + Math.round(msg.delay) + " s)" : "";
        status("live" + delay, "live");
        applySnapshot(msg);
      } else if (msg.type === "resync" || msg.type === "pong" || msg.type === "error") {
        if (msg.type === "error") status(msg.message, "error");
        return;
      } else {
        if (typeof msg.seq === "number") {
          if (msg.seq <= BW.seq) return;  // already in the snapshot
          BW.seq = msg.seq;
        }
        if (body.getAttribute("data-state") !== "live") status(BW.snapshot && BW.snapshot.delay ? "live (delayed " + Math.round(BW.snapshot.delay) + " s)" : "live", "live");
        apply(msg);
      }
      for (const hook of BW.hooks) hook(msg);
    };
    ws.onclose = function () {
      status("reconnecting…", "off");
      setTimeout(connect, backoff);
      backoff = Math.min(backoff * 2, 15000);
    };
  }
  document.addEventListener("DOMContentLoaded", connect);
  if (document.readyState !== "loading") connect();
})();
