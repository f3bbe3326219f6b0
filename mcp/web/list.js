/* list.js: the episode list at /, reloaded whenever an episode's view changes. */
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
  kdapp.follow((name, data) => {
    if (name === "view") changed = new Set([data.episode_id]);
    load();
    document.dispatchEvent(new CustomEvent("kdapp-episodes")); /* ratings.js reloads */
  });
})();
