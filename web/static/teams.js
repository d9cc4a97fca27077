// A team round's and a match's live score (web/templates/_teams.html): each board keeps
// its points for the team named first and its opponent (data-points="1,0"); a result the
// websocket brings (live.js: "result", "game", the snapshot) sets its board's points, and
// the match's score is added up again, "2½–1½", without a reload.
"use strict";
(function () {
  const BW = window.BW;
  if (!BW) return;
  // Game points as people write them (web/teams_json.py points_text): 2½, ½, 3.
  function pointsText(p) {
    const whole = Math.floor(p + 1e-9);
    const half = p - whole >= 0.5;
    return half ? (whole ? whole + "½" : "½") : String(whole);
  }
  // White's and Black's points of a result as the JSON writes it ("*": none yet).
  const POINTS = { "1-0": [1, 0], "0-1": [0, 1], "1/2-1/2": [0.5, 0.5], "½-½": [0.5, 0.5], "0-0": [0, 0] };
  function setBoard(game, result) {
    const points = POINTS[result];
    for (const el of document.querySelectorAll('.mboard[data-board-game="' + CSS.escape(game) + '"]')) {
      if (!points) { el.setAttribute("data-points", ""); continue; }
      const firstWhite = el.getAttribute("data-first-white") === "1";
      const [w, b] = points;
      el.setAttribute("data-points", firstWhite ? w + "," + b : b + "," + w);
    }
  }
  function addUp() {
    for (const match of document.querySelectorAll(".match")) {
      const score = match.querySelector("[data-score]");
      const boards = match.querySelectorAll(".mboard");
      if (!score || !boards.length) continue;
      let first = 0, second = 0, complete = true;
      for (const b of boards) {
        const p = b.getAttribute("data-points");
        if (!p) { complete = false; continue; }
        const [f, s] = p.split(",").map(Number);
        first += f; second += s;
      }
      score.textContent = pointsText(first) + "\u2013" + pointsText(second);
      score.classList.toggle("final", complete);
    }
  }
  BW.hooks.push(function (msg) {
    if (msg.type === "result") setBoard(msg.game, msg.result);
    else if (msg.type === "game" && msg.game) setBoard(msg.game.id, msg.game.result);
    else if (msg.type === "snapshot") for (const g of (msg.data && msg.data.games) || []) setBoard(g.id, g.result);
    else return;
    addUp();
  });
  BW.teams = { addUp: addUp, pointsText: pointsText };
})();
