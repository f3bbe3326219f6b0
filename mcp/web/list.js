/* list.js: the episode list at /, reloaded whenever an episode's view
 * changes; it reads the page's events (/api/events) and passes the
 * lobby's on to lobby.js. */
"use strict";
(() => {
  const body = document.querySelector("#episodes tbody");
  let changed = new Set();

  function row(e) {
    const tr = kdapp.el("tr");
    tr.id = "ep-" + e.episode_id;
    if (changed.has(e.episode_id)) tr.className = "changed";
    const a = kdapp.el("a", null, e.episode_id);
    a.href = "/episodes/" + e.episode_id;
    const id = kdapp.el("td");
    id.appendChild(a);
    tr.appendChild(id);
    const status = e.phase === "in_progress" ? kdapp.words(e.status || e.phase) : kdapp.words(e.status && e.status !== e.phase ? e.status : e.phase);
    for (const v of [e.type, e.seats, status, e.move_count ?? "", e.log_seq]) tr.appendChild(kdapp.el("td", null, v));
    return tr;
  }

  async function load() {
    try {
      const j = await kdapp.getJSON("/api/episodes");
      body.replaceChildren(...j.episodes.map(row));
      document.getElementById("loading").hidden = true;
      document.getElementById("empty").hidden = j.episodes.length > 0;
      kdapp.showError("");
    } catch (e) {
      kdapp.showError(e.message);
    }
  }

  load();
  /* One stream for the page: the lobby's events go to lobby.js; after a
   * lost stream everything is read again. */
  kdapp.follow((name, data) => {
    if (name === "tables") {
      document.dispatchEvent(new CustomEvent("kdapp-tables", { detail: data }));
      return;
    }
    if (name === "view") changed = new Set([data.episode_id]);
    load();
    document.dispatchEvent(new CustomEvent("kdapp-episodes")); /* ratings.js reloads */
    if (name === "resync") document.dispatchEvent(new CustomEvent("kdapp-tables"));
  });
})();
