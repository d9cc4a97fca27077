// The arbiter desk: boards' health, alerts and the boards to set up, live; a sound and a
// count for new alerts, an alarm for critical ones; its forms act in place (no reload).
"use strict";
(function () {
  const BW = window.BW;
  const body = document.body;
  const csrf = body.getAttribute("data-csrf");
  const loadedAt = performance.now();
  let serverNow = Number(body.getAttribute("data-now"));
  // The arbiter's choices survive a reload (and the desk's actions do not reload).
  const STORE = { sound: "boardwire.desk.sound", alarm: "boardwire.desk.alarm" };
  function remembered(key) { try { return localStorage.getItem(key) === "on"; } catch (e) { return false; } }
  function remember(key, on) { try { localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* private mode */ } }
  let sound = remembered(STORE.sound);
  let alarm = remembered(STORE.alarm);
  const live = { boards: null, alerts: null, waiting: null };  // what the socket said last
  const touched = new Set();  // the <details> the arbiter opened or closed by hand
  document.addEventListener("click", (ev) => {
    const summary = ev.target instanceof Element ? ev.target.closest("summary") : null;
    if (summary && summary.parentElement && summary.parentElement.tagName === "DETAILS") {
      touched.add(detailsKey(summary.parentElement));
    }
  });
  // Words in the desk's language (live.js reads them from the page's JSON block).
  const LANG = document.documentElement.lang || "en";
  const ENGLISH = {
    yes: "yes", no: "NO", no_since: "NO since ", never: "never", ago: " ago", acknowledge: "Acknowledge",
    mark_white: "Mark White present", mark_black: "Mark Black present",
    confirm: "Confirm %(result)s", set_instead: "Set instead", another_result: "another result", choose: "choose…",
    reject: "Reject: the game goes on", the_game: "the game", no_alerts: "No open alerts.",
    no_closed: "No closed alerts yet.",
    sound_on: "sound on", sound_off: "sound off", alarm_on: "alarm on", alarm_off: "alarm off",
    not_sent: "Not sent: the desk cannot reach the server. Try again.",
    spare_title: "Board %(board)s: %(white)s – %(black)s (%(game)s, after ply %(ply)s)",
    moved_here: "Moved here from board %(board)s.", corrected_here: "Corrected by the arbiter: set up the corrected position.",
    must_show: "Must show:", still_differ: "Squares that still differ:", board_matches: "The board matches.",
    no_position: "Board %(board)s has shown no position yet.", matched: "Matches: the game goes on on board %(board)s.",
  };
  function t(key, vars) {
    const text = (BW.texts && BW.texts[key]) || ENGLISH[key] || key;
    return text.replace(/%\((\w+)\)s/g, (all, name) => (vars && name in vars ? String(vars[name]) : all));
  }
  // An alert's title in the desk's language (the server sends each language's).
  function titleOf(a) { return (a.titles && a.titles[LANG]) || a.title; }
  function messageOf(a) { return (a.messages && a.messages[LANG]) || a.message; }

  function nowEstimate() {
    return serverNow + ((performance.now() - loadedAt) / 1000) * (BW.clockRate || 1);
  }
  function cell(text) { const td = document.createElement("td"); td.textContent = text; return td; }
  function age(t) {
    const span = document.createElement("span");
    span.className = "age";
    span.setAttribute("data-t", String(t));
    span.textContent = Math.max(0, Math.round(nowEstimate() - t)) + " s";
    return span;
  }
  function showBoards(boards) {
    const tbody = document.querySelector("#boards tbody");
    if (!tbody) return;
    tbody.replaceChildren(...boards.map((b) => {
      const tr = document.createElement("tr");
      tr.setAttribute("data-board", String(b.number));
      tr.className = b.connected ? "ok" : "bad";
      tr.append(cell(String(b.table)), cell(b.serial || "–"), cell(b.connected ? t("yes") : t("no")),
        cell(b.battery === null ? "–" : b.battery + "%"),
        cell(b.clock_present === null ? "?" : b.clock_present ? t("yes") : t("no")));
      const sync = cell(b.in_sync === null ? "–" : b.in_sync ? t("yes") : t("no_since"));
      if (b.in_sync === false && b.out_since !== null) sync.appendChild(age(b.out_since));
      const seen = cell(b.last_seen === null ? t("never") : "");
      if (b.last_seen !== null) { seen.appendChild(age(b.last_seen)); seen.appendChild(document.createTextNode(t("ago"))); }
      tr.append(sync, seen, cell(b.game || ""));
      return tr;
    }));
  }
  const results = (body.getAttribute("data-results") || "").split(" ").filter(Boolean);
  function deskForm(action, fields, label, className) {
    const form = document.createElement("form");
    form.method = "post"; form.action = "/arbiter/act/" + action; form.className = "inline " + (className || "");
    for (const [name, value] of [["csrf", csrf], ...fields]) {
      const input = document.createElement("input");
      input.type = "hidden"; input.name = name; input.value = value;
      form.appendChild(input);
    }
    const button = document.createElement("button");
    button.type = "submit"; button.textContent = label;
    form.appendChild(button);
    return form;
  }
  function ackForm(id) { return deskForm("ack", [["alert", id]], t("acknowledge")); }
  // "Mark White present" / "Mark Black present" on a late or check-presence alert.
  const PRESENCE_KINDS = new Set(["late", "check-presence"]);
  function presenceForms(a) {
    return [["white", "mark_white"], ["black", "mark_black"]].map(([colour, key]) =>
      deskForm("present", [["game", a.game], ["colour", colour]], t(key), "present"));
  }
  // A proposed result: confirm it in one click, choose another one, or reject it.
  function proposalForms(a) {
    const confirm = deskForm("confirm", [["game", a.game]], t("confirm", { result: a.result }), "confirm");
    const override = deskForm("result", [["game", a.game]], t("set_instead"), "override");
    const select = document.createElement("select");
    select.name = "result"; select.required = true; select.setAttribute("aria-label", t("another_result"));
    // A neutral first entry: nothing is recorded until the arbiter picks a result.
    const neutral = document.createElement("option");
    neutral.value = ""; neutral.textContent = t("choose"); select.appendChild(neutral);
    for (const r of results) {
      if (r === a.result) continue;
      const option = document.createElement("option"); option.textContent = r; select.appendChild(option);
    }
    if (chosen.has(a.id)) select.value = chosen.get(a.id);
    select.addEventListener("change", function () { chosen.set(a.id, select.value); });
    override.insertBefore(select, override.querySelector("button"));
    const reject = deskForm("reject", [["game", a.game]], t("reject"), "reject apart");
    return [confirm, override, reject];
  }
  // The arbiter's pick in each "Set instead" and the focused control survive every rebuild
  // of the list (a new alert must never change what one click would record).
  const chosen = new Map();
  function focusedControl(list) {
    const el = document.activeElement;
    const li = el && list.contains(el) ? el.closest("li[data-alert]") : null;
    if (!li) return null;
    const form = el.closest("form");
    return { alert: li.getAttribute("data-alert"), action: form ? form.getAttribute("action") : "", tag: el.tagName };
  }
  function refocus(list, where) {
    if (!where) return;
    for (const li of list.querySelectorAll("li[data-alert]")) {
      if (li.getAttribute("data-alert") !== where.alert) continue;
      for (const form of li.querySelectorAll("form")) {
        if (form.getAttribute("action") !== where.action) continue;
        const el = form.querySelector(where.tag.toLowerCase());
        if (el) el.focus();
      }
    }
  }
  function showAlerts(alerts, fresh) {
    const list = document.getElementById("alerts");
    if (!list) return;
    for (const select of list.querySelectorAll("li[data-alert] form.override select")) {
      const id = select.closest("li").getAttribute("data-alert");
      if (select.value) chosen.set(id, select.value);
    }
    const open = new Set(alerts.map((a) => a.id));
    for (const id of [...chosen.keys()]) if (!open.has(id)) chosen.delete(id);
    const where = focusedControl(list);
    const items = alerts.map((a) => {
      const li = document.createElement("li");
      li.className = "alert " + a.severity + (a.result ? " proposal" : "") + (fresh.includes(a.id) ? " new" : "");
      li.setAttribute("data-alert", a.id); li.setAttribute("data-kind", a.kind);
      const title = document.createElement("strong");  // in words, from the server
      title.className = "title"; title.textContent = titleOf(a);
      li.append(title, document.createTextNode(" "));
      if (a.result) {
        const proposed = document.createElement("span");
        proposed.className = "proposed"; proposed.textContent = a.result + " · " + ((BW.texts && BW.texts.reasons && BW.texts.reasons[a.reason_text]) || a.reason_text || a.reason);
        li.append(proposed, document.createTextNode(" "));
      }
      const message = document.createElement("span");
      message.className = "message"; message.textContent = messageOf(a);
      li.append(message, document.createTextNode(" "));
      if (a.game) { const link = document.createElement("a"); link.href = "#g-" + a.game; link.textContent = t("the_game"); li.append(link, document.createTextNode(" ")); }
      // A proposal is confirmed, replaced or rejected; acknowledging it would leave the
      // result pending for ever, so it has no "Acknowledge".
      if (a.result && a.game) li.append(...proposalForms(a));
      else {
        // A player late or not seen: the arbiter answers on the alert itself (M6).
        if (PRESENCE_KINDS.has(a.kind) && a.game) li.append(...presenceForms(a));
        li.appendChild(ackForm(a.id));
      }
      return li;
    });
    if (!items.length) { const li = document.createElement("li"); li.className = "none"; li.textContent = t("no_alerts"); items.push(li); }
    list.replaceChildren(...items);
    refocus(list, where);
    const count = document.getElementById("alert-count");
    if (count) { count.textContent = String(alerts.length); count.classList.toggle("some", alerts.length > 0); }
    ring(alerts, fresh);
    if (fresh.length) {
      document.title = "(" + alerts.length + ") " + document.title.replace(/^\(\d+\) /, "");
    }
  }
  // Closed alerts stay readable: when, why and who closed them (from the server).
  function showClosed(closed) {
    const list = document.getElementById("closed");
    if (!list) return;
    const items = closed.map((a) => {
      const li = document.createElement("li");
      li.className = "alert closed " + a.severity;
      li.setAttribute("data-alert", a.id); li.setAttribute("data-kind", a.kind);
      const title = document.createElement("strong");
      title.className = "title"; title.textContent = titleOf(a);
      const how = document.createElement("span");
      how.className = "closed-how";
      how.textContent = (a.closed.lines && a.closed.lines[LANG]) || a.closed.line;
      li.append(title, document.createTextNode(" "), how);
      return li;
    });
    if (!items.length) { const li = document.createElement("li"); li.className = "none"; li.textContent = t("no_closed"); items.push(li); }
    list.replaceChildren(...items);
    const count = document.getElementById("closed-count");
    if (count) count.textContent = String(closed.length);
    // The first closed alert shows itself, unless the arbiter folded the section away.
    const section = document.getElementById("closed-section");
    if (section && closed.length && !section.open && !closedFolded()) section.open = true;
  }
  function closedFolded() {
    const section = document.getElementById("closed-section");
    return Boolean(section && touched.has("#closed-section") && !section.open);
  }
  // The links the venue depends on (the stream to the mirrors): their state, refreshed.
  function refreshLinks() {
    const list = document.getElementById("links");
    if (!list) return;
    fetch("/arbiter/links.json", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((links) => {
        if (!links) return;
        for (const link of links) {
          const li = [...list.querySelectorAll("li[data-link]")].find((el) => el.getAttribute("data-link") === link.name);
          const state = li && li.querySelector(".state");
          if (state) state.textContent = link.state;
        }
      })
      .catch(() => { /* tried again at the next turn */ });
  }
  if (document.getElementById("links") && !document.getElementById("links").hidden) setInterval(refreshLinks, 5000);
  // The capture stations (serve --stations): up, lag, clock offset, boards, refreshed.
  function refreshStations() {
    const table = document.getElementById("stations-table");
    if (!table) return;
    fetch("/api/v1/arbiter/stations", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((stations) => {
        if (!stations) return;
        for (const s of stations) {
          const row = [...table.querySelectorAll("tr[data-station]")].find((el) => el.getAttribute("data-station") === s.name);
          if (!row) continue;
          const cell = (name, text) => { const el = row.querySelector("." + name); if (el) el.textContent = text; };
          row.className = s.up ? "ok" : "bad";
          cell("up", s.up ? table.dataset.yes : (s.seen ? table.dataset.lost : table.dataset.notYet));
          cell("lag", s.lag === null ? "–" : s.lag.toFixed(1) + " s");
          cell("offset", s.offset === null ? "–" : (s.offset >= 0 ? "+" : "") + s.offset.toFixed(2) + " s");
          cell("connected", s.connected.length + " / " + s.boards.length);
          cell("waiting", String(s.waiting));
        }
      })
      .catch(() => { /* tried again at the next turn */ });
  }
  if (document.getElementById("stations-table")) setInterval(refreshStations, 2000);
  function refreshClosed() {
    fetch("/arbiter/closed.json", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : null))
      .then((closed) => { if (closed) showClosed(closed); })
      .catch(() => { /* the next change of the alerts tries again */ });
  }
  // -- boards to set up: a spare that took a game over, or a board after a correction ------
  // Same markup as the "Spare boards" section of arbiter.html; follows the pieces as they
  // go up (the socket's "waiting" list), and says so when a board matches.
  const SVG_NS = "http://www.w3.org/2000/svg";
  const matched = new Map();  // game -> hall board: matched since the page was loaded
  function para(className, text) {
    const p = document.createElement("p");
    p.className = className; p.textContent = text;
    return p;
  }
  function markSquares(svg, squares) {
    const flip = svg.getAttribute("data-flip") === "1";
    for (const name of squares) {
      const file = "abcdefgh".indexOf(name[0]), rank = Number(name[1]) - 1;
      if (file < 0 || !(rank >= 0 && rank < 8)) continue;
      const x = flip ? 7 - file : file, y = flip ? rank : 7 - rank;
      const rect = svg.querySelector('rect[x="' + x + '"][y="' + y + '"]');
      if (rect) rect.classList.add("differ");
    }
  }
  function waitingItem(w) {
    const div = document.createElement("div");
    div.className = "spare";
    div.setAttribute("data-waiting", w.game); div.setAttribute("data-board", String(w.board));
    const h3 = document.createElement("h3");
    h3.textContent = t("spare_title", { board: w.board, white: w.white, black: w.black, game: w.game, ply: w.ply });
    const why = para("why", w.why === "replaced" ? t("moved_here", { board: w.from_board }) : t("corrected_here"));
    const picture = document.createElement("div");
    picture.className = "spare-board";
    const svg = document.createElementNS(SVG_NS, "svg");
    svg.setAttribute("class", "board"); svg.setAttribute("viewBox", "0 0 8 8"); svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "position " + (w.must_show || "").split(" ")[0]); svg.setAttribute("data-flip", "0");
    BW.renderBoard(svg, w.must_show, "", false);
    markSquares(svg, w.differs || []);
    picture.appendChild(svg);
    const must = para("must-show", t("must_show") + " ");
    const code = document.createElement("code"); code.textContent = w.must_show;
    must.appendChild(code);
    const differs = para("differs", "");
    if (w.differs && w.differs.length) {
      const strong = document.createElement("strong"); strong.textContent = w.differs.join(" ");
      differs.append(t("still_differ") + " ", strong);
    } else {
      differs.textContent = w.shown ? t("board_matches") : t("no_position", { board: w.board });
    }
    div.append(h3, why, picture, must, differs);
    return div;
  }
  // A board that matched: its entry stays as one line until the page is loaded again.
  function matchedItem(game, board, old) {
    const div = document.createElement("div");
    div.className = "spare matched";
    div.setAttribute("data-waiting", game); div.setAttribute("data-board", String(board));
    const h3 = old ? old.querySelector("h3") : null;
    if (h3) div.appendChild(h3.cloneNode(true));
    div.appendChild(para("differs", t("matched", { board: board })));
    return div;
  }
  function showWaiting(waiting) {
    const box = document.getElementById("waiting");
    const section = document.getElementById("spares");
    if (!box || !section) return;
    const old = new Map(Array.from(box.querySelectorAll("[data-waiting]"), (el) => [el.getAttribute("data-waiting"), el]));
    const items = waiting.map((w) => { matched.delete(w.game); return waitingItem(w); });
    for (const [game, board] of matched) items.push(matchedItem(game, board, old.get(game)));
    box.replaceChildren(...items);
    section.hidden = items.length === 0;
  }
  // The sync delta comes before the waiting list that no longer has the game.
  function boardMatched(game) {
    const box = document.getElementById("waiting");
    const el = box ? box.querySelector('[data-waiting="' + CSS.escape(game) + '"]:not(.matched)') : null;
    if (!el) return;
    const board = Number(el.getAttribute("data-board"));
    matched.set(game, board);
    el.replaceWith(matchedItem(game, board, el));
  }
  // -- sound and alarm ------------------------------------------------------------------
  // A new alert: one tone (the bell). A critical alert with the alarm on: the tone again
  // every few seconds, a vibration and a notification, until it is acknowledged (it leaves
  // the open alerts) or the arbiter silences it. `window.BWDesk` lets tests count tones.
  const hook = window.BWDesk = { tones: 0, ringing: false, repeatMs: 4000, notified: 0 };
  let audio = null;
  function tone(freq) {
    hook.tones += 1;
    try {
      audio = audio || new (window.AudioContext || window.webkitAudioContext)();
      if (audio.state === "suspended") audio.resume();
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq; gain.gain.value = 0.15;
      osc.connect(gain); gain.connect(audio.destination);
      osc.start(); osc.stop(audio.currentTime + 0.25);
    } catch (e) { /* no audio: the count and the highlight still show it */ }
  }
  function beep() { if (sound) tone(880); }
  // Browsers start audio only after a gesture: a remembered "sound on" waits for the first.
  function unlock() {
    if ((sound || alarm) && audio === null) {
      try { audio = new (window.AudioContext || window.webkitAudioContext)(); } catch (e) { /* none */ }
    }
    if (audio && audio.state === "suspended") audio.resume();
  }
  document.addEventListener("pointerdown", unlock, { capture: true });
  document.addEventListener("keydown", unlock, { capture: true });
  let critical = [];  // the open critical alerts (id, title, message)
  const silenced = new Set();
  let timer = null;
  function loud() { return critical.filter((a) => !silenced.has(a.id)); }
  function alarmTurn() {
    const due = loud();
    hook.ringing = alarm && due.length > 0;
    const silence = document.getElementById("alarm-silence");
    if (silence) silence.hidden = !hook.ringing;
    if (!hook.ringing) { if (timer !== null) { clearTimeout(timer); timer = null; } return; }
    tone(988);
    if (navigator.vibrate) { try { navigator.vibrate([300, 150, 300]); } catch (e) { /* not allowed */ } }
    timer = setTimeout(alarmTurn, hook.repeatMs);
  }
  function notify(a) {
    if (!alarm || !("Notification" in window) || Notification.permission !== "granted") return;
    try {
      new Notification(titleOf(a), { body: messageOf(a), tag: a.id, requireInteraction: true });
      hook.notified += 1;
    } catch (e) { /* some phones allow notifications only from a service worker */ }
  }
  // The open alerts changed: ring for the critical ones, one tone for any other new one.
  function ring(alerts, fresh) {
    critical = alerts.filter((a) => a.severity === "critical");
    const open = new Set(critical.map((a) => a.id));
    for (const id of [...silenced]) if (!open.has(id)) silenced.delete(id);
    const freshCritical = critical.filter((a) => fresh.includes(a.id));
    for (const a of freshCritical) notify(a);
    if (alarm && loud().length) {
      if (timer === null || freshCritical.length) { if (timer !== null) clearTimeout(timer); alarmTurn(); }
    } else {
      alarmTurn();  // stops it: nothing left to ring for
      if (fresh.length) beep();
    }
  }
  function showChoice(button, on, words) {
    if (!button) return;
    button.querySelector(".label").textContent = on ? t(words[0]) : t(words[1]);  // the icon is inline SVG: no emoji font needed
    button.setAttribute("aria-pressed", String(on));
  }
  const toggle = document.getElementById("sound-toggle");
  const alarmToggle = document.getElementById("alarm-toggle");
  showChoice(toggle, sound, ["sound_on", "sound_off"]);
  showChoice(alarmToggle, alarm, ["alarm_on", "alarm_off"]);
  if (toggle) toggle.addEventListener("click", function () {
    sound = !sound;  // browsers allow audio only after a gesture: this click is it
    remember(STORE.sound, sound);
    showChoice(toggle, sound, ["sound_on", "sound_off"]);
    if (sound) beep();
  });
  if (alarmToggle) alarmToggle.addEventListener("click", function () {
    alarm = !alarm;
    remember(STORE.alarm, alarm);
    showChoice(alarmToggle, alarm, ["alarm_on", "alarm_off"]);
    // Asked on the arbiter's tap, never on load: browsers refuse (or nag) otherwise.
    if (alarm && "Notification" in window && Notification.permission === "default") {
      try { Notification.requestPermission(); } catch (e) { /* an old callback-only API */ }
    }
    unlock();
    if (timer !== null) { clearTimeout(timer); timer = null; }
    alarmTurn();
  });
  const silence = document.getElementById("alarm-silence");
  if (silence) silence.addEventListener("click", function () {
    for (const a of critical) silenced.add(a.id);
    alarmTurn();
  });
  // A form's player pickers offer the players of the section chosen in that form.
  function pointPickers(select) {
    const form = select.closest("form");
    if (!form) return;
    for (const input of form.querySelectorAll("input[data-players]")) {
      input.setAttribute("list", "players-" + select.value);
    }
  }
  function pointAll() { for (const select of document.querySelectorAll("select[data-section]")) pointPickers(select); }
  document.addEventListener("change", function (event) {
    if (event.target.matches && event.target.matches("select[data-section]")) pointPickers(event.target);
  });
  pointAll();
  // The confirmation box is what the arbiter must read first.
  const pending = document.getElementById("confirm");
  if (pending) pending.scrollIntoView({ block: "start" });

  // -- acting in place --------------------------------------------------------------------
  // A desk form is posted by the script: the server answers the desk itself, with what was
  // done, why not, or what to confirm (409), and its <main> replaces this one. The scroll
  // position, the open <details> and the sound stay as the arbiter left them; after a
  // confirmation the desk goes back to where the action was asked.
  const ACTING = /^\/arbiter\/(act|regs)\//;
  let before = null;  // the scroll position when an action asked for a confirmation
  function detailsKey(el) {
    if (el.id) return "#" + el.id;
    const owner = el.parentElement && el.parentElement.closest("[id]");
    return (owner ? "#" + owner.id : "") + " " + el.className;
  }
  function swapMain(html) {
    const main = document.querySelector("main");
    const fresh = new DOMParser().parseFromString(html, "text/html").querySelector("main");
    if (!main || !fresh) return false;
    // Only what the arbiter opened or closed by hand is kept; the rest is as the server
    // renders it (the Closed alerts open once there are some).
    const opened = new Map(Array.from(main.querySelectorAll("details"), (d) => [detailsKey(d), d.open]));
    const y = window.scrollY;
    main.replaceWith(fresh);
    for (const d of fresh.querySelectorAll("details")) {
      const key = detailsKey(d);
      if (opened.has(key) && touched.has(key)) d.open = opened.get(key);
    }
    pointAll();
    // The page was rendered when the action was answered; the socket may have told of
    // something newer meanwhile (an alert raised a second later), and it tells every
    // change: what it said last is drawn again over the swapped page.
    if (live.boards) showBoards(live.boards);
    if (live.alerts) { showAlerts(live.alerts, []); refreshClosed(); }
    if (live.waiting) showWaiting(live.waiting);
    window.scrollTo(0, y);
    return true;
  }
  function flashRefusal(text) {
    const main = document.querySelector("main");
    if (!main) return;
    for (const old of main.querySelectorAll(":scope > .flash")) old.remove();
    const p = document.createElement("p");
    p.className = "flash error"; p.setAttribute("role", "alert"); p.textContent = text;
    main.prepend(p);
  }
  async function actInPlace(form, submitter) {
    const data = new URLSearchParams(new FormData(form, submitter || undefined));
    const y = window.scrollY;
    let response;
    try {
      response = await fetch(form.getAttribute("action"), {
        method: "POST", body: data, credentials: "same-origin",
        headers: { "X-Desk": "in-place" },
      });
    } catch (e) { flashRefusal(t("not_sent")); return; }
    const type = response.headers.get("Content-Type") || "";
    if (!type.startsWith("text/html")) {  // the session ended, a 403 or 404: the server's answer as a page
      window.location.assign("/arbiter"); return;
    }
    if (!swapMain(await response.text())) { window.location.assign("/arbiter"); return; }
    const box = document.getElementById("confirm");
    if (response.status === 409 && box) {
      if (before === null) before = y;
      box.scrollIntoView({ block: "start" });
      const go = box.querySelector("button.danger");
      if (go) go.focus();
    } else {
      // The message sticks to the top of the screen (style.css): seen without scrolling.
      if (before !== null) { window.scrollTo(0, before); before = null; }
    }
  }
  document.addEventListener("submit", function (event) {
    const form = event.target;
    if (!(form instanceof HTMLFormElement) || !ACTING.test(form.getAttribute("action") || "")) return;
    if (!window.fetch || !window.DOMParser) return;  // the page's own post and redirect
    event.preventDefault();
    actInPlace(form, event.submitter);
  });
  // Cancel in the confirmation box: nothing was done, the box goes and the desk stays.
  document.addEventListener("click", function (event) {
    const flash = event.target.closest && event.target.closest("main > .flash");
    if (flash) { flash.remove(); return; }  // read: tapped away
    const cancel = event.target.closest && event.target.closest("#confirm a.cancel");
    if (!cancel) return;
    event.preventDefault();
    const box = document.getElementById("confirm");
    if (box) box.remove();
    if (before !== null) { window.scrollTo(0, before); before = null; }
  });
  setInterval(function () {
    for (const el of document.querySelectorAll(".age[data-t]")) {
      el.textContent = Math.max(0, Math.round(nowEstimate() - Number(el.getAttribute("data-t")))) + " s";
    }
  }, 1000);
  BW.hooks.push(function (msg) {
    if (msg.type === "snapshot") {
      if (msg.now) serverNow = msg.now - ((performance.now() - loadedAt) / 1000) * (msg.clock_rate || 1);
      if (msg.data.boards) { live.boards = msg.data.boards; showBoards(msg.data.boards); }
      if (msg.data.alerts) { live.alerts = msg.data.alerts; showAlerts(msg.data.alerts, []); refreshClosed(); }
      if (msg.data.waiting) { live.waiting = msg.data.waiting; showWaiting(msg.data.waiting); }
    } else if (msg.type === "waiting") {
      live.waiting = msg.waiting;
      showWaiting(msg.waiting);
    } else if (msg.type === "sync") {
      if (msg.in_sync) boardMatched(msg.game);
    } else if (msg.type === "boards") {
      live.boards = msg.boards;
      showBoards(msg.boards);
    } else if (msg.type === "alerts") {
      live.alerts = msg.alerts;
      showAlerts(msg.alerts, msg.new || []);
      refreshClosed();
      refreshLinks();  // a link going down or coming back comes with an alert
    }
  });
})();
