/* board.js: one episode at /episodes/{id}: its board (drawn by the type's
 * renderer, /types/<type>.js, when the type has one, else the type's text
 * board), whose turn it is, the digest and log position the view reflects,
 * and the updates seen since the page opened. */
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

  function turn(v) {
    if (v.deleted) return "deleted (its creation was reverted)";
    if (v.phase !== "in_progress") return v.phase + (v.winner !== null ? ": " + v.seats[v.winner] + " won" : "");
    return v.to_move !== null ? v.seats[v.to_move] + " to move" : "nobody to move";
  }

  async function draw(j) {
    const v = j.view;
    document.getElementById("title").textContent = "episode " + v.episode_id + " (" + v.type + ")";
    document.title = "kdapp episode " + v.episode_id;
    const board = document.getElementById("board");
    let drawn = null;
    if (j.renderer && !v.deleted) {
      try {
        await loadScript(j.renderer);
        const r = kdapp.renderers[v.type];
        if (r) drawn = r(v, last);
      } catch (e) {
        drawn = null;
      }
    }
    if (!drawn) drawn = kdapp.el("pre", "text", j.text);
    drawn.id = "drawn";
    board.replaceChildren(drawn);
    const dl = document.getElementById("facts");
    dl.replaceChildren();
    fact(dl, "turn", turn(v));
    fact(dl, "status", v.status || v.phase);
    if (v.move_count !== undefined) fact(dl, "moves", v.move_count);
    fact(dl, "last event", v.last_event);
    fact(dl, "log seq", v.log_seq);
    fact(dl, "digest", v.digest);
    fact(dl, "block", v.block_hash);
    last = v;
  }

  async function load(note) {
    try {
      const j = await kdapp.getJSON("/api/episodes/" + id);
      await draw(j);
      if (note) {
        const v = j.view;
        const li = kdapp.el("li", null, "log seq " + v.log_seq + ": " + v.last_event + (v.move_count !== undefined ? ", " + v.move_count + " moves" : "") + ", " + turn(v));
        const ol = document.getElementById("updates");
        ol.insertBefore(li, ol.firstChild);
        while (ol.children.length > 20) ol.removeChild(ol.lastChild);
      }
      kdapp.showError("");
    } catch (e) {
      kdapp.showError(e.message);
    }
  }

  load(false);
  kdapp.follow((name, data) => {
    if (name === "resync" || data.episode_id === id) load(name === "view");
  });
})();
