/* lobby.js: the open tables at / (/api/tables, gateway_lobby.c): each
 * table's id, type, its terms in short, who sits where (a key in short,
 * "open", the keys of the page's own grant marked), its deadline and how
 * to join it. Loaded once, then drawn from each "tables" event list.js
 * passes on ("kdapp-tables" on document, the lobby as its detail; none
 * after a lost stream: read again). Everything in a table came from the
 * chain, chosen by whoever opened it: it is only ever set as text. */
"use strict";
kdapp.lobby = (() => {
  const body = document.querySelector("#lobby tbody");
  const empty = document.getElementById("lobby-empty");
  let yours = new Set(); /* hex keys of the page's token's grant (/api/tables only) */
  let events = 0; /* lobbies drawn from events: a read begun before one is stale */

  /* A key in short: its first 8 hex digits. */
  const short = (hex) => String(hex).slice(0, 8) + "…";

  /* A value of the terms in short: a long hex string (a commitment, a
   * key) cut to its first 8 digits; a zero, false or empty one (the
   * params message's unset member: the type's default, or an open seat's
   * placeholder) left out. */
  function brief(v) {
    if (v === 0 || v === false || v === "" || v === null || v === undefined) return null;
    if (typeof v === "string" && /^[0-9a-f]{17,}$/i.test(v)) return /^0+$/.test(v) ? null : short(v);
    if (typeof v === "string") return JSON.stringify(v);
    return String(v);
  }

  /* The terms as "name=value" words, nested members dotted ("house.reveal_timeout=20"). */
  function terms(params, prefix, out) {
    if (params === null || typeof params !== "object") {
      const b = brief(params);
      if (b !== null) out.push((prefix ? prefix + "=" : "") + b);
      return out;
    }
    for (const [k, v] of Object.entries(params)) {
      if (Array.isArray(v)) {
        const parts = v.map(brief).filter((x) => x !== null);
        if (parts.length) out.push(prefix + k + "=[" + parts.join(",") + "]");
      } else if (v !== null && typeof v === "object") terms(v, prefix + k + ".", out);
      else {
        const b = brief(v);
        if (b !== null) out.push(prefix + k + "=" + b);
      }
    }
    return out;
  }

  function code(text) {
    return kdapp.el("code", null, text);
  }

  function row(t, daa) {
    const tr = kdapp.el("tr");
    tr.id = "table-" + t.episode_id;
    tr.appendChild(kdapp.el("td", null, t.episode_id));
    tr.appendChild(kdapp.el("td", null, t.type));
    const words = terms(t.params, "", []);
    const p = kdapp.el("td", "terms", words.length ? null : "(the defaults)");
    for (const w of words.slice(0, 12)) p.append(kdapp.el("span", "term", w.length > 60 ? w.slice(0, 59) + "…" : w), " ");
    if (words.length > 12) p.append("…");
    p.title = typeof t.params === "string" ? t.params : JSON.stringify(t.params);
    tr.appendChild(p);
    const seats = kdapp.el("td", "seats");
    for (const s of t.seats) {
      const li = kdapp.el("div", s.open ? "seat open" : "seat", s.name + ": ");
      if (s.open) li.appendChild(kdapp.el("span", null, "open"));
      else {
        const k = kdapp.el("span", "key", short(s.key));
        k.title = s.key;
        li.appendChild(k);
        if (yours.has(s.key)) {
          li.classList.add("mine");
          li.appendChild(kdapp.el("span", "yours", " (yours)"));
        }
      }
      seats.appendChild(li);
    }
    tr.appendChild(seats);
    const deadline = kdapp.el("td", "deadline");
    deadline.appendChild(kdapp.el("div", null, "DAA score " + t.deadline_daa));
    if (daa) deadline.appendChild(kdapp.el("div", "left", t.deadline_daa - daa + " to go (the tip at " + daa + ")"));
    tr.appendChild(deadline);
    const join = kdapp.el("td", "join");
    join.appendChild(code("kdapp_join_episode " + JSON.stringify({ episode_id: t.episode_id })));
    join.appendChild(kdapp.el("br"));
    join.appendChild(code("kdapp play --join " + t.episode_id));
    tr.appendChild(join);
    return tr;
  }

  /* Draws lobby `j` ({tables, daa_score}). */
  function draw(j) {
    body.replaceChildren(...j.tables.map((t) => row(t, j.daa_score)));
    empty.hidden = j.tables.length > 0;
    document.getElementById("lobby").hidden = j.tables.length === 0;
  }

  async function load() {
    const seen = events;
    try {
      const j = await kdapp.getJSON("/api/tables");
      yours = new Set(j.your_keys || []);
      if (seen === events) draw(j);
    } catch (e) {
      kdapp.showError(e.message);
    }
  }

  if (body) {
    load();
    document.addEventListener("kdapp-tables", (e) => {
      if (!e.detail) return load();
      events++;
      draw(e.detail);
    });
  }
  return { row, terms };
})();
