/* ratings.js: the ratings table at / (/api/ratings, kdapp://ratings's
 * JSON): every key's Elo rating per episode type, reloaded when list.js
 * says the episodes changed ("kdapp-episodes" on document), at most once a
 * second. */
"use strict";
(() => {
  const body = document.querySelector("#ratings tbody");
  const empty = document.getElementById("ratings-empty");
  if (!body) return;
  let pending = null;

  function row(r) {
    const tr = kdapp.el("tr");
    const key = kdapp.el("td", null, r.key.slice(0, 16) + "…");
    key.title = r.key;
    tr.appendChild(kdapp.el("td", null, r.type));
    tr.appendChild(key);
    for (const v of [r.rating, r.games, r.wins, r.draws, r.losses]) tr.appendChild(kdapp.el("td", null, v));
    return tr;
  }

  async function load() {
    pending = null;
    try {
      const j = await kdapp.getJSON("/api/ratings");
      body.replaceChildren(...j.ratings.map(row));
      empty.hidden = j.ratings.length > 0;
    } catch (e) {
      kdapp.showError(e.message);
    }
  }

  load();
  document.addEventListener("kdapp-episodes", () => {
    if (!pending) pending = setTimeout(load, 1000);
  });
})();
