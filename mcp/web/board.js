/* board.js: one episode at /episodes/{id}: its board (drawn by the type's
 * renderer, /types/<type>.js, when the type has one, else the type's text
 * board) with the rule in force and a legend of its marks (as the renderer
 * tells them), the type's rules, whose turn it is or how it ended in words, the position the view reflects (the log entry
 * that changed the episode last, and the block height then) with the
 * digest after that position,
 * and the updates seen since the page opened, drawn from the events of
 * /api/events as they come. */
"use strict";
(() => {
  const id = Number(location.pathname.split("/").pop());
  const loaded = {};
  let last = null;

  function loadScript(src) {
    if (!loaded[src])
      loaded[src] = new Promise((res, rej) => {
        const s = document.createElement("script");
        s.src = src;
        s.onload = res;
        s.onerror = rej;
        document.head.appendChild(s);
      });
    return loaded[src];
  }

  function fact(dl, name, value) {
    dl.appendChild(kdapp.el("dt", null, name));
    dl.appendChild(kdapp.el("dd", null, value));
  }

  async function draw(j) {
    const v = j.view;
    document.getElementById("title").textContent = "episode " + v.episode_id + " (" + v.type + ")";
    document.title = "kdapp episode " + v.episode_id;
    if (j.renderer && !v.deleted) {
      try {
        await loadScript(j.renderer);
      } catch (e) {
        /* drawn as its text board */
      }
    }
    document.getElementById("board").replaceChildren(kdapp.board(v, last, j.text));
    document.getElementById("loading").hidden = true;
    const rule = document.getElementById("rule");
    rule.textContent = kdapp.rule(v);
    rule.hidden = !rule.textContent;
    const legend = kdapp.legend(v);
    document.getElementById("legend").replaceChildren(...(legend ? [legend] : []));
    const rules = document.getElementById("rules");
    rules.hidden = !j.rules;
    document.getElementById("rules-title").textContent = j.title || v.type;
    document.getElementById("rules-text").textContent = j.rules || "";
    const dl = document.getElementById("facts");
    dl.replaceChildren();
    fact(dl, "status", kdapp.turn(v));
    const moves = kdapp.lastMoves(v);
    if (moves.length) fact(dl, moves.length > 1 ? "last moves" : "last move", moves.join(" "));
    if (v.move_count !== undefined) fact(dl, "moves", v.move_count + " (commands applied, duties included)");
    fact(dl, "last event", v.last_event);
    fact(dl, "position", kdapp.position(v));
    fact(dl, "digest there", v.digest);
    fact(dl, "block hash", v.block_hash);
    last = v;
    proofLink(j.audit);
  }

  /* A game that draws: its proof, read from the log again each time the
   * section is opened (kdapp audit; /api/episodes/{id}/audit). */
  let auditPath = null;
  function proofLink(path) {
    const details = document.getElementById("proof");
    details.hidden = !path;
    auditPath = path;
    if (details.open) loadProof(false);
  }

  /* `opened`: the reader just opened the section (show that it loads);
   * else a new view came and the proof is brought up to date in place. */
  async function loadProof(opened) {
    const pre = document.getElementById("proof-text");
    if (opened) pre.textContent = "…";
    try {
      const j = await kdapp.getJSON(auditPath);
      pre.textContent = j.text;
    } catch (e) {
      pre.textContent = e.message;
    }
  }
  document.getElementById("proof").addEventListener("toggle", (e) => {
    if (e.target.open && auditPath) loadProof(true);
  });

  function noteUpdate(v) {
    const moves = v.last_event === "command" ? kdapp.lastMoves(v) : []; /* a rollback names no move */
    const count = v.move_count === undefined ? "" : ", " + v.move_count + (v.move_count === 1 ? " move" : " moves");
    const li = kdapp.el("li", null, "log entry " + v.log_seq + ": " + v.last_event + (moves.length ? " " + moves[moves.length - 1] : "") + count + ", " + kdapp.turn(v));
    const ol = document.getElementById("updates");
    document.getElementById("updates-title").hidden = false;
    ol.insertBefore(li, ol.firstChild);
    while (ol.children.length > 20) ol.removeChild(ol.lastChild);
  }

  /* Draws what get() gives, one at a time in arrival order; a view older
   * than the one drawn (the log only grows, reverts too) is skipped. */
  let queue = Promise.resolve();
  function show(get, note) {
    queue = queue.then(async () => {
      try {
        const j = await get();
        if (last && j.view.log_seq < last.log_seq) return;
        await draw(j);
        if (note) noteUpdate(j.view);
        kdapp.showError("");
      } catch (e) {
        kdapp.showError(e.message);
      }
    });
  }

  const fetchOne = () => kdapp.getJSON("/api/episodes/" + id);
  show(fetchOne, false);
  /* Each event carries the view it announces, so every view the engine
   * published is drawn, a rollback too however soon the next block
   * follows it. */
  kdapp.follow((name, data) => {
    if (name === "resync") show(fetchOne, false);
    else if (name === "view" && data.episode_id === id && data.view) show(() => data, true);
  });
})();
