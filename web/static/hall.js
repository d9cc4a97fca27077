// The hall at a glance (/arbiter/hall), and the hall's live feed the results table shares.
//
// The feed: the hall JSON (GET /api/v1/arbiter/hall, web/arbiter/hall.py), first from the
// page's JSON block, then read again whenever the desk's websocket (live.js, /arbiter/ws)
// says something that can change a table's state: a result, the alerts, a game replaced or
// removed, new pairings, a board coming or going, a first move. Moves and clocks need no
// reading: live.js draws them in place in every element carrying the game's data-game
// (the board with its own renderer, the clocks ticking).
"use strict";
(function () {
  const BW = window.BW;
  const body = document.body;
  const ENGLISH = {
    state_playing: "playing", state_pending: "result pending", state_finished: "finished",
    state_absent: "player absent", state_trouble: "board in trouble", table: "Table %(table)s",
    finished_of: "%(finished)s of %(tables)s finished", needs_me_count: "%(count)s need you",
    proposed: "proposed %(result)s", to_move: "to move", not_seen: "not seen yet: %(who)s",
    white: "White", black: "Black", board_n: "board %(board)s", no_tables: "No round is being played.",
    no_match: "No table matches the filter.",
    walk_here: "%(who)s here", walk_absent: "%(who)s absent", walk_both: "Both here",
    walk_to_check: "Default time passed: who is here?", walk_present: "here", walk_away: "absent",
    walk_unknown: "not known", not_done: "Not done: %(why)s",
    "how_board": "the board", "how_check-in": "the player checked in", "how_arbiter": "arbiter",
  };
  function t(key, vars) {
    const text = (BW.texts && BW.texts[key]) || ENGLISH[key] || key;
    return text.replace(/%\((\w+)\)s/g, (all, name) => (vars && name in vars ? String(vars[name]) : all));
  }
  // A result as people write it: ½ for a draw.
  function resultText(r) { return r === "1/2-1/2" ? "½-½" : r === "-/-" ? "-/-" : r || ""; }
  function el(tag, className, text) {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }

  // -- the feed -------------------------------------------------------------------------
  const listeners = [];
  let hall = null;
  try { hall = JSON.parse(document.getElementById("hall-data").textContent); } catch (e) { hall = null; }
  let reading = false, again = false, timer = null;
  function read() {
    if (reading) { again = true; return; }
    reading = true;
    fetch("/api/v1/arbiter/hall", { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((data) => { if (data) publish(data); })
      .catch(() => { /* the next message or the reconnect reads it again */ })
      .finally(() => { reading = false; if (again) { again = false; read(); } });
  }
  // Several messages come in a burst (a result, its alert closing): one read after them.
  function soon() { if (timer === null) timer = setTimeout(() => { timer = null; read(); }, 150); }
  function publish(data) {
    hall = data;
    for (const f of listeners) f(data);
  }
  const STATEFUL = new Set(["result", "alerts", "game", "removed", "pairings", "boards"]);
  BW.hooks.push(function (msg) {
    if (msg.type === "snapshot" || STATEFUL.has(msg.type)) soon();
    else if (msg.type === "move" && msg.ply <= 2) soon();  // a first move: the player is here
    else if (msg.type === "move") sideToMove(msg.game, msg.fen);
  });
  BW.hall = {
    // f(data) now and at every change; `read()` asks the server again (after an action).
    follow: function (f) { listeners.push(f); if (hall) f(hall); },
    read: read,
    t: t,
    resultText: resultText,
    el: el,
  };

  function sideToMove(game, fen) {
    const side = (fen || "").split(" ")[1] === "b" ? "black" : "white";
    for (const card of document.querySelectorAll('.htable[data-game="' + CSS.escape(game) + '"]')) {
      card.setAttribute("data-to-move", side);
    }
  }

  // -- the hall view --------------------------------------------------------------------
  const grid = document.getElementById("hall-tables");
  if (!grid) return;
  const shown = new Map();  // table key -> the JSON it was drawn from (redrawn when it changes)

  function playerLine(tbl, side) {
    const p = tbl[side];
    const line = el("div", "hpl " + side);
    line.setAttribute("data-colour", side);
    const who = el("span", "who");
    who.append(el("span", "name", p ? p.name : "?"));
    if (p && p.rating) who.append(el("span", "rating", String(p.rating)));
    line.append(who);
    if (tbl.clock) {
      const c = el("span", "clock", BW.fmt(tbl.clock[side]));
      c.setAttribute("data-side", side);
      c.setAttribute("data-seconds", tbl.clock[side] === null ? "" : String(tbl.clock[side]));
      c.setAttribute("data-since", String(performance.now()));
      if (tbl.clock.running === side && !tbl.result) c.classList.add("run");
      if (tbl.flag === side) c.classList.add("flagged");
      line.append(c);
    }
    const mark = el("span", "tomove", "●");
    mark.title = t("to_move");
    mark.setAttribute("aria-label", t("to_move"));
    line.append(mark);
    return line;
  }
  function card(tbl) {
    const c = el("article", "htable state-" + tbl.state + (tbl.needs_me ? " needs" : "") + (tbl.wired ? " wired" : ""));
    c.setAttribute("data-table", String(tbl.table));
    c.setAttribute("data-game", tbl.game);
    c.setAttribute("data-state", tbl.state);
    c.setAttribute("data-to-move", tbl.to_move);
    const head = el("div", "hhead");
    const no = el("a", "tno", String(tbl.table));
    no.href = "/arbiter#g-" + tbl.game;
    no.title = t("table", { table: tbl.table });
    head.append(no, el("span", "hstate", t("state_" + tbl.state)));
    head.append(el("span", "hwhere", tbl.section + " · " + t("board_n", { board: tbl.board })));
    c.append(head, playerLine(tbl, "black"));
    if (tbl.wired) {
      const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
      svg.setAttribute("class", "board");
      svg.setAttribute("viewBox", "0 0 8 8");
      svg.setAttribute("role", "img");
      svg.setAttribute("data-flip", "0");
      svg.setAttribute("aria-label", t("table", { table: tbl.table }));
      BW.renderBoard(svg, tbl.fen, tbl.last_move ? tbl.last_move.uci : "", tbl.last_move && /[+#]$/.test(tbl.last_move.san));
      c.append(svg);
    }
    c.append(playerLine(tbl, "white"));
    const res = el("div", "hres");
    if (tbl.result) res.append(el("strong", "final", resultText(tbl.result) + (tbl.result_reason ? " (" + tbl.result_reason + ")" : "")));
    else if (tbl.proposal) res.append(el("span", "pending", t("proposed", { result: resultText(tbl.proposal.result) }) + (tbl.proposal.reason ? " (" + tbl.proposal.reason + ")" : "")));
    else if (tbl.last_move) res.append(el("span", "last", Math.floor((tbl.ply + 1) / 2) + (tbl.ply % 2 ? ". " : "… ") + tbl.last_move.san));
    const missing = [];
    if (!tbl.result && !tbl.presence.white) missing.push(t("white"));
    if (!tbl.result && !tbl.presence.black) missing.push(t("black"));
    if (missing.length && (tbl.wired || (tbl.state === "absent" && !tbl.walk))) res.append(el("span", "notseen", t("not_seen", { who: missing.join(", ") })));
    c.append(res);
    if (!tbl.result && !tbl.wired && tbl.walk) c.append(walkLine(tbl));
    if (tbl.alerts.length) {
      const ul = el("ul", "halerts");
      for (const a of tbl.alerts) {
        const li = el("li", "sev-" + a.severity, a.title);
        li.setAttribute("data-kind", a.kind);
        ul.append(li);
      }
      c.append(ul);
    }
    return c;
  }
  // The hall walk: at a table without an e-board the arbiter says who is there, one tap a
  // player (the door's MarkPresent / MarkAbsent through the arbiter API; a question, 409,
  // is asked with the door's own words and sent again with its token).
  const csrf = body.getAttribute("data-csrf");
  function send(path, payload, note) {
    fetch(path, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
      body: JSON.stringify(payload),
    }).then((r) => r.json().catch(() => ({})).then((data) => ({ status: r.status, data: data })))
      .then((r) => {
        if (r.status === 200) { note.textContent = ""; read(); return; }
        if (r.status === 409 && r.data.confirm) {
          const words = [r.data.confirm.summary, ...(r.data.confirm.removes || []), ...(r.data.confirm.notes || [])];
          if (window.confirm(words.join("\n"))) send(path, Object.assign({}, payload, { confirm: r.data.confirm.token }), note);
          return;
        }
        note.textContent = t("not_done", { why: r.data.error || String(r.status) });
      })
      .catch(() => { note.textContent = t("not_done", { why: "no answer" }); });
  }
  function walkLine(tbl) {
    const box = el("div", "hwalk" + (tbl.to_check ? " to-check" : ""));
    if (tbl.to_check) box.append(el("p", "walk-ask", t("walk_to_check")));
    const note = el("p", "walk-error");
    note.setAttribute("role", "alert");
    const path = (what) => "/api/v1/arbiter/games/" + encodeURIComponent(tbl.game) + "/" + what;
    for (const side of ["white", "black"]) {
      const p = tbl.walk[side];
      const row = el("div", "walk-row walk-" + p.state);
      row.setAttribute("data-colour", side);
      row.append(el("span", "walk-who", t(side) + ": " + t(p.state === "present" ? "walk_present" : p.state === "absent" ? "walk_away" : "walk_unknown")
        + (p.how ? " (" + t("how_" + p.how) + ")" : "")));
      // Short words on the buttons (the row names the player); the whole for a reader.
      if (p.state !== "present") {
        const b = el("button", "walk-here", t("walk_present"));
        b.type = "button";
        b.setAttribute("aria-label", t("walk_here", { who: t(side) }));
        b.addEventListener("click", () => send(path("present"), { colour: side }, note));
        row.append(b);
      }
      if (p.state !== "absent" && p.how !== "board") {
        const b = el("button", "walk-absent", t("walk_away"));
        b.type = "button";
        b.setAttribute("aria-label", t("walk_absent", { who: t(side) }));
        b.addEventListener("click", () => send(path("absent"), { colour: side }, note));
        row.append(b);
      }
      box.append(row);
    }
    if (tbl.walk.white.state === "unknown" && tbl.walk.black.state === "unknown") {
      const b = el("button", "walk-both", t("walk_both"));
      b.type = "button";
      b.addEventListener("click", () => send(path("present"), { colour: "both" }, note));
      box.append(b);
    }
    box.append(note);
    return box;
  }
  function draw(data) {
    const counts = document.getElementById("hall-counts");
    if (counts) {
      counts.textContent = t("finished_of", { finished: data.counts.finished, tables: data.counts.tables })
        + (data.counts.needs_me ? " · " + t("needs_me_count", { count: data.counts.needs_me }) : "");
    }
    const keep = new Set();
    const cards = [];
    let group = "";
    for (const tbl of data.tables) {
      const key = tbl.game;
      // A team round: the match's teams over its tables (web/game_teams.py).
      if (tbl.match && group !== tbl.section + ":" + tbl.match) {
        group = tbl.section + ":" + tbl.match;
        // The team named first (the home team) is White here or not as the section's
        // rules say (`first_is_white`), so the heading names the teams in the match's order.
        const [first, second] = tbl.first_is_white
          ? [tbl.white_team, tbl.black_team] : [tbl.black_team, tbl.white_team];
        const head = el("h2", "hmatch", (first ? first.name : "?") + " – " + (second ? second.name : "?"));
        head.setAttribute("data-match", String(tbl.match));
        cards.push(head);
      }
      const json = JSON.stringify(tbl);
      keep.add(key);
      let c = grid.querySelector('.htable[data-game="' + CSS.escape(key) + '"]');
      if (!c || shown.get(key) !== json) {
        const fresh = card(tbl);
        if (c) c.replaceWith(fresh);
        c = fresh;
        shown.set(key, json);
      }
      cards.push(c);
    }
    for (const key of Array.from(shown.keys())) if (!keep.has(key)) shown.delete(key);
    // In table order; cards already in place stay (no flicker, the clocks keep ticking).
    grid.replaceChildren(...cards);
    if (!cards.length) grid.append(el("p", "none", t("no_tables")));
    emptyNote();
  }
  function emptyNote() {
    const old = grid.querySelector(".nomatch");
    if (old) old.remove();
    const any = Array.from(grid.querySelectorAll(".htable")).some((c) => getComputedStyle(c).display !== "none");
    if (!any && grid.querySelector(".htable")) grid.append(el("p", "none nomatch", t("no_match")));
  }
  // Filters: all tables, still playing (no result yet), needs me; the choice is remembered.
  const buttons = document.querySelectorAll(".hall-filters button[data-filter]");
  function filter(which) {
    grid.setAttribute("data-filter", which);
    for (const b of buttons) b.setAttribute("aria-pressed", String(b.getAttribute("data-filter") === which));
    try { localStorage.setItem("bw-hall-filter", which); } catch (e) { /* private mode */ }
    emptyNote();
  }
  for (const b of buttons) b.addEventListener("click", () => filter(b.getAttribute("data-filter")));
  let saved = null;
  try { saved = localStorage.getItem("bw-hall-filter"); } catch (e) { saved = null; }
  if (saved === "playing" || saved === "needs") filter(saved);
  grid.replaceChildren();
  BW.hall.follow(draw);
})();
