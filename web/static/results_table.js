// The results table (/arbiter/results): a table number, then one key or tap for the result.
//
// Keys (also on the page, "Keys"): digits type the table number, Enter chooses it; then
// 1 = 1-0, = or 5 = ½-½, 0 = 0-1, + = +/-, - = -/+, * or x = -/-; Esc goes back to the
// number; u undoes the last entry. A question (the door's 409: a result replaced, an undo)
// is shown in place: Enter confirms it (sent again with its token), Esc cancels.
// Every entry goes through the arbiter API, so through the one door; the table list stays
// live through the hall's feed (hall.js). Nothing reloads the page.
"use strict";
(function () {
  const BW = window.BW;
  const H = BW.hall;
  const t = H.t, el = H.el, resultText = H.resultText;
  const csrf = document.body.getAttribute("data-csrf");
  const ENGLISH = {
    no_table: "There is no table %(table)s.", choose_table: "Type a table number, or tap a table.",
    chosen: "Table %(table)s: choose the result.", sending: "Sending…", done: "Table %(table)s: %(result)s",
    undo: "Undo", undone: "undone", not_done: "Not done: %(why)s",
    no_connection: "No answer from the server: the result may not be set. Try again.",
  };
  function tr(key, vars) {
    const have = BW.texts && BW.texts[key];
    return have ? t(key, vars) : ENGLISH[key].replace(/%\((\w+)\)s/g, (all, n) => (vars && n in vars ? String(vars[n]) : all));
  }
  let KEYS = {};
  try { KEYS = JSON.parse(document.getElementById("result-keys").textContent); } catch (e) { KEYS = {}; }

  const input = document.getElementById("rt-table");
  const chosenLine = document.getElementById("rt-chosen");
  const status = document.getElementById("rt-status");
  const list = document.getElementById("rt-tables");
  const doneList = document.getElementById("rt-done");
  const box = document.getElementById("rt-confirm");
  const buttons = Array.from(document.querySelectorAll(".rt-results button[data-result]"));
  let hall = { tables: [], counts: { finished: 0, tables: 0 } };
  let chosen = null;   // the table number chosen, or null while typing one
  let busy = false;    // a request is on its way
  let question = null; // {yes: fn} while the door asks
  let byKeyboard = true;
  const entries = [];  // the last entries, newest first: {seq, table, result, summary, undone}

  function say(text, kind) {
    status.textContent = text;
    status.className = "rt-status" + (kind ? " " + kind : "");
    status.setAttribute("role", kind === "error" ? "alert" : "status");
  }
  function tableOf(number) { return hall.tables.find((x) => x.table === number) || null; }
  function names(x) { return (x.white ? x.white.name : "?") + " – " + (x.black ? x.black.name : "?"); }
  function standing(x) {
    if (x.result) return resultText(x.result);
    if (x.proposal) return t("proposed", { result: resultText(x.proposal.result) });
    return "";
  }

  // -- the list of tables ------------------------------------------------------------------
  function drawList() {
    const counts = document.getElementById("rt-counts");
    if (counts) counts.textContent = t("finished_of", { finished: hall.counts.finished, tables: hall.counts.tables });
    list.replaceChildren(...hall.tables.map((x) => {
      const li = el("li", "state-" + x.state + (x.table === chosen ? " chosen" : ""));
      li.setAttribute("data-table", String(x.table));
      li.setAttribute("data-game", x.game);
      const b = el("button", "rt-row");
      b.type = "button";
      b.append(el("span", "tno", String(x.table)), el("span", "names", names(x)), el("span", "res", standing(x)));
      b.addEventListener("click", () => { byKeyboard = false; choose(x.table); });
      li.append(b);
      return li;
    }));
    if (!hall.tables.length) list.append(el("li", "none", t("no_tables")));
  }
  H.follow(function (data) { hall = data; drawList(); if (chosen !== null) showChosen(); });

  // -- choosing a table --------------------------------------------------------------------
  function showChosen() {
    const x = tableOf(chosen);
    if (!x) { unchoose(); return; }
    const now = standing(x);
    chosenLine.textContent = tr("chosen", { table: x.table }) + " " + names(x) + (now ? " · " + now : "");
    for (const b of buttons) {
      b.disabled = false;
      b.classList.toggle("current", x.result === b.getAttribute("data-result"));
      b.classList.toggle("proposed", !x.result && x.proposal !== null && x.proposal.result === b.getAttribute("data-result"));
    }
  }
  function choose(number) {
    if (!tableOf(number)) { say(tr("no_table", { table: number }), "error"); return; }
    chosen = number;
    input.value = String(number);
    say("");
    for (const li of list.querySelectorAll("li.chosen")) li.classList.remove("chosen");
    const li = list.querySelector('li[data-table="' + number + '"]');
    if (li) { li.classList.add("chosen"); li.scrollIntoView({ block: "nearest" }); }
    showChosen();
  }
  function unchoose() {
    chosen = null;
    chosenLine.textContent = tr("choose_table");
    for (const b of buttons) { b.disabled = true; b.classList.remove("current", "proposed"); }
    for (const li of list.querySelectorAll("li.chosen")) li.classList.remove("chosen");
  }

  // -- talking to the door -----------------------------------------------------------------
  function post(path, body) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf, Accept: "application/json" },
      body: JSON.stringify(body || {}),
    }).then((r) => r.json().catch(() => ({})).then((data) => ({ status: r.status, data: data })));
  }
  // Send; the door's question (409) is shown and, once confirmed, sent again with its token.
  function ask(path, body, done) {
    busy = true;
    say(tr("sending"), "busy");
    post(path, body).then((r) => {
      busy = false;
      if (r.status === 200) { say(""); done(r.data); return; }
      if (r.status === 409 && r.data.confirm) {
        say("");
        showQuestion(r.data.confirm, () => ask(path, Object.assign({}, body, { confirm: r.data.confirm.token }), done));
        return;
      }
      say(tr("not_done", { why: r.data.error || String(r.status) }), "error");
    }).catch(() => { busy = false; say(tr("no_connection"), "error"); });
  }
  function showQuestion(words, yes) {
    box.querySelector(".summary").textContent = words.summary;
    const fill = (sel, items) => {
      const ul = box.querySelector("ul." + sel);
      ul.replaceChildren(...items.map((w) => el("li", "", w)));
      ul.hidden = !items.length;
      box.querySelector("." + sel + "-title").hidden = !items.length;
    };
    fill("removes", words.removes || []);
    fill("notes", words.notes || []);
    box.hidden = false;
    question = { yes: yes };
    document.getElementById("rt-confirm-yes").focus();
  }
  function answer(yes) {
    const q = question;
    question = null;
    box.hidden = true;
    if (yes && q) q.yes();
    if (byKeyboard) input.focus();
  }
  document.getElementById("rt-confirm-yes").addEventListener("click", (ev) => { ev.preventDefault(); answer(true); });
  document.getElementById("rt-confirm-no").addEventListener("click", (ev) => { ev.preventDefault(); answer(false); });

  function enter(result) {
    if (busy || question || chosen === null) return;
    const x = tableOf(chosen);
    if (!x) return;
    // The proposal's own result is confirmed (its reason stays: flag fall, ...).
    const confirming = !x.result && x.proposal && x.proposal.result === result;
    const path = "/api/v1/arbiter/games/" + encodeURIComponent(x.game) + (confirming ? "/confirm" : "/result");
    ask(path, confirming ? {} : { result: result }, (data) => {
      const action = data.action || {};
      entries.unshift({ seq: action.seq, table: x.table, result: result, summary: action.summary || "", undone: false });
      entries.splice(10);
      drawEntries();
      say(tr("done", { table: x.table, result: resultText(result) }), "ok");
      x.result = result; x.state = "finished"; x.proposal = null;  // until the feed says it again
      unchoose();
      input.value = "";
      drawList();
      if (byKeyboard) input.focus();
      H.read();
    });
  }
  function undo(entry) {
    if (busy || question || !entry || entry.undone || !entry.seq) return;
    ask("/api/v1/arbiter/actions/" + entry.seq + "/undo", {}, () => {
      entry.undone = true;
      drawEntries();
      say(tr("undone") + ": " + t("table", { table: entry.table }) + " " + resultText(entry.result), "ok");
      H.read();
    });
  }
  function drawEntries() {
    doneList.replaceChildren(...entries.map((e) => {
      const li = el("li", e.undone ? "undone" : "");
      li.setAttribute("data-action", String(e.seq));
      li.append(el("span", "tno", String(e.table)), el("span", "r", resultText(e.result)), el("span", "summary", e.summary));
      if (e.undone) li.append(el("span", "state", tr("undone")));
      else {
        const b = el("button", "undo", tr("undo"));
        b.type = "button";
        b.addEventListener("click", () => { byKeyboard = false; undo(e); });
        li.append(b);
      }
      return li;
    }));
  }

  // -- taps and keys -------------------------------------------------------------------------
  for (const b of buttons) b.addEventListener("click", () => { byKeyboard = false; enter(b.getAttribute("data-result")); });
  input.addEventListener("input", () => {
    input.value = input.value.replace(/\D/g, "");
    if (chosen !== null && input.value !== String(chosen)) unchoose();
  });
  document.addEventListener("keydown", function (ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target && target !== input && /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName)) return;
    byKeyboard = true;
    if (question) {
      if (ev.key === "Enter") { ev.preventDefault(); answer(true); }
      else if (ev.key === "Escape") { ev.preventDefault(); answer(false); }
      return;
    }
    if (chosen !== null) {
      const result = KEYS[ev.key.toLowerCase()];
      if (result) { ev.preventDefault(); enter(result); return; }
      // Esc: a new number; Backspace: back to editing this one.
      if (ev.key === "Escape" || ev.key === "Backspace") {
        ev.preventDefault();
        unchoose();
        if (ev.key === "Escape") input.value = "";
        input.focus();
        return;
      }
      if (ev.key === "Enter" || /^\d$/.test(ev.key)) ev.preventDefault();  // not a new number: Esc first
      return;
    }
    if (/^\d$/.test(ev.key)) {
      if (target !== input) { ev.preventDefault(); input.value += ev.key; input.focus(); }
      return;
    }
    if (ev.key === "Enter") {
      ev.preventDefault();
      if (input.value) choose(Number(input.value));
      return;
    }
    if (ev.key === "Escape") { ev.preventDefault(); input.value = ""; say(""); return; }
    if (ev.key.toLowerCase() === "u") { ev.preventDefault(); undo(entries.find((e) => !e.undone)); return; }
    if (target === input && ev.key.length === 1) ev.preventDefault();  // only digits in the number
  });
  unchoose();
})();
